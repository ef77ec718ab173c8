package org.connectpaimon.gen;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;

/**
 * One long-lived streaming writer on a PK table, as a Flink sink would hold it: the writer keeps
 * its merge-tree state (levels, lookup caches) across commits, so compactions and changelog
 * production behave as in a real job. Every commit waits for compaction so the snapshot
 * sequence is the same on every run.
 */
final class PkWriter implements AutoCloseable {
    private static final String COMMIT_USER = "javapkgen";

    private final Catalog catalog;
    private final Identifier id;
    private final Path tmp;
    private final Map<String, String> dynamicOptions;
    private final String commitUser;
    private final Map<BinaryRow, TreeSet<Integer>> written = new LinkedHashMap<>();
    private Table table;
    private IOManager io;
    private StreamTableWrite write;
    private StreamTableCommit commit;
    private long identifier = 1;

    PkWriter(Catalog catalog, Identifier id, Path tmp) throws Exception {
        this(catalog, id, tmp, Map.of(), COMMIT_USER);
    }

    /**
     * A writer with dynamic table options (e.g. write-only=true: level-0 files that no
     * compaction touches) under its own commit user, beside the table's main writer.
     */
    PkWriter(Catalog catalog, Identifier id, Path tmp, Map<String, String> dynamicOptions, String commitUser) throws Exception {
        this.catalog = catalog;
        this.id = id;
        this.tmp = tmp;
        this.dynamicOptions = dynamicOptions;
        this.commitUser = commitUser;
        open();
    }

    private void open() throws Exception {
        table = catalog.getTable(id);
        if (!dynamicOptions.isEmpty()) table = table.copy(dynamicOptions);
        StreamWriteBuilder wb = table.newStreamWriteBuilder().withCommitUser(commitUser);
        // Lookup compaction (changelog-producer=lookup, deletion vectors, first-row) spills
        // through the IOManager; without one Java refuses to build those writers.
        io = IOManager.create(tmp.toString());
        write = (StreamTableWrite) wb.newWrite().withIOManager(io);
        commit = wb.newCommit();
    }

    /** Writes rows (bucket chosen by the table) and commits them as one snapshot. */
    void commit(InternalRow... rows) throws Exception {
        for (InternalRow r : rows) {
            written.computeIfAbsent(write.getPartition(r).copy(), k -> new TreeSet<>()).add(write.getBucket(r));
            write.write(r);
        }
        flush();
    }

    /** Writes rows into explicit buckets (dynamic bucket mode: the caller is the assigner). */
    void commitToBuckets(int[] buckets, InternalRow... rows) throws Exception {
        for (int i = 0; i < rows.length; i++) {
            written.computeIfAbsent(write.getPartition(rows[i]).copy(), k -> new TreeSet<>()).add(buckets[i]);
            write.write(rows[i], buckets[i]);
        }
        flush();
    }

    /** Compacts every (partition, bucket) written so far and commits (a COMPACT snapshot). */
    void compact(boolean full) throws Exception {
        for (Map.Entry<BinaryRow, TreeSet<Integer>> e : written.entrySet()) {
            for (int b : e.getValue()) write.compact(e.getKey(), b, full);
        }
        flush();
    }

    private void flush() throws Exception {
        List<CommitMessage> msgs = write.prepareCommit(true, identifier);
        commit.commit(identifier, msgs);
        identifier++;
    }

    /** Applies schema changes and reopens the writer on the new schema. */
    void alter(SchemaChange... changes) throws Exception {
        closeWriter();
        catalog.alterTable(id, java.util.Arrays.asList(changes), false);
        open();
    }

    private void closeWriter() throws Exception {
        write.close();
        commit.close();
        io.close();
    }

    @Override
    public void close() throws Exception {
        closeWriter();
    }
}
