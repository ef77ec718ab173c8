#!/usr/bin/env bash
# Regenerates the committed interop fixtures (resources/fixtures): a small subset of the
# pypaimon and Java matrices plus the quickstart demo table. Needs resources/.venv (pypaimon)
# and Maven; see resources/README.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/fixtures"
py="${PYTHON:-$here/.venv/bin/python}"

# Keep this list small: the committed set should stay well under 3 MB.
PY_TABLES="interop.types_single,interop.types_parquet_zstd,interop.types_avro_snappy,interop.part_date_region,interop.part_special_chars,interop.bucket4,interop.evolution,interop.overwrite,demo.orders"
JAVA_TABLES="${JAVA_TABLES:-javagen.ts_decimal,javagen.avro_types,javagen.part_legacy,javagen.path_dir,javagen.commits,javagen.branchy,javagen.orc_zstd,javagen.orc_lz4,javagen.orc_stripes,javagen.orc_bucket,javagen.orc_evolve,javagen.orc_switch}"

# The writer-version matrix (VersionGen; docs/interop.md, "Writer versions"): each release listed
# in java/legacy-versions writes its tables into java_<v>.db and reads them (cases-java-<v>.json;
# a read kept out of the cases goes to differs-java-<v>.json), Java 1.3.1 (pom.xml's
# paimon.version) reads all of them in one run (cases-java-by-1.3.1.json), and writes and reads
# its own (cases-java-1.3.1.json). VERSIONS_ONLY=1 regenerates just these and leaves every other
# committed file alone.
regen_versions() {
  rm -rf "$out"/warehouse/java_[0-9]*.db "$out"/expected/java_[0-9]* "$out"/cases-java-[0-9]*.json \
    "$out"/cases-java-by-*.json "$out"/differs-java-*.json
  local v args current dbs=()
  current="$(sed -n 's:.*<paimon.version>\([0-9.]*\)</paimon.version>.*:\1:p' "$here/java/pom.xml" | head -n 1)"
  args="--warehouse $out/warehouse --expected $out/expected"
  while read -r v; do
    [[ -z "$v" || "$v" == \#* ]] && continue
    (cd "$here/java" && mvn -q -o -B -Dpaimon.legacy="$v" compile exec:java \
      -Dexec.args="$args --cases $out/cases-java-$v.json --differs $out/differs-java-$v.json")
    dbs+=("java_${v//./_}")
  done < "$here/java/legacy-versions"
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.VersionGen \
    -Dexec.args="$args --cases $out/cases-java-by-$current.json --differs $out/differs-java-by-$current.json --read-db $(IFS=,; echo "${dbs[*]}")")
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.VersionGen \
    -Dexec.args="$args --cases $out/cases-java-$current.json --differs $out/differs-java-$current.json")
  # An empty differs file says nothing: drop it.
  grep -L '"table"' "$out"/differs-java-*.json | xargs -r rm -f
  find "$out/warehouse" -name '.*.crc' -delete
  # The primary-key tables of the matrix (VersionPkGen, tests/interop TestPKVersions): each
  # release's own batch and streaming reads, then the pom's release reading all of them.
  local pk="$out/pk-versions" pkdbs=()
  rm -rf "$pk" && mkdir -p "$pk"
  args="--warehouse $pk/warehouse --expected $pk/expected"
  while read -r v; do
    [[ -z "$v" || "$v" == \#* ]] && continue
    (cd "$here/java" && mvn -q -o -B -Dpaimon.legacy="$v" compile exec:java \
      -Dexec.mainClass=org.connectpaimon.gen.VersionPkGen -Dexec.args="$args --cases $pk/cases-pk-java-$v.json")
    pkdbs+=("javapk_${v//./_}")
  done < "$here/java/legacy-versions"
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.VersionPkGen \
    -Dexec.args="$args --cases $pk/cases-pk-java-by-$current.json --read-db $(IFS=,; echo "${pkdbs[*]}")")
  find "$pk" -name '.*.crc' -delete
}
# Spark SQL as a writer (resources/spark/gen_spark.py, docs/interop.md "Spark SQL as a writer"):
# SPARK_TABLES of database sparkgen into fixtures/warehouse/sparkgen.db with Spark's reads in
# fixtures/expected/sparkgen.* and fixtures/cases-spark.json. Needs SPARK_PYTHON (a python with
# pyspark) and the connector jar (PAIMON_SPARK_JARS, default resources/spark/target/lib);
# scripts/test-all --install prints both. SPARK_ONLY=1 regenerates just these.
SPARK_TABLES="${SPARK_TABLES:-sparkgen.pk_fixed,sparkgen.pk_merge_buckets,sparkgen.append_dv,sparkgen.alter,sparkgen.compact_pk_dv,sparkgen.types_orc,sparkgen.old_dates_orc}"
regen_spark() {
  rm -rf "$out/warehouse/sparkgen.db" "$out"/expected/sparkgen.* "$out/cases-spark.json"
  "${SPARK_PYTHON:?set SPARK_PYTHON to a python with pyspark (resources/README.md)}" "$here/spark/gen_spark.py" \
    --jars "${PAIMON_SPARK_JARS:-$here/spark/target/lib}" --warehouse "$out/warehouse" --expected "$out/expected" \
    --cases "$out/cases-spark.json" --tables "$SPARK_TABLES"
  find "$out/warehouse/sparkgen.db" -name '.*.crc' -delete
}
if [[ -n "${SPARK_ONLY:-}" ]]; then
  regen_spark
  du -sh "$out/warehouse/sparkgen.db"
  exit 0
fi
# Random schema histories (SchemaHistGen; tests/interop TestFilterInSnapshotSchemaProperty) drawn
# from a fixed seed into randhist.db, with Java's read of every snapshot in cases-randhist.json:
# the offline run of the property the live suite runs on freshly drawn histories. Three tables
# (Parquet append, ORC primary key, Avro append) keep the set under 300 KB. RANDHIST_ONLY=1
# regenerates just these.
RANDHIST_SEED=20261203
regen_randhist() {
  rm -rf "$out/warehouse/randhist.db" "$out"/expected/randhist.* "$out/cases-randhist.json"
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.SchemaHistGen \
    -Dexec.args="--warehouse $out/warehouse --expected $out/expected --cases $out/cases-randhist.json --db randhist --seed $RANDHIST_SEED --count 3 --steps 8")
  find "$out/warehouse/randhist.db" -name '.*.crc' -delete
  du -sh --apparent-size "$out/warehouse/randhist.db" "$out"/expected/randhist.*
}
if [[ -n "${RANDHIST_ONLY:-}" ]]; then
  regen_randhist
  exit 0
