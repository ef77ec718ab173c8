package org.connectpaimon.gen;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The writer-version matrix for primary-key tables: the release this file is compiled against
 * (pom.xml profile paimon-legacy, {@code -Dpaimon.legacy=0.9.0}) writes the same histories as
 * {@link JavaPkGen}'s tables of the same names (upserts, -U/+U pairs, deletes, full and minor
 * compactions) with each changelog producer and merge engine, dynamic and cross-partition
 * buckets, into the database
 * {@code javapk_<version>} (dots as underscores), and dumps its own batch read of every snapshot
 * and its own streaming reads in every start mode ({@link PkOracle}). A reader of record must
 * stream an old table's changelog files exactly as the release that wrote them does.
 *
 * <pre>mvn -q -o -Dpaimon.legacy=0.9.0 compile exec:java -Dexec.mainClass=org.connectpaimon.gen.VersionPkGen \
 *     -Dexec.args="--warehouse W --expected E --cases C"
 * mvn -q -o compile exec:java -Dexec.mainClass=org.connectpaimon.gen.VersionPkGen \
 *     -Dexec.args="--warehouse W --expected E --cases C --read-db javapk_0_9_0,..."</pre>
 *
 * <p>With --read-db nothing is written: the release on the classpath (the pom's, 1.3.1) reads
 * the tables the others wrote, which is the read a reader of record owes them.
 */
public final class VersionPkGen {
    private VersionPkGen() {}

    private static final Map<String, PkOracle.TableGen> TABLES = new LinkedHashMap<>();

    static {
        // The release's default file format: ORC up to 0.8, Parquet since 0.9.
        TABLES.put("pk_dedup", g -> PkTables.dedup(g, "pk_dedup", Map.of()));
        TABLES.put("pk_input", g -> PkTables.dedup(g, "pk_input", Map.of("changelog-producer", "input")));
        TABLES.put("pk_lookup", g -> PkTables.dedup(g, "pk_lookup", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_fullcomp", g -> PkTables.dedup(g, "pk_fullcomp", Map.of("changelog-producer", "full-compaction")));
        TABLES.put("pk_orc_lookup", g -> PkTables.dedup(g, "pk_orc_lookup", Map.of("file.format", "orc", "changelog-producer", "lookup")));
        TABLES.put("pk_first_row", g -> PkTables.firstRow(g, "pk_first_row", Map.of()));
        TABLES.put("pk_partial", g -> PkTables.partial(g, "pk_partial", Map.of()));
        TABLES.put("pk_agg", g -> PkTables.agg(g, "pk_agg", Map.of()));
        TABLES.put("pk_agg_lookup", g -> PkTables.agg(g, "pk_agg_lookup", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_dynamic", PkTables::dynamic);
        TABLES.put("pk_part", PkTables::part);
        TABLES.put("pk_cross", PkBucketModeTables::cross);
    }

    public static void main(String[] args) throws Exception {
        String version = PkOracle.version();
        if (version == null) throw new IllegalStateException("paimon-bundle on the classpath has no Implementation-Version");
        if (java.util.Arrays.asList(args).contains("--read-db")) {
            PkOracle.read(args, "resources/java VersionPkGen");
            return;
        }
        String[] withDb = java.util.Arrays.copyOf(args, args.length + 2);
        withDb[args.length] = "--db";
        withDb[args.length + 1] = "javapk_" + version.replace('.', '_');
        PkOracle.run(withDb, TABLES, "resources/java VersionPkGen");
    }
}
