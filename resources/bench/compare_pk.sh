#!/usr/bin/env bash
# Primary-key merged read (issues 5, 16): the Go library, pypaimon and Java Paimon's own TableRead
# on the same Java-written tables, in one run; rows/s and CPU-µs per row side by side. Usage:
#
#   PAIMON_BENCH_DIR=/path/to/cache resources/bench/compare_pk.sh [COUNT]
#
# COUNT (default 3) is the -count of the Go benchmark and the --repeat of pypaimon. The tables
# bench.pk and bench.pk_half are generated once into $PAIMON_BENCH_DIR by make_pk_table.py (Java
# 17 + Maven). The Python venv is $PAIMON_PYTHON, else resources/.venv, else /work/venv; GO_TEST
# and GO_BUILD override `go test` / `go build` as in compare.sh. Java (17+, Maven, the offline
# repository resolved) runs resources/java's BenchRead on a classpath built once; its JVM start is
# reported apart from the reads, its first (cold-JIT) read apart from the warm ones (COUNT warm
# runs after one cold). Raw outputs go to $PAIMON_BENCH_DIR/results/pk-*.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
: "${PAIMON_BENCH_DIR:?set PAIMON_BENCH_DIR to a cache directory for the generated tables}"
export PAIMON_BENCH_DIR
count=${1:-3}
py=${PAIMON_PYTHON:-}
for c in "$py" "$repo/resources/.venv/bin/python" /work/venv/bin/python; do
  if [ -n "$c" ] && [ -x "$c" ]; then py=$c; break; fi
done
[ -x "$py" ] || { echo "compare_pk.sh: no pypaimon venv (set PAIMON_PYTHON)" >&2; exit 1; }
gotest=${GO_TEST:-go test}
out="$PAIMON_BENCH_DIR/results"
mkdir -p "$out"
cd "$repo"

echo "== tables (load: $(cut -d' ' -f1-3 /proc/loadavg))"
"$py" "$here/make_pk_table.py"

echo "== go: BenchmarkPKMergedRead (count $count; load: $(cut -d' ' -f1-3 /proc/loadavg))"
$gotest ./tests/bench/ -run '^$' -bench 'PKMergedRead' -benchtime 1x -count "$count" -benchmem | tee "$out/pk-go-read.txt"

echo "== go: TestPKMergedMemory (load: $(cut -d' ' -f1-3 /proc/loadavg))"
$gotest ./tests/bench/ -run 'TestPKMergedMemory' -v -count 1 | tee "$out/pk-go-memory.txt"

echo "== go: peak RSS of a separate reader process"
bin="$out/readtable"
${GO_BUILD:-go build} -o "$bin" ./tests/bench/readtable
: > "$out/pk-rss.txt"
for t in bench.pk_half bench.pk; do
  /usr/bin/time -f "maxrss_kb=%M elapsed_s=%e" "$bin" -warehouse "$PAIMON_BENCH_DIR/warehouse" -table "$t" \
    > "$out/pk-rss-rows.txt" 2> "$out/pk-rss-time.txt"
  echo "table=$t $(cat "$out/pk-rss-rows.txt") $(tail -1 "$out/pk-rss-time.txt")" | tee -a "$out/pk-rss.txt"
done

echo "== pypaimon (repeat $count; load: $(cut -d' ' -f1-3 /proc/loadavg))"
"$py" "$here/pypaimon_pk_read.py" --repeat "$count" --json "$out/pk-pypaimon.json" | tee "$out/pk-pypaimon.txt"

echo "== java: BenchRead, Java Paimon 1.3.1 TableRead (1 cold + $count warm; load: $(cut -d' ' -f1-3 /proc/loadavg))"
(cd "$repo/resources/java" && mvn -q -B -o compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt) > "$out/pk-java-build.txt" 2>&1 \
  || { cat "$out/pk-java-build.txt" >&2; exit 1; }
jcp="$repo/resources/java/target/classes:$(cat "$repo/resources/java/target/cp.txt")"
java -cp "$jcp" org.connectpaimon.gen.BenchRead --warehouse "$PAIMON_BENCH_DIR/warehouse" --table bench.pk \
  --repeat $((count + 1)) | tee "$out/pk-java-all.jsonl"
java -cp "$jcp" org.connectpaimon.gen.BenchRead --warehouse "$PAIMON_BENCH_DIR/warehouse" --table bench.pk \
  --columns id,ver --repeat $((count + 1)) | tee "$out/pk-java-ver.jsonl"

echo "== summary (medians; load: $(cut -d' ' -f1-3 /proc/loadavg))"
"$py" - "$out" "$PAIMON_BENCH_DIR/bench.pk.done" <<'PY'
import json, re, statistics, sys
out, marker = sys.argv[1], json.load(open(sys.argv[2]))
rows = marker["rows"]
go = {}
for line in open("%s/pk-go-read.txt" % out):
    m = re.match(r"^(Benchmark\S+?)(-\d+)?\s+\d+\s+(\d+(?:\.\d+)?) ns/op(.*)$", line)
    if m:
        extra = dict((u, float(v)) for v, u in re.findall(r"([\d.e+]+) (\S+)", m.group(4)))
        go.setdefault(m.group(1), []).append((float(m.group(3)) / 1e9, extra.get("cpu-µs/row")))
py = json.load(open("%s/pk-pypaimon.json" % out))
def java(sub):
    lines = [json.loads(l) for l in open("%s/pk-java-%s.jsonl" % (out, sub)) if l.startswith("{")]
    start = [l for l in lines if l.get("jvm_start")][0]
    runs = [l for l in lines if "run" in l]
    for r in runs:
        if (r["rows"], r["sum_ver"]) != (rows, marker["sum_ver"]):
            sys.exit("java %s run %d read (rows, sum(ver)) = (%d, %d), want (%d, %d)" % (
                sub, r["run"], r["rows"], r["sum_ver"], rows, marker["sum_ver"]))
    return start, runs[0], runs[1:]
print("| merged read of bench.pk (%d rows) | reader | median wall | rows/s | CPU-µs/row | note |" % rows)
print("|---|---|---|---|---|---|")
for sub, key, cols in (("all", "read_pk_all", "all 5 columns"), ("ver", "read_pk_ver", "id, ver")):
    g = go.get("BenchmarkPKMergedRead/" + sub, [])
    if g:
        s = statistics.median(x[0] for x in g)
        c = statistics.median(x[1] for x in g if x[1] is not None)
        print("| %s | Go library | %.3f s | %.0f | %.2f | go test -bench PKMergedRead/%s, %d runs |" % (cols, s, rows / s, c, sub, len(g)))
    p = py[key]
    print("| %s | pypaimon 2.1.0 to_arrow | %.3f s | %.0f | %.2f | median of %d |" % (
        cols, p["median_s"], rows / p["median_s"], p.get("cpu_us_per_row", float("nan")), len(p["runs_s"])))
    start, cold, warm = java(sub)
    if warm:
        s = statistics.median(r["wall_s"] for r in warm)
        c = statistics.median(r["cpu_s"] for r in warm)
        print("| %s | Java Paimon 1.3.1 TableRead, warm | %.3f s | %.0f | %.2f | median of %d after one cold run; JVM start %.2f s wall, %.2f CPU-s |" % (
            cols, s, rows / s, c * 1e6 / rows, len(warm), start["wall_s"], start["cpu_s"]))
    print("| %s | Java Paimon 1.3.1 TableRead, cold (first read in the JVM) | %.3f s | %.0f | %.2f | JVM start not included |" % (
        cols, cold["wall_s"], rows / cold["wall_s"], cold["cpu_s"] * 1e6 / rows))
PY