fi

if [[ -n "${VERSIONS_ONLY:-}" ]]; then
  regen_versions
  du -sh "$out/warehouse"
  exit 0
fi

# PK_GROUP=<name> PK_TABLES=javapk.a,javapk.b regenerates only those primary-key tables into
# fixtures/pk, their cases in fixtures/pk/cases-pk-<name>.json, and leaves every other committed
# file alone (tests/interop loads cases-pk*.json). A full run (no PK_GROUP) rewrites everything.
if [[ -n "${PK_GROUP:-}" ]]; then
  [[ -n "${PK_TABLES:-}" ]] || { echo "PK_GROUP needs PK_TABLES" >&2; exit 2; }
  for t in ${PK_TABLES//,/ }; do
    rm -rf "$out/pk/warehouse/${t%%.*}.db/${t#*.}" "$out/pk/expected/$t"
  done
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaPkGen \
    -Dexec.args="--warehouse $out/pk/warehouse --expected $out/pk/expected --cases $out/pk/cases-pk-$PK_GROUP.json --tables $PK_TABLES")
  find "$out/pk" -name '.*.crc' -delete
  du -sh "$out/pk"
  exit 0
fi

# MERGE_GROUP=<name> MERGE_TABLES=javapk.a,... likewise for JavaPkMergeGen tables:
# fixtures/pk-merge and fixtures/pk-merge/cases-pk-<name>.json.
if [[ -n "${MERGE_GROUP:-}" ]]; then
  [[ -n "${MERGE_TABLES:-}" ]] || { echo "MERGE_GROUP needs MERGE_TABLES" >&2; exit 2; }
  for t in ${MERGE_TABLES//,/ }; do
    rm -rf "$out/pk-merge/warehouse/${t%%.*}.db/${t#*.}" "$out/pk-merge/expected/$t"
  done
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaPkMergeGen \
    -Dexec.args="--warehouse $out/pk-merge/warehouse --expected $out/pk-merge/expected --cases $out/pk-merge/cases-pk-$MERGE_GROUP.json --tables $MERGE_TABLES")
  find "$out/pk-merge" -name '.*.crc' -delete
  du -sh "$out/pk-merge"
  exit 0
