package org.connectpaimon.gen;

import static org.connectpaimon.gen.PkTables.I;
import static org.connectpaimon.gen.PkTables.UB;
import static org.connectpaimon.gen.PkTables.UA;
import static org.connectpaimon.gen.PkTables.D;
import static org.connectpaimon.gen.PkTables.r;
import static org.connectpaimon.gen.PkTables.s;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * A primary-key table in the cross-partition bucket mode a Flink job writes
 * ({@link PkPostponeTables} has the other, postpone buckets):
 *
 * <ul>
 *   <li>{@code pk_cross}: bucket = -1 with a primary key that does not contain the partition key
 *       (cross-partition update, KEY_DYNAMIC). Flink routes records through {@code
 *       GlobalIndexAssigner}, whose key index lives in RocksDB (rocksdbjni is not a dependency
 *       here), so {@link CrossAssigner} plays its part in memory with the same output: a key
 *       seen in another partition gets a DELETE of the old row in its old partition and bucket
 *       ({@code DeleteExistingProcessor}, the deduplicate engine's choice) and the new row goes
 *       to a bucket of the new partition that holds fewer than {@code
 *       dynamic-bucket.target-row-num} keys. The records reach Java's own writer by {@code
 *       write(row, bucket)}, as Flink's dynamic-bucket writer hands them over.
 * </ul>
 */
final class PkBucketModeTables {
    private PkBucketModeTables() {}

    /** Keys per bucket before the assigner opens the next bucket of a partition (pk_cross). */
    private static final int CROSS_TARGET_ROWS = 2;

    /**
     * In-memory stand-in for GlobalIndexAssigner with the deduplicate engine: key to (partition,
     * bucket), and per partition the keys held by each bucket. Keys are never forgotten (Java's
     * index keeps deleted keys too), so a re-insert lands in the key's last bucket.
     */
    private static final class CrossAssigner {
        private final Map<Integer, String> keyPart = new HashMap<>();
        private final Map<Integer, Integer> keyBucket = new HashMap<>();
        private final Map<String, TreeMap<Integer, Integer>> counts = new HashMap<>();
        private final List<GenericRow> rows = new ArrayList<>();
        private final List<Integer> buckets = new ArrayList<>();

        /** Routes one record (dt, id, v) and queues what Java's assigner would emit. */
        void add(RowKind kind, String dt, int id, String v) {
            String prev = keyPart.get(id);
            if (prev != null && prev.equals(dt)) {
                emit(r(kind, s(dt), id, s(v)), keyBucket.get(id));
                return;
            }
            if (prev != null) {
                // The old row is retracted where it lives; its value columns are the new row's,
                // as DeleteExistingProcessor only swaps the partition fields.
                emit(r(D, s(prev), id, s(v)), keyBucket.get(id));
                counts.get(prev).merge(keyBucket.get(id), -1, Integer::sum);
            }
            TreeMap<Integer, Integer> c = counts.computeIfAbsent(dt, k -> new TreeMap<>());
            int bucket = 0;
            while (c.getOrDefault(bucket, 0) >= CROSS_TARGET_ROWS) bucket++;
            c.merge(bucket, 1, Integer::sum);
            keyPart.put(id, dt);
            keyBucket.put(id, bucket);
            emit(r(kind, s(dt), id, s(v)), bucket);
        }

        private void emit(GenericRow row, int bucket) {
            rows.add(row);
            buckets.add(bucket);
        }

        /** Writes the queued records as one commit. */
        void commit(PkWriter w) throws Exception {
            int[] b = buckets.stream().mapToInt(Integer::intValue).toArray();
            w.commitToBuckets(b, rows.toArray(new GenericRow[0]));
            rows.clear();
            buckets.clear();
        }
    }

    /**
     * Cross-partition update: keys move between partitions (a DELETE in the old partition, the
     * row in the new one within one commit), update in place, are deleted and come back, around
     * a full and a minor compaction.
     */
    static void cross(PkOracle g) throws Exception {
        Schema schema = Schema.newBuilder().column("dt", DataTypes.STRING()).column("id", DataTypes.INT())
                .column("v", DataTypes.STRING()).partitionKeys("dt").primaryKey("id")
                .option("bucket", "-1").option("dynamic-bucket.target-row-num", Integer.toString(CROSS_TARGET_ROWS))
                .build();
        CrossAssigner a = new CrossAssigner();
        try (PkWriter w = g.create("pk_cross", schema)) {
            for (int i = 1; i <= 4; i++) a.add(I, "a", i, "a" + i);
            a.add(I, "b", 5, "a5");
            a.add(I, "b", 6, "a6");
            a.commit(w);
            // 1 moves a -> b, 5 moves b -> a, 2 updated in place (-U/+U), 3 deleted in place.
            a.add(I, "b", 1, "b1");
            a.add(I, "a", 5, "b5");
            a.add(UB, "a", 2, "a2");
            a.add(UA, "a", 2, "b2");
            a.add(D, "a", 3, "a3");
            a.commit(w);
            w.compact(true);
            // 1 moves back to a, 6 moves to the new partition c, 4 updated, 7 new in c, 3 re-inserted.
            a.add(I, "a", 1, "c1");
            a.add(I, "c", 6, "c6");
            a.add(I, "a", 4, "c4");
            a.add(I, "c", 7, "c7");
            a.add(I, "a", 3, "c3");
            a.commit(w);
            w.compact(false);
            // 2 moves to c, 5 deleted in a, 6 moves back to b.
            a.add(I, "c", 2, "d2");
            a.add(D, "a", 5, "b5");
            a.add(I, "b", 6, "d6");
            a.commit(w);
        }
        g.dumpAll("pk_cross");
    }
}
