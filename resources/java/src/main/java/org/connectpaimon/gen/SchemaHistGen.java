package org.connectpaimon.gen;

import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.VarCharType;

/**
 * Random schema histories: given a seed and a count, writes tables db.h0 .. h(count-1) whose
 * histories are drawn at random. Each step either alters the schema (add a column of a random
 * type at a random position, drop, rename — often back to a name used before, or giving a
 * dropped or renamed-away name to a new column —, widen INT to BIGINT, FLOAT to DOUBLE, a
 * decimal's precision or a VARCHAR's length, change INT/BIGINT to STRING, move a column) and
 * commits rows right after, or commits a batch of random rows (NULLs and extreme values
 * included). File format and table kind (append, or primary key with two fixed buckets) vary by
 * table; a primary-key table's key column is never altered. A change Java refuses is skipped and
 * another drawn, so the history depends on the seed alone.
 *
 * <p>Nothing about the history is recorded besides the tables themselves and Java's read of
 * every snapshot (a case per snapshot, compared with the Go read by tests/interop); the Go
 * property test (TestFilterInSnapshotSchemaProperty) learns each snapshot's schema from the table.
 *
 * <pre>mvn -q -o compile exec:java -Dexec.mainClass=org.connectpaimon.gen.SchemaHistGen \
 *   -Dexec.args="--warehouse W --expected E --cases C --seed S --count N [--db randhist] [--steps K]"</pre>
 */
