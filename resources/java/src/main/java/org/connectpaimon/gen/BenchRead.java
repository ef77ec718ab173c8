package org.connectpaimon.gen;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

/**
 * Java Paimon's own batch read of a table, timed, for the side-by-side benchmarks of issue 16
 * (resources/bench/compare.sh, compare_pk.sh): plan + {@code TableRead} of the latest snapshot,
 * every row's every projected field read through {@code InternalRow}'s getters (mode
 * {@code rows}; a primary-key table is merged by Java's merge reader) or rendered as one JSON
 * object per row (mode {@code json}, the "row → JSON" figure next to the Go binary's
 * paimon → drop, which renders every row as a JSON body).
 *
 * <pre>
 *   java -cp ... org.connectpaimon.gen.BenchRead --warehouse DIR --table db.t
 *        [--mode rows|json] [--columns a,b] [--repeat N]
 * </pre>
 *
 * Prints one JSON line for the JVM's start (wall and process CPU from JVM start to main,
 * reported apart from the reads), then one per run: rows, sum of the {@code ver} column when the
 * table has one (the PK benchmark's check), bytes of JSON produced, wall and process CPU
 * seconds (all of the JVM's threads: JIT and GC included). Run 1 is cold (JIT); later runs warm.
 */
public final class BenchRead {
    public static void main(String[] args) throws Exception {
        long startWallMs = ManagementFactory.getRuntimeMXBean().getUptime();
        long startCpu = cpuNanos();
        String warehouse = null, table = null, mode = "rows", columns = null;
        int repeat = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--warehouse": warehouse = args[++i]; break;
                case "--table": table = args[++i]; break;
                case "--mode": mode = args[++i]; break;
                case "--columns": columns = args[++i]; break;
                case "--repeat": repeat = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (warehouse == null || table == null) throw new IllegalArgumentException("--warehouse and --table are required");
        if (!mode.equals("rows") && !mode.equals("json")) throw new IllegalArgumentException("--mode rows|json");
        System.out.println("{\"jvm_start\":true,\"wall_s\":" + startWallMs / 1e3 + ",\"cpu_s\":" + startCpu / 1e9 + "}");
        for (int run = 1; run <= repeat; run++) {
            long w0 = System.nanoTime(), c0 = cpuNanos();
            long[] r = read(warehouse, table, mode, columns);
            long w1 = System.nanoTime(), c1 = cpuNanos();
            System.out.println("{\"run\":" + run + ",\"table\":\"" + table + "\",\"mode\":\"" + mode + "\",\"columns\":\""
                    + (columns == null ? "all" : columns) + "\",\"rows\":" + r[0] + ",\"sum_ver\":" + r[1]
                    + ",\"json_bytes\":" + r[2] + ",\"wall_s\":" + (w1 - w0) / 1e9 + ",\"cpu_s\":" + (c1 - c0) / 1e9 + "}");
            System.out.flush();
        }
    }

    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Returns rows, sum(ver) (0 without a ver column) and JSON bytes (0 in rows mode). */
    static long[] read(String warehouse, String table, String mode, String columns) throws Exception {
        Options o = new Options();
        o.set("warehouse", warehouse);
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(o))) {
            Table t = catalog.getTable(Identifier.fromString(table));
            ReadBuilder rb = t.newReadBuilder();
            RowType type = t.rowType();
            if (columns != null) {
                List<String> names = type.getFieldNames();
                int[] proj = Arrays.stream(columns.split(",")).mapToInt(c -> {
                    int i = names.indexOf(c.trim());
                    if (i < 0) throw new IllegalArgumentException("no column " + c + " in " + table);
                    return i;
                }).toArray();
                rb = rb.withProjection(proj);
                type = type.project(proj);
            }
            List<DataField> fields = type.getFields();
            int n = fields.size();
            int verIdx = type.getFieldNames().indexOf("ver");
            InternalRow.FieldGetter[] getters = new InternalRow.FieldGetter[n];
            String[] keys = new String[n];
            for (int i = 0; i < n; i++) {
                getters[i] = InternalRow.createFieldGetter(fields.get(i).type(), i);
                keys[i] = (i == 0 ? "{" : ",") + Canon.str(fields.get(i).name()) + ":";
            }
            boolean json = mode.equals("json");
            StringBuilder sb = new StringBuilder(512);
            TableScan.Plan plan = rb.newScan().plan();
            long rows = 0, sum = 0, bytes = 0, touch = 0;
            try (RecordReader<InternalRow> reader = rb.newRead().createReader(plan)) {
                RecordReader.RecordIterator<InternalRow> it;
                while ((it = reader.readBatch()) != null) {
                    InternalRow r;
                    while ((r = it.next()) != null) {
                        rows++;
                        if (verIdx >= 0 && !r.isNullAt(verIdx)) sum += r.getInt(verIdx);
                        if (json) {
                            sb.setLength(0);
                            for (int i = 0; i < n; i++) {
                                sb.append(keys[i]);
                                value(sb, getters[i].getFieldOrNull(r), fields.get(i).type());
                            }
                            sb.append('}');
                            bytes += sb.length();
                        } else {
                            for (int i = 0; i < n; i++) {
                                Object v = getters[i].getFieldOrNull(r);
                                if (v != null) touch += v.hashCode();
                            }
                        }
                    }
                    it.releaseBatch();
                }
            }
            if (touch == 42) System.err.print(""); // keeps the getters' results alive
            return new long[] {rows, sum, bytes};
        }
    }

    /** Appends a value the way the Go binary's body encoder spells it (lossless JSON). */
    static void value(StringBuilder sb, Object v, DataType t) {
        if (v == null) {
            sb.append("null");
        } else if (t.getTypeRoot() == org.apache.paimon.types.DataTypeRoot.DATE) {
            sb.append('"').append(java.time.LocalDate.ofEpochDay((Integer) v)).append('"');
        } else if (v instanceof BinaryString) {
            sb.append(Canon.str(v.toString()));
        } else if (v instanceof Decimal) {
            sb.append('"').append(((Decimal) v).toBigDecimal().toPlainString()).append('"');
        } else if (v instanceof Timestamp) {
            sb.append('"').append(((Timestamp) v).toLocalDateTime()).append('"');
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isFinite(d)) sb.append(d);
            else sb.append('"').append(d).append('"');
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof byte[]) {
            sb.append('"').append(java.util.Base64.getEncoder().encodeToString((byte[]) v)).append('"');
        } else {
            sb.append(Canon.str(v.toString()));
        }
    }

    private BenchRead() {}
}
