package org.connectpaimon.gen;

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
 * Primary-key tables in the two bucket modes a Flink job normally writes:
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
 *   <li>{@code pk_postpone}: bucket = -2. Plain writes go to {@code bucket-postpone} (invisible to
 *       batch reads); {@link #postponeCompact} is the core of Paimon 1.3's Flink {@code
 *       CompactAction.buildForPostponeBucketCompaction} without Flink: replay each postpone file
 *       (oldest first) through a fixed-bucket copy of the table, turn its new files into
 *       compactAfter, remove the postpone files as compactBefore, and commit one COMPACT
 *       snapshot.
 * </ul>
 */
final class PkBucketModeTables {
    private PkBucketModeTables() {}

    private static final RowKind I = RowKind.INSERT;
    private static final RowKind UB = RowKind.UPDATE_BEFORE;
    private static final RowKind UA = RowKind.UPDATE_AFTER;
    private static final RowKind D = RowKind.DELETE;

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

    /**
     * Postpone bucket: two commits stay in bucket-postpone (batch reads see nothing), a postpone
     * compaction moves them into 2 real buckets per partition, more writes (an update, a delete,
     * a new partition) wait in bucket-postpone again until a second compaction (existing
     * partitions keep their bucket count), and a last write stays postponed.
     */
    static void postpone(PkOracle g) throws Exception {
        String name = "pk_postpone";
        Schema schema = Schema.newBuilder().column("dt", DataTypes.STRING()).column("id", DataTypes.INT())
                .column("v", DataTypes.STRING()).column("n", DataTypes.BIGINT()).partitionKeys("dt")
                .primaryKey("dt", "id").option("bucket", "-2").build();
        try (PkWriter w = g.create(name, schema)) {
            GenericRow[] first = new GenericRow[8];
            for (int i = 1; i <= 8; i++) first[i - 1] = r(I, s(i <= 5 ? "a" : "b"), i, s("a" + i), (long) i * 10);
            w.commit(first);
            w.commit(r(I, s("a"), 1, s("b1"), 11L), r(UB, s("a"), 2, s("a2"), 20L), r(UA, s("a"), 2, s("b2"), 21L),
                    r(D, s("a"), 3, s("a3"), 30L), r(I, s("b"), 9, s("b9"), 90L));
            postponeCompact(g, name, 2);
            w.commit(r(I, s("a"), 4, s("c4"), 41L), r(D, s("b"), 6, s("a6"), 60L), r(I, s("c"), 1, s("c1"), 100L),
                    r(I, s("a"), 3, s("c3"), 31L));
            w.commit(r(I, s("a"), 4, s("d4"), 42L), r(I, s("c"), 2, s("d2"), 200L));
            postponeCompact(g, name, 3);
            w.commit(r(I, s("a"), 5, s("e5"), 51L), r(D, s("b"), 7, s("a7"), 70L));
        }
        g.dumpAll(name);
    }

    /**
     * One postpone-bucket compaction of every partition, as Paimon 1.3's Flink compact action
     * runs it: a partition that already has real buckets keeps their count, a new one gets
     * defaultBuckets (postpone.default-bucket-num).
     */
    static void postponeCompact(PkOracle g, String name, int defaultBuckets) throws Exception {
        FileStoreTable table = (FileStoreTable) g.table(name);
        long snapshot = table.latestSnapshot().orElseThrow().id();
        FileStoreTable scanTable = withBuckets(table, defaultBuckets);
        List<BinaryRow> partitions = scanTable.newSnapshotReader().withSnapshot(snapshot)
                .withBucket(-2).partitions();
        String user = "javapkgen-postpone-compact";
        List<CommitMessage> messages = new ArrayList<>();
        IOManager io = g.ioManager();
        try {
            for (BinaryRow part : partitions) {
                int buckets = defaultBuckets;
                Iterator<ManifestEntry> it = scanTable.newSnapshotReader().withSnapshot(snapshot)
                        .withPartitionFilter(Collections.singletonList(part)).onlyReadRealBuckets().readFileIterator();
                if (it.hasNext()) buckets = it.next().totalBuckets();
                FileStoreTable real = withBuckets(table, buckets);
                TableWriteImpl<?> write = real.newWrite(user).withIOManager(io);
                TableRead read = real.newReadBuilder().newRead().withIOManager(io);
                List<Split> splits = real.newSnapshotReader().withSnapshot(snapshot)
                        .withPartitionFilter(Collections.singletonList(part)).withBucket(-2).read().splits();
                for (Split sp : splits) {
                    DataSplit ds = (DataSplit) sp;
                    List<DataFileMeta> files = new ArrayList<>(ds.dataFiles());
                    // Records must be replayed in write order, file by file.
                    files.sort(Comparator.comparing(DataFileMeta::creationTime));
                    for (DataFileMeta f : files) {
                        DataSplit one = DataSplit.builder().withSnapshot(snapshot).withPartition(ds.partition())
                                .withBucket(ds.bucket()).withBucketPath(ds.bucketPath())
                                .withTotalBuckets(ds.totalBuckets()).withDataFiles(Collections.singletonList(f))
                                .isStreaming(false).build();
                        try (RecordReader<InternalRow> rr = read.createReader(one)) {
                            rr.forEachRemaining(row -> {
                                try {
                                    write.write(row);
                                } catch (Exception e) {
                                    throw new RuntimeException("postpone compact " + name + ": " + e.getMessage(), e);
                                }
                            });
                        }
                    }
                    messages.add(new CommitMessageImpl(ds.partition(), ds.bucket(), ds.totalBuckets(),
                            DataIncrement.emptyIncrement(),
                            new CompactIncrement(ds.dataFiles(), Collections.emptyList(), Collections.emptyList())));
                }
                for (CommitMessage m : write.prepareCommit(true, 1)) messages.add(asCompact((CommitMessageImpl) m));
                write.close();
            }
            try (StreamTableCommit commit = table.newStreamWriteBuilder().withCommitUser(user).newCommit()) {
                commit.commit(snapshot, messages);
            }
        } finally {
            io.close();
        }
    }

    /** A copy of the table with a fixed bucket count, the writer and scanner of a postpone compaction. */
    private static FileStoreTable withBuckets(FileStoreTable table, int buckets) {
        Map<String, String> opts = new LinkedHashMap<>(table.options());
        opts.put("bucket", Integer.toString(buckets));
        return table.copy(table.schema().copy(opts));
    }

    /**
     * The compactor commits only COMPACT snapshots: the replay's new files become compactAfter
     * (PostponeBucketCommittableRewriter). A file both written and compacted away in the replay
     * would have to be deleted; these small replays never trigger that, so it is refused.
     */
    private static CommitMessage asCompact(CommitMessageImpl m) {
        List<DataFileMeta> after = new ArrayList<>(m.newFilesIncrement().newFiles());
        List<DataFileMeta> before = new ArrayList<>(m.compactIncrement().compactBefore());
        for (DataFileMeta f : before) {
            if (after.stream().anyMatch(x -> x.fileName().equals(f.fileName()))) {
                throw new IllegalStateException("postpone compact: new file " + f.fileName() + " compacted in the same replay");
            }
        }
        after.addAll(m.compactIncrement().compactAfter());
        List<DataFileMeta> changelog = new ArrayList<>(m.newFilesIncrement().changelogFiles());
        changelog.addAll(m.compactIncrement().changelogFiles());
        return new CommitMessageImpl(m.partition(), m.bucket(), m.totalBuckets(), DataIncrement.emptyIncrement(),
                new CompactIncrement(before, after, changelog));
    }
}