public final class SchemaHistGen {
    private static final String[] FORMATS = {"parquet", "orc", "avro"};
    /** Column names are drawn from a small pool so that names come back often. */
    private static final String[] NAMES = {"a", "b", "c", "d", "e", "f", "g"};

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        for (String k : new String[] {"--warehouse", "--expected", "--cases", "--seed", "--count"}) {
            if (!a.containsKey(k)) {
                throw new IllegalArgumentException("usage: --warehouse DIR --expected DIR --cases FILE --seed S --count N [--db randhist] [--steps K]");
            }
        }
        long seed = Long.parseUnsignedLong(a.get("--seed"));
        int count = Integer.parseInt(a.get("--count"));
        int steps = Integer.parseInt(a.getOrDefault("--steps", "10"));
        String db = a.getOrDefault("--db", "randhist");
        Path wh = Paths.get(a.get("--warehouse")).toAbsolutePath();
        Files.createDirectories(wh);
        List<String> cases = new ArrayList<>();
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(wh.toString())))) {
            cat.createDatabase(db, true);
            for (int i = 0; i < count; i++) {
                Identifier id = Identifier.create(db, "h" + i);
                cat.dropTable(id, true);
                // One stream of draws per table: SplitMix64 of (seed, i).
                Random rnd = new Random(mix(seed + 0x9E3779B97F4A7C15L * (i + 1)));
                History h = new History(cat, id, rnd, FORMATS[i % FORMATS.length], i % 2 == 1);
                h.run(steps);
                h.dump(Paths.get(a.get("--expected")), cases);
                System.out.println("wrote " + db + ".h" + i + " (" + h.format + (h.pk ? ", primary key" : ", append") + "): "
                        + String.join("; ", h.log));
            }
        }
        String version = org.apache.paimon.Snapshot.class.getPackage().getImplementationVersion();
        try (Writer w = Files.newBufferedWriter(Paths.get(a.get("--cases")), StandardCharsets.UTF_8)) {
            w.write("{\"generator\":\"resources/java SchemaHistGen seed " + Long.toUnsignedString(seed) + "\",\"writer_version\":\"java paimon "
                    + (version == null ? "1.3.1" : version) + "\",\"cases\":[\n" + String.join(",\n", cases) + "\n]}\n");
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A column of the current schema. */
    private static final class Col {
        String name;
        DataType type;

        Col(String name, DataType type) {
            this.name = name;
            this.type = type;
        }
    }

    private static final class History {
        final Catalog cat;
        final Identifier id;
        final Random rnd;
        final String format;
        final boolean pk;
        /** The current columns in order. */
        final List<Col> cols = new ArrayList<>();
        /** Every name any column ever had. */
        final Set<String> used = new LinkedHashSet<>();
        final List<String> log = new ArrayList<>();
        /** A primary-key table's key column k (null for an append table); never altered. */
        Col key;
        Table table;

        History(Catalog cat, Identifier id, Random rnd, String format, boolean pk) {
            this.cat = cat;
            this.id = id;
            this.rnd = rnd;
            this.format = format;
            this.pk = pk;
        }

        void run(int steps) throws Exception {
            Schema.Builder b = Schema.newBuilder();
            if (pk) {
                key = new Col("k", DataTypes.INT().notNull());
                cols.add(key);
            }
            int n = 2 + rnd.nextInt(3);
            List<String> pool = new ArrayList<>(List.of(NAMES));
            for (int i = 0; i < n; i++) {
                String name = pool.remove(rnd.nextInt(pool.size()));
                cols.add(new Col(name, randomType()));
            }
            for (Col c : cols) {
                b.column(c.name, c.type);
                used.add(c.name);
            }
            b.option("file.format", format);
            if (pk) {
                b.primaryKey("k").option("bucket", "2");
            }
            cat.createTable(id, b.build(), false);
            table = cat.getTable(id);
            log.add("create " + describe());
            commit();
            for (int s = 0; s < steps; s++) {
                if (rnd.nextInt(4) == 0) {
                    commit();
                    continue;
                }
                // Draw until Java accepts a change (bounded: a table where nothing applies still
                // gets its commit).
                for (int attempt = 0; attempt < 20; attempt++) {
                    String what = alter();
                    if (what != null) {
                        log.add(what);
                        break;
                    }
                }
                commit();
            }
        }

        String describe() {
            StringBuilder sb = new StringBuilder("(");
            for (int i = 0; i < cols.size(); i++) sb.append(i > 0 ? ", " : "").append(cols.get(i).name).append(' ').append(cols.get(i).type);
            return sb.append(')').toString();
        }

        DataType randomType() {
            switch (rnd.nextInt(9)) {
                case 0: return DataTypes.INT();
                case 1: return DataTypes.BIGINT();
                case 2: return DataTypes.STRING();
                case 3: return DataTypes.DOUBLE();
                case 4: return DataTypes.FLOAT();
                case 5: return DataTypes.DATE();
                case 6: {
                    int p = 1 + rnd.nextInt(20);
                    return DataTypes.DECIMAL(p, rnd.nextInt(Math.min(p, 6) + 1));
                }
                case 7: return DataTypes.BOOLEAN();
                default: return DataTypes.VARCHAR(3 + rnd.nextInt(8));
            }
        }

        /** Columns a change may touch: all but a primary-key table's key. */
        List<Col> alterable() {
            List<Col> l = new ArrayList<>(cols);
            l.remove(key);
            return l;
        }

        /** A name no current column has: half the time one used before, if any. */
        String freeName() {
            List<String> free = new ArrayList<>();
            List<String> old = new ArrayList<>();
            for (String n : NAMES) {
                if (has(n)) continue;
                free.add(n);
                if (used.contains(n)) old.add(n);
            }
            if (!old.isEmpty() && rnd.nextBoolean()) return old.get(rnd.nextInt(old.size()));
            return free.isEmpty() ? null : free.get(rnd.nextInt(free.size()));
        }

        boolean has(String name) {
            for (Col c : cols) if (c.name.equals(name)) return true;
            return false;
        }

        /** A random position among the current columns: first, after a column, or last. */
        SchemaChange.Move position(String name, Col self) {
            List<Col> others = new ArrayList<>(cols);
            others.remove(self);
            switch (rnd.nextInt(3)) {
                case 0: return SchemaChange.Move.first(name);
                case 1: return others.isEmpty() ? null : SchemaChange.Move.after(name, others.get(rnd.nextInt(others.size())).name);
                default: return self == null ? null : SchemaChange.Move.last(name);
            }
        }

        /** Draws one schema change and applies it; null when it does not apply or Java refuses it. */
        String alter() throws Exception {
            List<Col> alt = alterable();
            Col c = alt.isEmpty() ? null : alt.get(rnd.nextInt(alt.size()));
            SchemaChange ch;
            String what;
            Runnable apply;
            // Weights: adds and renames twice as often as drops, widenings and changes to STRING
            // twice as often as they would come by chance (few columns qualify).
            final int[] kinds = {0, 0, 1, 2, 2, 3, 3, 4, 4, 5};
            switch (kinds[rnd.nextInt(kinds.length)]) {
                case 0: { // add
                    String name = freeName();
                    if (name == null) return null;
                    DataType t = randomType();
                    SchemaChange.Move m = position(name, null);
                    ch = SchemaChange.addColumn(name, t, null, m);
                    what = "add " + name + " " + t + (m == null ? "" : " " + m.type() + (m.referenceFieldName() == null ? "" : " " + m.referenceFieldName()));
                    apply = () -> {
                        Col n = new Col(name, t);
                        place(n, m);
                        used.add(name);
                    };
                    break;
                }
                case 1: { // drop
                    if (c == null || alt.size() < 2) return null;
                    ch = SchemaChange.dropColumn(c.name);
                    what = "drop " + c.name;
                    apply = () -> cols.remove(c);
                    break;
                }
                case 2: { // rename
                    if (c == null) return null;
                    String name = freeName();
                    if (name == null) return null;
                    ch = SchemaChange.renameColumn(c.name, name);
                    what = "rename " + c.name + " to " + name;
                    apply = () -> {
                        c.name = name;
                        used.add(name);
                    };
                    break;
                }
                case 3: { // widen
                    if (c == null) return null;
                    DataType t = widened(c.type);
                    if (t == null) return null;
                    ch = SchemaChange.updateColumnType(c.name, t);
                    what = "widen " + c.name + " " + c.type + " to " + t;
                    apply = () -> c.type = t;
                    break;
                }
                case 4: { // INT/BIGINT to STRING
                    if (c == null) return null;
                    DataTypeRoot r = c.type.getTypeRoot();
                    if (r != DataTypeRoot.INTEGER && r != DataTypeRoot.BIGINT) return null;
                    ch = SchemaChange.updateColumnType(c.name, DataTypes.STRING());
                    what = "change " + c.name + " " + c.type + " to STRING";
                    apply = () -> c.type = DataTypes.STRING();
                    break;
                }
                default: { // move
                    if (c == null) return null;
                    SchemaChange.Move m = position(c.name, c);
                    if (m == null) return null;
                    ch = SchemaChange.updateColumnPosition(m);
                    what = "move " + c.name + " " + m.type() + (m.referenceFieldName() == null ? "" : " " + m.referenceFieldName());
                    apply = () -> {
                        cols.remove(c);
                        place(c, m);
                    };
                    break;
                }
            }
            try {
                cat.alterTable(id, List.of(ch), false);
            } catch (Exception | Error e) {
                // Java refuses it: the caller draws another (the draw sequence stays seeded).
                System.out.println("  " + id + ": Java refuses " + what + ": " + e.getMessage());
                return null;
            }
            apply.run();
            table = cat.getTable(id);
            // The model must stay what Java holds: a drift would write rows in the wrong shape.
            RowType rt = table.rowType();
            if (rt.getFieldCount() != cols.size()) throw new IllegalStateException(id + " after " + what + ": Java has " + rt + ", model " + describe());
            for (int i = 0; i < cols.size(); i++) {
                if (!rt.getFields().get(i).name().equals(cols.get(i).name)
                        || !rt.getFields().get(i).type().copy(true).equals(cols.get(i).type.copy(true))) {
                    throw new IllegalStateException(id + " after " + what + ": Java has " + rt + ", model " + describe());
                }
            }
            return what + " -> " + describe();
        }

        void place(Col n, SchemaChange.Move m) {
            if (m == null || m.type() == SchemaChange.Move.MoveType.LAST) {
                cols.add(n);
            } else if (m.type() == SchemaChange.Move.MoveType.FIRST) {
                cols.add(0, n);
            } else {
                int at = 0;
                while (!cols.get(at).name.equals(m.referenceFieldName())) at++;
                cols.add(m.type() == SchemaChange.Move.MoveType.AFTER ? at + 1 : at, n);
            }
        }

        DataType widened(DataType t) {
            switch (t.getTypeRoot()) {
                case INTEGER: return DataTypes.BIGINT();
                case FLOAT: return DataTypes.DOUBLE();
                case DECIMAL: {
                    DecimalType d = (DecimalType) t;
                    if (d.getPrecision() >= 38) return null;
                    return DataTypes.DECIMAL(Math.min(38, d.getPrecision() + 1 + rnd.nextInt(10)), d.getScale());
                }
                case VARCHAR: {
                    int n = ((VarCharType) t).getLength();
                    if (n == VarCharType.MAX_LENGTH) return null; // STRING
                    return rnd.nextInt(4) == 0 ? DataTypes.STRING() : DataTypes.VARCHAR(n + 1 + rnd.nextInt(6));
                }
                default: return null;
            }
        }

        /** Commits 2..7 random rows (a primary-key table: upserts of a few keys, now and then a delete). */
        void commit() throws Exception {
            BatchWriteBuilder wb = table.newBatchWriteBuilder();
            try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
                int n = 2 + rnd.nextInt(6);
                for (int r = 0; r < n; r++) {
                    GenericRow row = new GenericRow(cols.size());
                    for (int i = 0; i < cols.size(); i++) {
                        Col col = cols.get(i);
                        row.setField(i, col == key ? Integer.valueOf(rnd.nextInt(12)) : value(col.type));
                    }
                    if (pk && rnd.nextInt(10) == 0) row.setRowKind(RowKind.DELETE);
                    w.write(row);
                }
                c.commit(w.prepareCommit());
            }
        }

        Object value(DataType t) {
            if (rnd.nextInt(6) == 0) return null;
            boolean extreme = rnd.nextInt(12) == 0;
            switch (t.getTypeRoot()) {
                case INTEGER:
                    if (extreme) return rnd.nextBoolean() ? Integer.MAX_VALUE : Integer.MIN_VALUE;
                    return rnd.nextInt(41) - 20;
                case BIGINT:
                    if (extreme) return rnd.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
                    return (long) (rnd.nextInt(2001) - 1000);
                case DOUBLE: {
                    // Quarters: exact in binary, so Java's and Go's spellings agree (Canon.dbl).
                    if (extreme) return new double[] {Double.MAX_VALUE, -Double.MAX_VALUE, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}[rnd.nextInt(6)];
                    return (rnd.nextInt(161) - 80) / 4.0;
                }
                case FLOAT: {
                    if (extreme) return new float[] {Float.MAX_VALUE, -Float.MAX_VALUE, -0.0f, Float.NaN, Float.NEGATIVE_INFINITY}[rnd.nextInt(5)];
                    return (rnd.nextInt(161) - 80) / 4.0f;
                }
                case DATE:
                    // 1900-01-01 .. 9999-12-31; no earlier dates, where calendars differ.
                    if (extreme) return rnd.nextBoolean() ? -25567 : 2932896;
                    return 19000 + rnd.nextInt(2000);
                case DECIMAL: {
                    DecimalType d = (DecimalType) t;
                    BigInteger max = BigInteger.TEN.pow(d.getPrecision()).subtract(BigInteger.ONE);
                    BigInteger u = extreme ? max : BigInteger.valueOf(rnd.nextInt(2001) - 1000).min(max).max(max.negate());
                    if (extreme && rnd.nextBoolean()) u = u.negate();
                    return Decimal.fromBigDecimal(new BigDecimal(u, d.getScale()), d.getPrecision(), d.getScale());
                }
                case BOOLEAN:
                    return rnd.nextBoolean();
                case VARCHAR: {
                    int len = t instanceof VarCharType ? Math.min(((VarCharType) t).getLength(), 12) : 12;
                    String[] pool = {"", "a", "m", "s1", "zz", "\u00e9t\u00e9", "x'y", "\u65e5\u672c", "~~~"};
                    String v = extreme ? "z".repeat(len) : pool[rnd.nextInt(pool.length)] + (rnd.nextBoolean() ? "" : Integer.toString(rnd.nextInt(100)));
                    if (v.codePointCount(0, v.length()) > len) v = v.substring(0, v.offsetByCodePoints(0, len));
                    return BinaryString.fromString(v);
                }
                default:
                    throw new IllegalStateException("no values for " + t);
            }
        }

        /** Java's read of every snapshot (time travel, in that snapshot's schema), one case each. */
        void dump(Path expected, List<String> cases) throws Exception {
            String tn = id.getFullName();
            long latest = table.latestSnapshot().map(s -> s.id()).orElseThrow();
            for (long snap = 1; snap <= latest; snap++) {
                Table t = table.copy(Map.of("scan.snapshot-id", Long.toString(snap)));
                ReadBuilder rb = t.newReadBuilder();
                RowType rowType = t.rowType();
                List<String> lines = new ArrayList<>();
                try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
                    reader.forEachRemaining(r -> lines.add(Canon.row(r, rowType)));
                }
                lines.sort(Canon::codePointCompare);
                String caseName = "snap" + snap;
                Path out = expected.resolve(tn).resolve(caseName + ".jsonl");
                Files.createDirectories(out.getParent());
                Files.write(out, lines.isEmpty() ? new byte[0] : (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
                cases.add("{\"table\":" + Canon.str(tn) + ",\"case\":" + Canon.str(caseName) + ",\"snapshot\":" + snap
                        + ",\"projection\":null,\"filter\":null,\"expected\":" + Canon.str("expected/" + tn + "/" + caseName + ".jsonl")
                        + ",\"rows\":" + lines.size() + ",\"writer\":\"java\"}");
            }
        }
    }
}