fi

# JAVA_GROUP=<name> JAVA_TABLES=javagen.a,... likewise for JavaGen tables: fixtures/warehouse,
# fixtures/expected and fixtures/cases-java-<name>.json (tests/interop loads cases*.json); tables
# JavaGen lists for the pruning property test go to fixtures/props-java-<name>.json.
if [[ -n "${JAVA_GROUP:-}" ]]; then
  [[ -n "${JAVA_TABLES:-}" ]] || { echo "JAVA_GROUP needs JAVA_TABLES" >&2; exit 2; }
  for t in ${JAVA_TABLES//,/ }; do
    rm -rf "$out/warehouse/${t%%.*}.db/${t#*.}" "$out/expected/$t"
  done
  (cd "$here/java" && mvn -q -o -B compile exec:java \
    -Dexec.args="--warehouse $out/warehouse --expected $out/expected --cases $out/cases-java-$JAVA_GROUP.json --props $out/props-java-$JAVA_GROUP.json --tables $JAVA_TABLES")
  find "$out/warehouse" -name '.*.crc' -delete
  du -sh "$out/warehouse"
  exit 0
fi

rm -rf "$out"
mkdir -p "$out"
"$py" "$here/pygen/gen_append.py" --warehouse "$out/warehouse" --expected "$out/expected" \
  --cases "$out/cases.json" --tables "$PY_TABLES"

if [[ -f "$here/java/src/main/java/org/connectpaimon/gen/JavaGen.java" ]]; then
  (cd "$here/java" && mvn -q -o -B compile exec:java \
    -Dexec.args="--warehouse $out/warehouse --expected $out/expected --cases $out/cases-java.json --props $out/props-javagen.json ${JAVA_TABLES:+--tables $JAVA_TABLES}")
fi

# Schema histories whose time-travel reads resolve filters in each snapshot's schema.
JAVA_GROUP=schemahist JAVA_TABLES=javagen.rename_reuse,javagen.rename_reuse_orc "$0"
# NaN at every position of ORC, Parquet and Avro files (Java's ORC reads differ; docs/interop.md).
JAVA_GROUP=nan JAVA_TABLES=javagen.nan_orc,javagen.nan_parquet,javagen.nan_avro "$0"
# Maps, multisets and nested strings in ORC files under every encoding Java's writer picks
# (dictionary v1/v2 and direct, per stripe and nested column).
JAVA_GROUP=orcmaps JAVA_TABLES=javagen.orc_maps,javagen.orc_maps_direct,javagen.orc_maps_dict,javagen.orc_maps_v1,javagen.orc_maps_idx "$0"
# TIMESTAMP(7..9) of years 0001 and 9999 and just beyond Arrow's nanosecond range (INT96, ORC).
JAVA_GROUP=tsextreme JAVA_TABLES=javagen.ts_extreme_parquet,javagen.ts_extreme_orc "$0"
# Parquet encodings of Java's writer options: data page v2 (DELTA_* encodings), no dictionary, a
# dictionary page too small for a chunk.
JAVA_GROUP=parquetenc JAVA_TABLES=javagen.parquet_v2,javagen.parquet_v2_plain,javagen.parquet_v1_plain,javagen.parquet_dict_overflow,javagen.ts_decimal_v2,javagen.ts_decimal_v2_plain "$0"
# Indexes beside the data: ORC and Parquet bloom filters, Paimon's file indexes in index files
# and in the manifest.
JAVA_GROUP=indexes JAVA_TABLES=javagen.orc_bloom,javagen.parquet_bloom,javagen.file_index,javagen.file_index_manifest "$0"
# Tables that read the partitions they lack from a fallback branch (scan.fallback-branch).
JAVA_GROUP=fallback JAVA_TABLES=javagen.fallback,javagen.fallback_pk "$0"
# OVERWRITE commits read by streams (streaming-read-append-overwrite, streaming-read-overwrite).
JAVA_GROUP=overwrite JAVA_TABLES=javagen.overwrite_stream,javagen.overwrite_stream_pk "$0"
# Read positions stored in table options (scan.snapshot-id, scan.tag-name, scan.timestamp-millis,
# scan.mode, incremental-between), which Java's batch reads apply.
JAVA_GROUP=scanopt JAVA_TABLES=javagen.scanopt_snapshot,javagen.scanopt_tag,javagen.scanopt_incremental,javagen.scanopt_incremental_ts,javagen.scanopt_latest,javagen.scanopt_ts,javagen.scanopt_diff_tags,javagen.scanopt_diff_ids "$0"
# Data evolution: files holding some columns of rows other files hold, merged by first row id.
JAVA_GROUP=dataevo JAVA_TABLES=javagen.data_evolution,javagen.data_evolution_mixed "$0"

# Primary-key tables whose changelog files have their own format, codec and name prefix.
PK_GROUP=clformat PK_TABLES=javapk.pk_cl_avro,javapk.pk_cl_orc_lookup "$0"
# Where a compacted-full read starts under full-compaction.delta-commits; incremental reads
# stored in the table (batch reads of them, with row kinds).
PK_GROUP=fcdelta PK_TABLES=javapk.pk_fc_delta,javapk.pk_incr_delta,javapk.pk_incr_lookup,javapk.pk_incr_delta_mode,javapk.pk_diff_ids,javapk.pk_diff_tags,javapk.pk_diff_ts,javapk.pk_diff_dv "$0"

# Primary-key tables written by Java Paimon with its batch and streaming reads (tests/interop/pk_test.go).
if [[ -f "$here/java/src/main/java/org/connectpaimon/gen/JavaPkGen.java" ]]; then
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaPkGen \
    -Dexec.args="--warehouse $out/pk/warehouse --expected $out/pk/expected --cases $out/pk/cases-pk.json")
