package org.connectpaimon.gen;

import static org.connectpaimon.gen.PkTables.I;
import static org.connectpaimon.gen.PkTables.UB;
import static org.connectpaimon.gen.PkTables.UA;
import static org.connectpaimon.gen.PkTables.D;
import static org.connectpaimon.gen.PkTables.r;

import java.util.Map;
import java.util.stream.LongStream;

import org.apache.paimon.schema.Schema;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.RoaringBitmap64;

/**
 * The rbm64 aggregate function (FieldRoaringBitmap64Agg, issue 11): values are
 * RoaringBitmap64.serialize (Roaring64Bitmap's ART layout, run-optimized), and the merged bytes
 * depend on the accumulator's tree and container slots, so the keys are chosen to cover: several
 * high 48-bit keys sharing and splitting prefixes, tree nodes growing from Node4 to Node16,
 * Node48 and Node256 while merging, array/bitmap/run containers ORed in every pairing (array
 * unions over 4096 that shrink back, full containers), empty bitmaps and NULLs. Each key's values
 * are spread over commits, a full compaction in the middle; variants with a lookup changelog,
 * retracts under ignore-retract, and a partial-update sequence group whose out-of-order records
 * take Java's aggReversed path.
 */
final class PkRbm64Tables {
    private PkRbm64Tables() {}

    static byte[] rb(long... v) {
        try {
            return RoaringBitmap64.bitmapOf(v).serialize();
        } catch (java.io.IOException e) {
            throw new RuntimeException(e);
        }
    }

    static long[] range(long from, long to, long step) {
        return LongStream.iterate(from, x -> x < to, x -> x + step).toArray();
    }

    /** Values whose high 48 bits are base + k for k in [from, to): one container per key. */
    static long[] keys(long base, int from, int to, long low) {
        long[] out = new long[to - from];
        for (int k = from; k < to; k++) out[k - from] = ((base + k) << 16) | low;
        return out;
    }

    static long[] concat(long[]... parts) {
        return java.util.Arrays.stream(parts).flatMapToLong(LongStream::of).toArray();
    }

    // Containers of each type (after runOptimize) under the high key 0.
    static final long[] ARRAY = {1, 5, 77, 4000, 65535};
    static final long[] RUN = range(100, 400, 1);
    static final long[] BITMAP = range(0, 20000, 2);
    static final long[] ARRAY3000A = range(0, 6000, 2);
    static final long[] ARRAY3000B = range(1000, 7000, 2);
    static final long[] ARRAY3000C = range(1, 6001, 2);
    static final long[] FULL = range(0, 65536, 1);
    // High keys: 2^32 apart, far apart (prefix splits at several depths), the extremes.
    static final long[] HIGH = {1L << 32, (1L << 32) + 7, 3L << 40, (5L << 48) | 3, 0x0102030405060708L,
            0x0102030405070000L, 0x01020304FF000001L, 0x0102FF0000000000L, -1L, Long.MIN_VALUE, Long.MAX_VALUE};

