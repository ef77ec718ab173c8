package org.connectpaimon.gen;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.JoinedRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
/**
 * The primary-key oracle's engine, shared by every generator of primary-key tables (JavaPkGen,
 * JavaPkMergeGen, and VersionPkGen under each older release): it creates the tables in one
 * database, holds the writers, and dumps Java Paimon's own reads:
 *
 * <ul>
 *   <li>{@code expected/<db>.<table>/batch_s<N>.jsonl}: the batch read of every snapshot N;
 *   <li>{@code expected/<db>.<table>/stream_<mode>_s<N>.jsonl}: the rows of the streaming plan
 *       that consumed snapshot N, each with a {@code "_row_kind"} key (+I/-U/+U/-D). Empty plans
 *       are not written (Java's stream scan skips them too).
 * </ul>
 *
 * <p>It uses only API every release of the writer-version matrix has (resources/java/pom.xml,
 * profile paimon-legacy compiles it against each). Everything written is a pure function of the
 * code (no clocks or randoms in the data), so a rerun produces the same rows; file names and
 * commit times differ.
 */
final class PkOracle {
    /** The database of JavaPkGen's tables; --db names another. */
    static final String DEFAULT_DB = "javapk";

    private final String db;
    /**
     * Empty when this release dumps the reads of the tables it wrote; "by-<version>" when it
     * reads another release's tables (VersionPkGen --read-db), whose own reads stay beside.
     */
    private final String by;

    /** Stream modes dumped for every table; "from-snapshot*" start at snapshot 1. */
    static final String[] STREAM_MODES = {"from-snapshot", "from-snapshot-full", "latest-full"};

    private final Catalog catalog;
    private final Path expected;
    private final Path tmp;
    private final List<String> cases = new ArrayList<>();
    private final List<String> streams = new ArrayList<>();

    private PkOracle(Catalog catalog, String db, String by, Path expected, Path tmp) {
        this.catalog = catalog;
        this.db = db;
        this.by = by;
        this.expected = expected;
        this.tmp = tmp;
    }

    /** Writes one table and dumps Java's reads of it. */
    interface TableGen {
        void run(PkOracle g) throws Exception;
    }

