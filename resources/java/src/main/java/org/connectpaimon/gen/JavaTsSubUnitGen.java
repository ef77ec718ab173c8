package org.connectpaimon.gen;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
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
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * Timestamps that Java keeps with nanoseconds below the declared precision (issue 11 item 4),
 * with Java's own read as the expected output:
 *
 * <ul>
 *   <li>{@code javats.sub_orc}: an ORC append table whose TIMESTAMP(3)/(4)/(6) and
 *       TIMESTAMP_LTZ(3) columns are written with finer Timestamps. ORC stores nanoseconds and
 *       Java's OrcTimestampColumnVector returns them; one row per column carries them.
 *   <li>{@code javats.sub_cast}: Parquet TIMESTAMP(9) columns ALTERed to TIMESTAMP(3)/(4)/(6);
 *       DateTimeUtils.truncate leaves a value whose nano-of-second has at most p digits alone, so
 *       123 ns stays 123 ns in TIMESTAMP(3).
 * </ul>
 *
 * <pre>mvn -q -o compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaTsSubUnitGen \
 *   -Dexec.args="--warehouse W --expected E"</pre>
 */
public final class JavaTsSubUnitGen {
    private static final String DB = "javats";

    private JavaTsSubUnitGen() {}

    public static void main(String[] args) throws Exception {
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        Path wh = Paths.get(args[1]).toAbsolutePath();
        Path expected = Paths.get(args[3]);
        Files.createDirectories(wh);
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(wh.toString())))) {
            cat.createDatabase(DB, true);
            orc(cat, expected);
            cast(cat, expected);
        }
    }

    static Timestamp ts(long ms, int nanoOfMilli) {
        return Timestamp.fromEpochMillis(ms, nanoOfMilli);
    }

    private static void orc(Catalog cat, Path expected) throws Exception {
        Schema s = Schema.newBuilder().column("id", DataTypes.INT())
                .column("t3", DataTypes.TIMESTAMP(3)).column("t4", DataTypes.TIMESTAMP(4))
                .column("t6", DataTypes.TIMESTAMP(6)).column("l3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3))
                .option("bucket", "-1").option("file.format", "orc").build();
        Table t = create(cat, "sub_orc", s);
        Timestamp clean3 = ts(1_500L, 0), clean6 = ts(1_500L, 250_000);
        List<InternalRow> rows = new ArrayList<>();
        rows.add(GenericRow.of(1, ts(1_000L, 123), ts(1_000L, 100_000), clean6, clean3));
        rows.add(GenericRow.of(2, clean3, ts(-1L, 100_456), clean6, clean3));
        rows.add(GenericRow.of(3, clean3, ts(1_000L, 100_000), ts(1_704_067_200_123L, 456_789), clean3));
        rows.add(GenericRow.of(4, clean3, ts(1_000L, 100_000), clean6, ts(0L, 1)));
        write(t, rows);
        dump(cat, "sub_orc", expected);
    }

    private static void cast(Catalog cat, Path expected) throws Exception {
        Schema s = Schema.newBuilder().column("id", DataTypes.INT())
                .column("c3", DataTypes.TIMESTAMP(9)).column("c4", DataTypes.TIMESTAMP(9)).column("c6", DataTypes.TIMESTAMP(9))
                .option("bucket", "-1").build();
        Table t = create(cat, "sub_cast", s);
        Timestamp clean = ts(1_500L, 0);
        List<InternalRow> rows = new ArrayList<>();
        // nano-of-second 123 (3 digits), 5123 (4 digits), 123 (≤ 6 digits): Java keeps them.
        rows.add(GenericRow.of(1, ts(1_000L, 123), clean, clean));
        rows.add(GenericRow.of(2, clean, ts(1_000L, 5_123), clean));
        rows.add(GenericRow.of(3, clean, clean, ts(1_000L, 123)));
        write(t, rows);
        List<SchemaChange> changes = new ArrayList<>();
        changes.add(SchemaChange.updateColumnType("c3", DataTypes.TIMESTAMP(3)));
        changes.add(SchemaChange.updateColumnType("c4", DataTypes.TIMESTAMP(4)));
        changes.add(SchemaChange.updateColumnType("c6", DataTypes.TIMESTAMP(6)));
        cat.alterTable(Identifier.create(DB, "sub_cast"), changes, false);
        // One commit under the new schema, so the latest snapshot's schema is the ALTERed one.
        List<InternalRow> after = new ArrayList<>();
        after.add(GenericRow.of(100, null, null, null));
        write(cat.getTable(Identifier.create(DB, "sub_cast")), after);
        dump(cat, "sub_cast", expected);
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

    private static void dump(Catalog cat, String name, Path expected) throws Exception {
        Table t = cat.getTable(Identifier.create(DB, name));
        ReadBuilder rb = t.newReadBuilder();
        RowType rt = t.rowType();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan())) {
            r.forEachRemaining(x -> lines.add(Canon.row(x, rt)));
        }
        lines.sort(Canon::codePointCompare);
        Path out = expected.resolve(DB + "." + name).resolve("full.jsonl");
        Files.createDirectories(out.getParent());
        Files.write(out, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        System.out.println("wrote " + DB + "." + name);
    }
}
