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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * {@code pk_postpone}: a primary-key table with bucket = -2. Plain writes go to {@code
 * bucket-postpone} (invisible to batch reads); {@link #postponeCompact} is the core of Paimon
 * 1.3's Flink {@code CompactAction.buildForPostponeBucketCompaction} without Flink: replay each
 * postpone file (oldest first) through a fixed-bucket copy of the table, turn its new files into
 * compactAfter, remove the postpone files as compactBefore, and commit one COMPACT snapshot.
 */
final class PkPostponeTables {
    private PkPostponeTables() {}

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
