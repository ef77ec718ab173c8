package org.connectpaimon.gen;

import static org.connectpaimon.gen.PkTables.I;
import static org.connectpaimon.gen.PkTables.UB;
import static org.connectpaimon.gen.PkTables.UA;
import static org.connectpaimon.gen.PkTables.D;
import static org.connectpaimon.gen.PkTables.r;
import static org.connectpaimon.gen.PkTables.s;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;

import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.RoaringBitmap32;

/**
 * The aggregate functions of Java 1.3.1 beyond the basics: product, collect (plain and distinct,
 * whose element order is Java's HashSet order), merge_map, nested_update (with count-limit),
 * first/last value functions on nested and temporal types, listagg with a delimiter, decimal
 * sum and rbm32; with and without retracts. Each key's records are spread over commits so they
 * reach the reader as separate records; a full compaction in the middle, a lookup variant for
 * the changelog.
 */
final class PkAggFuncTables {
    private PkAggFuncTables() {}

    static Decimal dec(String v, int p, int sc) {
        return Decimal.fromBigDecimal(new BigDecimal(v), p, sc);
    }

    static GenericArray ints(Integer... v) {
        return new GenericArray(v);
    }

    static GenericArray strs(String... v) {
        Object[] o = new Object[v.length];
        for (int i = 0; i < v.length; i++) o[i] = s(v[i]);
        return new GenericArray(o);
    }

