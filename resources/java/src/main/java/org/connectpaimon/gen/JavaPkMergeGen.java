package org.connectpaimon.gen;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Java oracle for the merge engines across compaction levels (issue 11): tables in the javapk
 * database whose plans hold a key in level 0, a lookup-compacted lower level and the older
 * highest level at once, and tables exercising the aggregate functions. Same driver, arguments
 * and output as {@link JavaPkGen}; a table set of its own so its committed fixtures
 * (resources/fixtures/pk-merge) regenerate without touching the other primary-key fixtures.
 *
 * <pre>mvn -q compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaPkMergeGen \
 *     -Dexec.args="--warehouse W --expected E --cases C [--tables javapk.t1,...]"</pre>
 */
public final class JavaPkMergeGen {
    private JavaPkMergeGen() {}

    static final Map<String, PkOracle.TableGen> TABLES = new LinkedHashMap<>();

    static {
        TABLES.put("pk_lk_agg", g -> PkLookupTables.agg(g, "pk_lk_agg", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_lk_agg_force", g -> PkLookupTables.agg(g, "pk_lk_agg_force", Map.of("force-lookup", "true")));
        TABLES.put("pk_lk_agg_dv", g -> PkLookupTables.agg(g, "pk_lk_agg_dv", Map.of("deletion-vectors.enabled", "true")));
        TABLES.put("pk_lk_agg_nolookup", g -> PkLookupTables.agg(g, "pk_lk_agg_nolookup", Map.of("num-levels", "3")));
        TABLES.put("pk_lk_pu", g -> PkLookupTables.partial(g, "pk_lk_pu", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_lk_pu_dv", g -> PkLookupTables.partial(g, "pk_lk_pu_dv",
                Map.of("deletion-vectors.enabled", "true", "changelog-producer", "lookup")));
        TABLES.put("pk_lk_dedup", g -> PkLookupTables.dedup(g, "pk_lk_dedup", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_lk_dedup_force", g -> PkLookupTables.dedup(g, "pk_lk_dedup_force", Map.of("force-lookup", "true")));
        TABLES.put("pk_lk_first_row", g -> PkLookupTables.firstRow(g, "pk_lk_first_row", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_aggf", g -> PkAggFuncTables.functions(g, "pk_aggf", Map.of()));
        TABLES.put("pk_aggf_lookup", g -> PkAggFuncTables.functions(g, "pk_aggf_lookup", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_aggf_retract", g -> PkAggFuncTables.retract(g, "pk_aggf_retract", Map.of()));
        TABLES.put("pk_aggf_nested_key", g -> PkAggFuncTables.nestedKey(g, "pk_aggf_nested_key", Map.of()));
        TABLES.put("pk_rbm64", g -> PkRbm64Tables.functions(g, "pk_rbm64", Map.of()));
        TABLES.put("pk_rbm64_lookup", g -> PkRbm64Tables.functions(g, "pk_rbm64_lookup", Map.of("changelog-producer", "lookup")));
        TABLES.put("pk_rbm64_retract", g -> PkRbm64Tables.retract(g, "pk_rbm64_retract", Map.of()));
        TABLES.put("pk_rbm64_pu", g -> PkRbm64Tables.partialUpdate(g, "pk_rbm64_pu", Map.of()));
        TABLES.put("pk_aggf_retract_lookup", g -> PkAggFuncTables.retract(g, "pk_aggf_retract_lookup", Map.of("changelog-producer", "lookup")));
    }

    public static void main(String[] args) throws Exception {
        PkOracle.run(args, TABLES, "resources/java JavaPkMergeGen");
    }
}
