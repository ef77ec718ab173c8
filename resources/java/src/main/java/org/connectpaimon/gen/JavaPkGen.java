package org.connectpaimon.gen;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.paimon.catalog.Catalog;

/**
 * Java oracle for primary-key tables. Writes PK tables through Java Paimon's streaming write API
 * (row kinds, several commits, compactions so levels, level upgrades, COMPACT snapshots,
 * deletion vectors and changelog files appear) into the javapk database and dumps Java Paimon's
 * own reads ({@link PkOracle} says what is written where).
 *
 * <pre>mvn -q compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaPkGen \
 *     -Dexec.args="--warehouse W --expected E --cases C [--tables javapk.t1,...]"</pre>
 */
public final class JavaPkGen {
    private JavaPkGen() {}

    private static final Map<String, PkOracle.TableGen> TABLES = new LinkedHashMap<>();

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
        // Changelog files in a format, codec and name prefix of their own (Parquet data files).
        TABLES.put("pk_cl_avro", g -> PkTables.dedup(g, "pk_cl_avro", Map.of("changelog-producer", "input",
                "changelog-file.format", "avro", "changelog-file.compression", "snappy")));
        TABLES.put("pk_cl_orc_lookup", g -> PkTables.dedup(g, "pk_cl_orc_lookup", Map.of("changelog-producer", "lookup",
                "changelog-file.format", "orc", "changelog-file.prefix", "cl-", "data-file.prefix", "dt-")));
        // Where a compacted-full stream starts under full-compaction.delta-commits.
        TABLES.put("pk_fc_delta", g -> PkTables.fullCompDelta(g, "pk_fc_delta"));
        // Incremental reads stored in the table: the deltas of APPEND commits (no producer), the
        // changelog files of every commit (lookup), between snapshot ids or commit times.
        TABLES.put("pk_incr_delta", g -> PkTables.dedupStored(g, "pk_incr_delta", Map.of(),
                Map.of("incremental-between", "1,6")));
        TABLES.put("pk_incr_lookup", g -> PkTables.dedupStored(g, "pk_incr_lookup", Map.of("changelog-producer", "lookup"),
                Map.of("incremental-between", "0,5")));
        TABLES.put("pk_incr_delta_mode", g -> PkTables.dedupStored(g, "pk_incr_delta_mode", Map.of("changelog-producer", "input"),
                Map.of("incremental-between", "2,7", "incremental-between-scan-mode", "delta")));
        // Incremental diffs (Java's IncrementalDiffSplitRead): per key the newer merged row where it
        // is new or changed, between snapshot ids (across a full compaction), two tags, commit
        // times (before the first and after the last: earliest to latest), with deletion vectors.
        TABLES.put("pk_diff_ids", g -> PkTables.dedupStored(g, "pk_diff_ids", Map.of(),
                Map.of("incremental-between", "1,5", "incremental-between-scan-mode", "diff")));
        TABLES.put("pk_diff_tags", g -> PkTables.dedupStored(g, "pk_diff_tags", Map.of("changelog-producer", "input"),
                Map.of("incremental-between", "t2,t6"), Map.of("t2", 2L, "t6", 6L)));
        TABLES.put("pk_diff_ts", g -> PkTables.dedupStored(g, "pk_diff_ts", Map.of(),
                Map.of("incremental-between-timestamp", "0,9999999999999", "incremental-between-scan-mode", "diff")));
        TABLES.put("pk_diff_dv", g -> PkTables.dedupStored(g, "pk_diff_dv", Map.of("deletion-vectors.enabled", "true"),
                Map.of("incremental-between", "2,7", "incremental-between-scan-mode", "diff")));
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
        TABLES.put("pk_postpone", PkPostponeTables::postpone);
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

    /**
     * Tables whose files live outside the table directory (data-file.external-paths, two
     * directories beside the table, round-robin): their manifests hold absolute paths, so they
     * are never committed as fixtures; {@code --set external} writes them alone (tests/interop
     * TestPKExternalPathsLive). Data, changelog and deletion-vector files all go there.
     */
    private static final Map<String, PkOracle.TableGen> EXTERNAL = new LinkedHashMap<>();

    static {
        Map<String, String> ext = Map.of("data-file.external-paths",
                "file://" + PkOracle.LOCATION + ".ext-a,file://" + PkOracle.LOCATION + ".ext-b",
                "data-file.external-paths.strategy", "round-robin");
        EXTERNAL.put("pk_ext_lookup", g -> PkTables.dedup(g, "pk_ext_lookup", with(ext, "changelog-producer", "lookup")));
        EXTERNAL.put("pk_ext_dv", g -> PkTables.dedup(g, "pk_ext_dv", with(ext, "deletion-vectors.enabled", "true")));
        EXTERNAL.put("pk_ext_orc_input", g -> PkTables.dedup(g, "pk_ext_orc_input",
                with(with(ext, "file.format", "orc"), "changelog-producer", "input")));
        EXTERNAL.put("pk_ext_part", g -> PkTables.part(g, "pk_ext_part", ext));
    }

    /** base plus one option (Map.of maps are immutable). */
    static Map<String, String> with(Map<String, String> base, String key, String value) {
        Map<String, String> m = new HashMap<>(base);
        m.put(key, value);
        return m;
    }

    public static void main(String[] args) throws Exception {
        boolean external = java.util.Arrays.asList(args).contains("--set") && args[java.util.Arrays.asList(args).indexOf("--set") + 1].equals("external");
        PkOracle.run(args, external ? EXTERNAL : TABLES, "resources/java JavaPkGen");
    }

    /** Writes JavaPkGen's tables through cat (RestServer's REST catalog). */
    public static void generate(Catalog cat, String[] args) throws Exception {
        PkOracle.generate(cat, args, TABLES, "resources/java JavaPkGen (REST catalog)");
    }
}
