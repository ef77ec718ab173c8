package org.connectpaimon.gen;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
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
 * Writes the Java-only part of the interop matrix through Java Paimon's own API and dumps
 * Java Paimon's read of every case as canonical JSON lines (the expected output):
 * INT96 timestamps (p > 6), INT32/INT64/FLBA decimals, Java partition escaping and legacy
 * partition names, data-file.path-directory, Avro data files with maps, overwrite,
 * compaction of an append table and a branch.
 *
 * <pre>mvn -q compile exec:java -Dexec.args="--warehouse W --expected E --cases C [--tables t1,t2]"</pre>
 *
 * Extending: add a method writing a table and calling {@link #dump} per case, and list it in
 * {@link #TABLES}.
 */
public final class JavaGen {
    private static final String DB = "javagen";

    private final Catalog catalog;
    private final Path expected;
    private final List<String> cases = new ArrayList<>();
    /**
     * When false, dumps write Java's read to expected/ but add no case: reads in which Java is
     * known to lose rows (see nanTable), which a dedicated test compares instead.
     */
    private boolean recordCases = true;
    /** Marks the cases dumped while set: a stream bounded to the snapshot reads other rows (fallback branches). */
    private boolean streamDiffers = false;
    /**
     * Marks the cases dumped while set: the read is the table's, above the plan of one branch
     * (a fallback branch, a read position stored in the options); readers of one plan skip them.
     */
    private boolean facade = false;
    /** Tables for the pruning property test (tests/interop TestPruningOnlySavesWork), with Java's row count. */
    private final List<String> props = new ArrayList<>();

    private JavaGen(Catalog catalog, Path expected) {
        this.catalog = catalog;
        this.expected = expected;
    }

    private interface TableGen {
        void run(JavaGen g) throws Exception;
    }

    private static final Map<String, TableGen> TABLES = new LinkedHashMap<>();

    static {
        TABLES.put("javagen.ts_decimal", g -> tsDecimal(g, "ts_decimal", Map.of()));
        TABLES.put("javagen.avro_types", JavaGen::avroTypes);
        TABLES.put("javagen.part_legacy", g -> g.partitioned("part_legacy", "true"));
        TABLES.put("javagen.part_nonlegacy", g -> g.partitioned("part_nonlegacy", "false"));
        TABLES.put("javagen.path_dir", JavaGen::pathDir);
        TABLES.put("javagen.commits", JavaGen::commits);
        TABLES.put("javagen.branchy", JavaGen::branchy);
        TABLES.put("javagen.fallback", g -> fallback(g, "fallback", false));
        TABLES.put("javagen.fallback_pk", g -> fallback(g, "fallback_pk", true));
        TABLES.put("javagen.overwrite_stream", g -> overwriteStream(g, "overwrite_stream", false));
        TABLES.put("javagen.overwrite_stream_pk", g -> overwriteStream(g, "overwrite_stream_pk", true));
        TABLES.put("javagen.scanopt_snapshot", g -> scanOption(g, "scanopt_snapshot", Map.of("scan.snapshot-id", "2")));
        TABLES.put("javagen.scanopt_tag", g -> scanOption(g, "scanopt_tag", Map.of("scan.tag-name", "t1")));
        TABLES.put("javagen.scanopt_incremental", g -> scanOption(g, "scanopt_incremental", Map.of("incremental-between", "1,3")));
        TABLES.put("javagen.scanopt_incremental_ts", g -> scanOption(g, "scanopt_incremental_ts", Map.of("incremental-between-timestamp", "")));
        // Incremental diffs (two snapshots' contents compared): between two tags, and between two
        // snapshot ids in the diff scan mode; an OVERWRITE between them, which a delta read skips.
        TABLES.put("javagen.scanopt_diff_tags", g -> scanDiff(g, "scanopt_diff_tags", Map.of("incremental-between", "t1,t4")));
        TABLES.put("javagen.scanopt_diff_ids", g -> scanDiff(g, "scanopt_diff_ids", Map.of("incremental-between", "2,5",
                "incremental-between-scan-mode", "diff")));
        // Data evolution (row-tracking + data-evolution.enabled): files holding some columns of
        // rows other files hold, merged by first row id; Parquet, and Parquet members of ORC rows.
        TABLES.put("javagen.data_evolution", g -> dataEvolution(g, "data_evolution", "parquet", "parquet"));
        TABLES.put("javagen.data_evolution_mixed", g -> dataEvolution(g, "data_evolution_mixed", "orc", "parquet"));
        TABLES.put("javagen.scanopt_latest", g -> scanOption(g, "scanopt_latest", Map.of("scan.mode", "latest")));
        TABLES.put("javagen.scanopt_ts", g -> scanOption(g, "scanopt_ts", Map.of("scan.mode", "from-timestamp")));
        // ORC data files (issue 14): zstd is Paimon's default codec; each other codec once.
        for (String codec : new String[] {"zstd", "zlib", "snappy", "lz4", "none"}) {
            TABLES.put("javagen.orc_" + codec, g -> g.orcTypes("orc_" + codec, codec));
        }
        TABLES.put("javagen.orc_stripes", JavaGen::orcStripes);
        TABLES.put("javagen.orc_bucket", JavaGen::orcBucket);
        TABLES.put("javagen.orc_evolve", JavaGen::orcEvolve);
        TABLES.put("javagen.orc_switch", JavaGen::orcSwitch);
        // Compression codecs and manifest formats Java writes (issue 11 item 5).
        TABLES.put("javagen.codec_parquet_lz4", g -> g.codec("codec_parquet_lz4", Map.of("file.format", "parquet", "file.compression", "lz4")));
        TABLES.put("javagen.codec_avro_bzip2", g -> g.codec("codec_avro_bzip2", Map.of("file.format", "avro", "file.compression", "bzip2")));
        TABLES.put("javagen.codec_avro_xz", g -> g.codec("codec_avro_xz", Map.of("file.format", "avro", "file.compression", "xz")));
        TABLES.put("javagen.codec_manifest_xz", g -> g.codec("codec_manifest_xz", Map.of("manifest.compression", "xz")));
        TABLES.put("javagen.codec_manifest_parquet", g -> g.codec("codec_manifest_parquet",
                Map.of("manifest.format", "parquet", "partition", "p")));
        // Parquet encodings Java's writer picks by its options: data page v2 (RLE_DICTIONARY, and
        // DELTA_BINARY_PACKED / DELTA_BYTE_ARRAY / DELTA_LENGTH_BYTE_ARRAY once dictionaries are off),
        // v1 PLAIN without dictionaries, and a dictionary that overflows into PLAIN pages mid-chunk.
        TABLES.put("javagen.parquet_v2", g -> g.codec("parquet_v2", Map.of("file.format", "parquet", "parquet.writer.version", "v2")));
        TABLES.put("javagen.parquet_v2_plain", g -> g.codec("parquet_v2_plain", Map.of("file.format", "parquet",
                "parquet.writer.version", "v2", "parquet.enable.dictionary", "false")));
        TABLES.put("javagen.parquet_v1_plain", g -> g.codec("parquet_v1_plain", Map.of("file.format", "parquet", "parquet.enable.dictionary", "false")));
        // Every timestamp and decimal layout (INT96, INT64, FIXED_LEN_BYTE_ARRAY; nested too) in v2 pages.
        TABLES.put("javagen.ts_decimal_v2", g -> tsDecimal(g, "ts_decimal_v2", Map.of("parquet.writer.version", "v2")));
        TABLES.put("javagen.ts_decimal_v2_plain", g -> tsDecimal(g, "ts_decimal_v2_plain",
                Map.of("parquet.writer.version", "v2", "parquet.enable.dictionary", "false")));
        TABLES.put("javagen.parquet_dict_overflow", g -> g.codec("parquet_dict_overflow", Map.of("file.format", "parquet",
                "parquet.dictionary.page.size", "256")));
        // Indexes beside the data: ORC and Parquet bloom filters inside the files, and Paimon's
        // file indexes (bloom filter, bitmap, BSI) in the manifest or in index files of their own.
        TABLES.put("javagen.orc_bloom", g -> g.codec("orc_bloom", Map.of("file.format", "orc",
                "orc.bloom.filter.columns", "s,n,dec,b", "orc.bloom.filter.fpp", "0.01")));
        // (Sizes for a few hundred values: the defaults make megabytes of filters per file.)
        TABLES.put("javagen.parquet_bloom", g -> g.codec("parquet_bloom", Map.of("file.format", "parquet",
                "parquet.bloom.filter.enabled#s", "true", "parquet.bloom.filter.expected.ndv#s", "500",
                "parquet.bloom.filter.enabled#n", "true", "parquet.bloom.filter.expected.ndv#n", "500")));
        TABLES.put("javagen.file_index", g -> g.codec("file_index", Map.of("file-index.bloom-filter.columns", "s,n",
                "file-index.bloom-filter.s.items", "500", "file-index.bloom-filter.n.items", "500",
                "file-index.bitmap.columns", "id", "file-index.bsi.columns", "n", "file-index.in-manifest-threshold", "1 b")));
        TABLES.put("javagen.file_index_manifest", g -> g.codec("file_index_manifest", Map.of("file-index.bloom-filter.columns", "s",
                "file-index.bloom-filter.s.items", "500", "file-index.bitmap.columns", "id")));
        TABLES.put("javagen.orc_dv", g -> g.orcDv("orc_dv", null));
        TABLES.put("javagen.orc_tz", g -> g.orcTz("orc_tz", Map.of()));
        TABLES.put("javagen.orc_tz_ltz", g -> g.orcTz("orc_tz_ltz", Map.of("orc.timestamp-ltz.legacy.type", "false")));
        TABLES.put("javagen.orc_dv_bucket", g -> g.orcDv("orc_dv_bucket", "2"));
        // Row-group pruning by the ORC row index (issue 14): every type, each codec, stripes of
        // several 1000-row groups (Java's smallest orc.row.index.stride), and one table with DVs.
        for (String codec : new String[] {"zstd", "zlib", "snappy", "lz4", "none"}) {
            TABLES.put("javagen.orcidx_" + codec, g -> g.orcIdx("orcidx_" + codec, codec, false));
        }
        TABLES.put("javagen.orcidx_dv", g -> g.orcIdx("orcidx_dv", "zstd", true));
        // A schema history that renames a column and later reuses its name, drops and re-adds a
        // column with another type, changes BIGINT to STRING and moves a column: time-travel reads
        // with filters and projections must resolve names in each snapshot's own schema.
        TABLES.put("javagen.rename_reuse", g -> g.renameReuse("rename_reuse", "parquet"));
        TABLES.put("javagen.rename_reuse_orc", g -> g.renameReuse("rename_reuse_orc", "orc"));
        // NaN in DOUBLE/FLOAT columns at every position of a file and of a row-index group: Java's
        // filtered reads of ORC files depend on where the NaN sits; Parquet's and Avro's do not.
        for (String format : new String[] {"orc", "parquet", "avro"}) {
            TABLES.put("javagen.nan_" + format, g -> g.nanTable("nan_" + format, format));
        }
        // Maps, multisets and strings nested in arrays and rows as Java's ORC writer encodes them:
        // its default picks dictionary or direct per stripe and column by the distinct ratio
        // (orc.dictionary.key.threshold 0.8), 0 forces direct, 1 dictionary, and file version 0.11
        // (Hive's old writers) DICTIONARY (always, unless a column is listed as direct) and DIRECT
        // with RLE v1; orc_maps_idx has row groups to skip.
        TABLES.put("javagen.orc_maps", g -> g.orcMaps("orc_maps", Map.of(), 300, true));
        TABLES.put("javagen.orc_maps_direct", g -> g.orcMaps("orc_maps_direct", Map.of("orc.dictionary.key.threshold", "0"), 300, true));
        TABLES.put("javagen.orc_maps_dict", g -> g.orcMaps("orc_maps_dict", Map.of("orc.dictionary.key.threshold", "1"), 300, true));
        TABLES.put("javagen.orc_maps_v1", g -> g.orcMaps("orc_maps_v1", Map.of("orc.write.format", "0.11",
                "orc.column.encoding.direct", "msi,r,arr"), 300, true));
        TABLES.put("javagen.orc_maps_idx", g -> g.orcMaps("orc_maps_idx", Map.of("orc.row.index.stride", "1000"), 2600, false));
        // TIMESTAMP(7..9) values outside Arrow's nanosecond range (1677-09-21 .. 2262-04-11) that
        // Java writes and reads: years 0001 and 9999, one nanosecond beyond each end of the range.
        for (String format : new String[] {"parquet", "orc"}) {
            TABLES.put("javagen.ts_extreme_" + format, g -> g.tsExtreme("ts_extreme_" + format, format));
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        if (!a.containsKey("--warehouse") || !a.containsKey("--expected") || !a.containsKey("--cases")) {
            throw new IllegalArgumentException("usage: --warehouse DIR --expected DIR --cases FILE [--tables a,b]");
        }
        Path wh = Paths.get(a.get("--warehouse")).toAbsolutePath();
        Files.createDirectories(wh);
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(wh.toString())))) {
            generate(cat, args);
        }
    }

    /** Writes the tables through cat (a filesystem catalog, or RestServer's REST catalog). */
    public static void generate(Catalog cat, String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        Set<String> only = a.containsKey("--tables") ? new HashSet<>(Arrays.asList(a.get("--tables").split(","))) : null;
        {
            cat.createDatabase(DB, true);
            JavaGen g = new JavaGen(cat, Paths.get(a.get("--expected")));
            for (Map.Entry<String, TableGen> e : TABLES.entrySet()) {
                if (only != null && !only.contains(e.getKey())) continue;
                cat.dropTable(Identifier.fromString(e.getKey()), true);
                e.getValue().run(g);
                System.out.println("wrote " + e.getKey());
            }
            String version = org.apache.paimon.Snapshot.class.getPackage().getImplementationVersion();
            try (Writer w = Files.newBufferedWriter(Paths.get(a.get("--cases")), StandardCharsets.UTF_8)) {
                w.write("{\"generator\":\"resources/java JavaGen\",\"writer_version\":\"java paimon "
                        + (version == null ? "1.3.1" : version) + "\",\"cases\":[\n" + String.join(",\n", g.cases) + "\n]}\n");
            }
            if (a.containsKey("--props") && !g.props.isEmpty()) {
                try (Writer w = Files.newBufferedWriter(Paths.get(a.get("--props")), StandardCharsets.UTF_8)) {
                    w.write("{\"generator\":\"resources/java JavaGen\",\"tables\":[\n" + String.join(",\n", g.props) + "\n]}\n");
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------ helpers

    private Table create(String name, Schema schema) throws Exception {
        Identifier id = Identifier.create(DB, name);
        catalog.createTable(id, schema, false);
        return catalog.getTable(id);
    }

    private static void write(Table t, List<? extends InternalRow> rows, Map<String, String> overwrite) throws Exception {
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        if (overwrite != null) wb = wb.withOverwrite(overwrite);
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            for (InternalRow r : rows) w.write(r);
            c.commit(w.prepareCommit());
        }
    }

    private static long latest(Table t) {
        return t.latestSnapshot().map(s -> s.id()).orElseThrow();
    }

    /**
     * Reads a case with Java Paimon and records it. The filter text (our syntax, parsed by the
     * Go side) and the Java predicate are written side by side here; executeFilter makes the
     * Java read an exact row filter rather than file pruning only.
     */
    private void dump(Table table, String tableName, String branch, String caseName, Long snapshot,
                      List<String> projection, String filterText, Function<PredicateBuilder, Predicate> filter)
            throws Exception {
        Table t = snapshot == null ? table : table.copy(Collections.singletonMap("scan.snapshot-id", snapshot.toString()));
        ReadBuilder rb = t.newReadBuilder();
        RowType rowType = t.rowType();
        if (filter != null) rb = rb.withFilter(filter.apply(new PredicateBuilder(rowType)));
        if (projection != null) {
            int[] idx = projection.stream().mapToInt(rowType::getFieldIndex).toArray();
            rb = rb.withProjection(idx);
            rowType = rowType.project(idx);
        }
        List<String> lines = new ArrayList<>();
        var read = rb.newRead();
        if (filter != null) read = read.executeFilter();
        try (RecordReader<InternalRow> reader = read.createReader(rb.newScan().plan())) {
            final RowType rt = rowType;
            reader.forEachRemaining(r -> lines.add(Canon.row(r, rt)));
        }
        lines.sort(Canon::codePointCompare);
        String dir = tableName + (branch == null ? "" : "@" + branch);
        Path out = expected.resolve(dir).resolve(caseName + ".jsonl");
        Files.createDirectories(out.getParent());
        Files.write(out, lines.isEmpty() ? new byte[0] : (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        StringBuilder c = new StringBuilder("{\"table\":").append(Canon.str(tableName))
                .append(",\"case\":").append(Canon.str(caseName))
                .append(",\"snapshot\":").append(snapshot == null ? "null" : snapshot.toString())
                .append(",\"projection\":");
        if (projection == null) c.append("null");
        else {
            c.append('[');
            for (int i = 0; i < projection.size(); i++) c.append(i > 0 ? "," : "").append(Canon.str(projection.get(i)));
            c.append(']');
        }
        c.append(",\"filter\":").append(filterText == null ? "null" : Canon.str(filterText))
                .append(",\"expected\":").append(Canon.str("expected/" + dir + "/" + caseName + ".jsonl"))
                .append(",\"rows\":").append(lines.size())
                .append(",\"writer\":\"java\"");
        if (branch != null) c.append(",\"branch\":").append(Canon.str(branch));
        if (streamDiffers) c.append(",\"stream_differs\":true");
        if (facade) c.append(",\"facade\":true");
        if (recordCases) cases.add(c.append('}').toString());
    }

    private void full(Table t, String name) throws Exception {
        dump(t, name, null, "full", null, null, null, null);
    }

    private static BinaryString s(String v) {
        return v == null ? null : BinaryString.fromString(v);
    }

    private static Decimal dec(String v, int p, int sc) {
        return v == null ? null : Decimal.fromBigDecimal(new BigDecimal(v), p, sc);
    }

    private static Timestamp ts(String iso) {
        return iso == null ? null : Timestamp.fromLocalDateTime(LocalDateTime.parse(iso));
    }

    // ------------------------------------------------------------------------------------ tables

    // TIMESTAMP(7..9) values stay inside Arrow's nanosecond range (1677-09-21 .. 2262-04-11),
    // which the Go reader refuses to leave (see docs/interop.md). Pre-1970 values exercise Java's
    // negative INT96 nanos-of-day, which the Go reader decodes itself for top-level columns only;
    // nested INT96 (arr, r.t) therefore gets post-1970 values (TS9_NESTED).
    private static final String[] TS9 = {"1970-01-01T00:00:00.000000001", "1969-12-31T23:59:59.999999999",
        "2024-02-29T12:34:56.123456789", "1677-09-22T00:00:00.000000001", "2262-04-11T23:47:16.854775807", "1900-01-01T00:00:00.5", null};
    private static final String[] TS9_NESTED = {"1970-01-01T00:00:00.000000001", "1970-01-01T00:00:00",
        "2024-02-29T12:34:56.123456789", "2001-09-09T01:46:40.000000007", "2262-04-11T23:47:16.854775807", "2000-01-01T00:00:00.5", null};
    private static final String[][] DECS = {
        {"-999.99", "-99999999999999.9999", "-99999999999999999999.9999999999"},
        {"999.99", "99999999999999.9999", "99999999999999999999.9999999999"},
        {"0.00", "0.0000", "0E-10"}, {"-0.01", "-0.0001", "-0.0000000001"},
        {"123.45", "12345678.9012", "1234567890.0123456789"}, {null, null, null}, {"1.50", "-1.5000", "42.0000000000"}};

    /** INT96 (p > 6) timestamps and INT32 / INT64 / FIXED_LEN_BYTE_ARRAY decimals, Java's Parquet layout. */
    private static void tsDecimal(JavaGen g, String name, Map<String, String> options) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull())
                .column("ts9", DataTypes.TIMESTAMP(9)).column("ltz9", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(9))
                .column("ts7", DataTypes.TIMESTAMP(7)).column("ts3", DataTypes.TIMESTAMP(3))
                .column("ltz6", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                .column("d5_2", DataTypes.DECIMAL(5, 2)).column("d18_4", DataTypes.DECIMAL(18, 4))
                .column("d30_10", DataTypes.DECIMAL(30, 10))
                .column("s", DataTypes.STRING()).column("b", DataTypes.BYTES()).column("dt", DataTypes.DATE())
                .column("arr", DataTypes.ARRAY(DataTypes.TIMESTAMP(9)))
                .column("m", DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.DECIMAL(18, 4)))
                .column("r", DataTypes.ROW(DataTypes.FIELD(100, "a", DataTypes.INT()), DataTypes.FIELD(101, "t", DataTypes.TIMESTAMP(9))))
                .option("file.format", "parquet")
                .options(options)
                .build();
        Table t = g.create(name, schema);
        List<GenericRow> rows = new ArrayList<>();
        Random rnd = new Random(7);
        for (int i = 0; i < 28; i++) {
            String t9 = TS9[i % TS9.length];
            String t9n = TS9_NESTED[i % TS9_NESTED.length];
            String[] d = DECS[i % DECS.length];
            Map<Object, Object> m = new HashMap<>();
            m.put(i, dec(d[1], 18, 4));
            m.put(-i - 1, dec("0.5", 18, 4));
            rows.add(GenericRow.of(i, ts(t9), ts(t9), ts(t9), ts(t9 == null ? null : t9.substring(0, Math.min(t9.length(), 23))),
                    ts(t9), dec(d[0], 5, 2), dec(d[1], 18, 4), dec(d[2], 30, 10),
                    s(i % 5 == 0 ? null : "row-" + i + " \u00e9\u00e8 \u65e5\u672c"), i % 4 == 0 ? null : new byte[] {(byte) i, (byte) rnd.nextInt(256), 0},
                    i % 6 == 0 ? null : i * 1000 - 9000,
                    new GenericArray(new Object[] {ts(t9n), null}), new GenericMap(m),
                    i % 3 == 0 ? null : GenericRow.of(i, ts(t9n))));
        }
        write(t, rows.subList(0, 20), null);
        long s1 = latest(t);
        write(t, rows.subList(20, rows.size()), null);
        String full = "javagen." + name;
        g.full(t, full);
        g.dump(t, full, null, "snap1_full", s1, null, null, null);
        g.dump(t, full, null, "proj", null, List.of("d30_10", "ltz9", "id"), null, null);
        g.dump(t, full, null, "filter_decimal", null, null, "d18_4 > 0",
                pb -> pb.greaterThan(7, Decimal.fromBigDecimal(BigDecimal.ZERO, 18, 4)));
        g.dump(t, full, null, "filter_ts9", null, null,
                "ts9 >= TIMESTAMP '2024-02-29 12:34:56.123456789'",
                pb -> pb.greaterOrEqual(1, ts("2024-02-29T12:34:56.123456789")));
    }

    /**
     * One table per codec or manifest format: a partitioned table (so manifests carry partition
     * stats) of common types over two commits, several pages per file, read in full and filtered.
     */
    private void codec(String name, Map<String, String> options) throws Exception {
        Schema.Builder b = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull()).column("p", DataTypes.STRING())
                .column("s", DataTypes.STRING()).column("n", DataTypes.BIGINT())
                .column("dec", DataTypes.DECIMAL(20, 4)).column("ts", DataTypes.TIMESTAMP(6))
                .column("b", DataTypes.BYTES()).column("arr", DataTypes.ARRAY(DataTypes.INT()))
                .partitionKeys("p").option("bucket", "-1").option("parquet.page.size", "1024");
        options.forEach((k, v) -> { if (!k.equals("partition")) b.option(k, v); });
        Table t = create(name, b.build());
        for (int commit = 0; commit < 2; commit++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = commit * 300; i < commit * 300 + 300; i++) {
                rows.add(GenericRow.of(i, s(i % 3 == 0 ? "x" : "y"), s(i % 7 == 0 ? null : "v" + (i * 7919 % 1000)),
                        i % 11 == 0 ? null : (long) i * 1_000_003L - 7, dec(i % 13 == 0 ? null : (i - 150) + ".0625", 20, 4),
                        ts(String.format("2024-01-%02dT10:%02d:%02d.123456", 1 + i % 28, i % 60, (i * 7) % 60)),
                        i % 5 == 0 ? null : new byte[] {(byte) i, (byte) (i >> 8)},
                        new GenericArray(new Object[] {i, i % 4 == 0 ? null : -i})));
            }
            write(t, rows, null);
        }
        String full = "javagen." + name;
        full(t, full);
        dump(t, full, null, "filter", null, null, "p = 'x' AND id >= 250",
                pb -> PredicateBuilder.and(pb.equal(1, BinaryString.fromString("x")), pb.greaterOrEqual(0, 250)));
    }

    /** Avro data files: maps with string keys (Avro map) and int keys (array of key/value records), nullable array items. */
    private static void avroTypes(JavaGen g) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("s", DataTypes.STRING()).column("c", DataTypes.CHAR(3)).column("vc", DataTypes.VARCHAR(8))
                .column("d5_2", DataTypes.DECIMAL(5, 2)).column("d30_10", DataTypes.DECIMAL(30, 10))
                .column("ts3", DataTypes.TIMESTAMP(3)).column("ts6", DataTypes.TIMESTAMP(6))
                .column("ltz3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3))
                .column("dt", DataTypes.DATE()).column("bin", DataTypes.BINARY(2))
                .column("arr", DataTypes.ARRAY(DataTypes.STRING()))
                .column("ms", DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.INT()))
                .column("mi", DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.ARRAY(DataTypes.STRING())))
                .column("r", DataTypes.ROW(DataTypes.FIELD(100, "x", DataTypes.STRING()),
                        DataTypes.FIELD(101, "y", DataTypes.ROW(DataTypes.FIELD(102, "z", DataTypes.DATE())))))
                .option("file.format", "avro").option("file.compression", "snappy")
                .build();
        Table t = g.create("avro_types", schema);
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Map<Object, Object> ms = new HashMap<>();
            ms.put(s("k" + i), i % 2 == 0 ? null : i);
            ms.put(s("\u00fc"), -i);
            Map<Object, Object> mi = new HashMap<>();
            mi.put(i, new GenericArray(new Object[] {s("a"), null}));
            String t9 = TS9[i % TS9.length];
            String t9n = TS9_NESTED[i % TS9_NESTED.length];
            rows.add(i == 19 ? new GenericRow(15) : GenericRow.of((long) i * 1_000_000_007L, s(i % 3 == 0 ? "" : "s\"" + i), s("ab" + (i % 10)),
                    s("v" + i), dec(DECS[i % DECS.length][0], 5, 2), dec(DECS[i % DECS.length][2], 30, 10),
                    ts(t9 == null ? null : t9.substring(0, Math.min(t9.length(), 23))),
                    ts(t9 == null ? null : t9.substring(0, Math.min(t9.length(), 26))),
                    ts("2024-01-0" + (1 + i % 9) + "T10:00:00.123"), i * 100 - 700, new byte[] {(byte) i, 1},
                    new GenericArray(new Object[] {s("x" + i), null, s("")}), new GenericMap(ms), new GenericMap(mi),
                    GenericRow.of(s("r" + i), i % 4 == 0 ? null : GenericRow.of(i * 3))));
        }
        rows.get(19).setField(0, 19L);
        write(t, rows, null);
        g.full(t, "javagen.avro_types");
        g.dump(t, "javagen.avro_types", null, "proj", null, List.of("mi", "id", "r"), null, null);
    }

    private static final String[] REGIONS = {"a/b", "x=y", "sp ace", "pct%41", "colon:semi;", "\u00fcn\u00ef", "q?#[]", null};

    /** Java partition-path escaping; with partition.legacy-name=true (the default) DATE partitions are day numbers in the path. */
    private void partitioned(String name, String legacy) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("id", DataTypes.INT()).column("dt", DataTypes.DATE()).column("flag", DataTypes.BOOLEAN())
                .column("ts", DataTypes.TIMESTAMP(3)).column("region", DataTypes.STRING()).column("v", DataTypes.DECIMAL(10, 2))
                .partitionKeys("dt", "flag", "ts", "region")
                .option("partition.legacy-name", legacy)
                .build();
        Table t = create(name, schema);
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            rows.add(GenericRow.of(i, i % 7 == 6 ? null : 19723 + i % 2, i % 5 == 4 ? null : i % 2 == 0,
                    ts("2024-01-01T0" + (i % 2) + ":30:00.250"), s(REGIONS[i % REGIONS.length]), dec(i + ".25", 10, 2)));
        }
        write(t, rows, null);
        String tn = DB + "." + name;
        full(t, tn);
        dump(t, tn, null, "filter_region", null, null, "region IN ('a/b', 'x=y', 'q?#[]') OR dt = DATE '2024-01-02'",
                pb -> PredicateBuilder.or(pb.in(4, List.of(s("a/b"), s("x=y"), s("q?#[]"))), pb.equal(1, 19724)));
        dump(t, tn, null, "proj_parts", null, List.of("region", "flag", "id"), null, null);
    }

    /** Data files under <table>/data/... instead of <table>/<partition>/bucket-N. */
    private static void pathDir(JavaGen g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("p", DataTypes.STRING())
                .partitionKeys("p").option("data-file.path-directory", "data").build();
        Table t = g.create("path_dir", schema);
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) rows.add(GenericRow.of(i, s("p" + i % 3)));
        write(t, rows, null);
        g.full(t, "javagen.path_dir");
    }

    /** Several commits on a fixed-bucket append table: appends, a partition overwrite and a full compaction. */
    private static void commits(JavaGen g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("p", DataTypes.INT())
                .column("s", DataTypes.STRING()).partitionKeys("p")
                .option("bucket", "2").option("bucket-key", "id").option("file.format", "parquet").build();
        Table t = g.create("commits", schema);
        List<Long> snaps = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = 0; i < 6; i++) rows.add(GenericRow.of(c * 100 + i, i % 2, s("c" + c + "-" + i)));
            write(t, rows, null);
            snaps.add(latest(t));
        }
        write(t, List.of(GenericRow.of(999, 1, s("overwritten"))), Map.of("p", "1"));
        snaps.add(latest(t));
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            for (int p = 0; p < 2; p++) {
                for (int b = 0; b < 2; b++) {
                    org.apache.paimon.data.BinaryRow part = new BinaryRow(1);
                    org.apache.paimon.data.BinaryRowWriter bw = new org.apache.paimon.data.BinaryRowWriter(part);
                    bw.writeInt(0, p);
                    bw.complete();
                    w.compact(part, b, true);
                }
            }
            c.commit(w.prepareCommit());
        }
        snaps.add(latest(t));
        g.full(t, "javagen.commits");
        for (int i = 0; i < snaps.size(); i++) {
            g.dump(t, "javagen.commits", null, "snap" + snaps.get(i) + "_full", snaps.get(i), null, null, null);
        }
        g.dump(t, "javagen.commits", null, "filter_p", null, null, "p = 0 AND id < 150",
                pb -> PredicateBuilder.and(pb.equal(1, 0), pb.lessThan(0, 150)));
    }

    private static List<GenericRow> dtRows(String dt, int from, int to, String v) {
        List<GenericRow> rows = new ArrayList<>();
        for (int i = from; i <= to; i++) rows.add(GenericRow.of(s(dt), i, s(v + i)));
        return rows;
    }

    /**
     * A table that reads the partitions it lacks from a branch (scan.fallback-branch), as a batch
     * table over a streaming branch: writes alternate between the two (the branch in Avro), so
     * time travel maps each main snapshot to the branch's snapshot of its time. Java's batch reads
     * are the cases; its stream scan's first plan, which reads the table's own branch alone, goes
     * to expected/&lt;table&gt;/stream_first.jsonl.
     */
    private static void fallback(JavaGen g, String name, boolean pk) throws Exception {
        Schema.Builder sb = Schema.newBuilder()
                .column("dt", DataTypes.STRING().notNull()).column("id", DataTypes.INT().notNull())
                .column("s", DataTypes.STRING()).partitionKeys("dt");
        if (pk) sb.primaryKey("dt", "id").option("bucket", "2");
        Table t = g.create(name, sb.build());
        write(t, dtRows("d1", 1, 3, "main"), null);                     // main 1
        Thread.sleep(20);
        t.createBranch("stream");
        Identifier branchId = new Identifier(DB, name, "stream");
        g.catalog.alterTable(branchId, SchemaChange.setOption("file.format", "avro"), false);
        Table b = g.catalog.getTable(branchId);
        List<GenericRow> first = dtRows("d2", 1, 4, "stream");
        first.addAll(dtRows("d3", 1, 2, "stream"));
        write(b, first, null);                                           // stream 1
        Thread.sleep(20);
        write(t, dtRows("d2", 1, 2, "main"), null);                     // main 2
        Thread.sleep(20);
        List<GenericRow> second = dtRows("d4", 7, 7, "stream");
        second.addAll(dtRows("d1", 9, 9, "stream"));
        if (pk) second.addAll(dtRows("d3", 2, 2, "stream2"));
        write(b, second, null);                                          // stream 2
        g.catalog.alterTable(new Identifier(DB, name), SchemaChange.setOption("scan.fallback-branch", "stream"), false);
        Table tf = g.catalog.getTable(new Identifier(DB, name));
        String tn = "javagen." + name;
        g.facade = true;
        g.full(tf, tn);
        g.dump(tf, tn, null, "proj", null, List.of("s", "dt"), null, null);
        g.dump(tf, tn, null, "part_filter", null, null, "dt >= 'd2' AND dt <> 'd4'",
                pb -> PredicateBuilder.and(pb.greaterOrEqual(0, s("d2")), pb.notEqual(0, s("d4"))));
        g.streamDiffers = true;
        // The branch has no snapshot as old as main's first, so Java reads the branch's snapshot 1,
        // which through the REST catalog does not exist (its branch snapshots start later):
        // Java's read fails there, and the case is the filesystem catalog's only.
        Long branchEarliest = ((org.apache.paimon.table.FileStoreTable) b).snapshotManager().earliestSnapshotId();
        if (branchEarliest != null && branchEarliest == 1L) g.dump(tf, tn, null, "snap1", 1L, null, null, null);
        g.dump(tf, tn, null, "snap2", 2L, null, null, null);   // the branch's snapshot 1
        g.streamDiffers = false;
        g.facade = false;
        g.dump(b, tn, "stream", "full", null, null, null, null);
        ReadBuilder rb = tf.newReadBuilder();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newStreamScan().plan())) {
            reader.forEachRemaining(r -> lines.add(Canon.row(r, tf.rowType())));
        }
        lines.sort(Canon::codePointCompare);
        Path out = g.expected.resolve(tn).resolve("stream_first.jsonl");
        Files.createDirectories(out.getParent());
        Files.write(out, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * An OVERWRITE commit read by a stream, as each kind of table's option has Java read it
     * (streaming-read-append-overwrite: the rows it wrote; streaming-read-overwrite on a primary
     * key: -D of the rows it replaced, +I of the new). Java's stream from snapshot 3 (the
     * overwrite) goes to expected/&lt;table&gt;/stream_overwrite.jsonl with _row_kind.
     */
    private static void overwriteStream(JavaGen g, String name, boolean pk) throws Exception {
        Schema.Builder sb = Schema.newBuilder()
                .column("p", DataTypes.STRING().notNull()).column("id", DataTypes.INT().notNull())
                .column("s", DataTypes.STRING()).partitionKeys("p")
                .option(pk ? "streaming-read-overwrite" : "streaming-read-append-overwrite", "true");
        if (pk) sb.primaryKey("p", "id").option("bucket", "1");
        Table t = g.create(name, sb.build());
        write(t, dtRows("a", 1, 3, "old"), null);                  // 1
        write(t, dtRows("b", 1, 2, "old"), null);                  // 2
        write(t, dtRows("a", 2, 5, "new"), Map.of("p", "a"));      // 3: overwrites partition a
        String tn = "javagen." + name;
        g.full(t, tn);
        Table from = ((org.apache.paimon.table.FileStoreTable) t).copyWithoutTimeTravel(
                Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "3"));
        ReadBuilder rb = from.newReadBuilder();
        org.apache.paimon.table.source.StreamTableScan scan = rb.newStreamScan();
        List<org.apache.paimon.types.DataField> withKind = new ArrayList<>();
        withKind.add(new org.apache.paimon.types.DataField(-1, "_row_kind", DataTypes.STRING()));
        withKind.addAll(t.rowType().getFields());
        RowType kt = new RowType(withKind);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 4 && (scan.checkpoint() == null || scan.checkpoint() <= 3); i++) {
            try (RecordReader<InternalRow> reader = rb.newRead().createReader(scan.plan())) {
                reader.forEachRemaining(r -> lines.add(Canon.row(new org.apache.paimon.data.JoinedRow(
                        GenericRow.of(BinaryString.fromString(r.getRowKind().shortString())), r), kt)));
            }
        }
        lines.sort(Canon::codePointCompare);
        Path out = g.expected.resolve(tn).resolve("stream_overwrite.jsonl");
        Files.createDirectories(out.getParent());
        Files.write(out, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Read positions stored in the table's own options (ALTER TABLE SET 'scan.snapshot-id' and the
     * like): Java's batch reads start there, so a read of the latest snapshot would differ.
     */
    private static void scanOption(JavaGen g, String name, Map<String, String> opts) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("s", DataTypes.STRING()).build();
        Table t = g.create(name, schema);
        long[] times = new long[4];
        for (int i = 1; i <= 3; i++) {
            write(t, List.of(GenericRow.of(i, s("snap" + i))), null);
            times[i] = ((org.apache.paimon.table.FileStoreTable) t).snapshotManager().latestSnapshot().timeMillis();
            if (i == 1) t.createTag("t1", 1);
            Thread.sleep(20);
        }
        Map<String, String> o = new HashMap<>(opts);
        if (o.containsKey("scan.mode") && o.get("scan.mode").equals("from-timestamp")) o.put("scan.timestamp-millis", String.valueOf(times[2]));
        // Commit times: the changes after snapshot 1 up to snapshot 3.
        if (o.containsKey("incremental-between-timestamp")) o.put("incremental-between-timestamp", times[1] + "," + times[3]);
        List<SchemaChange> changes = new ArrayList<>();
        o.forEach((k, v) -> changes.add(SchemaChange.setOption(k, v)));
        g.catalog.alterTable(new Identifier(DB, name), changes, false);
        Table tt = g.catalog.getTable(new Identifier(DB, name));
        g.facade = !o.getOrDefault("scan.mode", "").equals("latest");
        g.full(tt, "javagen." + name);
        g.facade = false;
        // Java's stream of the table, told nothing else: where the stored position starts it,
        // or the error with which Java refuses it (stream_default.error).
        List<String> lines = new ArrayList<>();
        String error = null;
        try {
            ReadBuilder rb = tt.newReadBuilder();
            org.apache.paimon.table.source.StreamTableScan scan = rb.newStreamScan();
            for (int i = 0; i < 8 && (scan.checkpoint() == null || scan.checkpoint() <= 3); i++) {
                try (RecordReader<InternalRow> reader = rb.newRead().createReader(scan.plan())) {
                    reader.forEachRemaining(r -> lines.add(Canon.row(r, tt.rowType())));
                }
            }
        } catch (Exception e) {
            error = String.valueOf(e.getMessage());
        }
        lines.sort(Canon::codePointCompare);
        Path dir = g.expected.resolve("javagen." + name);
        Files.createDirectories(dir);
        if (error != null) Files.write(dir.resolve("stream_default.error"), (error + "\n").getBytes(StandardCharsets.UTF_8));
        else Files.write(dir.resolve("stream_default.jsonl"), lines.isEmpty() ? new byte[0] : (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * An append table whose incremental read, stored in its options, is a diff: rows 1 and 2, a
     * tag t1 at snapshot 1, an OVERWRITE of the whole table with rows 10 and 11 (snapshot 3),
     * rows 3 and 12 (snapshot 4, tag t4), row 4 (snapshot 5). Java's batch read returns the rows
     * of the files the later snapshot has and the earlier lacks, whatever the commit kinds.
     */
    private static void scanDiff(JavaGen g, String name, Map<String, String> opts) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("s", DataTypes.STRING()).build();
        Table t = g.create(name, schema);
        write(t, List.of(GenericRow.of(1, s("one"))), null);
        t.createTag("t1", 1);
        write(t, List.of(GenericRow.of(2, s("two"))), null);
        write(t, List.of(GenericRow.of(10, s("ten")), GenericRow.of(11, s("eleven"))), Map.of());
        write(t, List.of(GenericRow.of(3, s("three")), GenericRow.of(12, s("twelve"))), null);
        t.createTag("t4", 4);
        write(t, List.of(GenericRow.of(4, s("four"))), null);
        List<SchemaChange> changes = new ArrayList<>();
        opts.forEach((k, v) -> changes.add(SchemaChange.setOption(k, v)));
        g.catalog.alterTable(new Identifier(DB, name), changes, false);
        Table tt = g.catalog.getTable(new Identifier(DB, name));
        g.facade = true;
        g.full(tt, "javagen." + name);
        g.dump(tt, "javagen." + name, null, "id_gt_10", null, null, "id > 10", pb -> pb.greaterThan(0, 10));
        g.dump(tt, "javagen." + name, null, "proj_s", null, List.of("s"), null, null);
        g.facade = false;
    }

    /**
     * A data-evolution table as Spark's MERGE INTO and pypaimon's column updates write it: rows
     * 0..2499 in full (snapshot 1), then files of the same first row id holding only b (2), only
     * a and c (3) and c again (4, newer than 3's c); rows 2500..2502 in full and a file of c for
     * them (5, 6); a lone file of id and a (7: a first row id of its own, no other file holds its
     * b and c). Later files are written in format2 after ALTER file.format, the first in format1.
     */
    private static void dataEvolution(JavaGen g, String name, String format1, String format2) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("a", DataTypes.STRING())
                .column("b", DataTypes.BIGINT()).column("c", DataTypes.DOUBLE())
                .option("row-tracking.enabled", "true").option("data-evolution.enabled", "true")
                .option("file.format", format1).build();
        Table t = g.create(name, schema);
        RowType rt = t.rowType();
        int n = 2500;
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) rows.add(GenericRow.of(i, s("a" + i), (long) i, i % 7 == 0 ? null : i / 4.0));
        writeColumns(t, rt, rows, null);
        g.catalog.alterTable(new Identifier(DB, name), List.of(SchemaChange.setOption("file.format", format2)), false);
        t = g.catalog.getTable(new Identifier(DB, name));
        rows = new ArrayList<>();
        for (int i = 0; i < n; i++) rows.add(GenericRow.of(i % 3 == 0 ? null : (long) i * 10));
        writeColumns(t, rt.project(List.of("b")), rows, 0L);
        rows = new ArrayList<>();
        for (int i = 0; i < n; i++) rows.add(GenericRow.of(s("x" + i), (double) -i));
        writeColumns(t, rt.project(List.of("a", "c")), rows, 0L);
        rows = new ArrayList<>();
        for (int i = 0; i < n; i++) rows.add(GenericRow.of(i % 5 == 0 ? Double.NaN : (double) i));
        writeColumns(t, rt.project(List.of("c")), rows, 0L);
        writeColumns(t, rt, List.of(GenericRow.of(n, s("p"), 1L, 1.0), GenericRow.of(n + 1, s("q"), 2L, 2.0),
                GenericRow.of(n + 2, s("r"), null, 3.0)), null);
        writeColumns(t, rt.project(List.of("c")), List.of(GenericRow.of(10.5), GenericRow.of((Double) null),
                GenericRow.of(30.5)), (long) n);
        writeColumns(t, rt.project(List.of("id", "a")), List.of(GenericRow.of(9000, s("lone")), GenericRow.of(9001, s("lone2"))), null);
        String tn = "javagen." + name;
        g.full(t, tn);
        g.dump(t, tn, null, "proj_c_a", null, List.of("c", "a"), null, null);
        g.dump(t, tn, null, "b_gt_20000", null, null, "b > 20000", pb -> pb.greaterThan(2, 20000L));
        g.dump(t, tn, null, "c_is_null", null, List.of("id", "c"), "c IS NULL", pb -> pb.isNull(3));
        g.dump(t, tn, null, "a_starts_x1", null, List.of("a", "id", "b"), "a LIKE 'x1%'", pb -> pb.startsWith(1, s("x1")));
    }

    // writeColumns commits rows of writeType's columns, as files of first row id firstRowId when
    // given (the rows they update), else of the ids the commit assigns (new rows).
    private static void writeColumns(Table t, RowType writeType, List<GenericRow> rows, Long firstRowId) throws Exception {
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite().withWriteType(writeType); BatchTableCommit c = wb.newCommit()) {
            for (InternalRow r : rows) w.write(r);
            List<org.apache.paimon.table.sink.CommitMessage> msgs = w.prepareCommit();
            if (firstRowId != null) {
                for (org.apache.paimon.table.sink.CommitMessage m : msgs) {
                    org.apache.paimon.table.sink.CommitMessageImpl mi = (org.apache.paimon.table.sink.CommitMessageImpl) m;
                    List<org.apache.paimon.io.DataFileMeta> files = new ArrayList<>(mi.newFilesIncrement().newFiles());
                    mi.newFilesIncrement().newFiles().clear();
                    for (org.apache.paimon.io.DataFileMeta f : files) mi.newFilesIncrement().newFiles().add(f.assignFirstRowId(firstRowId));
                }
            }
            c.commit(msgs);
        }
    }

    /** A branch created from a tag, then diverging writes on main and the branch. */
    private static void branchy(JavaGen g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("s", DataTypes.STRING()).build();
        Table t = g.create("branchy", schema);
        write(t, List.of(GenericRow.of(1, s("base")), GenericRow.of(2, s("base"))), null);
        t.createTag("t1", latest(t));
        t.createBranch("b1", "t1");
        write(t, List.of(GenericRow.of(3, s("main"))), null);
        Table b = g.catalog.getTable(new Identifier(DB, "branchy", "b1"));
        write(b, List.of(GenericRow.of(4, s("branch")), GenericRow.of(5, s("branch"))), null);
        g.full(t, "javagen.branchy");
        g.dump(b, "javagen.branchy", "b1", "full", null, null, null, null);
    }


    // ------------------------------------------------------------------------------------ ORC (issue 14)

    // Pre-1970 fractions, the 2015-01-01 base of ORC timestamps, year 1000 (Java writes through
    // java.sql.Timestamp's hybrid calendar and reads back proleptic: its read is the oracle).
    private static final String[] ORC_TS = {"1970-01-01T00:00:00.000000001", "1969-12-31T23:59:59.999999999",
        "2015-01-01T00:00:00", "2014-12-31T23:59:59.5", "1677-09-22T00:00:00.000000001", "2262-04-11T23:47:16.854775807",
        "1000-01-01T12:00:00.123456789", "1900-01-01T00:00:00.5", "2024-02-29T12:34:56.123456789", null};

    private static String cut(String iso, int digits) {
        if (iso == null) return null;
        int dot = iso.indexOf('.');
        if (dot < 0) return iso;
        return digits == 0 ? iso.substring(0, dot) : iso.substring(0, Math.min(iso.length(), dot + 1 + digits));
    }

    /** Every type Paimon's ORC writer maps, extremes and NULLs, one file per codec. */
    private void orcTypes(String name, String codec) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull())
                .column("b", DataTypes.BOOLEAN()).column("i8", DataTypes.TINYINT()).column("i16", DataTypes.SMALLINT())
                .column("i64", DataTypes.BIGINT())
                .column("d5_2", DataTypes.DECIMAL(5, 2)).column("d18_4", DataTypes.DECIMAL(18, 4)).column("d38_10", DataTypes.DECIMAL(38, 10))
                .column("s", DataTypes.STRING()).column("c", DataTypes.CHAR(5)).column("vc", DataTypes.VARCHAR(10))
                .column("bin", DataTypes.BINARY(3)).column("vb", DataTypes.BYTES())
                .column("dt", DataTypes.DATE()).column("tm", DataTypes.TIME())
                .column("ts0", DataTypes.TIMESTAMP(0)).column("ts3", DataTypes.TIMESTAMP(3)).column("ts6", DataTypes.TIMESTAMP(6))
                .column("ts9", DataTypes.TIMESTAMP(9))
                .column("ltz3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3)).column("ltz9", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(9))
                .column("arr", DataTypes.ARRAY(DataTypes.STRING()))
                .column("m", DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.DECIMAL(18, 4)))
                .column("r", DataTypes.ROW(DataTypes.FIELD(100, "a", DataTypes.INT()), DataTypes.FIELD(101, "t", DataTypes.TIMESTAMP(9)),
                        DataTypes.FIELD(102, "nest", DataTypes.ARRAY(DataTypes.ROW(DataTypes.FIELD(103, "k", DataTypes.STRING()))))))
                .option("file.format", "orc").option("file.compression", codec)
                .build();
        Table t = create(name, schema);
        List<GenericRow> rows = new ArrayList<>();
        long[] i64 = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1L << 40};
        for (int i = 0; i < 30; i++) {
            String tsv = ORC_TS[i % ORC_TS.length];
            // TIMESTAMP(7..9) outside Arrow's nanosecond range is refused by the Go reader (docs/interop.md).
            String t9 = tsv != null && tsv.startsWith("1000-") ? "1970-06-01T00:00:00.000000007" : tsv;
            String[] d = DECS[i % DECS.length];
            Map<Object, Object> m = new HashMap<>();
            m.put(i, dec(d[1], 18, 4));
            m.put(-i - 1, null);
            boolean nulls = i % 9 == 8;
            rows.add(nulls ? GenericRow.of(i, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                            null, null, null, null, null, null, null, null, null)
                    : GenericRow.of(i, i % 3 == 0, (byte) (i % 2 == 0 ? Byte.MIN_VALUE + i : Byte.MAX_VALUE - i),
                    (short) (i % 2 == 0 ? Short.MIN_VALUE : Short.MAX_VALUE - i), i64[i % i64.length] + (i > 4 ? i : 0),
                    dec(d[0], 5, 2), dec(d[1], 18, 4), dec(d[2], 38, 10),
                    s(i % 5 == 0 ? "" : "row-" + i + " \u00e9\u65e5\ud83d\ude00"), s(i % 4 == 0 ? "ab" : "abc" + (i % 10)),
                    s("v" + i), new byte[] {(byte) i, 0, (byte) 255}, i % 4 == 0 ? new byte[0] : new byte[] {(byte) i},
                    i % 2 == 0 ? -719162 + i * 1000 : 2932896 - i, (i * 3_600_123) % 86_400_000,
                    ts(cut(tsv, 0)), ts(cut(tsv, 3)), ts(cut(tsv, 6)), ts(t9), ts(cut(tsv, 3)), ts(t9),
                    new GenericArray(new Object[] {s("x" + i), null, s("")}), new GenericMap(m),
                    i % 3 == 0 ? null : GenericRow.of(i % 4 == 0 ? null : i, ts(t9),
                            new GenericArray(new Object[] {GenericRow.of(s("k" + i)), null, GenericRow.of((Object) null)}))));
        }
        write(t, rows.subList(0, 18), null);
        write(t, rows.subList(18, rows.size()), null);
        String tn = DB + "." + name;
        full(t, tn);
        if (codec.equals("zstd")) {
            dump(t, tn, null, "proj", null, List.of("r", "ltz9", "c", "id"), null, null);
            dump(t, tn, null, "filter_s", null, null, "s >= 'row-2' AND i16 < 0",
                    pb -> PredicateBuilder.and(pb.greaterOrEqual(8, s("row-2")), pb.lessThan(3, (short) 0)));
        }
    }

    /** Many small stripes (tiny orc.stripe.size): stripe pruning by statistics, batches across stripes. */
    private static void orcStripes(JavaGen g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("s", DataTypes.STRING())
                .column("v", DataTypes.BIGINT()).column("dt", DataTypes.DATE())
                .option("file.format", "orc").option("orc.stripe.size", "1024").option("orc.rows.between.memory.checks", "500")
                .option("orc.row.index.stride", "1000").build();
        Table t = g.create("orc_stripes", schema);
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 6000; i++) {
            rows.add(GenericRow.of(i, i % 10 == 0 ? null : s("s" + (i / 100)), (long) i * i, i % 7 == 0 ? null : i / 10));
        }
        write(t, rows, null);
        String tn = "javagen.orc_stripes";
        g.full(t, tn);
        g.dump(t, tn, null, "filter_id", null, null, "id >= 4100 AND id < 4200",
                pb -> PredicateBuilder.and(pb.greaterOrEqual(0, 4100), pb.lessThan(0, 4200)));
        g.dump(t, tn, null, "filter_s", null, null, "s = 's7'", pb -> pb.equal(1, s("s7")));
        g.dump(t, tn, null, "filter_null", null, null, "dt IS NULL AND id < 1000", pb -> PredicateBuilder.and(pb.isNull(3), pb.lessThan(0, 1000)));
    }

    /** Fixed-bucket partitioned ORC append table, two commits and a full compaction. */
    private static void orcBucket(JavaGen g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("p", DataTypes.STRING())
                .column("v", DataTypes.DECIMAL(10, 2)).partitionKeys("p")
                .option("bucket", "2").option("bucket-key", "id").option("file.format", "orc").build();
        Table t = g.create("orc_bucket", schema);
        for (int c = 0; c < 2; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = 0; i < 10; i++) rows.add(GenericRow.of(c * 100 + i, s("p" + i % 3), dec(i + ".5" + c, 10, 2)));
            write(t, rows, null);
        }
        String tn = "javagen.orc_bucket";
        g.full(t, tn);
        g.dump(t, tn, null, "filter_p", null, null, "p = 'p1' AND id > 100",
                pb -> PredicateBuilder.and(pb.equal(1, s("p1")), pb.greaterThan(0, 100)));
    }

    /** Schema evolution over ORC files: rename, widen INT to BIGINT, add and drop columns. */
    private static void orcEvolve(JavaGen g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("a", DataTypes.INT())
                .column("s", DataTypes.STRING()).column("gone", DataTypes.STRING()).option("file.format", "orc").build();
        Table t = g.create("orc_evolve", schema);
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 8; i++) rows.add(GenericRow.of(i, i * -1000, s("s" + i), s("g" + i)));
        write(t, rows, null);
        Identifier id = Identifier.create(DB, "orc_evolve");
        g.catalog.alterTable(id, List.of(SchemaChange.renameColumn("s", "s2"), SchemaChange.updateColumnType("a", DataTypes.BIGINT()),
                SchemaChange.addColumn("x", DataTypes.DOUBLE()), SchemaChange.dropColumn("gone"),
                SchemaChange.addColumn("n", DataTypes.STRING())), false);
        t = g.catalog.getTable(id);
        write(t, List.of(GenericRow.of(100, 1L << 40, s("new"), 1.5d, s("n1"))), null);
        g.dump(t, "javagen.orc_evolve", null, "full", null, List.of("id", "a", "s2", "n"), null, null);
        g.dump(t, "javagen.orc_evolve", null, "filter_a", null, List.of("id", "a", "s2"), "a < -2000",
                pb -> pb.lessThan(1, -2000L));
    }

    /**
     * Schema history (one snapshot per schema): 0 {id INT, s STRING, a BIGINT, f INT}; 1 renames s
     * to s2; 2 drops f and adds f STRING; 3 makes a STRING; 4 renames s2 back to s and adds a new
     * s2; 5 moves a first. Every dump reads one snapshot with Java's time travel
     * (scan.snapshot-id), the filter built on that snapshot's own row type.
     */
    private void renameReuse(String name, String format) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("s", DataTypes.STRING())
                .column("a", DataTypes.BIGINT()).column("f", DataTypes.INT()).option("file.format", format).build();
        Table t = create(name, schema);
        Identifier id = Identifier.create(DB, name);
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) rows.add(GenericRow.of(i, s("s" + i), (long) i, i % 3 == 0 ? null : i));
        write(t, rows, null);
        catalog.alterTable(id, List.of(SchemaChange.renameColumn("s", "s2")), false);
        t = catalog.getTable(id);
        rows.clear();
        for (int i = 10; i < 20; i++) rows.add(GenericRow.of(i, s("s2_" + i), (long) i, i % 4 == 0 ? null : i));
        write(t, rows, null);
        catalog.alterTable(id, List.of(SchemaChange.dropColumn("f"), SchemaChange.addColumn("f", DataTypes.STRING())), false);
        t = catalog.getTable(id);
        rows.clear();
        for (int i = 20; i < 30; i++) rows.add(GenericRow.of(i, s("s2_" + i), (long) i, i % 2 == 0 ? null : s("f" + i)));
        write(t, rows, null);
        catalog.alterTable(id, List.of(SchemaChange.updateColumnType("a", DataTypes.STRING())), false);
        t = catalog.getTable(id);
        rows.clear();
        for (int i = 30; i < 40; i++) rows.add(GenericRow.of(i, s("s2_" + i), s(i % 2 == 0 ? "5" : "a" + i), s("f" + i)));
        write(t, rows, null);
        catalog.alterTable(id, List.of(SchemaChange.renameColumn("s2", "s"), SchemaChange.addColumn("s2", DataTypes.STRING())), false);
        t = catalog.getTable(id);
        rows.clear();
        for (int i = 40; i < 50; i++) rows.add(GenericRow.of(i, s("s_" + i), s("a" + i), s("f" + i), s(i % 2 == 0 ? "s2_new" + i : null)));
        write(t, rows, null);
        catalog.alterTable(id, List.of(SchemaChange.updateColumnPosition(SchemaChange.Move.first("a"))), false);
        t = catalog.getTable(id);
        write(t, List.of(GenericRow.of(s("5"), 50, s("s_50"), s("f50"), s("s2_new50"))), null);
        String tn = "javagen." + name;
        full(t, tn);
        for (long snap = 1; snap <= 6; snap++) dump(t, tn, null, "snap" + snap, snap, null, null, null);
        dump(t, tn, null, "s2_like_at2", 2L, null, "s2 LIKE 's2%'", pb -> pb.startsWith(pb.indexOf("s2"), s("s2")));
        dump(t, tn, null, "s2_like_at5", 5L, null, "s2 LIKE 's2%'", pb -> pb.startsWith(pb.indexOf("s2"), s("s2")));
        dump(t, tn, null, "s_like_at5", 5L, null, "s LIKE 's2%'", pb -> pb.startsWith(pb.indexOf("s"), s("s2")));
        dump(t, tn, null, "s_eq_at1", 1L, List.of("id", "s"), "s = 's3'", pb -> pb.equal(pb.indexOf("s"), s("s3")));
        dump(t, tn, null, "proj_at2", 2L, List.of("s2", "id"), "id >= 5", pb -> pb.greaterOrEqual(pb.indexOf("id"), 5));
        dump(t, tn, null, "f_null_at2", 2L, null, "f IS NULL", pb -> pb.isNull(pb.indexOf("f")));
        dump(t, tn, null, "f_null_at3", 3L, null, "f IS NULL", pb -> pb.isNull(pb.indexOf("f")));
        dump(t, tn, null, "f_null_at6", 6L, null, "f IS NULL", pb -> pb.isNull(pb.indexOf("f")));
        dump(t, tn, null, "a_eq5_at3", 3L, null, "a = 5", pb -> pb.equal(pb.indexOf("a"), 5L));
        dump(t, tn, null, "a_lt15_at3", 3L, null, "a < 15", pb -> pb.lessThan(pb.indexOf("a"), 15L));
        dump(t, tn, null, "a_eq5_at6", 6L, null, "a = '5'", pb -> pb.equal(pb.indexOf("a"), s("5")));
        dump(t, tn, null, "s2_null_at6", 6L, List.of("id", "s2"), "s2 IS NULL", pb -> pb.isNull(pb.indexOf("s2")));
    }

    /**
     * DOUBLE and FLOAT columns holding NaN first, last and in the middle of files and of ORC
     * row-index groups (stride 1000), in files whose other values lie below, around and above the
     * filters' literals; one commit per file.
     */
    private void nanTable(String name, String format) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("d", DataTypes.DOUBLE())
                .column("f", DataTypes.FLOAT()).option("file.format", format).option("orc.row.index.stride", "1000")
                .option("bucket", "-1").build();
        Table t = create(name, schema);
        // Each file: its values, and where NaN goes (-1: none; 0: first; n: before value n).
        double[][] files = {
            {1, 2, 3, 100}, {1, 2, 3, 100}, {1, 2, 3, 100},
            {400, 450, 600}, {400, 450, 600}, {600, 700, 800},
        };
        int[] nanAt = {0, 4, 2, 0, 1, 3};
        int id = 0;
        for (int k = 0; k < files.length; k++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = 0; i <= files[k].length; i++) {
                if (i == nanAt[k]) rows.add(GenericRow.of(id++, Double.NaN, Float.NaN));
                if (i < files[k].length) rows.add(GenericRow.of(id++, files[k][i], (float) files[k][i]));
            }
            write(t, rows, null);
        }
        // One file of 4000 rows, four row-index groups: values 0..999 + 1000*g, NaN at row 0 of
        // group 0, row 500 of group 1, none in group 2, row 999 of group 3.
        List<GenericRow> rows = new ArrayList<>();
        int[] nanRow = {0, 500, -1, 999};
        for (int g = 0; g < 4; g++) {
            for (int i = 0; i < 1000; i++) {
                double v = i == nanRow[g] ? Double.NaN : (g < 2 ? i % 400 : 400 + i);
                rows.add(GenericRow.of(id++, v, (float) v));
            }
        }
        write(t, rows, null);
        String tn = "javagen." + name;
        dump(t, tn, null, "full", null, null, null, null);
        // Java's filtered ORC reads trust ORC's DOUBLE/FLOAT min/max, which leave NaN out unless it
        // is a file's or group's first value (then both are NaN): they lose matching rows.
        // tests/interop TestNaNStatisticsOfORCFiles checks those reads against ours.
        recordCases = !format.equals("orc");
        dump(t, tn, null, "d_gt_500", null, null, "d > 500.0", pb -> pb.greaterThan(1, 500.0d));
        dump(t, tn, null, "d_ge_450", null, null, "d >= 450.0", pb -> pb.greaterOrEqual(1, 450.0d));
        dump(t, tn, null, "d_lt_50", null, null, "d < 50.0", pb -> pb.lessThan(1, 50.0d));
        dump(t, tn, null, "d_le_3", null, null, "d <= 3.0", pb -> pb.lessOrEqual(1, 3.0d));
        dump(t, tn, null, "d_eq_100", null, null, "d = 100.0", pb -> pb.equal(1, 100.0d));
        dump(t, tn, null, "d_ne_100", null, null, "d <> 100.0", pb -> pb.notEqual(1, 100.0d));
        dump(t, tn, null, "d_in", null, null, "d IN (2.0, 700.0)", pb -> pb.in(1, List.of(2.0d, 700.0d)));
        dump(t, tn, null, "f_gt_500", null, null, "f > 500.0", pb -> pb.greaterThan(2, 500.0f));
        dump(t, tn, null, "f_lt_50", null, null, "f < 50.0", pb -> pb.lessThan(2, 50.0f));
        recordCases = true;
    }

    // Parquet stores TIMESTAMP(7..9) as INT96 (Julian day, nanos of day), ORC as seconds and nanos:
    // both hold these values, which an int64 of epoch nanoseconds cannot.
    private static final String[] TS_EXTREME = {"0001-01-01T00:00:00.000000001", "9999-12-31T23:59:59.999999999",
        "1677-09-21T00:12:43.145224191", "2262-04-11T23:47:16.854775808", null, "2024-02-29T12:34:56.123456789",
        "1969-12-31T23:59:59.999999999", "0001-01-01T00:00:00", "1000-03-01T01:02:03.000000004",
        "1677-09-21T00:12:43.145224192", "2262-04-11T23:47:16.854775807"};

    /** Extreme TIMESTAMP(9) / TIMESTAMP_LTZ(9) / TIMESTAMP(7) values in one append table per format. */
    private void tsExtreme(String name, String format) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT().notNull())
                .column("ts9", DataTypes.TIMESTAMP(9)).column("ltz9", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(9))
                .column("ts7", DataTypes.TIMESTAMP(7)).column("ts6", DataTypes.TIMESTAMP(6))
                .option("file.format", format).option("bucket", "-1").build();
        Table t = create(name, schema);
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < TS_EXTREME.length; i++) {
            String v = TS_EXTREME[i];
            // TIMESTAMP(7) and (6) get the value cut to their digits: what a writer of that precision stores.
            String v7 = v == null ? null : v.substring(0, Math.min(v.length(), 27));
            String v6 = v == null ? null : v.substring(0, Math.min(v.length(), 26));
            rows.add(GenericRow.of(i, ts(v), ts(v), ts(v7), ts(v6)));
        }
        write(t, rows.subList(0, 6), null);
        write(t, rows.subList(6, rows.size()), null);
        String tn = "javagen." + name;
        dump(t, tn, null, "full", null, null, null, null);
        dump(t, tn, null, "proj", null, List.of("ltz9", "id"), null, null);
        dump(t, tn, null, "ts9_after_2262", null, null, "ts9 > TIMESTAMP '2262-04-11 23:47:16.854775807'",
                pb -> pb.greaterThan(1, ts("2262-04-11T23:47:16.854775807")));
        dump(t, tn, null, "ts9_before_1677", null, null, "ts9 < TIMESTAMP '1677-09-21 00:12:43.145224192'",
                pb -> pb.lessThan(1, ts("1677-09-21T00:12:43.145224192")));
        dump(t, tn, null, "ts9_eq_9999", null, null, "ts9 = TIMESTAMP '9999-12-31 23:59:59.999999999'",
                pb -> pb.equal(1, ts("9999-12-31T23:59:59.999999999")));
        // The smallest value as Java reads it back (ORC: through java.sql.Timestamp's hybrid
        // calendar, two days earlier than written), equal to it in every column. Java's ORC
        // read loses those rows (the file's manifest statistics keep 0001-01-01 and prune it),
        // so its cases are not recorded: tests/interop TestTimestampsBeyondNanosecondRange
        // compares the library's planned read with them.
        String min = format.equals("orc") ? "0000-12-30" : "0001-01-01";
        recordCases = !format.equals("orc");
        dump(t, tn, null, "ts9_eq_min", null, null, "ts9 = TIMESTAMP '" + min + " 00:00:00'",
                pb -> pb.equal(1, ts(min + "T00:00:00")));
        dump(t, tn, null, "ts6_eq_min", null, null, "ts6 = TIMESTAMP '" + min + " 00:00:00'",
                pb -> pb.equal(4, ts(min + "T00:00:00")));
        recordCases = true;
    }

    private static final String[] COLORS = {"red", "green", "", "blue", "\u00e9t\u00e9"};

    /**
     * MAP/MULTISET columns of string and int keys, maps inside arrays and rows, with NULL and empty
     * collections at every level and string columns of few distinct values (dictionary under the
     * default threshold) next to all-distinct ones (direct). small: write batches of 100 rows and
     * a stripe per batch, two files (rows 0..199, 200..); rows 100..219 hold no map entries at all,
     * so some stripes have empty dictionaries. Otherwise one file of one stripe with row groups.
     */
    private void orcMaps(String name, Map<String, String> extra, int n, boolean small) throws Exception {
        Schema.Builder b = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull()).column("g", DataTypes.INT())
                .column("ms", DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.STRING()))
                .column("msi", DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.INT()))
                .column("mis", DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.STRING()))
                .column("mset", DataTypes.MULTISET(DataTypes.STRING()))
                .column("am", DataTypes.ARRAY(DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.STRING())))
                .column("r", DataTypes.ROW(DataTypes.FIELD(100, "m", DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.ARRAY(DataTypes.STRING())))))
                .column("arr", DataTypes.ARRAY(DataTypes.STRING()))
                .column("s", DataTypes.STRING())
                .option("file.format", "orc").option("bucket", "-1");
        if (small) {
            b.option("write.batch-size", "100").option("orc.write.batch-size", "100")
                    .option("orc.stripe.size", "1024").option("orc.rows.between.memory.checks", "100");
        }
        extra.forEach(b::option);
        Table t = create(name, b.build());
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            boolean none = small && i >= 100 && i < 220;
            GenericRow r = new GenericRow(10);
            r.setField(0, i);
            r.setField(1, i % 7 == 3 ? null : i % 7);
            if (none) {
                Map<Object, Object> empty = new HashMap<>();
                boolean nul = i % 2 == 0;
                for (int c = 2; c <= 5; c++) r.setField(c, nul ? null : new GenericMap(empty));
                r.setField(6, nul ? null : new GenericArray(i % 4 == 1 ? new Object[0] : new Object[] {null, new GenericMap(empty)}));
                r.setField(7, nul ? null : GenericRow.of(i % 4 == 1 ? null : new GenericMap(empty)));
                r.setField(8, nul ? null : new GenericArray(i % 4 == 1 ? new Object[0] : new Object[] {null}));
                r.setField(9, nul ? null : s(COLORS[i % COLORS.length]));
                rows.add(r);
                continue;
            }
            // ms: keys k0..k3 (dictionary), values all distinct (direct), a NULL value.
            if (i % 11 != 5) {
                Map<Object, Object> m = new HashMap<>();
                if (i % 11 != 6) for (int j = 0; j <= i % 4; j++) m.put(s("k" + j), j == 1 ? null : s("v" + i + "." + j));
                r.setField(2, new GenericMap(m));
            }
            // msi: keys all distinct, INT values.
            if (i % 13 != 4) {
                Map<Object, Object> m = new HashMap<>();
                if (i % 13 != 7) for (int j = 0; j < 1 + i % 3; j++) m.put(s("key-" + i + "-" + j), j == 2 ? null : i * 10 + j);
                r.setField(3, new GenericMap(m));
            }
            // mis: INT keys, values from a few colours.
            if (i % 6 != 2) {
                Map<Object, Object> m = new HashMap<>();
                if (i % 6 != 3) for (int j = 0; j < 1 + i % 4; j++) m.put(i * 10 - j, (i + j) % 6 == 5 ? null : s(COLORS[(i + j) % COLORS.length]));
                r.setField(4, new GenericMap(m));
            }
            // mset: element -> count; neighbouring rows share elements, so a stripe's dictionary
            // (ratio about 0.5) holds more entries than the stripe has rows.
            if (i % 9 != 4) {
                Map<Object, Object> m = new HashMap<>();
                if (i % 9 != 0) for (int j = 0; j < 2 + i % 4; j++) m.put(s("m" + (2 * i + j)), 1 + j);
                r.setField(5, new GenericMap(m));
            }
            // am: arrays of maps, NULL and empty at both levels.
            if (i % 8 != 1) {
                List<Object> a = new ArrayList<>();
                if (i % 8 != 2) {
                    Map<Object, Object> m1 = new HashMap<>();
                    m1.put(s("x"), s("y" + i % 3));
                    m1.put(s("z" + i), null);
                    a.add(new GenericMap(m1));
                    if (i % 3 == 0) a.add(null);
                    if (i % 4 == 0) a.add(new GenericMap(new HashMap<>()));
                    Map<Object, Object> m2 = new HashMap<>();
                    m2.put(s(COLORS[i % COLORS.length]), s("w" + i));
                    a.add(new GenericMap(m2));
                }
                r.setField(6, new GenericArray(a.toArray()));
            }
            // r.m: map of string to array of strings inside a row.
            if (i % 10 != 0) {
                Map<Object, Object> m = null;
                if (i % 10 != 1) {
                    m = new HashMap<>();
                    if (i % 10 != 2) {
                        m.put(s("a"), new GenericArray(new Object[] {s("p" + i % 2), null, s("")}));
                        m.put(s("b" + i % 5), null);
                        m.put(s("c"), new GenericArray(new Object[0]));
                        m.put(s("d" + i), new GenericArray(new Object[] {s("q" + i)}));
                    }
                }
                r.setField(7, GenericRow.of(m == null ? null : new GenericMap(m)));
            }
            // arr: distinct and repeated strings.
            if (i % 12 != 0) {
                r.setField(8, new GenericArray(i % 12 == 1 ? new Object[0] : new Object[] {s("e" + i), null, s("f" + i % 3)}));
            }
            r.setField(9, i % 5 == 0 ? null : s(i % 2 == 0 ? COLORS[i % COLORS.length] : "s" + i));
            rows.add(r);
        }
        String tn = DB + "." + name;
        if (small) {
            write(t, rows.subList(0, 200), null);
            write(t, rows.subList(200, n), null);
            full(t, tn);
            // A filter on another column with a projection that keeps or leaves out the maps.
            dump(t, tn, null, "proj_maps", null, List.of("mset", "id", "r", "ms"), "id >= 190 AND id < 240",
                    pb -> PredicateBuilder.and(pb.greaterOrEqual(0, 190), pb.lessThan(0, 240)));
            dump(t, tn, null, "proj_no_maps", null, List.of("s", "id", "g", "arr"), "g = 4 OR id < 5",
                    pb -> PredicateBuilder.or(pb.equal(1, 4), pb.lessThan(0, 5)));
            if (extra.isEmpty()) {
                dump(t, tn, null, "filter_g", null, null, "g = 2", pb -> pb.equal(1, 2));
                dump(t, tn, null, "filter_s", null, List.of("id", "am", "s"), "s = 'green'", pb -> pb.equal(9, s("green")));
                dump(t, tn, null, "ms_null", null, List.of("id", "ms", "msi"), "ms IS NULL", pb -> pb.isNull(2));
            }
        } else {
            write(t, rows, null);
            final long[] cnt = {0};
            try (RecordReader<InternalRow> rd = t.newReadBuilder().newRead().createReader(t.newReadBuilder().newScan().plan())) {
                rd.forEachRemaining(x -> cnt[0]++);
            }
            props.add("{\"table\":" + Canon.str(tn) + ",\"rows\":" + cnt[0] + ",\"writer\":\"java\"}");
            // Row groups of 1000 rows: the filters keep a middle and the last group, so the
            // reader seeks every nested stream (dictionary or direct) to a group's start.
            dump(t, tn, null, "filter_mid", null, null, "id >= 1490 AND id < 1530",
                    pb -> PredicateBuilder.and(pb.greaterOrEqual(0, 1490), pb.lessThan(0, 1530)));
            dump(t, tn, null, "filter_last", null, List.of("r", "mset", "id", "am"), "id >= 2570",
                    pb -> pb.greaterOrEqual(0, 2570));
            dump(t, tn, null, "proj_filter_g", null, List.of("g", "id", "mis"), "id >= 2000 AND id < 2100 AND g = 1",
                    pb -> PredicateBuilder.and(pb.greaterOrEqual(0, 2000), pb.lessThan(0, 2100), pb.equal(1, 1)));
        }
    }

    /** file.format changed mid-table: Parquet, then ORC, then Avro files in one bucket. */
    private static void orcSwitch(JavaGen g) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("s", DataTypes.STRING())
                .column("ts", DataTypes.TIMESTAMP(6)).option("file.format", "parquet").build();
        Table t = g.create("orc_switch", schema);
        Identifier id = Identifier.create(DB, "orc_switch");
        String[] formats = {"parquet", "orc", "avro", "orc"};
        for (int c = 0; c < formats.length; c++) {
            if (c > 0) {
                g.catalog.alterTable(id, List.of(SchemaChange.setOption("file.format", formats[c])), false);
                t = g.catalog.getTable(id);
            }
            List<GenericRow> rows = new ArrayList<>();
            for (int i = 0; i < 4; i++) rows.add(GenericRow.of(c * 10 + i, s(formats[c] + i), ts(cut(ORC_TS[(c + i) % ORC_TS.length], 6))));
            write(t, rows, null);
        }
        g.full(t, "javagen.orc_switch");
        g.dump(t, "javagen.orc_switch", null, "filter", null, null, "id >= 12", pb -> pb.greaterOrEqual(0, 12));
    }

    // Local times around America/Los_Angeles's DST changes (a skipped and a repeated hour), its
    // 1883 switch from local mean time (-7:52:58), pre-1970 fractions and far-future values.
    private static final String[] TZ_TS = {"2024-03-10T02:30:00", "2024-03-10T01:59:59.999999999", "2024-03-10T03:00:00.000000001",
        "2024-11-03T01:30:00.5", "2024-11-03T00:59:59.25", "2024-11-03T02:00:00", "1883-11-18T11:59:59", "1883-11-18T12:30:00",
        "1900-01-01T00:00:00.5", "1969-12-31T23:59:59.999999999", "1970-01-01T00:00:00", "2015-01-01T00:00:00.000001",
        "2038-01-19T03:14:08", "2200-07-01T12:00:00.123456789", null};

    /**
     * ORC timestamps written in the JVM's default zone: Java's ORC writer stores TIMESTAMP (and
     * Paimon's legacy LTZ) relative to the writer zone and records it in each stripe footer.
     * Meant to be generated under a non-UTC zone: the committed group is written with
     * MAVEN_OPTS=-Duser.timezone=America/Los_Angeles (docs/interop.md); in UTC it still passes
     * but tests nothing zone-specific.
     */
    private void orcTz(String name, Map<String, String> extra) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT())
                .column("ts0", DataTypes.TIMESTAMP(0)).column("ts3", DataTypes.TIMESTAMP(3)).column("ts9", DataTypes.TIMESTAMP(9))
                .column("ltz3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3)).column("ltz6", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                .column("ltz9", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(9))
                .option("file.format", "orc");
        extra.forEach(b::option);
        Table t = create(name, b.build());
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < TZ_TS.length; i++) {
            String v = TZ_TS[i];
            rows.add(GenericRow.of(i, ts(cut(v, 0)), ts(cut(v, 3)), ts(v), ts(cut(v, 3)), ts(cut(v, 6)), ts(v)));
        }
        write(t, rows, null);
        String tn = "javagen." + name;
        full(t, tn);
        dump(t, tn, null, "proj", null, List.of("ltz9", "id", "ts3"), null, null);
        System.out.println(tn + " written in JVM zone " + java.util.TimeZone.getDefault().getID());
    }

    /**
     * An ORC append table with deletion vectors, written as Spark's DELETE on a
     * deletion-vectors.enabled append table writes them (PaimonSparkWriter.persistDeletionVectors):
     * the positions of the matching rows of each data file go to a DV per file through
     * BaseAppendDeleteFileMaintainer (unaware bucket: one index file per partition; fixed bucket:
     * one per bucket) and an index-only commit. Java's BatchTableWrite itself refuses DELETE rows
     * on append tables (AppendOnlyWriter: insert or update_after only). Several stripes and row
     * groups per file, so DV positions cross stripes that a filter prunes.
     */
    private void orcDv(String name, String bucket) throws Exception {
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.INT()).column("s", DataTypes.STRING())
                .column("v", DataTypes.BIGINT()).option("file.format", "orc").option("deletion-vectors.enabled", "true")
                .option("orc.stripe.size", "1024").option("orc.rows.between.memory.checks", "500")
                .option("orc.row.index.stride", "1000");
        if (bucket != null) b.option("bucket", bucket).option("bucket-key", "id");
        Table t = create(name, b.build());
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 4000; i++) rows.add(GenericRow.of(i, i % 9 == 0 ? null : s("s" + (i / 100)), (long) i * 3));
        write(t, rows, null);
        rows.clear();
        for (int i = 10000; i < 10500; i++) rows.add(GenericRow.of(i, s("t" + i), (long) -i));
        write(t, rows, null);
        String tn = "javagen." + name;
        deleteWhere(t, r -> r.getInt(0) % 7 == 3 || (r.getInt(0) >= 2500 && r.getInt(0) < 2600) || r.getInt(0) == 10001);
        t = catalog.getTable(Identifier.create(DB, name));
        long first = latest(t);
        // A second delete merges into the files' existing DVs (the maintainers read the old ones).
        deleteWhere(t, r -> r.getInt(0) % 11 == 0 || r.getInt(0) == 0 || r.getInt(0) == 3999);
        t = catalog.getTable(Identifier.create(DB, name));
        dump(t, tn, null, "first_delete", first, null, null, null);
        full(t, tn);
        dump(t, tn, null, "filter_id", null, null, "id >= 2400 AND id < 2800",
                pb -> PredicateBuilder.and(pb.greaterOrEqual(0, 2400), pb.lessThan(0, 2800)));
        dump(t, tn, null, "proj_filter_s", null, List.of("v", "s", "id"), "s = 's37'", pb -> pb.equal(1, s("s37")));
    }

    /**
     * Every type Paimon's ORC writer maps (FLOAT/DOUBLE aside: no Java canonical form, see
     * docs/interop.md), in stripes of several row groups: orc.row.index.stride
     * 1000 (Java's ORC refuses less) and a stripe cut after each memory check (tiny
     * orc.stripe.size; Paimon hands ORC batches of 1024 rows, so stripes hold 3072 rows: three
     * full groups and a partial one), two files of 4000 rows. Columns are clustered (id, k, vc,
     * dt) so filters match few groups; "sparse" is non-NULL in two groups only and "opt" has
     * NULLs in some stripes only (a PRESENT stream in some, none in others); strings over 1024
     * characters make ORC truncate the group's string statistics. Cases are Java's reads of
     * filters whose matches sit in few row groups (expected files stay small); the full read is
     * checked by the pruning property test (props), which compares every random filter's read
     * with the full read filtered row by row.
     */
    private void orcIdx(String name, String codec, boolean dv) throws Exception {
        Schema.Builder b = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull()).column("k", DataTypes.INT())
                .column("b", DataTypes.BOOLEAN()).column("i8", DataTypes.TINYINT()).column("i16", DataTypes.SMALLINT())
                .column("i64", DataTypes.BIGINT())
                .column("d5_2", DataTypes.DECIMAL(5, 2)).column("d18_4", DataTypes.DECIMAL(18, 4)).column("d38_10", DataTypes.DECIMAL(38, 10))
                .column("s", DataTypes.STRING()).column("c", DataTypes.CHAR(5)).column("vc", DataTypes.VARCHAR(10))
                .column("bin", DataTypes.BINARY(3)).column("vb", DataTypes.BYTES())
                .column("dt", DataTypes.DATE()).column("tm", DataTypes.TIME())
                .column("ts3", DataTypes.TIMESTAMP(3)).column("ts9", DataTypes.TIMESTAMP(9))
                .column("ltz6", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                .column("sparse", DataTypes.BIGINT()).column("opt", DataTypes.INT())
                .column("arr", DataTypes.ARRAY(DataTypes.STRING()))
                .column("m", DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.DECIMAL(18, 4)))
                .column("r", DataTypes.ROW(DataTypes.FIELD(100, "a", DataTypes.INT()), DataTypes.FIELD(101, "t", DataTypes.TIMESTAMP(9)),
                        DataTypes.FIELD(102, "nest", DataTypes.ARRAY(DataTypes.ROW(DataTypes.FIELD(103, "k", DataTypes.STRING()))))))
                .option("file.format", "orc").option("file.compression", codec)
                .option("orc.row.index.stride", "1000").option("orc.stripe.size", "1024")
                .option("orc.rows.between.memory.checks", "3000");
        if (dv) b.option("deletion-vectors.enabled", "true");
        Table t = create(name, b.build());
        long[] i64 = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1L << 40};
        String longStr = "L".repeat(1100);
        for (int c = 0; c < 2; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int j = 0; j < 4000; j++) {
                int id = c * 4000 + j;
                String tsv = ORC_TS[id % ORC_TS.length];
                String t9 = tsv != null && tsv.startsWith("1000-") ? "1970-06-01T00:00:00.000000007" : tsv;
                String[] d = DECS[id % DECS.length];
                Map<Object, Object> m = new HashMap<>();
                m.put(id, dec(d[1], 18, 4));
                if (id % 3 == 0) m.put(-id - 1, null);
                Object[] arr = new Object[id % 4];
                for (int q = 0; q < arr.length; q++) arr[q] = q == 1 ? null : s("x" + id + "-" + q);
                boolean nulls = id % 9 == 8;
                GenericRow row = new GenericRow(24);
                row.setField(0, id);
                row.setField(1, nulls ? null : id / 700);
                if (!nulls) {
                    row.setField(2, id % 3 == 0);
                    row.setField(3, (byte) (id * 7));
                    row.setField(4, (short) (id * 13 - 20000));
                    row.setField(5, id % 997 == 0 ? i64[id % i64.length] : (long) id * 1_000_003L * (id % 2 == 0 ? 1 : -1));
                    row.setField(6, dec(d[0], 5, 2));
                    row.setField(7, dec(d[1], 18, 4));
                    row.setField(8, dec(d[2], 38, 10));
                    row.setField(9, s(id % 5 == 0 ? "" : id % 1500 == 7 ? longStr + id : "row-" + id + " \u00e9\u65e5\ud83d\ude00"));
                    row.setField(10, s("ab" + (id % 10)));
                    row.setField(11, s("v" + (id / 1000)));
                    row.setField(12, new byte[] {(byte) id, 0, (byte) 255});
                    row.setField(13, id % 4 == 0 ? new byte[0] : new byte[] {(byte) id, (byte) (id >> 8)});
                    row.setField(14, 18000 + id / 50);
                    row.setField(15, (int) ((long) id * 3_600_123L % 86_400_000L));
                    row.setField(16, ts(cut(tsv, 3)));
                    row.setField(17, ts(t9));
                    row.setField(18, ts(cut(tsv, 6)));
                    row.setField(21, new GenericArray(arr));
                    row.setField(22, new GenericMap(m));
                    row.setField(23, id % 7 == 0 ? null : GenericRow.of(id % 4 == 0 ? null : id, ts(t9),
                            new GenericArray(new Object[] {GenericRow.of(s("k" + id)), null, GenericRow.of((Object) null)})));
                }
                row.setField(19, id >= 1500 && id < 2600 ? (long) id * -3 : null);
                row.setField(20, (id / 3072) % 2 == 1 && id % 3 == 0 ? null : id);
                rows.add(row);
            }
            write(t, rows, null);
        }
        String tn = DB + "." + name;
        if (dv) {
            deleteWhere(t, r -> r.getInt(0) % 7 == 3 || (r.getInt(0) >= 1990 && r.getInt(0) < 2010) || r.getInt(0) == 5000);
            t = catalog.getTable(Identifier.create(DB, name));
        }
        // The property test reads the table 80 times: compressed, uncompressed (one position per
        // stream instead of two) and DVs suffice there; every codec has the cases below.
        if (dv || codec.equals("zstd") || codec.equals("none")) {
            final long[] n = {0};
            try (RecordReader<InternalRow> r = t.newReadBuilder().newRead().createReader(t.newReadBuilder().newScan().plan())) {
                r.forEachRemaining(x -> n[0]++);
            }
            props.add("{\"table\":" + Canon.str(tn) + ",\"rows\":" + n[0] + ",\"writer\":\"java\"}");
        }
        dump(t, tn, null, "filter_id", null, null, "id BETWEEN 1500 AND 1620",
                pb -> PredicateBuilder.and(pb.greaterOrEqual(0, 1500), pb.lessOrEqual(0, 1620)));
        dump(t, tn, null, "filter_edges", null, null, "id < 40 OR id >= 7990 OR (id >= 3070 AND id < 3075)",
                pb -> PredicateBuilder.or(pb.lessThan(0, 40), pb.greaterOrEqual(0, 7990),
                        PredicateBuilder.and(pb.greaterOrEqual(0, 3070), pb.lessThan(0, 3075))));
        // k = 4 is ids 2800..3499, across the first file's stripe boundary at 3072.
        dump(t, tn, null, "filter_k", null, List.of("r", "m", "arr", "k", "id", "opt"), "k = 4 AND id >= 3040 AND id < 3120",
                pb -> PredicateBuilder.and(pb.equal(1, 4), pb.greaterOrEqual(0, 3040), pb.lessThan(0, 3120)));
        dump(t, tn, null, "filter_vc", null, null, "vc = 'v6' AND i16 < -7000",
                pb -> PredicateBuilder.and(pb.equal(11, s("v6")), pb.lessThan(4, (short) -7000)));
        dump(t, tn, null, "filter_sparse", null, List.of("sparse", "id", "s"), "sparse IS NOT NULL AND sparse > -4600",
                pb -> PredicateBuilder.and(pb.isNotNull(19), pb.greaterThan(19, -4600L)));
        dump(t, tn, null, "filter_dt", null, null, "dt >= DATE '2019-05-20' AND dt < DATE '2019-05-22'",
                pb -> PredicateBuilder.and(pb.greaterOrEqual(14, 18036), pb.lessThan(14, 18038)));
        dump(t, tn, null, "filter_opt", null, List.of("opt", "id", "ts9", "ltz6"), "opt >= 3990 AND opt <= 4100",
                pb -> PredicateBuilder.and(pb.greaterOrEqual(20, 3990), pb.lessOrEqual(20, 4100)));
    }

    /**
     * Deletes the rows matching cond as Spark's DELETE does on a DV append table: each data
     * file is read raw (no deletion vector, file order) so positions are physical row numbers.
     */
    private void deleteWhere(Table table, java.util.function.Predicate<InternalRow> cond) throws Exception {
        org.apache.paimon.table.FileStoreTable t = (org.apache.paimon.table.FileStoreTable) table;
        org.apache.paimon.Snapshot snap = t.latestSnapshot().orElseThrow();
        var indexHandler = t.store().newIndexFileHandler();
        boolean unaware = t.bucketMode() == org.apache.paimon.table.BucketMode.BUCKET_UNAWARE;
        Map<String, org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer> maintainers = new LinkedHashMap<>();
        ReadBuilder rb = t.newReadBuilder();
        for (var sp : rb.newScan().plan().splits()) {
            var ds = (org.apache.paimon.table.source.DataSplit) sp;
            for (var file : ds.dataFiles()) {
                var raw = org.apache.paimon.table.source.DataSplit.builder().withSnapshot(ds.snapshotId())
                        .withPartition(ds.partition()).withBucket(ds.bucket()).withBucketPath(ds.bucketPath())
                        .withTotalBuckets(ds.totalBuckets()).withDataFiles(List.of(file)).rawConvertible(true).build();
                var dv = new org.apache.paimon.deletionvectors.BitmapDeletionVector();
                long[] pos = {0};
                try (RecordReader<InternalRow> r = rb.newRead().createReader(raw)) {
                    r.forEachRemaining(row -> {
                        if (cond.test(row)) dv.delete(pos[0]);
                        pos[0]++;
                    });
                }
                if (pos[0] != file.rowCount()) throw new IllegalStateException(file.fileName() + ": read " + pos[0] + " of " + file.rowCount() + " rows");
                if (dv.isEmpty()) continue;
                String key = ds.partition().toString() + "/" + ds.bucket();
                var m = maintainers.get(key);
                if (m == null) {
                    m = unaware
                            ? org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer.forUnawareAppend(indexHandler, snap, ds.partition())
                            : org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer.forBucketedAppend(indexHandler, snap, ds.partition(), ds.bucket());
                    maintainers.put(key, m);
                }
                m.notifyNewDeletionVector(file.fileName(), dv);
            }
        }
        List<org.apache.paimon.table.sink.CommitMessage> msgs = new ArrayList<>();
        for (var m : maintainers.values()) {
            List<org.apache.paimon.index.IndexFileMeta> added = new ArrayList<>();
            List<org.apache.paimon.index.IndexFileMeta> deleted = new ArrayList<>();
            for (var e : m.persist()) (e.kind() == org.apache.paimon.manifest.FileKind.ADD ? added : deleted).add(e.indexFile());
            msgs.add(new org.apache.paimon.table.sink.CommitMessageImpl(m.getPartition(), m.getBucket(), null,
                    new org.apache.paimon.io.DataIncrement(List.of(), List.of(), List.of(), added, deleted),
                    org.apache.paimon.io.CompactIncrement.emptyIncrement()));
        }
        try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
            c.commit(msgs);
        }
    }
}