    /**
     * Writes the tables (all, or those named by --tables) and the cases file. Other generators
     * with their own table sets (JavaPkMergeGen) share this driver and the javapk database.
     */
    static void run(String[] args, Map<String, TableGen> tables, String generator) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        if (!a.containsKey("--warehouse") || !a.containsKey("--expected") || !a.containsKey("--cases")) {
            throw new IllegalArgumentException("usage: --warehouse DIR --expected DIR --cases FILE [--db D] [--tables D.a,D.b]");
        }
        Path wh = Paths.get(a.get("--warehouse")).toAbsolutePath();
        Files.createDirectories(wh);
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(wh.toString())))) {
            generate(cat, args, tables, generator);
        }
    }

    /** Writes the tables through cat (a filesystem catalog, or RestServer's REST catalog). */
    static void generate(Catalog cat, String[] args, Map<String, TableGen> tables, String generator) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        String db = a.getOrDefault("--db", DEFAULT_DB);
        Set<String> only = null;
        if (a.containsKey("--tables")) {
            only = new HashSet<>();
            for (String t : a.get("--tables").split(",")) only.add(t.startsWith(db + ".") ? t.substring(db.length() + 1) : t);
            for (String t : only) {
                if (!tables.containsKey(t)) throw new IllegalArgumentException("unknown table " + t + " (known: " + tables.keySet() + ")");
            }
        }
        Path tmp = Files.createTempDirectory("javapkgen-io");
        {
            cat.createDatabase(db, true);
            PkOracle g = new PkOracle(cat, db, "", Paths.get(a.get("--expected")), tmp);
            for (Map.Entry<String, TableGen> e : tables.entrySet()) {
                if (only != null && !only.contains(e.getKey())) continue;
                cat.dropTable(Identifier.create(db, e.getKey()), true);
                e.getValue().run(g);
                System.out.println("wrote " + db + "." + e.getKey());
            }
            String version = version();
            writeCases(Paths.get(a.get("--cases")), "{\"generator\":" + Canon.str(generator) + ",\"writer_version\":\"java paimon "
                    + (version == null ? "1.3.1" : version) + "\"", g.streams, g.cases);
        }
    }

    /**
     * Dumps this release's reads of the tables other releases wrote into the databases dbs
     * (nothing is written to them): the same cases as theirs, under expected/<db>.<table>/by-<this
     * release>/, in a cases file that says "read_by". Only what Java reads has to agree; a
     * release that reads its own tables differently is the Go side's to explain.
     */
    static void read(String[] args, String generator) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        String version = version();
        Path wh = Paths.get(a.get("--warehouse")).toAbsolutePath();
        Path tmp = Files.createTempDirectory("javapkgen-io");
        List<String> streams = new ArrayList<>();
        List<String> cases = new ArrayList<>();
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(wh.toString())))) {
            for (String db : a.get("--read-db").split(",")) {
                PkOracle g = new PkOracle(cat, db, "by-" + version, Paths.get(a.get("--expected")), tmp);
                List<String> names = new ArrayList<>(cat.listTables(db));
                Collections.sort(names);
                for (String name : names) {
                    g.dumpAll(name);
                    System.out.println("read " + db + "." + name);
                }
                streams.addAll(g.streams);
                cases.addAll(g.cases);
            }
        }
        writeCases(Paths.get(a.get("--cases")), "{\"generator\":" + Canon.str(generator) + ",\"writer_version\":\"java paimon "
                + a.get("--read-db") + "\",\"read_by\":" + Canon.str(version), streams, cases);
    }

    /** The Paimon release on the classpath (null when its jar has no manifest version). */
    static String version() {
        return org.apache.paimon.Snapshot.class.getPackage().getImplementationVersion();
    }

    private static void writeCases(Path path, String head, List<String> streams, List<String> cases) throws IOException {
        try (Writer w = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            w.write(head + ",\n\"streams\":[\n" + String.join(",\n", streams)
                    + "\n],\n\"cases\":[\n" + String.join(",\n", cases) + "\n]}\n");
        }
    }

    // ------------------------------------------------------------------------------------ writing

    /** Creates (or recreates) javapk.name and returns a writer session on it. */
    PkWriter create(String name, Schema schema) throws Exception {
        Identifier id = Identifier.create(db, name);
        // An option value naming {location} (data-file.external-paths beside the table) is set
        // once the table exists and has a location, before anything is written.
        Map<String, String> opts = new HashMap<>(), located = new HashMap<>();
        schema.options().forEach((k, v) -> (v.contains(LOCATION) ? located : opts).put(k, v));
        catalog.createTable(id, new Schema(schema.fields(), schema.partitionKeys(), schema.primaryKeys(), opts, schema.comment()), false);
        if (!located.isEmpty()) {
            String loc = ((FileStoreTable) catalog.getTable(id)).location().toString();
            List<SchemaChange> changes = new ArrayList<>();
            located.forEach((k, v) -> changes.add(SchemaChange.setOption(k, v.replace(LOCATION, loc))));
            catalog.alterTable(id, changes, false);
        }
        return new PkWriter(catalog, id, tmp);
    }

    /** In a table option's value, the table's location (see create). */
    static final String LOCATION = "{location}";

    /** A second writer on javapk.name with dynamic options under its own commit user. */
    PkWriter writer(String name, Map<String, String> dynamicOptions, String commitUser) throws Exception {
        return new PkWriter(catalog, Identifier.create(db, name), tmp, dynamicOptions, commitUser);
    }

    /** The table javapk.name as the catalog loads it now (for writers beyond PkWriter). */
    Table table(String name) throws Exception {
        return catalog.getTable(Identifier.create(db, name));
    }

    /** A fresh IOManager spilling under the generator's temp dir; the caller closes it. */
    org.apache.paimon.disk.IOManager ioManager() {
        return org.apache.paimon.disk.IOManager.create(tmp.toString());
    }

    // ------------------------------------------------------------------------------------ dumping

    /**
     * Dumps Java's batch read of every snapshot and its streaming reads in every mode of
     * STREAM_MODES, then in the extra modes a table asks for.
     */
    void dumpAll(String name, String... extraModes) throws Exception {
        Table t = catalog.getTable(Identifier.create(db, name));
        long latest = ((FileStoreTable) t).snapshotManager().latestSnapshotId();
        // Snapshots before the earliest expired (tables with a short snapshot retention).
        long earliest = ((FileStoreTable) t).snapshotManager().earliestSnapshotId();
        for (long s = earliest; s <= latest; s++) dumpBatch(t, name, s);
        for (String mode : STREAM_MODES) dumpStream(t, name, mode, latest);
        for (String mode : extraModes) dumpStream(t, name, mode, latest);
    }

    /**
     * Stores options in javapk.name (ALTER TABLE SET), then dumps Java's batch read of the table
     * told nothing else: where the read position they store starts it, every row with its row kind.
     * A "batch" case with mode "stored" and the snapshot the plan read (an incremental read's
     * end). Call after dumpAll, whose reads it would change.
     */
    void dumpStoredBatch(String name, Map<String, String> options) throws Exception {
        dumpStoredBatch(name, options, Map.of());
    }

    /** Creates the tags (name to snapshot id), stores options, and dumps Java's batch read. */
    void dumpStoredBatch(String name, Map<String, String> options, Map<String, Long> tags) throws Exception {
        Identifier id = Identifier.create(db, name);
        Table tagged = catalog.getTable(id);
        for (Map.Entry<String, Long> e : new java.util.TreeMap<>(tags).entrySet()) tagged.createTag(e.getKey(), e.getValue());
        List<SchemaChange> changes = new ArrayList<>();
        options.forEach((k, v) -> changes.add(SchemaChange.setOption(k, v)));
        catalog.alterTable(id, changes, false);
        Table t = catalog.getTable(id);
        ReadBuilder rb = t.newReadBuilder();
        List<DataField> withKind = new ArrayList<>();
        withKind.add(new DataField(-1, "_row_kind", DataTypes.STRING()));
        withKind.addAll(t.rowType().getFields());
        RowType kt = new RowType(withKind);
        TableScan.Plan plan = rb.newScan().plan();
        if (plan.splits().isEmpty()) throw new IllegalStateException(name + ": stored read position planned nothing");
        long snapshot = ((org.apache.paimon.table.source.DataSplit) plan.splits().get(0)).snapshotId();
        List<String> lines = new ArrayList<>();
        // With the row kind: an incremental delta read returns every change unmerged, a diff the
        // merged rows of new and changed keys.
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(plan)) {
            reader.forEachRemaining(r -> lines.add(Canon.row(
                    new JoinedRow(GenericRow.of(BinaryString.fromString(r.getRowKind().shortString())), r), kt)));
        }
        String file = "batch_stored";
        write(name, file, lines);
        cases.add("{\"table\":" + Canon.str(db + "." + name) + ",\"kind\":\"batch\",\"mode\":\"stored\",\"snapshot\":" + snapshot
                + ",\"expected\":" + Canon.str(expectedRel(name, file))
                + ",\"rows\":" + lines.size() + "}");
    }

    private void dumpBatch(Table table, String name, long snapshot) throws Exception {
        // Time travel also switches to the snapshot's schema, as a Java reader of that snapshot sees it.
        Table t = table.copy(Collections.singletonMap("scan.snapshot-id", Long.toString(snapshot)));
        ReadBuilder rb = t.newReadBuilder();
        RowType rt = t.rowType();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(r -> {
                if (r.getRowKind() != RowKind.INSERT && r.getRowKind() != RowKind.UPDATE_AFTER) {
                    throw new IllegalStateException(name + " snapshot " + snapshot + ": batch read returned a " + r.getRowKind() + " row");
                }
                lines.add(Canon.row(r, rt));
            });
        }
        String file = "batch_s" + snapshot;
        write(name, file, lines);
        cases.add("{\"table\":" + Canon.str(db + "." + name) + ",\"kind\":\"batch\",\"snapshot\":" + snapshot
                + ",\"expected\":" + Canon.str(expectedRel(name, file))
                + ",\"rows\":" + lines.size() + "}");
    }

    /**
     * Runs Java's stream scan in one mode until it has consumed the latest snapshot. The plan's
     * snapshot is checkpoint()-1: a follow-up plan() call skips empty snapshots internally and
     * returns the first non-empty one, after which nextSnapshotId is that snapshot + 1.
     */
    private void dumpStream(Table table, String name, String mode, long latest) throws Exception {
        Map<String, String> opts = new HashMap<>();
        opts.put("scan.mode", mode);
        if (mode.startsWith("from-snapshot")) opts.put("scan.snapshot-id", "1");
        // Without time travel: copy() with scan.snapshot-id would also switch the read schema to
        // the start snapshot's, so rows of later schemas would be narrowed to it (a widened
        // BIGINT truncated to INT). A stream reads in the table's current schema, as Go does.
        Table t = ((FileStoreTable) table).copyWithoutTimeTravel(opts);
        ReadBuilder rb = t.newReadBuilder();
        StreamTableScan scan = rb.newStreamScan();
        TableRead read = rb.newRead();
        RowType rt = t.rowType();
        List<DataField> withKind = new ArrayList<>();
        withKind.add(new DataField(-1, "_row_kind", DataTypes.STRING()));
        withKind.addAll(rt.getFields());
        RowType kt = new RowType(withKind);
        boolean first = true;
        int guard = 0;
        while (scan.checkpoint() == null || scan.checkpoint() <= latest) {
            if (++guard > 10 * latest + 10) throw new IllegalStateException(name + " " + mode + ": stream scan does not advance");
            TableScan.Plan plan = scan.plan();
            Long next = scan.checkpoint();
            boolean firstPlan = first && !mode.equals("from-snapshot");
            first = false;
            if (plan.splits().isEmpty() || next == null) continue;
            long snap = next - 1;
            for (Split sp : plan.splits()) {
                long sid = ((org.apache.paimon.table.source.DataSplit) sp).snapshotId();
                if (sid != snap) throw new IllegalStateException(name + " " + mode + ": split of snapshot " + sid + " in the plan of " + snap);
            }
            List<String> lines = new ArrayList<>();
            try (RecordReader<InternalRow> reader = read.createReader(plan)) {
                reader.forEachRemaining(r -> lines.add(Canon.row(
                        new JoinedRow(GenericRow.of(BinaryString.fromString(r.getRowKind().shortString())), r), kt)));
            }
            if (lines.isEmpty()) continue;
            String file = "stream_" + mode + "_s" + snap;
            write(name, file, lines);
            cases.add("{\"table\":" + Canon.str(db + "." + name) + ",\"kind\":\"stream\",\"mode\":" + Canon.str(mode)
                    + ",\"snapshot\":" + snap + ",\"first_plan\":" + firstPlan
                    + ",\"expected\":" + Canon.str(expectedRel(name, file))
                    + ",\"rows\":" + lines.size() + "}");
        }
        streams.add("{\"table\":" + Canon.str(db + "." + name) + ",\"mode\":" + Canon.str(mode)
                + ",\"start\":" + (mode.startsWith("from-snapshot") ? "1" : "null") + ",\"end\":" + latest + "}");
    }

    /** Where a case's rows go, relative to the cases file: expected/<db>.<table>[/by-<v>]/<file>.jsonl. */
    private String expectedRel(String name, String file) {
        return "expected/" + db + "." + name + "/" + (by.isEmpty() ? "" : by + "/") + file + ".jsonl";
    }

    private void write(String name, String file, List<String> lines) throws IOException {
        lines.sort(Canon::codePointCompare);
        Path dir = expected.resolve(db + "." + name);
        Path out = (by.isEmpty() ? dir : dir.resolve(by)).resolve(file + ".jsonl");
        Files.createDirectories(out.getParent());
        Files.write(out, lines.isEmpty() ? new byte[0] : (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