    static void functions(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT())
                .column("rb", DataTypes.BYTES()).column("rb2", DataTypes.VARBINARY(1 << 20))
                .primaryKey("id").option("bucket", "1").option("merge-engine", "aggregation")
                .option("fields.rb.aggregate-function", "rbm64").option("fields.rb2.aggregate-function", "rbm64");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(
                    // 1: the root Node4 grows to Node16, Node48, Node256 over later commits.
                    r(I, 1, rb(ARRAY), rb(HIGH)),
                    // 2: run | bitmap, then array, then a full container.
                    r(I, 2, rb(RUN), rb(concat(RUN, keys(7, 0, 3, 9)))),
                    // 3: bitmap first.
                    r(I, 3, rb(BITMAP), rb(ARRAY3000C)),
                    // 4: empty bitmaps and NULLs.
                    r(I, 4, rb(), null),
                    r(I, 5, null, null),
                    // 6: array unions over 4096 values.
                    r(I, 6, rb(ARRAY3000A), rb(ARRAY3000A)),
                    // 7: prefix splits deep in the tree.
                    r(I, 7, rb(0x0102030405060000L), rb(HIGH)),
                    // 9, 10: unions of 2r or 2r+1 values in r runs, where toEfficientContainer
                    // keeps a run container that runOptimize would not have made.
                    r(I, 9, rb(0, 10), rb(range(20, 24, 1))),
                    r(I, 10, rb(range(20, 24, 1)), rb(0, 10, 40)));
            w.commit(
                    r(I, 1, rb(keys(0, 1, 12, 3)), rb(keys(1L << 32, 0, 20, 1))),
                    r(I, 2, rb(BITMAP), rb(ARRAY)),
                    r(I, 3, rb(ARRAY), rb(RUN)),
                    r(I, 4, rb(ARRAY), rb()),
                    r(I, 5, null, rb()),
                    r(I, 6, rb(ARRAY3000B), rb(ARRAY3000C)),
                    r(I, 7, rb(0x0102030405070000L), rb(0x0102030405060001L, 0x01FF000000000000L)),
                    r(I, 9, rb(range(20, 24, 1)), rb(0, 10, 30)),
                    r(I, 10, rb(0, 10), rb(50, 51)));
            w.compact(true);
            w.commit(
                    r(I, 1, rb(keys(0, 12, 40, 5)), rb(keys(1L << 32, 20, 70, 2))),
                    r(I, 2, rb(FULL), rb(concat(ARRAY3000B, keys(7, 1, 2, 10)))),
                    r(I, 3, rb(FULL), rb(ARRAY3000A)),
                    r(I, 4, rb(), rb(ARRAY)),
                    r(I, 6, rb(RUN), rb(BITMAP)),
                    r(I, 7, rb(0x01020304FF000000L), rb(0x0102030405060000L)),
                    r(I, 8, rb(HIGH), null));
            w.commit(
                    r(I, 1, rb(keys(0, 40, 300, 7)), rb(concat(ARRAY, HIGH))),
                    r(I, 2, rb(ARRAY), rb(FULL)),
                    r(I, 3, null, rb(range(30000, 30100, 1))),
                    r(I, 6, rb(range(65000, 65536, 3)), rb(ARRAY3000B)),
                    r(I, 8, rb(keys(9, 0, 17, 0)), rb()));
        }
        g.dumpAll(name);
    }

    /** -U/-D records are ignored (fields.*.ignore-retract=true); the function cannot retract. */
    static void retract(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("rb", DataTypes.BYTES())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "aggregation")
                .option("fields.rb.aggregate-function", "rbm64").option("fields.rb.ignore-retract", "true");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, 1, rb(ARRAY)), r(I, 2, rb(HIGH)));
            w.commit(r(UB, 1, rb(ARRAY)), r(UA, 1, rb(RUN)), r(D, 2, rb(HIGH)));
            w.compact(true);
            w.commit(r(I, 2, rb(keys(3, 0, 18, 1))), r(D, 1, null));
        }
        g.dumpAll(name);
    }

    /**
     * A partial-update sequence group aggregated with rbm64: records older than the row's
     * sequence go through FieldAggregator.aggReversed, agg(input, accumulator), whose bytes
     * follow the input's tree.
     */
    static void partialUpdate(PkOracle g, String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("sq", DataTypes.INT())
                .column("rb", DataTypes.BYTES()).column("v", DataTypes.STRING())
                .primaryKey("id").option("bucket", "1").option("merge-engine", "partial-update")
                .option("fields.sq.sequence-group", "rb").option("fields.rb.aggregate-function", "rbm64");
        extra.forEach(b::option);
        try (PkWriter w = g.create(name, b.build())) {
            w.commit(r(I, 1, 10, rb(HIGH), PkTables.s("a")), r(I, 2, 5, rb(ARRAY), null));
            w.commit(r(I, 1, 3, rb(keys(0, 0, 20, 1)), null), r(I, 2, 9, rb(concat(RUN, keys(1L << 40, 0, 5, 0))), PkTables.s("b")));
            w.commit(r(I, 1, 4, rb(concat(BITMAP, keys(2, 0, 30, 0))), PkTables.s("c")), r(I, 2, 1, rb(HIGH), null));
        }
        g.dumpAll(name);
    }
}
