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
 * Java oracle for primary-key tables. Writes PK tables through Java Paimon's streaming write API
 * (row kinds, several commits, compactions so levels, level upgrades, COMPACT snapshots,
 * deletion vectors and changelog files appear) and dumps Java Paimon's own reads:
 *
 * <ul>
 *   <li>{@code expected/<table>/batch_s<N>.jsonl}: the batch read of every snapshot N;
 *   <li>{@code expected/<table>/stream_<mode>_s<N>.jsonl}: the rows of the streaming plan that
 *       consumed snapshot N, each with a {@code "_row_kind"} key (+I/-U/+U/-D). Empty plans are
 *       not written (Java's stream scan skips them too).
 * </ul>
 *
 * <pre>mvn -q compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaPkGen \
 *     -Dexec.args="--warehouse W --expected E --cases C [--tables javapk.t1,...]"</pre>
 *
 * <p>Everything written is a pure function of the code (no clocks or randoms in the data), so
 * a rerun produces the same rows; file names and commit times differ.
 */
public final class JavaPkGen {
    static final String DB = "javapk";

    /** Stream modes dumped for every table; "from-snapshot*" start at snapshot 1. */
    static final String[] STREAM_MODES = {"from-snapshot", "from-snapshot-full", "latest-full"};

    private final Catalog catalog;
    private final Path expected;
    private final Path tmp;
    private final List<String> cases = new ArrayList<>();
    private final List<String> streams = new ArrayList<>();

    private JavaPkGen(Catalog catalog, Path expected, Path tmp) {
        this.catalog = catalog;
        this.expected = expected;
        this.tmp = tmp;
    }

    /** Writes one table and dumps Java's reads of it. */
    interface TableGen {
        void run(JavaPkGen g) throws Exception;
    }

    private static final Map<String, TableGen> TABLES = new LinkedHashMap<>();

    static {
        TABLES.put("pk_dedup", g -> PkTables.dedup(g, "pk_dedup", Map.of()));
        TABLES.put("pk_dedup_dv", g -> PkTables.dedup(g, "pk_dedup_dv", Map.of("deletion-vectors.enabled", "true")));
        TABLES.put("pk_dedup_dv64", g -> PkTables.dedup(g, "pk_dedup_dv64",
                Map.of("deletion-vectors.enabled", "true", "deletion-vectors.bitmap64", "true")));
        TABLES.put("pk_first_row", g -> PkTables.firstRow(g, "pk_first_row", Map.of()));
        TABLES.put("pk_partial", g -> PkTables.partial(g, "pk_partial", Map.of()));
        TABLES.put("pk_agg", g -> PkTables.agg(g, "pk_agg", Map.of()));
        TABLES.put("pk_seq", PkTables::seq);
        TABLES.put("pk_input", g -> PkTables.dedup(g, "pk_input", Map.of("changelog-producer", "input")));
        TABLES.put("pk_lookup", g -> PkTables.dedup(g, "pk_lookup", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_fullcomp", g -> PkTables.dedup(g, "pk_fullcomp", Map.of("changelog-producer", "full-compaction")));
        TABLES.put("pk_dynamic", PkTables::dynamic);
        TABLES.put("pk_part", PkTables::part);
        TABLES.put("pk_evolve", PkTables::evolve);
        TABLES.put("pk_pu_seqgrp", PkSeqGroupTables::groups);
        TABLES.put("pk_pu_rm_seqgrp", PkSeqGroupTables::removeOnSeqGroup);
        TABLES.put("pk_pu_rm_delete", PkSeqGroupTables::removeOnDelete);
        TABLES.put("pk_agg_rm_delete", PkSeqGroupTables::aggRemoveOnDelete);
        TABLES.put("pk_pu_seqfield", g -> PkSeqGroupTables.seqField(g, "pk_pu_seqfield", "partial-update", Map.of()));
        TABLES.put("pk_agg_seqfield", g -> PkSeqGroupTables.seqField(g, "pk_agg_seqfield", "aggregation", Map.of()));
        TABLES.put("pk_cross", PkBucketModeTables::cross);
        TABLES.put("pk_postpone", PkBucketModeTables::postpone);
        TABLES.put("pk_ll_input", g -> ChangelogTables.longLived(g, "pk_ll_input", "input"));
        TABLES.put("pk_ll_none", g -> ChangelogTables.longLived(g, "pk_ll_none", "none"));
        TABLES.put("pk_ll_lookup", g -> ChangelogTables.longLived(g, "pk_ll_lookup", "lookup"));
        // ORC data (and changelog) files, Paimon's default format before 0.9: the same histories
        // as the Parquet tables above, so deletion vectors address ORC row positions, changelog
        // files are ORC and the merge engines read ORC levels (committed group "orc").
        Map<String, String> orc = Map.of("file.format", "orc");
        TABLES.put("pk_orc_dedup", g -> PkTables.dedup(g, "pk_orc_dedup", orc));
        TABLES.put("pk_orc_dv", g -> PkTables.dedup(g, "pk_orc_dv", with(orc, "deletion-vectors.enabled", "true")));
        TABLES.put("pk_orc_input", g -> PkTables.dedup(g, "pk_orc_input", with(orc, "changelog-producer", "input")));
        TABLES.put("pk_orc_lookup", g -> PkTables.dedup(g, "pk_orc_lookup", with(orc, "changelog-producer", "lookup")));
        TABLES.put("pk_orc_partial", g -> PkTables.partial(g, "pk_orc_partial", orc));
        TABLES.put("pk_orc_agg", g -> PkTables.agg(g, "pk_orc_agg", orc));
        TABLES.put("pk_orc_first_row", g -> PkTables.firstRow(g, "pk_orc_first_row", orc));
    }

    /** base plus one option (Map.of maps are immutable). */
    static Map<String, String> with(Map<String, String> base, String key, String value) {
        Map<String, String> m = new HashMap<>(base);
        m.put(key, value);
        return m;
    }

    public static void main(String[] args) throws Exception {
        run(args, TABLES, "resources/java JavaPkGen");
    }

    /**
     * Writes the tables (all, or those named by --tables) and the cases file. Other generators
     * with their own table sets (JavaPkMergeGen) share this driver and the javapk database.
     */
    static void run(String[] args, Map<String, TableGen> tables, String generator) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        if (!a.containsKey("--warehouse") || !a.containsKey("--expected") || !a.containsKey("--cases")) {
            throw new IllegalArgumentException("usage: --warehouse DIR --expected DIR --cases FILE [--tables javapk.a,javapk.b]");
        }
        Path wh = Paths.get(a.get("--warehouse")).toAbsolutePath();
        Files.createDirectories(wh);
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(wh.toString())))) {
            generate(cat, args, tables, generator);
        }
    }

    /** Writes JavaPkGen's tables through cat (RestServer's REST catalog). */
    public static void generate(Catalog cat, String[] args) throws Exception {
        generate(cat, args, TABLES, "resources/java JavaPkGen (REST catalog)");
    }

    /** Writes the tables through cat (a filesystem catalog, or RestServer's REST catalog). */
    static void generate(Catalog cat, String[] args, Map<String, TableGen> tables, String generator) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        Set<String> only = null;
        if (a.containsKey("--tables")) {
            only = new HashSet<>();
            for (String t : a.get("--tables").split(",")) only.add(t.startsWith(DB + ".") ? t.substring(DB.length() + 1) : t);
            for (String t : only) {
                if (!tables.containsKey(t)) throw new IllegalArgumentException("unknown table " + t + " (known: " + tables.keySet() + ")");
            }
        }
        Path tmp = Files.createTempDirectory("javapkgen-io");
        {
            cat.createDatabase(DB, true);
            JavaPkGen g = new JavaPkGen(cat, Paths.get(a.get("--expected")), tmp);
            for (Map.Entry<String, TableGen> e : tables.entrySet()) {
                if (only != null && !only.contains(e.getKey())) continue;
                cat.dropTable(Identifier.create(DB, e.getKey()), true);
                e.getValue().run(g);
                System.out.println("wrote " + DB + "." + e.getKey());
            }
            String version = org.apache.paimon.Snapshot.class.getPackage().getImplementationVersion();
            try (Writer w = Files.newBufferedWriter(Paths.get(a.get("--cases")), StandardCharsets.UTF_8)) {
                w.write("{\"generator\":" + Canon.str(generator) + ",\"writer_version\":\"java paimon "
                        + (version == null ? "1.3.1" : version) + "\",\n\"streams\":[\n" + String.join(",\n", g.streams)
                        + "\n],\n\"cases\":[\n" + String.join(",\n", g.cases) + "\n]}\n");
            }
        }
    }

    // ------------------------------------------------------------------------------------ writing

    /** Creates (or recreates) javapk.name and returns a writer session on it. */
    PkWriter create(String name, Schema schema) throws Exception {
        Identifier id = Identifier.create(DB, name);
        catalog.createTable(id, schema, false);
        return new PkWriter(catalog, id, tmp);
    }

    /** A second writer on javapk.name with dynamic options under its own commit user. */
    PkWriter writer(String name, Map<String, String> dynamicOptions, String commitUser) throws Exception {
        return new PkWriter(catalog, Identifier.create(DB, name), tmp, dynamicOptions, commitUser);
    }

    /** The table javapk.name as the catalog loads it now (for writers beyond PkWriter). */
    Table table(String name) throws Exception {
        return catalog.getTable(Identifier.create(DB, name));
    }

    /** A fresh IOManager spilling under the generator's temp dir; the caller closes it. */
    org.apache.paimon.disk.IOManager ioManager() {
        return org.apache.paimon.disk.IOManager.create(tmp.toString());
    }

    // ------------------------------------------------------------------------------------ dumping

    /** Dumps Java's batch read of every snapshot and its streaming reads in every mode. */
    void dumpAll(String name) throws Exception {
        Table t = catalog.getTable(Identifier.create(DB, name));
        long latest = t.latestSnapshot().orElseThrow().id();
        // Snapshots before the earliest expired (tables with a short snapshot retention).
        long earliest = ((FileStoreTable) t).snapshotManager().earliestSnapshotId();
        for (long s = earliest; s <= latest; s++) dumpBatch(t, name, s);
        for (String mode : STREAM_MODES) dumpStream(t, name, mode, latest);
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
        cases.add("{\"table\":" + Canon.str(DB + "." + name) + ",\"kind\":\"batch\",\"snapshot\":" + snapshot
                + ",\"expected\":" + Canon.str("expected/" + DB + "." + name + "/" + file + ".jsonl")
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
            cases.add("{\"table\":" + Canon.str(DB + "." + name) + ",\"kind\":\"stream\",\"mode\":" + Canon.str(mode)
                    + ",\"snapshot\":" + snap + ",\"first_plan\":" + firstPlan
                    + ",\"expected\":" + Canon.str("expected/" + DB + "." + name + "/" + file + ".jsonl")
                    + ",\"rows\":" + lines.size() + "}");
        }
        streams.add("{\"table\":" + Canon.str(DB + "." + name) + ",\"mode\":" + Canon.str(mode)
                + ",\"start\":" + (mode.startsWith("from-snapshot") ? "1" : "null") + ",\"end\":" + latest + "}");
    }

    private void write(String name, String file, List<String> lines) throws IOException {
        lines.sort(Canon::codePointCompare);
        Path out = expected.resolve(DB + "." + name).resolve(file + ".jsonl");
        Files.createDirectories(out.getParent());
        Files.write(out, lines.isEmpty() ? new byte[0] : (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
