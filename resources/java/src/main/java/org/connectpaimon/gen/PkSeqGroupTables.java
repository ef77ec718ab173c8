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
 * Primary-key tables for the partial-update and aggregation options beyond the basics: sequence
 * groups (single- and multi-field, with per-field aggregators), retracts that null out or retract
 * a group, the remove-record-on-* options and sequence.field with these engines. Java's write
 * buffer merges the records of one key within a commit, so every history that must reach the
 * reader as separate records spreads a key's updates over separate commits (one level-0 file
 * each).
 */
final class PkSeqGroupTables {
    private PkSeqGroupTables() {}

    /**
     * Three sequence groups: g1 (a, b, s1 sum), g2 (c and the non-retractable aggregators, never
     * retracted) and the two-field group (g3a, g3b) over e, lv (last_value), lnn
     * (last_non_null_value); x belongs to no group. Records arrive newer and older than the
     * group's sequence, with empty groups, and as -U/-D retracts, before and after a full
     * compaction.
     */
    static void groups(PkOracle g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT())
                .column("a", DataTypes.STRING()).column("b", DataTypes.INT()).column("s1", DataTypes.INT())
                .column("g1", DataTypes.INT())
                .column("c", DataTypes.STRING()).column("mx", DataTypes.INT()).column("mn", DataTypes.INT())
                .column("ls", DataTypes.STRING()).column("fv", DataTypes.STRING()).column("fnn", DataTypes.STRING())
                .column("bo", DataTypes.BOOLEAN()).column("g2", DataTypes.BIGINT())
                .column("e", DataTypes.STRING()).column("lv", DataTypes.STRING()).column("lnn", DataTypes.STRING())
                .column("g3a", DataTypes.INT()).column("g3b", DataTypes.INT())
                .column("x", DataTypes.STRING())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "partial-update")
                .option("fields.g1.sequence-group", "a,b,s1")
                .option("fields.g2.sequence-group", "c,mx,mn,ls,fv,fnn,bo")
                .option("fields.g3a,g3b.sequence-group", "e,lv,lnn")
                .option("fields.s1.aggregate-function", "sum")
                .option("fields.mx.aggregate-function", "max")
                .option("fields.mn.aggregate-function", "min")
                .option("fields.ls.aggregate-function", "listagg")
                .option("fields.fv.aggregate-function", "first_value")
                .option("fields.fnn.aggregate-function", "first_non_null_value")
                .option("fields.bo.aggregate-function", "bool_or")
                .option("fields.lv.aggregate-function", "last_value")
                .option("fields.lnn.aggregate-function", "last_non_null_value")
                .build();
        try (PkWriter w = g.create("pk_pu_seqgrp", schema)) {
            GenericRow[] first = new GenericRow[5];
            for (int i = 1; i <= 5; i++) {
                first[i - 1] = r(I, i, s("a" + i), i, 10, 1, s("c" + i), 5, 5, s("l" + i), s("f" + i), null, false, 10L,
                        s("e" + i), s("v" + i), s("n" + i), 1, 1, s("x" + i));
            }
            w.commit(first);
            // Key 1: g1 newer (b becomes NULL with it), g2 older (aggregators run reversed; a
            // blank listagg input is concatenated by Java 1.3.1),
            // (g3a, g3b) newer on its second field; x NULL keeps x1.
            // Key 2: g2 empty, g1 older; key 5: only x.
            w.commit(r(I, 1, s("a1n"), null, 5, 2, s("cOld"), 9, 1, s(" "), s("f0"), s("fn0"), true, 5L,
                            null, null, s("n1b"), 1, 2, null),
                    r(I, 2, s("a2old"), 7, 3, 0, s("c2x"), 100, -1, s("zz"), s("f2x"), s("fn2"), true, null,
                            null, null, null, null, null, null),
                    r(I, 5, null, null, null, null, null, null, null, null, null, null, null, null,
                            null, null, null, null, null, s("x5b")));
            // Retracts. Key 1 -U with a newer g1: a, b NULL, s1 retracted; key 2 -D with an older
            // g1 (s1 still retracted) and an equal (g3a, g3b); key 3 -D with every group empty.
            w.commit(r(UB, 1, s("a1n"), null, 4, 3, null, null, null, null, null, null, null, null,
                            null, null, null, null, null, null),
                    r(D, 2, null, null, 3, 0, null, null, null, null, null, null, null, null,
                            s("e2"), s("v2"), s("n2"), 1, 1, null),
                    r(D, 3, null, null, null, null, null, null, null, null, null, null, null, null,
                            null, null, null, null, null, null));
            // Key 4: a newer g2; after the compaction an older (g3a, g3b) loses, then a -U/+U
            // pair of (g3a, g3b) equal to the stored one.
            w.commit(r(I, 4, null, null, null, null, s("c4n"), 3, 7, s("l4n"), s("f4n"), s("fn4"), false, 20L,
                    null, null, null, null, null, null));
            w.compact(true);
            w.commit(r(I, 4, null, null, null, null, null, null, null, null, null, null, null, null,
                            s("e4old"), s("v4old"), s("n4old"), 0, 9, s("x4")),
                    r(I, 1, s("a1z"), 11, 1, 3, s("c1z"), 4, 4, s("lz"), s("fz"), s("fnz"), false, 30L,
                            s("e1z"), null, null, 2, 0, null),
                    r(I, 3, null, null, 2, 0, null, null, null, null, null, null, null, null,
                            null, null, null, null, null, null));
            w.commit(r(UB, 4, null, null, null, null, null, null, null, null, null, null, null, null,
                            s("e4"), s("v4"), s("n4"), 1, 1, null),
                    r(UA, 4, null, null, null, null, null, null, null, null, null, null, null, null,
                            s("e4u"), null, s("n4u"), 1, 1, null),
                    r(UB, 1, null, null, 3, 1, null, null, null, null, null, null, null, null,
                            null, null, null, null, null, null));
        }
        g.dumpAll("pk_pu_seqgrp");
    }

    /**
     * partial-update.remove-record-on-sequence-group=g1: a -D whose g1 is not older removes the
     * whole row; an older one, a -U, and a -D of the other group g2 only retract their group.
     */
    static void removeOnSeqGroup(PkOracle g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT())
                .column("a", DataTypes.STRING()).column("g1", DataTypes.INT())
                .column("b", DataTypes.STRING()).column("g2", DataTypes.INT())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "partial-update")
                .option("fields.g1.sequence-group", "a").option("fields.g2.sequence-group", "b")
                .option("partial-update.remove-record-on-sequence-group", "g1")
                .build();
        try (PkWriter w = g.create("pk_pu_rm_seqgrp", schema)) {
            GenericRow[] first = new GenericRow[6];
            for (int i = 1; i <= 6; i++) first[i - 1] = r(I, i, s("a" + i), 5, s("b" + i), 5);
            w.commit(first);
            w.commit(r(D, 1, s("a1"), 6, null, null), r(D, 2, s("a2"), 4, null, null),
                    r(UB, 3, s("a3"), 6, null, null), r(D, 4, null, null, s("b4"), 6),
                    r(D, 5, s("a5"), 5, s("b5"), 5));
            w.commit(r(I, 1, null, null, s("b1n"), 7), r(I, 6, s("a6n"), 7, null, null));
            w.compact(true);
            w.commit(r(D, 6, null, 6, null, null), r(I, 2, s("a2n"), 9, null, null));
            w.commit(r(D, 2, null, 9, null, null));
        }
        g.dumpAll("pk_pu_rm_seqgrp");
    }

    /** partial-update.remove-record-on-delete: -D drops the row (later inserts start afresh), -U is ignored. */
    static void removeOnDelete(PkOracle g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("a", DataTypes.STRING())
                .column("b", DataTypes.INT()).primaryKey("id").option("bucket", "1")
                .option("merge-engine", "partial-update").option("partial-update.remove-record-on-delete", "true")
                .build();
        try (PkWriter w = g.create("pk_pu_rm_delete", schema)) {
            w.commit(r(I, 1, s("a1"), 1), r(I, 2, s("a2"), 2), r(I, 3, s("a3"), 3), r(I, 4, s("a4"), 4));
            w.commit(r(D, 1, null, null), r(UB, 2, s("a2"), 2), r(D, 3, s("a3"), 3));
            w.commit(r(I, 3, null, 33), r(UA, 2, null, 22));
            w.compact(true);
            w.commit(r(D, 4, null, null));
            w.commit(r(I, 4, s("a4n"), null), r(I, 1, null, 11));
        }
        g.dumpAll("pk_pu_rm_delete");
    }

    /**
     * aggregation.remove-record-on-delete: -D resets the row but not first_value's "seen a value"
     * state. (-U would reach first_value's retract, which Java refuses, and ignore-retract
     * conflicts with the option.)
     */
    static void aggRemoveOnDelete(PkOracle g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("total", DataTypes.BIGINT())
                .column("last", DataTypes.STRING()).column("fv", DataTypes.STRING()).primaryKey("id")
                .option("bucket", "1").option("merge-engine", "aggregation")
                .option("aggregation.remove-record-on-delete", "true")
                .option("fields.total.aggregate-function", "sum")
                .option("fields.fv.aggregate-function", "first_value")
                .build();
        try (PkWriter w = g.create("pk_agg_rm_delete", schema)) {
            w.commit(r(I, 1, 10L, s("a"), s("f1")), r(I, 2, 20L, s("b"), s("f2")), r(I, 3, 30L, s("c"), s("f3")));
            w.commit(r(D, 1, 10L, s("a"), s("f1")), r(I, 2, 5L, null, null), r(I, 3, 1L, null, s("g3")));
            w.commit(r(I, 1, 7L, null, s("h1")), r(D, 3, null, null, null));
            w.compact(true);
            w.commit(r(I, 3, 4L, s("c2"), s("i3")), r(D, 2, null, null, null));
            w.commit(r(I, 2, 2L, null, s("j2")));
        }
        g.dumpAll("pk_agg_rm_delete");
    }

    /** sequence.field with partial-update and aggregation: records apply in ts order, not write order. */
    static void seqField(PkOracle g, String name, String engine, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("a", DataTypes.STRING())
                .column("n", DataTypes.BIGINT()).column("ts", DataTypes.INT()).primaryKey("id")
                .option("bucket", "1").option("merge-engine", engine).option("sequence.field", "ts");
        if (engine.equals("aggregation")) b.option("fields.n.aggregate-function", "sum").option("fields.a.aggregate-function", "listagg");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, 1, s("a10"), 1L, 10), r(I, 2, s("b10"), 2L, 10), r(I, 3, s("c10"), 3L, 10), r(I, 4, s("d10"), 4L, null));
            w.commit(r(I, 1, s("a5"), 10L, 5), r(I, 2, null, 20L, 20), r(I, 3, s("c10b"), null, 10), r(I, 4, s("d3"), 40L, 3));
            w.compact(true);
            w.commit(r(I, 1, null, 100L, 7), r(I, 2, s("b15"), null, 15), r(I, 4, null, 400L, null));
            w.commit(r(I, 3, s("c1"), 1000L, 1), r(I, 1, s("a12"), null, 12));
        }
        g.dumpAll(name);
    }
}
