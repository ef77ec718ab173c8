package org.connectpaimon.gen;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;

/**
 * Builds the primary-key benchmark table of issue 5: KEYS distinct keys in BUCKETS buckets,
 * every bucket an LSM tree with 8 sorted runs on 4 levels, so a batch read has to merge 8 runs
 * per bucket. pypaimon cannot compact, so the upper levels need Java's compaction.
 *
 * <p>Shape per bucket (num-levels = 4), built in phases, each phase a fresh writer on
 * {@code table.copy(dynamic options)}:
 *
 * <ol>
 *   <li>every key once (ver 0), then a full compaction: one run on level 3;
 *   <li>updates U1, U2 written without compaction, then one universal-compaction pick (trigger
 *       2) that merges the two level-0 runs and places the output just below the level-3 run,
 *       on level 2;
 *   <li>updates U3, U4 (a quarter of U1+U2), a pick with trigger 3: output on level 1;
 *   <li>updates U5..U9 written without compaction: five level-0 runs.
 * </ol>
 *
 * Update keys are drawn with a fixed seed, so the data is a pure function of the arguments; the
 * expected final state (row count, sum of ver) is tracked in memory and compared with Java's own
 * merged read before the marker file is written.
 *
 * <pre>mvn -q compile exec:java -Dexec.mainClass=org.connectpaimon.gen.BenchPkGen \
 *     -Dexec.args="--warehouse W --table bench.pk --keys 1000000 --buckets 4 --marker W/../bench.pk.json"</pre>
 */
public final class BenchPkGen {
    private static final String USER = "benchpkgen";

    private final Catalog catalog;
    private final Identifier id;
    private final Path tmp;
    private final int keys;
    private final int[] ver;
    private long commitId = 1;

