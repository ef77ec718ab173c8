package org.connectpaimon.gen;

import static org.connectpaimon.gen.PkTables.I;
import static org.connectpaimon.gen.PkTables.UB;
import static org.connectpaimon.gen.PkTables.UA;
import static org.connectpaimon.gen.PkTables.D;
import static org.connectpaimon.gen.PkTables.r;
import static org.connectpaimon.gen.PkTables.s;

import java.util.Map;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * Lookup-mode layouts (changelog-producer=lookup, force-lookup, deletion vectors, first-row):
 * a full compaction puts every key into the highest level; later commits are lookup-compacted
 * into a lower level whose record already holds the merged value of the older copy left above;
 * a second, write-only writer then adds level-0 files no compaction touches. Java's reader keeps
 * per key only the level-0 records plus the record of the lowest level above 0
 * (LookupMergeFunction); merging every copy would aggregate the highest level twice.
 */
final class PkLookupTables {
    private PkLookupTables() {}

    private static final String LEVEL0_USER = "javapkgen-level0";

    /** Aggregation: sum (INT, BIGINT), max, listagg and the default last_non_null_value. */
    static void agg(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("total", DataTypes.INT())
                .column("n", DataTypes.BIGINT()).column("mx", DataTypes.INT()).column("ls", DataTypes.STRING())
                .column("v", DataTypes.STRING()).primaryKey("id").option("bucket", "1")
                .option("merge-engine", "aggregation")
                .option("fields.total.aggregate-function", "sum").option("fields.n.aggregate-function", "sum")
                .option("fields.mx.aggregate-function", "max").option("fields.ls.aggregate-function", "listagg")
                .option("fields.mx.ignore-retract", "true").option("fields.ls.ignore-retract", "true");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            // Enough keys that the highest level outweighs what lands below it, so size-ratio
            // compaction leaves the lower levels in place.
            GenericRow[] first = new GenericRow[40];
            for (int i = 1; i <= 40; i++) first[i - 1] = r(I, i, i, (long) i * 10, i, s("a" + i), s("v" + i));
            w.commit(first);
            w.compact(true);
            // Lookup compaction of these level-0 files writes the merged rows one level down.
            w.commit(r(I, 1, 5, 1L, 0, s("b1"), null), r(I, 2, 10, 2L, 20, s("b2"), s("w2")),
                    r(I, 6, 6, 60L, 6, s("b6"), s("v6")));
            w.commit(r(I, 1, 6, 1L, 9, s("c1"), s("x1")), r(UB, 2, 10, 2L, 20, s("b2"), null),
                    r(UA, 2, 7, 7L, 3, s("c2"), null), r(D, 3, 3, 30L, 3, s("a3"), null));
        }
        try (PkWriter w0 = g.writer(name, Map.of("write-only", "true"), LEVEL0_USER)) {
            w0.commit(r(I, 1, 100, 100L, 1, s("d1"), null), r(I, 4, 1, 1L, 1, s("d4"), s("w4")));
            w0.commit(r(I, 1, 1000, 1000L, 2, s("e1"), s("y1")), r(I, 7, 7, 70L, 7, s("e7"), null));
        }
        g.dumpAll(name);
    }

    /**
     * Partial update with a sequence group (a, b and the sum s): the lookup-compacted record
     * holds s already summed with the older copy above, which must not be added again.
     */
    static void partial(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("a", DataTypes.STRING())
                .column("b", DataTypes.INT()).column("s", DataTypes.INT()).column("g1", DataTypes.INT())
                .column("c", DataTypes.STRING())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "partial-update")
                .option("fields.g1.sequence-group", "a,b,s").option("fields.s.aggregate-function", "sum");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            GenericRow[] first = new GenericRow[20];
            for (int i = 1; i <= 20; i++) first[i - 1] = r(I, i, s("a" + i), i, i, 1, s("c" + i));
            w.commit(first);
            w.compact(true);
            w.commit(r(UB, 1, s("a1"), 1, 1, 2, null), r(I, 2, null, null, null, null, s("c2n")),
                    r(I, 3, s("a3n"), null, 10, 2, null));
            // Fewer rows than the level below: size-ratio compaction then writes them one level
            // lower instead of merging everything into the highest level.
            w.commit(r(I, 4, s("a4old"), 40, 5, 0, s("c4n")), r(I, 3, s("a3m"), 3, 7, 3, null));
        }
        try (PkWriter w0 = g.writer(name, Map.of("write-only", "true"), LEVEL0_USER)) {
            w0.commit(r(I, 1, null, null, null, null, s("c1z")), r(I, 3, s("a3z"), 33, 100, 4, null));
            w0.commit(r(UB, 3, null, null, 1, 5, null), r(I, 22, s("a22"), 22, 22, 1, s("c22")));
        }
        g.dumpAll(name);
    }

    /** Deduplicate: upserts and deletes compacted into a lower level above the older copy. */
    static void dedup(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
                .column("n", DataTypes.BIGINT()).primaryKey("id").option("bucket", "1");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            GenericRow[] first = new GenericRow[5];
            for (int i = 1; i <= 5; i++) first[i - 1] = r(I, i, s("a" + i), (long) i);
            w.commit(first);
            w.compact(true);
            w.commit(r(I, 1, s("b1"), 11L), r(D, 2, s("a2"), 2L), r(I, 6, s("b6"), 6L));
            w.commit(r(UB, 3, s("a3"), 3L), r(UA, 3, s("c3"), 33L), r(I, 2, s("c2"), 22L));
        }
        try (PkWriter w0 = g.writer(name, Map.of("write-only", "true"), LEVEL0_USER)) {
            w0.commit(r(I, 1, s("d1"), 111L), r(D, 4, s("a4"), 4L));
            w0.commit(r(D, 1, s("d1"), 111L), r(I, 7, s("d7"), 7L));
        }
        g.dumpAll(name);
    }

    /** First-row: later writes of a key lose, whatever level they land in. */
    static void firstRow(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "first-row");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            GenericRow[] first = new GenericRow[4];
            for (int i = 1; i <= 4; i++) first[i - 1] = r(I, i, s("first" + i));
            w.commit(first);
            w.compact(true);
            w.commit(r(I, 1, s("second1")), r(I, 5, s("second5")));
            w.commit(r(I, 5, s("third5")), r(I, 6, s("third6")), r(I, 2, s("third2")));
        }
        try (PkWriter w0 = g.writer(name, Map.of("write-only", "true"), LEVEL0_USER)) {
            w0.commit(r(I, 1, s("fourth1")), r(I, 7, s("fourth7")));
        }
        g.dumpAll(name);
    }
}