fi

# Merge engines across lookup-compacted levels and the aggregate functions (tests/interop/pk_merge_test.go).
if [[ -f "$here/java/src/main/java/org/connectpaimon/gen/JavaPkMergeGen.java" ]]; then
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaPkMergeGen \
    -Dexec.args="--warehouse $out/pk-merge/warehouse --expected $out/pk-merge/expected --cases $out/pk-merge/cases-pk.json")
fi

# pypaimon-written tables for the pruning property test (issue 11 item 1).
"$py" "$here/pygen/gen_props.py" --warehouse "$out/warehouse" --props "$out/props-py.json"

# Stats-mode tables for the pruning property test and Java's timestamp casts (issue 11 items 1, 4).
if [[ -f "$here/java/src/main/java/org/connectpaimon/gen/JavaStatsGen.java" ]]; then
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaStatsGen \
    -Dexec.args="--warehouse $out/warehouse --expected $out/expected --cases $out/cases-javastats.json --props $out/props-java.json")
fi

# Timestamps Java keeps below their declared precision (ORC nanoseconds, narrowing casts),
# which the reader refuses by column (issue 11 item 4, tests/interop TestSubUnitTimestamps).
if [[ -f "$here/java/src/main/java/org/connectpaimon/gen/JavaTsSubUnitGen.java" ]]; then
  (cd "$here/java" && mvn -q -o -B compile exec:java -Dexec.mainClass=org.connectpaimon.gen.JavaTsSubUnitGen \
    -Dexec.args="--warehouse $out/warehouse --expected $out/expected")
fi

regen_versions
regen_spark
regen_randhist

# Generated tables carry absolute-path-free metadata, but drop hint files that only speed up
# lookups and any writer temp files so the committed tree is deterministic in shape.
find "$out" -name '.*.crc' -delete
du -sh "$out"