    private BenchPkGen(Catalog catalog, Identifier id, Path tmp, int keys) {
        this.catalog = catalog;
        this.id = id;
        this.tmp = tmp;
        this.keys = keys;
        this.ver = new int[keys];
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        for (String k : new String[] {"--warehouse", "--table", "--keys", "--buckets", "--marker"}) {
            if (!a.containsKey(k)) {
                throw new IllegalArgumentException("usage: --warehouse DIR --table db.name --keys N --buckets B --marker FILE (missing " + k + ")");
            }
        }
        int keys = Integer.parseInt(a.get("--keys"));
        int buckets = Integer.parseInt(a.get("--buckets"));
        if (keys < 1000 || buckets < 1) throw new IllegalArgumentException("--keys must be >= 1000 and --buckets >= 1");
        Path wh = Paths.get(a.get("--warehouse")).toAbsolutePath();
        Files.createDirectories(wh);
        Path tmp = Files.createTempDirectory("benchpkgen-io");
        Identifier id = Identifier.fromString(a.get("--table"));
        long t0 = System.nanoTime();
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(wh.toString())))) {
            cat.createDatabase(id.getDatabaseName(), true);
            cat.dropTable(id, true);
            cat.createTable(id, Schema.newBuilder()
                    .column("id", DataTypes.BIGINT().notNull())
                    .column("ver", DataTypes.INT())
                    .column("name", DataTypes.STRING())
                    .column("amount", DataTypes.DOUBLE())
                    .column("note", DataTypes.STRING())
                    .primaryKey("id")
                    .option("bucket", Integer.toString(buckets))
                    .option("num-levels", "4")
                    .option("file.format", "parquet")
                    .option("file.compression", "zstd")
                    // Cached for a long time: never expire the snapshots the benchmark reads.
                    .option("snapshot.num-retained.min", "1000000")
                    .option("snapshot.time-retained", "3650 d")
                    .build(), false);
            BenchPkGen g = new BenchPkGen(cat, id, tmp, keys);
            g.build();
            double genSecs = (System.nanoTime() - t0) / 1e9;
            g.verifyAndMark(Paths.get(a.get("--marker")), buckets, genSecs);
        }
    }

    /** Scales a count given for 1,000,000 keys to this table's key count. */
    private int scaled(int per1M) {
        return (int) ((long) per1M * keys / 1_000_000L);
    }

    private void build() throws Exception {
        Map<String, String> writeOnly = Map.of("write-only", "true");
        // The compaction steps rely on universal compaction's file-count rule, which is exact:
        // with R sorted runs and trigger T < R, it picks the R - T + 1 newest runs (and keeps
        // adding older runs only while they are no bigger than 101 % of the picked ones, which
        // the large older runs never are) and writes them one level below the next run. Step 2
        // sees [U2, U1, L3]: T = 2 picks U2+U1 -> level 2. Step 3 sees [U4, U3, L2, L3]: T = 3
        // picks U4+U3 -> level 1. prepareCommit triggers once more afterwards; then the run
        // count equals T and nothing happens. (The size-ratio rule alone is not reliable here:
        // U2's file is not always 1 % larger than U1's.) Write phases are write-only.
        Map<String, String> pick2 = Map.of("write-only", "false", "num-sorted-run.compaction-trigger", "2");
        Map<String, String> pick3 = Map.of("write-only", "false", "num-sorted-run.compaction-trigger", "3");
        Map<String, String> full = Map.of("write-only", "false");

        int[] all = new int[keys];
        for (int i = 0; i < keys; i++) all[i] = i;
        phase(writeOnly, w -> write(w, all, 0));
        phase(full, w -> compactAll(w, true));
        log("base on level 3");

        Random rnd = new Random(20250505L);
        // U3+U4 is a quarter of U1+U2, so the step-3 pick stops before the level-2 run.
        int[][] upd = {
            draw(rnd, scaled(100_000)), draw(rnd, scaled(102_000)),
            draw(rnd, scaled(25_000)), draw(rnd, scaled(26_000)),
            draw(rnd, scaled(40_000)), draw(rnd, scaled(40_000)), draw(rnd, scaled(40_000)),
            draw(rnd, scaled(40_000)), draw(rnd, scaled(40_000)),
        };
        for (int u = 0; u < 2; u++) {
            int v = u + 1;
            phase(writeOnly, w -> write(w, upd[v - 1], v));
        }
        phase(pick2, w -> compactAll(w, false));
        log("U1+U2 compacted");
        for (int u = 2; u < 4; u++) {
            int v = u + 1;
            phase(writeOnly, w -> write(w, upd[v - 1], v));
        }
        log("U3+U4 written");
        phase(pick3, w -> compactAll(w, false));
        log("U3+U4 compacted");
        for (int u = 4; u < 9; u++) {
            int v = u + 1;
            phase(writeOnly, w -> write(w, upd[v - 1], v));
        }
        log("U5..U9 on level 0");
    }

    private int[] draw(Random rnd, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) out[i] = rnd.nextInt(keys);
        return out;
    }

    private interface Body {
        void run(StreamTableWrite w) throws Exception;
    }

    /** One writer + one commit (one snapshot) with the given dynamic options. */
    private void phase(Map<String, String> dyn, Body body) throws Exception {
        Table t = catalog.getTable(id).copy(dyn);
        StreamWriteBuilder wb = t.newStreamWriteBuilder().withCommitUser(USER);
        try (IOManager io = IOManager.create(tmp.toString());
                StreamTableWrite w = (StreamTableWrite) wb.newWrite().withIOManager(io);
                StreamTableCommit c = wb.newCommit()) {
            body.run(w);
            c.commit(commitId, w.prepareCommit(true, commitId));
            commitId++;
        }
    }

    private void write(StreamTableWrite w, int[] ks, int v) throws Exception {
        for (int k : ks) {
            ver[k] = v;
            w.write(row(k, v));
        }
    }

    static GenericRow row(long k, int v) {
        return GenericRow.of(k, v, BinaryString.fromString("name-" + k + "-v" + v), k * 0.5 + v,
                v % 3 == 2 ? null : BinaryString.fromString("note" + (k % 97)));
    }

    private void compactAll(StreamTableWrite w, boolean fullCompaction) throws Exception {
        int buckets = Integer.parseInt(catalog.getTable(id).options().get("bucket"));
        for (int b = 0; b < buckets; b++) w.compact(BinaryRow.EMPTY_ROW, b, fullCompaction);
    }

    private void log(String what) throws Exception {
        System.out.println(id + ": " + what + "; " + shape(catalog.getTable(id)));
    }

    /** bucket -> level -> file count of the latest snapshot, from Java's own plan. */
    private static Map<Integer, TreeMap<Integer, Integer>> levels(Table t) {
        Map<Integer, TreeMap<Integer, Integer>> out = new TreeMap<>();
        for (Split sp : t.newReadBuilder().newScan().plan().splits()) {
            DataSplit ds = (DataSplit) sp;
            for (DataFileMeta f : ds.dataFiles()) {
                out.computeIfAbsent(ds.bucket(), k -> new TreeMap<>()).merge(f.level(), 1, Integer::sum);
            }
        }
        return out;
    }

    private static String shape(Table t) {
        StringBuilder sb = new StringBuilder("{");
        levels(t).forEach((b, lv) -> {
            if (sb.length() > 1) sb.append(",");
            sb.append("\"").append(b).append("\":{");
            StringBuilder in = new StringBuilder();
            lv.forEach((l, n) -> in.append(in.length() > 0 ? "," : "").append("\"").append(l).append("\":").append(n));
            sb.append(in).append("}");
        });
        return sb.append("}").toString();
    }

    private void verifyAndMark(Path marker, int buckets, double genSecs) throws Exception {
        long wantSum = 0;
        for (int v : ver) wantSum += v;
        Table t = catalog.getTable(id);
        ReadBuilder rb = t.newReadBuilder();
        TableScan.Plan plan = rb.newScan().plan();
        long rows = 0, sum = 0, inFiles = 0;
        int files = 0;
        for (Split sp : plan.splits()) {
            for (DataFileMeta f : ((DataSplit) sp).dataFiles()) {
                files++;
                inFiles += f.rowCount();
            }
        }
        long r0 = System.nanoTime();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(plan)) {
            RecordReader.RecordIterator<InternalRow> it;
            while ((it = reader.readBatch()) != null) {
                InternalRow r;
                while ((r = it.next()) != null) {
                    rows++;
                    long k = r.getLong(0);
                    int v = r.getInt(1);
                    if (v != ver[(int) k]) throw new IllegalStateException(id + ": key " + k + " read with ver " + v + ", want " + ver[(int) k]);
                    sum += v;
                }
                it.releaseBatch();
            }
        }
        double readSecs = (System.nanoTime() - r0) / 1e9;
        if (rows != keys || sum != wantSum) {
            throw new IllegalStateException(id + ": Java read " + rows + " rows, sum(ver) " + sum + "; want " + keys + ", " + wantSum);
        }
        String shape = shape(t);
        String json = "{\"params\":{\"keys\":" + keys + ",\"buckets\":" + buckets + ",\"generator\":\"BenchPkGen/1\"}"
                + ",\"rows\":" + rows + ",\"sum_ver\":" + sum + ",\"files\":" + files + ",\"rows_in_files\":" + inFiles
                + ",\"snapshot\":" + t.latestSnapshot().orElseThrow().id()
                + ",\"levels\":" + shape + ",\"gen_seconds\":" + Math.round(genSecs * 10) / 10.0
                + ",\"java_read_seconds\":" + Math.round(readSecs * 1000) / 1000.0 + "}\n";
        System.out.println(id + ": Java merged read " + rows + " rows (sum ver " + sum + ") from " + files + " files holding "
                + inFiles + " rows in " + String.format("%.3f", readSecs) + " s; levels " + shape);
        Files.createDirectories(marker.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(marker, StandardCharsets.UTF_8)) {
            w.write(json);
        }
    }
}
