package org.connectpaimon.gen;

import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TimeZone;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * Issue 11 items 1 and 4, written by Java Paimon 1.3.1 (database {@code javastats}):
 *
 * <ul>
 *   <li>{@code prop_*}: random append tables under every {@code metadata.stats-mode} (and a
 *       per-column override), many small commits and row groups, NULLs, NaN, ±0.0, extreme
 *       integers, strings over 4 KiB and strings whose truncated max must round up. No
 *       expected rows: {@code tests/interop} property test compares filtered with unfiltered
 *       reads; {@code props-java.json} records each table's row count as Java reads it.
 *   <li>{@code cast_ts}: pre-epoch, year 0001/9999 and sub-millisecond timestamps, then ALTERed
 *       to narrower timestamps, DATE and TIME; Java's read is the expected output
 *       ({@code cases-javastats.json}).
 * </ul>
 *
 * <pre>mvn -q -o compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaStatsGen \
 *   -Dexec.args="--warehouse W --expected E --cases C --props P"</pre>
 */
public final class JavaStatsGen {
    private static final String DB = "javastats";

    public static void main(String[] args) throws Exception {
        // Java's TIMESTAMP ↔ LTZ casts use the JVM zone; the Go reader uses UTC.
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        Path wh = Paths.get(a.get("--warehouse")).toAbsolutePath();
        Path expected = Paths.get(a.get("--expected"));
        Files.createDirectories(wh);
        List<String> cases = new ArrayList<>();
        List<String> props = new ArrayList<>();
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(wh.toString())))) {
            cat.createDatabase(DB, true);
            Map<String, Map<String, String>> modes = new LinkedHashMap<>();
            modes.put("prop_default", opts());
            modes.put("prop_none", opts("metadata.stats-mode", "none"));
            modes.put("prop_counts", opts("metadata.stats-mode", "counts"));
            modes.put("prop_full", opts("metadata.stats-mode", "full"));
            modes.put("prop_trunc4", opts("metadata.stats-mode", "truncate(4)", "fields.s.stats-mode", "full",
                    "fields.d.stats-mode", "none"));
            modes.put("prop_trunc1_rowgroups", opts("metadata.stats-mode", "truncate(1)", "file.block-size", "1kb",
                    "parquet.block.size.row.check.min", "5", "parquet.block.size.row.check.max", "5"));
            modes.put("prop_avro", opts("file.format", "avro", "metadata.stats-mode", "truncate(3)"));
            modes.put("prop_keep2", opts("metadata.stats-keep-first-n-columns", "3"));
            long seed = 11;
            for (Map.Entry<String, Map<String, String>> e : modes.entrySet()) {
                long n = propTable(cat, e.getKey(), e.getValue(), new Random(seed++));
                props.add("{\"table\":\"" + DB + "." + e.getKey() + "\",\"rows\":" + n + ",\"writer\":\"java\"}");
                System.out.println("wrote " + DB + "." + e.getKey());
            }
            cases.add(castTable(cat, expected));
            System.out.println("wrote " + DB + ".cast_ts");
        }
        try (Writer w = Files.newBufferedWriter(Paths.get(a.get("--cases")), StandardCharsets.UTF_8)) {
            w.write("{\"generator\":\"resources/java JavaStatsGen\",\"writer_version\":\"java paimon 1.3.1\",\"cases\":[\n"
                    + String.join(",\n", cases) + "\n]}\n");
        }
        try (Writer w = Files.newBufferedWriter(Paths.get(a.get("--props")), StandardCharsets.UTF_8)) {
            w.write("{\"generator\":\"resources/java JavaStatsGen\",\"tables\":[\n" + String.join(",\n", props) + "\n]}\n");
        }
    }

    private static Map<String, String> opts(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bucket", "-1");
        for (int i = 0; i + 1 < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private static Table create(Catalog cat, String name, Schema schema) throws Exception {
        Identifier id = Identifier.create(DB, name);
        cat.dropTable(id, true);
        cat.createTable(id, schema, false);
        return cat.getTable(id);
    }

    private static void write(Table t, List<InternalRow> rows) throws Exception {
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            for (InternalRow r : rows) w.write(r);
            c.commit(w.prepareCommit());
        }
    }

    private static long count(Table t) throws Exception {
        ReadBuilder rb = t.newReadBuilder();
        long[] n = {0};
        try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan())) {
            r.forEachRemaining(x -> n[0]++);
        }
        return n[0];
    }

    // ------------------------------------------------------------------ random stats tables

    static final String[] WORDS = {"", "a", "ab", "abc", "abcd", "abcde", "b", "m", "q", "z", "zz", "é", "\uD7FF\uD7FF", "\uD7FFx",
            "\uDBFF\uDFFF\uDBFF\uDFFF", "x\uDBFF\uDFFF", "mmmm", "mmmmz", "?", "a?"};

    private static long propTable(Catalog cat, String name, Map<String, String> options, Random r) throws Exception {
        Schema.Builder b = Schema.newBuilder()
                .column("id", DataTypes.INT())
                .column("p", DataTypes.INT())
                .column("i8", DataTypes.TINYINT())
                .column("i64", DataTypes.BIGINT())
                .column("f", DataTypes.FLOAT())
                .column("d", DataTypes.DOUBLE())
                .column("s", DataTypes.STRING())
                .column("dec", DataTypes.DECIMAL(10, 2))
                .column("ts", DataTypes.TIMESTAMP(6))
                .column("dt", DataTypes.DATE())
                .partitionKeys("p")
                .options(options);
        Table t = create(cat, name, b.build());
        int id = 0;
        int commits = 10;
        for (int c = 0; c < commits; c++) {
            // Each commit draws from its own narrow range so stats can prune, plus outliers.
            int base = r.nextInt(200) - 100;
            List<InternalRow> rows = new ArrayList<>();
            int n = 5 + r.nextInt(40);
            for (int k = 0; k < n; k++) {
                GenericRow row = new GenericRow(10);
                row.setField(0, id++);
                row.setField(1, nul(r, 10) ? null : r.nextInt(3));
                row.setField(2, nul(r, 6) ? null : (byte) pick(r, new long[] {-128, 127, 0, -1}, base + r.nextInt(10), 127, -128));
                row.setField(3, nul(r, 6) ? null : pick(r, new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0}, base * 1_000_000_007L + r.nextInt(1000), Long.MAX_VALUE, Long.MIN_VALUE));
                row.setField(4, nul(r, 6) ? null : (float) dbl(r, base));
                row.setField(5, nul(r, 6) ? null : dbl(r, base));
                row.setField(6, nul(r, 6) ? null : BinaryString.fromString(str(r, c)));
                row.setField(7, nul(r, 6) ? null : Decimal.fromBigDecimal(BigDecimal.valueOf(base * 100L + r.nextInt(500) - 250, 2), 10, 2));
                long us = (long) base * 86_400_000_000L * 30 + r.nextInt(1_000_000) - 500_000;
                if (r.nextInt(12) == 0) us = r.nextBoolean() ? -62_135_596_800_000_000L : 253_402_300_799_999_999L;
                row.setField(8, nul(r, 6) ? null : Timestamp.fromMicros(us));
                row.setField(9, nul(r, 6) ? null : base * 30 + r.nextInt(30));
                rows.add(row);
            }
            if (c % 3 == 2) {
                // An all-NULL commit: null counts equal the row count.
                for (InternalRow row : rows) for (int f = 2; f < 10; f++) ((GenericRow) row).setField(f, null);
            }
            write(t, rows);
        }
        return count(t);
    }

    private static boolean nul(Random r, int oneIn) {
        return r.nextInt(oneIn) == 0;
    }

    private static long pick(Random r, long[] extremes, long v, long max, long min) {
        if (r.nextInt(8) == 0) return extremes[r.nextInt(extremes.length)];
        return Math.max(min, Math.min(max, v));
    }

    private static double dbl(Random r, int base) {
        switch (r.nextInt(14)) {
            case 0: return Double.NaN;
            case 1: return -0.0;
            case 2: return 0.0;
            case 3: return Double.POSITIVE_INFINITY;
            case 4: return Double.NEGATIVE_INFINITY;
            default: return base + r.nextInt(100) / 8.0;
        }
    }

    private static String str(Random r, int commit) {
        switch (r.nextInt(10)) {
            case 0: {
                // Over 4 KiB: parquet-java writes no statistics for such a row group.
                StringBuilder sb = new StringBuilder();
                char ch = (char) ('a' + r.nextInt(26));
                for (int i = 0; i < 4200 + r.nextInt(100); i++) sb.append(ch);
                return sb.toString();
            }
            case 1:
                return WORDS[r.nextInt(WORDS.length)] + WORDS[r.nextInt(WORDS.length)];
            default: {
                String w = WORDS[r.nextInt(WORDS.length)];
                return (char) ('a' + (commit * 3 + r.nextInt(3)) % 26) + w + r.nextInt(100);
            }
        }
    }

    // ------------------------------------------------------------------ casts

    private static String castTable(Catalog cat, Path expected) throws Exception {
        Schema s = Schema.newBuilder()
                .column("id", DataTypes.INT())
                .column("a", DataTypes.TIMESTAMP(6))
                .column("b", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                .column("c", DataTypes.TIMESTAMP(6))
                .column("d", DataTypes.TIMESTAMP(6))
                .column("e", DataTypes.TIMESTAMP(6))
                .column("f", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                .column("g", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                .column("h", DataTypes.TIMESTAMP(9))
                .column("i", DataTypes.TIMESTAMP(9))
                .column("j", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                .column("k", DataTypes.TIMESTAMP(3))
                .option("bucket", "-1")
                .build();
        Table t = create(cat, "cast_ts", s);
        long[] micros = {-1_500_000L, -1L, -86_400_000_001L, -999L, 1_000_500L, 5L, 1_500_000L, -500_000L,
                -62_135_596_800_000_000L + 123_456L, 253_402_300_799_999_999L, 0L, 1_704_067_200_123_456L};
        long[] nanos = {-1L, 7_000L, 5_000L, 12_345L, 1_234_567_891L, -1_234_567_891L, 1_000_007_000L, 0L, -5_000L,
                999_999_999L, -999L, 86_400_000_012_000L};
        List<InternalRow> rows = new ArrayList<>();
        for (int k = 0; k < micros.length; k++) {
            long us = micros[k];
            Timestamp tus = Timestamp.fromMicros(us);
            long ns = nanos[k];
            Timestamp tns = Timestamp.fromEpochMillis(Math.floorDiv(ns, 1_000_000L), (int) Math.floorMod(ns, 1_000_000L));
            rows.add(GenericRow.of(k, tus, tus, tus, tus, tus, tus, tus, tns, tns, tus, Timestamp.fromEpochMillis(Math.floorDiv(us, 1000))));
        }
        write(t, rows);
        Map<String, DataType> to = new LinkedHashMap<>();
        to.put("a", DataTypes.TIMESTAMP(0));
        to.put("b", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(0));
        to.put("c", DataTypes.TIMESTAMP(2));
        to.put("d", DataTypes.DATE());
        to.put("e", DataTypes.TIME());
        to.put("f", DataTypes.DATE());
        to.put("g", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3));
        to.put("h", DataTypes.TIMESTAMP(4));
        to.put("i", DataTypes.TIMESTAMP(3));
        to.put("j", DataTypes.TIMESTAMP(0));
        to.put("k", DataTypes.TIMESTAMP(0));
        List<SchemaChange> changes = new ArrayList<>();
        for (Map.Entry<String, DataType> e : to.entrySet()) changes.add(SchemaChange.updateColumnType(e.getKey(), e.getValue()));
        cat.alterTable(Identifier.create(DB, "cast_ts"), changes, false);
        t = cat.getTable(Identifier.create(DB, "cast_ts"));
        // One commit under the new schema, so the latest snapshot's schema is the ALTERed one
        // (readers that use the snapshot's schema read what Java reads).
        List<InternalRow> after = new ArrayList<>();
        after.add(GenericRow.of(100, null, null, null, null, null, null, null, null, null, null, null));
        write(t, after);
        ReadBuilder rb = t.newReadBuilder();
        RowType rt = t.rowType();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan())) {
            r.forEachRemaining(x -> lines.add(Canon.row(x, rt)));
        }
        lines.sort(Canon::codePointCompare);
        Path out = expected.resolve(DB + ".cast_ts").resolve("full.jsonl");
        Files.createDirectories(out.getParent());
        Files.write(out, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        return "{\"table\":\"" + DB + ".cast_ts\",\"case\":\"full\",\"snapshot\":null,\"projection\":null,\"filter\":null,"
                + "\"expected\":\"expected/" + DB + ".cast_ts/full.jsonl\",\"rows\":" + lines.size() + ",\"writer\":\"java\"}";
    }
}