    static GenericMap smap(Object... kv) {
        Map<Object, Object> m = new HashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) m.put(s((String) kv[i]), kv[i + 1]);
        return new GenericMap(m);
    }

    static GenericArray rows(Object... kv) {
        Object[] o = new Object[kv.length / 2];
        for (int i = 0; i + 1 < kv.length; i += 2) o[i / 2] = GenericRow.of(kv[i], s((String) kv[i + 1]));
        return new GenericArray(o);
    }

    static byte[] rbm(int... v) {
        return RoaringBitmap32.bitmapOf(v).serialize();
    }

    /** Every function on one table, inserts only (no retraction). */
    static void functions(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT())
                .column("p_i", DataTypes.INT()).column("p_l", DataTypes.BIGINT()).column("p_dec", DataTypes.DECIMAL(10, 2))
                .column("s_dec", DataTypes.DECIMAL(12, 3))
                .column("c", DataTypes.ARRAY(DataTypes.INT())).column("cd", DataTypes.ARRAY(DataTypes.STRING()))
                .column("cdi", DataTypes.ARRAY(DataTypes.INT()))
                .column("mm", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                .column("nu", DataTypes.ARRAY(DataTypes.ROW(new DataField(20, "k", DataTypes.INT()), new DataField(21, "v", DataTypes.STRING()))))
                .column("fv_ts", DataTypes.TIMESTAMP(3)).column("lv_dec", DataTypes.DECIMAL(10, 2))
                .column("fnn_date", DataTypes.DATE()).column("lnn_arr", DataTypes.ARRAY(DataTypes.STRING()))
                .column("fv_map", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                .column("lv_row", DataTypes.ROW(new DataField(30, "x", DataTypes.INT()), new DataField(31, "y", DataTypes.STRING())))
                .column("la", DataTypes.STRING()).column("rb", DataTypes.BYTES())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "aggregation")
                .option("fields.p_i.aggregate-function", "product").option("fields.p_l.aggregate-function", "product")
                .option("fields.p_dec.aggregate-function", "product").option("fields.s_dec.aggregate-function", "sum")
                .option("fields.c.aggregate-function", "collect")
                .option("fields.cd.aggregate-function", "collect").option("fields.cd.distinct", "true")
                .option("fields.cdi.aggregate-function", "collect").option("fields.cdi.distinct", "true")
                .option("fields.mm.aggregate-function", "merge_map")
                .option("fields.nu.aggregate-function", "nested_update").option("fields.nu.count-limit", "4")
                .option("fields.fv_ts.aggregate-function", "first_value").option("fields.lv_dec.aggregate-function", "last_value")
                .option("fields.fnn_date.aggregate-function", "first_non_null_value")
                .option("fields.lnn_arr.aggregate-function", "last_non_null_value")
                .option("fields.fv_map.aggregate-function", "first_value").option("fields.lv_row.aggregate-function", "last_value")
                .option("fields.la.aggregate-function", "listagg").option("fields.la.list-agg-delimiter", " | ")
                .option("fields.rb.aggregate-function", "rbm32");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(
                    r(I, 1, 3, 1000000007L, dec("1.50", 10, 2), dec("1.001", 12, 3), ints(1, 2), strs("b", "a", "b"), ints(30, 1, 17),
                            smap("x", 1, "y", 2), rows(1, "a", 2, "b"), Timestamp.fromEpochMillis(-1500L), dec("9.99", 10, 2),
                            null, strs("l1"), smap("k", 1), GenericRow.of(1, s("r1")), s("a"), rbm(1, 5, 100000)),
                    r(I, 2, null, 7L, null, null, null, strs("zz"), null, null, null, null, null, null, null, null, null, null, null),
                    r(I, 3, 127, -3L, dec("-0.05", 10, 2), dec("99999999.999", 12, 3), ints(), strs(), ints(16, 0, 32, 48),
                            smap(), rows(), null, null, 19000, null, null, null, s(""), rbm()));
            w.commit(
                    r(I, 1, 5, 1000000009L, dec("2.25", 10, 2), dec("-0.500", 12, 3), ints(2, null), strs("c", "a", "hello", "Hello", "longer-string-value"),
                            ints(-1, 65536, 30, 2147483647), smap("y", 20, "z", 3), rows(3, "c", 4, "d", 5, "e"),
                            Timestamp.fromEpochMillis(1000L), null, 19500, null, smap("k", 2), null, null, rbm(5, 6, 70000)),
                    r(I, 2, 6, 5L, dec("3.00", 10, 2), dec("0.001", 12, 3), ints(9), null, ints(1), smap("q", 1), null,
                            null, dec("1.00", 10, 2), null, strs("l2"), null, GenericRow.of(2, null), s("b2"), rbm(7)),
                    r(I, 3, 127, -3L, dec("-0.05", 10, 2), dec("0.001", 12, 3), null, strs("x"), ints(16, 64, 0), null, null,
                            null, null, 20000, strs(), null, null, s("c3"), null));
            w.compact(true);
            w.commit(
                    r(I, 1, -2, 3L, dec("3.33", 10, 2), dec("0.499", 12, 3), ints(1), strs("a", "d"), ints(100, 30),
                            smap("x", 10), rows(6, "f"), Timestamp.fromEpochMillis(2000L), dec("-1.25", 10, 2), 1, strs("l3", null),
                            smap("k", 3), GenericRow.of(3, s("r3")), s("a3"), rbm(1, 2, 3)),
                    r(I, 4, 2, 2L, dec("0.01", 10, 2), dec("0.000", 12, 3), ints(4), strs("n"), ints(4), smap("n", 4),
                            rows(7, "g"), Timestamp.fromEpochMillis(0L), dec("4.44", 10, 2), 4, strs("l4"), smap("m", 4),
                            GenericRow.of(4, s("r4")), s("d4"), rbm(4)));
            w.commit(r(I, 4, 3, 3L, dec("0.01", 10, 2), dec("0.000", 12, 3), ints(4), strs("n", "o"), ints(5, 4), smap("n", 5),
                    rows(7, "g"), null, null, null, null, null, null, s("e4"), rbm(4, 5)));
        }
        g.dumpAll(name);
    }

    /** Retracts (-U/-D) through product, collect, merge_map, nested_update and sum; max ignores them. */
    static void retract(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT())
                .column("p", DataTypes.BIGINT()).column("p_dec", DataTypes.DECIMAL(8, 2)).column("c", DataTypes.ARRAY(DataTypes.INT()))
                .column("cdi", DataTypes.ARRAY(DataTypes.STRING()))
                .column("mm", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                .column("nu", DataTypes.ARRAY(DataTypes.ROW(new DataField(20, "k", DataTypes.INT()), new DataField(21, "v", DataTypes.STRING()))))
                .column("s", DataTypes.INT()).column("mx", DataTypes.INT()).column("rb", DataTypes.BYTES())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "aggregation")
                .option("fields.p.aggregate-function", "product").option("fields.p_dec.aggregate-function", "product")
                .option("fields.c.aggregate-function", "collect")
                .option("fields.cdi.aggregate-function", "collect").option("fields.cdi.distinct", "true")
                .option("fields.mm.aggregate-function", "merge_map").option("fields.nu.aggregate-function", "nested_update")
                .option("fields.s.aggregate-function", "sum")
                .option("fields.mx.aggregate-function", "max").option("fields.mx.ignore-retract", "true")
                .option("fields.rb.aggregate-function", "rbm32").option("fields.rb.ignore-retract", "true");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, 1, 6L, dec("2.50", 8, 2), ints(1, 2, 2, 3), strs("p", "q"), smap("a", 1, "b", 2), rows(1, "a", 2, "b", 1, "a"),
                            10, 5, rbm(1)),
                    r(I, 2, 10L, dec("4.00", 8, 2), ints(7), strs("x"), smap("k", 7), rows(9, "z"), 7, 7, rbm(2)));
            w.commit(r(I, 1, 4L, dec("3.00", 8, 2), ints(2, 4), strs("r", "p"), smap("c", 3), rows(3, "c"), 1, 9, rbm(3)),
                    r(I, 3, 2L, dec("1.10", 8, 2), ints(3), strs("y"), smap("y", 3), rows(3, "y"), 3, 3, rbm(3)));
            w.commit(r(UB, 1, 2L, dec("1.25", 8, 2), ints(2, 9), strs("q"), smap("a", 100), rows(1, "a"), 4, 100, rbm(9)),
                    r(UA, 1, 7L, dec("2.00", 8, 2), ints(5), strs("s"), smap("d", 4), rows(4, "d"), 2, 1, rbm(4)),
                    r(D, 2, 5L, dec("8.00", 8, 2), ints(7), strs("x"), smap("k", 0), rows(9, "z"), 7, 0, rbm(2)));
            w.compact(true);
            w.commit(r(D, 3, 2L, dec("1.10", 8, 2), ints(3, 3), null, smap("zz", 1), rows(3, "x"), 1, 1, null),
                    r(UB, 1, 7L, dec("0.50", 8, 2), null, strs("p", "s"), smap("d", 0, "c", 0), rows(2, "b"), 2, 2, null));
        }
        g.dumpAll(name);
    }

    static GenericArray krows(Object... kv) {
        Object[] o = new Object[kv.length / 3];
        for (int i = 0; i + 2 < kv.length; i += 3) o[i / 3] = GenericRow.of(kv[i], s((String) kv[i + 1]), s((String) kv[i + 2]));
        return new GenericArray(o);
    }

    /**
     * nested_update keyed by nested fields: rows of one key replace each other in Java's
     * HashMap&lt;BinaryRow, InternalRow&gt;, whose iteration order is the result's; retracts remove keys.
     */
    static void nestedKey(PkOracle g, String name, Map<String, String> extra) throws Exception {
        org.apache.paimon.types.DataType rowT = DataTypes.ROW(new DataField(20, "k", DataTypes.INT()),
                new DataField(21, "s", DataTypes.STRING()), new DataField(22, "v", DataTypes.STRING()));
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT())
                .column("nk", DataTypes.ARRAY(rowT)).column("nks", DataTypes.ARRAY(rowT))
                .primaryKey("id").option("bucket", "1").option("merge-engine", "aggregation")
                .option("fields.nk.aggregate-function", "nested_update").option("fields.nk.nested-key", "k")
                .option("fields.nks.aggregate-function", "nested_update").option("fields.nks.nested-key", "k,s");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, 1, krows(1, "a", "v1", 17, "b", "v2", 33, "c", "v3"),
                            krows(1, "a", "v1", 1, "longer-key-string", "v2", 2, "a", "v3")),
                    r(I, 2, krows(5, "x", "v5"), krows(5, "x", "v5")));
            w.commit(r(I, 1, krows(17, "b", "w2", 2, "d", "w4", -1, "e", "w5", 65536, "f", "w6"),
                            krows(1, "a", "w1", 2, "b", "w4", 1, "longer-key-string", "w2")),
                    r(I, 3, krows(3, "y", "v3"), null));
            w.compact(true);
            w.commit(r(UB, 1, krows(33, "zz", "ignored"), krows(2, "a", "v3")),
                    r(I, 2, krows(5, "x", "v5b", 6, "x", "v6"), krows(5, "y", "v5y")));
            w.commit(r(D, 2, krows(6, null, null), krows(5, "x", null)));
        }
        g.dumpAll(name);
    }
}
