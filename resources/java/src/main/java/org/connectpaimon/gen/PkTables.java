package org.connectpaimon.gen;

import java.util.Map;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * The primary-key tables of the Java oracle. Each method writes a few commits of tens of rows
 * with a history chosen to exercise one reader feature (comments say which), then asks
 * {@link PkOracle#dumpAll} for Java's reads of every snapshot.
 */
final class PkTables {
    private PkTables() {}

    /** The row kinds, short, for the tables' histories (static-imported by the other table classes). */
    static final RowKind I = RowKind.INSERT;
    static final RowKind UB = RowKind.UPDATE_BEFORE;
    static final RowKind UA = RowKind.UPDATE_AFTER;
    static final RowKind D = RowKind.DELETE;

    static BinaryString s(String v) {
        return v == null ? null : BinaryString.fromString(v);
    }

    static GenericRow r(RowKind k, Object... values) {
        return GenericRow.ofKind(k, values);
    }

    /**
     * Deduplicate engine with upserts, -U/+U pairs, deletes, re-inserts of deleted keys, full
     * compactions (COMPACT snapshots, level upgrades) and level-0 files left on top of compacted
     * ones at the end. Shared by the DV and changelog-producer variants, whose extra options
     * change what compaction writes (deletion vectors, changelog files).
     */
    static void dedup(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
                .column("n", DataTypes.BIGINT()).primaryKey("id").option("bucket", "2");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            GenericRow[] first = new GenericRow[10];
            for (int i = 1; i <= 10; i++) first[i - 1] = r(I, i, s("a" + i), (long) i * 10);
            w.commit(first);
            w.commit(r(I, 1, s("b1"), 11L), r(UB, 2, s("a2"), 20L), r(UA, 2, s("b2"), 21L),
                    r(D, 3, s("a3"), 30L), r(D, 4, null, null));
            w.compact(true);
            w.commit(r(I, 11, s("c11"), 110L), r(I, 12, s("c12"), 120L), r(I, 13, null, 130L), r(I, 14, s("c14"), null),
                    r(I, 3, s("c3"), 31L), r(D, 5, s("a5"), 50L));
            w.commit(r(UB, 6, s("a6"), 60L), r(UA, 6, s("d6"), 61L), r(D, 11, s("c11"), 110L), r(I, 1, s("d1"), 12L));
            w.compact(false);
            w.commit(r(I, 7, s("e7"), 71L), r(D, 12, s("c12"), 120L), r(I, 15, s("e15"), 150L));
        }
        g.dumpAll(name);
    }

    /**
     * full-compaction.delta-commits = 2 with the full-compaction changelog producer: a compacted-full
     * stream starts at the last COMPACT commit whose commit identifier is a multiple of 2 (Java's
     * FullCompactedStartingScanner), here the full compaction of checkpoint 2, not the later
     * COMPACT commit of checkpoint 5, which is not a full compaction. The stream then reads the
     * changelog of checkpoint 5's compaction. Then the mode is stored in the table, and Java's
     * batch read of it is dumped too.
     */
    static void fullCompDelta(PkOracle g, String name) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
                .primaryKey("id").option("bucket", "1").option("changelog-producer", "full-compaction")
                .option("full-compaction.delta-commits", "2");
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, 1, s("a1")), r(I, 2, s("a2")), r(I, 3, s("a3")));   // checkpoint 1
            w.compact(true);                                                  // 2: full
            w.commit(r(I, 1, s("b1")), r(D, 2, s("a2")), r(I, 4, s("b4")));   // 3
            w.commit(r(I, 5, s("c5")), r(I, 3, s("c3")));                      // 4
            w.compact(true);                                                  // 5: not a multiple of 2
            w.commit(r(I, 6, s("d6")), r(D, 1, s("b1")));                      // 6
        }
        g.dumpAll(name, "compacted-full");
        // A batch read with scan.mode=compacted-full stored in the table reads the same full
        // compaction's snapshot, all levels merged.
        g.dumpStoredBatch(name, Map.of("scan.mode", "compacted-full"));
    }

    /**
     * The dedup history, then a read position stored in the table (an incremental read) and
     * Java's batch read of it: the changes of the snapshots it covers, unmerged, with row kinds.
     */
    static void dedupStored(PkOracle g, String name, Map<String, String> extra, Map<String, String> stored) throws Exception {
        dedup(g, name, extra);
        g.dumpStoredBatch(name, stored);
    }

    /** dedup's history with tags at the given snapshots, then a stored incremental read. */
    static void dedupStored(PkOracle g, String name, Map<String, String> extra, Map<String, String> stored,
                            Map<String, Long> tags) throws Exception {
        dedup(g, name, extra);
        g.dumpStoredBatch(name, stored, tags);
    }

    /** First-row engine: later writes of a key are ignored; Java's batch read skips level 0. */
    static void firstRow(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "first-row");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            GenericRow[] rows = new GenericRow[6];
            for (int i = 1; i <= 6; i++) rows[i - 1] = r(I, i, s("first" + i));
            w.commit(rows);
            w.commit(r(I, 1, s("second1")), r(I, 3, s("second3")), r(I, 7, s("second7")), r(I, 8, s("second8")));
            w.compact(true);
            w.commit(r(I, 2, s("third2")), r(I, 9, s("third9")));
        }
        g.dumpAll(name);
    }

    /** Partial update with ignore-delete: nulls keep the old value, deletes are dropped. */
    static void partial(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("a", DataTypes.STRING())
                .column("b", DataTypes.INT()).column("c", DataTypes.STRING()).primaryKey("id")
                .option("bucket", "1").option("merge-engine", "partial-update").option("ignore-delete", "true");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, 1, s("a1"), null, null), r(I, 2, s("a2"), 20, null));
            w.commit(r(I, 1, null, 10, null), r(I, 2, null, null, s("c2")), r(I, 3, s("a3"), null, s("c3")));
            w.commit(r(D, 1, s("a1"), 10, null), r(I, 3, null, 30, null));
            w.compact(true);
            w.commit(r(I, 1, s("a1x"), null, s("c1")), r(I, 4, null, 40, null));
        }
        g.dumpAll(name);
    }

    /** Aggregation engine with several functions, the default (last_non_null_value) included. */
    static void agg(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("total", DataTypes.BIGINT())
                .column("mx", DataTypes.INT()).column("mn", DataTypes.INT()).column("last", DataTypes.STRING())
                .column("tags", DataTypes.STRING()).column("flag", DataTypes.BOOLEAN()).column("other", DataTypes.STRING())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "aggregation")
                .option("fields.total.aggregate-function", "sum")
                .option("fields.mx.aggregate-function", "max")
                .option("fields.mn.aggregate-function", "min")
                .option("fields.last.aggregate-function", "last_non_null_value")
                .option("fields.tags.aggregate-function", "listagg")
                .option("fields.flag.aggregate-function", "bool_or");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, 1, 10L, 5, 5, s("x"), s("t1"), false, s("o1")), r(I, 2, 1L, 1, 1, null, s("u"), false, null));
            w.commit(r(I, 1, 5L, 7, 3, null, s("t2"), true, null), r(I, 3, null, null, null, s("z"), null, null, s("o3")),
                    r(I, 2, 2L, 0, 0, s("y"), s("v"), false, s("o2")));
            w.compact(true);
            w.commit(r(I, 1, -2L, 2, 9, s("y"), s("t3"), false, s("o1b")), r(I, 3, 7L, 4, 4, null, s("w"), true, null));
        }
        g.dumpAll(name);
    }

    /** sequence.field: a lower ts loses against a higher one whatever the write order, deletes too. */
    static void seq(PkOracle g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
                .column("ts", DataTypes.BIGINT()).primaryKey("id").option("bucket", "1").option("sequence.field", "ts").build();
        try (PkWriter w = g.create("pk_seq", schema)) {
            w.commit(r(I, 1, s("a"), 10L), r(I, 2, s("a"), 10L), r(I, 3, s("a"), 10L), r(I, 5, s("a"), 10L));
            w.commit(r(I, 1, s("b"), 5L), r(I, 2, s("b"), 20L), r(I, 3, s("b"), 10L));
            w.commit(r(D, 2, s("del"), 15L), r(D, 1, s("del"), 100L), r(I, 4, s("c"), 1L));
            w.compact(true);
            w.commit(r(I, 2, s("d"), 19L), r(I, 4, s("d"), 2L), r(I, 5, s("d"), 9L));
        }
        g.dumpAll("pk_seq");
    }

    /** bucket=-1: the writer is the bucket assigner (key parity), Java keeps the hash index. */
    static void dynamic(PkOracle g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
                .primaryKey("id").option("bucket", "-1").build();
        try (PkWriter w = g.create("pk_dynamic", schema)) {
            GenericRow[] rows = new GenericRow[6];
            int[] bk = new int[6];
            for (int i = 1; i <= 6; i++) {
                rows[i - 1] = r(I, i, s("a" + i));
                bk[i - 1] = i % 2;
            }
            w.commitToBuckets(bk, rows);
            w.commitToBuckets(new int[] {1, 0, 1}, r(I, 1, s("b1")), r(I, 2, s("b2")), r(D, 3, s("a3")));
            w.compact(true);
            w.commitToBuckets(new int[] {1, 0, 0}, r(I, 7, s("c7")), r(I, 8, s("c8")), r(I, 4, s("c4")));
        }
        g.dumpAll("pk_dynamic");
    }

    /** Partitioned PK table: the partition is part of the key, compaction per partition. */
    static void part(PkOracle g) throws Exception {
        part(g, "pk_part", Map.of());
    }

    static void part(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("dt", DataTypes.STRING()).column("id", DataTypes.INT())
                .column("v", DataTypes.STRING()).partitionKeys("dt").primaryKey("dt", "id").option("bucket", "2");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, s("2024-01-01"), 1, s("a")), r(I, s("2024-01-01"), 2, s("a")), r(I, s("2024-01-01"), 3, s("a")),
                    r(I, s("2024-01-01"), 4, s("a")), r(I, s("2024-01-02"), 1, s("a")), r(I, s("2024-01-02"), 2, s("a")),
                    r(I, s("2024-01-02"), 3, s("a")));
            w.commit(r(I, s("2024-01-01"), 1, s("b")), r(D, s("2024-01-02"), 2, s("a")), r(I, s("2024-01-03"), 1, s("b")));
            w.compact(true);
            w.commit(r(UB, s("2024-01-02"), 3, s("a")), r(UA, s("2024-01-02"), 3, s("c")), r(I, s("2024-01-01"), 5, s("c")));
        }
        g.dumpAll(name);
    }

    /** Schema evolution between commits: a column added and INT widened to BIGINT. */
    static void evolve(PkOracle g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.INT())
                .column("s", DataTypes.STRING()).primaryKey("id").option("bucket", "1").build();
        try (PkWriter w = g.create("pk_evolve", schema)) {
            w.commit(r(I, 1, 10, s("a")), r(I, 2, 20, s("b")));
            w.commit(r(I, 3, 30, s("c")), r(I, 1, 11, s("a2")));
            w.alter(SchemaChange.addColumn("extra", DataTypes.STRING()), SchemaChange.updateColumnType("v", DataTypes.BIGINT()));
            w.commit(r(I, 2, 1L << 40, s("b2"), s("x")), r(I, 4, 40L, s("d"), null));
            w.compact(true);
            w.commit(r(I, 5, 50L, s("e"), s("y")), r(D, 3, 30L, s("c"), null));
        }
        g.dumpAll("pk_evolve");
    }
}
