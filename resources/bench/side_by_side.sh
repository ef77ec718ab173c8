#!/usr/bin/env bash
# Issue 16's summary rows in one run: every reader of bench.wide (1,048,576 rows x 10 columns,
# Parquet zstd) that the summary table of docs/benchmarks.md compares, with CPU-µs per row as the
# primary figure (stable on a shared machine; wall time is not) and the command of each row.
# Usage, from anywhere:
#
#   PAIMON_BENCH_DIR=/path/to/cache resources/bench/side_by_side.sh [RUNS]
#
# RUNS (default 3) is how often each reader runs (Go benchmarks: -benchtime RUNSx; Java: one cold
# read, then RUNS warm ones in the same JVM); medians are printed. The rows:
#
#   Go library Arrow read     go test ./tests/bench -bench '^BenchmarkReadWide$/^(all|pooled|all-dict|pooled-dict)$'
#                             (Go allocator, pooled allocator, dictionary arrays, both)
#   in-process pipeline       go test ./tests/e2e -bench '^BenchmarkPipelineDrop$'
#   Benthos floor             go test ./tests/e2e -bench '^BenchmarkBenthosFloor$': ready messages -> drop
#   binary paimon -> drop     connect-paimon run drop.yaml (and rows_per_message 512), CPU = the
#                             process's user + sys
#   ... from versitygw        go test ./tests/bench -run TestObjectStoreDrop (VERSITYGW_BIN):
#                             the same binary from disk and from s3://, interleaved
#   raw arrow-go pqarrow      go test ./tests/bench -bench '^BenchmarkRawPqarrow$/^all$'
#   pypaimon to_arrow         pypaimon_side.py --mode to_arrow (resources/.venv)
#   pypaimon native           pypaimon_side.py --mode native: read.native.enabled=true, in the
#                             venv with pypaimon-rust (resources/.venv-native, set up by
#                             scripts/test-all; PAIMON_PYTHON_NATIVE overrides)
#   pypaimon-rust             pypaimon_side.py --mode rust: pypaimon_rust's own reader
#   Java row -> JSON          BenchRead --mode json (resources/java; JVM start apart)
#
# A reader that cannot run here is printed as "not available: <reason>". Raw outputs go to
# $PAIMON_BENCH_DIR/results/side-*. GO_TEST / GO_BUILD override `go test` / `go build`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
: "${PAIMON_BENCH_DIR:?set PAIMON_BENCH_DIR to a cache directory for the generated tables}"
export PAIMON_BENCH_DIR
runs=${1:-3}
py=${PAIMON_PYTHON:-}
for c in "$py" "$repo/resources/.venv/bin/python" /work/venv/bin/python; do
  if [ -n "$c" ] && [ -x "$c" ]; then py=$c; break; fi
done
[ -x "$py" ] || { echo "side_by_side.sh: no pypaimon venv (set PAIMON_PYTHON)" >&2; exit 1; }
pyn=${PAIMON_PYTHON_NATIVE:-$repo/resources/.venv-native/bin/python}
gotest=${GO_TEST:-go test}
out="$PAIMON_BENCH_DIR/results"
mkdir -p "$out"
cd "$repo"
load() { cut -d' ' -f1-3 /proc/loadavg; }
wh="$PAIMON_BENCH_DIR/warehouse"
started="$(date -u '+%Y-%m-%d %H:%M') UTC"
load0=$(load)

echo "== tables"
"$py" "$here/make_tables.py" --only wide

echo "== go: library Arrow read and raw pqarrow (${runs}x; load $(load))"
$gotest ./tests/bench/ -run '^$' -bench '^(BenchmarkReadWide|BenchmarkRawPqarrow)$/^(all|pooled|all-dict|pooled-dict)$' -benchtime "${runs}x" -count 1 -benchmem \
  | tee "$out/side-go.txt"
echo "== go: Benthos' own cost per message, and the in-process pipeline (${runs}x; load $(load))"
$gotest ./tests/e2e/ -run '^$' -bench '^(BenchmarkBenthosFloor|BenchmarkPipelineDrop)$' -benchtime "${runs}x" -count 1 -benchmem \
  | tee "$out/side-e2e.txt"

echo "== binary: connect-paimon run, paimon -> drop ($runs runs; load $(load))"
bin="$out/connect-paimon"
${GO_BUILD:-go build} -o "$bin" ./cmd/connect-paimon
cat > "$out/side-drop.yaml" <<EOF
logger: {level: warn}
http: {enabled: false}
metrics: {none: {}}
input:
  paimon:
    warehouse: $wh
    table: bench.wide
    end: {at_latest: true}
output:
  drop: {}
EOF
sed 's/end: {at_latest: true}/end: {at_latest: true}\n    rows_per_message: 512/' "$out/side-drop.yaml" > "$out/side-drop512.yaml"
: > "$out/side-drop.txt"
: > "$out/side-drop512.txt"
for i in $(seq "$runs"); do
  for v in drop drop512; do
    /usr/bin/time -f "wall_s=%e user_s=%U sys_s=%S maxrss_kb=%M" "$bin" run "$out/side-$v.yaml" 2>&1 | tail -1 | tee -a "$out/side-$v.txt"
  done
done

echo "== binary from versitygw: TestObjectStoreDrop, disk and s3:// interleaved ($runs rounds; load $(load))"
PAIMON_BENCH_ROUNDS=$runs $gotest ./tests/bench/ -run '^TestObjectStoreDrop$' -v -count 1 -timeout 30m 2>&1 | tee "$out/side-s3.txt" || true

for mode in to_arrow native rust; do
  p=$py
  [ "$mode" = to_arrow ] || p=$pyn
  echo "== python: pypaimon_side.py --mode $mode ($p; load $(load))"
  if [ ! -x "$p" ]; then
    echo "{\"unavailable\": \"no venv with pypaimon-rust at $p (scripts/test-all's install_pypaimon_native sets it up; or set PAIMON_PYTHON_NATIVE)\"}" > "$out/side-py-$mode.jsonl"
  else
    "$p" "$here/pypaimon_side.py" --mode "$mode" --repeat "$runs" > "$out/side-py-$mode.jsonl" 2> "$out/side-py-$mode.err" || true
  fi
  cat "$out/side-py-$mode.jsonl"
  [ -s "$out/side-py-$mode.jsonl" ] || { echo "pypaimon_side.py --mode $mode printed nothing:" >&2; tail -5 "$out/side-py-$mode.err" >&2; }
done

echo "== java: BenchRead --mode json, Java Paimon 1.3.1 (1 cold + $runs warm; load $(load))"
if (cd resources/java && mvn -q -B -o compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt) > "$out/side-java-build.txt" 2>&1; then
  jcp="$repo/resources/java/target/classes:$(cat resources/java/target/cp.txt)"
  java -cp "$jcp" org.connectpaimon.gen.BenchRead --warehouse "$wh" --table bench.wide --mode json --repeat $((runs + 1)) \
    | tee "$out/side-java.jsonl"
else
  echo "{\"unavailable\": \"resources/java does not build offline: $(tail -1 "$out/side-java-build.txt" | tr -d '"')\"}" | tee "$out/side-java.jsonl"
fi

echo
echo "== issue 16: side by side (run $started, load $load0 -> $(load); medians of $runs)"
"$py" - "$out" "$runs" <<'PY'
import json, re, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
ROWS = 8 * 131072
med = statistics.median
rows = []
def row(name, cpu_us, wall, cmd, note=""):
    rows.append((name, cpu_us, wall, cmd, note))

go = {}
for line in open(out + "/side-go.txt"):
    m = re.match(r"^(Benchmark\S+?)(-\d+)?\s+\d+\s+(\d+(?:\.\d+)?) ns/op(.*)$", line)
    if m:
        extra = dict((u, float(v)) for v, u in re.findall(r"([\d.e+]+) (\S+)", m.group(4)))
        go[m.group(1)] = (float(m.group(3)) / 1e9, extra)
for line in open(out + "/side-e2e.txt"):
    m = re.match(r"^(Benchmark\S+?)(-\d+)?\s+\d+\s+(\d+(?:\.\d+)?) ns/op(.*)$", line)
    if m:
        extra = dict((u, float(v)) for v, u in re.findall(r"([\d.e+]+) (\S+)", m.group(4)))
        go[m.group(1)] = (float(m.group(3)) / 1e9, extra)
gobench = "go test ./tests/bench/ -run '^$' -bench '^BenchmarkReadWide$/^%s$' -benchtime " + "%dx" % runs
for name, key, cmd in (
        ("Go library, Arrow read (ReadBuilder → Arrow records), default Go allocator", "BenchmarkReadWide/all", gobench % "all"),
        ("Go library, Arrow read, pooled allocator (`WithAllocator(arrowpool.New(...))`, as the input)", "BenchmarkReadWide/pooled", gobench % "pooled"),
        ("Go library, Arrow read, dictionary arrays (`WithDictionary(true)`)", "BenchmarkReadWide/all-dict", gobench % "all-dict"),
        ("Go library, Arrow read, pooled + dictionary arrays (what the input reads)", "BenchmarkReadWide/pooled-dict", gobench % "pooled-dict"),
        ("raw arrow-go pqarrow (the decoder floor)", "BenchmarkRawPqarrow/all",
         "go test ./tests/bench/ -run '^$' -bench '^BenchmarkRawPqarrow$/^all$' -benchtime %dx" % runs),
        ("in-process pipeline paimon → drop (one JSON message per row), no process start", "BenchmarkPipelineDrop",
         "go test ./tests/e2e/ -run '^$' -bench '^BenchmarkPipelineDrop$' -benchtime %dx" % runs),
        ("Benthos alone: ready messages → drop, no read, no encoding (the floor per message)", "BenchmarkBenthosFloor",
         "go test ./tests/e2e/ -run '^$' -bench '^BenchmarkBenthosFloor$' -benchtime %dx" % runs)):
    if key in go:
        s, ex = go[key]
        row(name, ex.get("cpu-µs/row"), s, cmd, "%.0f MB/op allocated" % (ex.get("B/op", 0) / 1e6))
    else:
        row(name, None, None, cmd, "not available: benchmark did not run (see side-go.txt)")

for v, what in (("drop", "one JSON message per row"), ("drop512", "`rows_per_message: 512`")):
    drops = [dict(kv.split("=") for kv in l.split()) for l in open(out + "/side-%s.txt" % v) if l.startswith("wall_s=")]
    if drops:
        cpu = med(float(d["user_s"]) + float(d["sys_s"]) for d in drops)
        wall = med(float(d["wall_s"]) for d in drops)
        rss = med(int(d["maxrss_kb"]) for d in drops) / 1024
        row("binary `connect-paimon run`, paimon → drop, %s" % what, cpu * 1e6 / ROWS, wall,
            "connect-paimon run results/side-%s.yaml, under /usr/bin/time" % v, "%.0f rows/s, peak RSS %.0f MiB, process start included" % (ROWS / wall, rss))
    else:
        row("binary `connect-paimon run`, paimon → drop, %s" % what, None, None, "connect-paimon run results/side-%s.yaml" % v, "not available: no run finished")

s3 = {}
for line in open(out + "/side-s3.txt"):
    m = re.search(r"\| (disk|versitygw) \| (\d+) \| ([\d.]+) \| (\S+) \| ([\d.]+) \| ([\d.]+) \|", line)
    if m:
        s3[m.group(1)] = m.groups()
cmd = "PAIMON_BENCH_ROUNDS=%d go test ./tests/bench/ -run '^TestObjectStoreDrop$' -v" % runs
if "versitygw" in s3 and "disk" in s3:
    _, rate, cpu, wall, wr, cr = s3["versitygw"]
    row("binary, paimon → drop, warehouse on versitygw (s3://, loopback)", float(cpu), float(wall.rstrip("s")), cmd,
        "%s rows/s; ÷ disk in the same test: wall %s, CPU %s (disk: %s CPU-µs/row); versitygw's own CPU not counted" % (rate, wr, cr, s3["disk"][2]))
else:
    skip = [l.strip() for l in open(out + "/side-s3.txt") if "SKIP" in l or "versitygw not found" in l]
    row("binary, paimon → drop, warehouse on versitygw", None, None, cmd, "not available: " + (skip[0] if skip else "the test did not finish (see side-s3.txt)"))

names = {"to_arrow": ("pypaimon 2.1.0 `to_arrow`", "resources/.venv/bin/python resources/bench/pypaimon_side.py --mode to_arrow"),
         "native": ("pypaimon 2.1.0 `to_arrow`, `read.native.enabled=true`", "resources/.venv-native/bin/python resources/bench/pypaimon_side.py --mode native"),
         "rust": ("pypaimon-rust's own reader", "resources/.venv-native/bin/python resources/bench/pypaimon_side.py --mode rust")}
for mode, (name, cmd) in names.items():
    lines = [json.loads(l) for l in open("%s/side-py-%s.jsonl" % (out, mode)) if l.startswith("{")]
    una = [l["unavailable"] for l in lines if "unavailable" in l]
    rs = [l for l in lines if "run" in l]
    if una or not rs:
        row(name, None, None, cmd, "not available: " + (una[0] if una else "no run finished (see side-py-%s.err)" % mode))
        continue
    v = rs[0]["versions"]
    row(name, med(r["cpu_s"] for r in rs) * 1e6 / ROWS, med(r["wall_s"] for r in rs), cmd,
        "pypaimon %s, pypaimon-rust %s, pyarrow %s; in-process, interpreter start excluded" % (v["pypaimon"], v["pypaimon-rust"], v["pyarrow"]))

lines = [json.loads(l) for l in open(out + "/side-java.jsonl") if l.startswith("{")]
una = [l["unavailable"] for l in lines if "unavailable" in l]
jr = [l for l in lines if "run" in l]
cmd = "java -cp resources/java/target/classes:<mvn classpath> org.connectpaimon.gen.BenchRead --table bench.wide --mode json --repeat %d" % (runs + 1)
if una or not jr:
    row("Java Paimon 1.3.1, row → JSON", None, None, cmd, "not available: " + (una[0] if una else "no run finished"))
else:
    start = [l for l in lines if l.get("jvm_start")][0]
    for r in jr:
        if r["rows"] != ROWS:
            sys.exit("java run %d read %d rows, want %d" % (r["run"], r["rows"], ROWS))
    warm = jr[1:]
    if warm:
        row("Java Paimon 1.3.1, row → JSON, warm JVM", med(r["cpu_s"] for r in warm) * 1e6 / ROWS, med(r["wall_s"] for r in warm), cmd,
            "median of %d reads after one cold one, same JVM; %.0f bytes of JSON per row" % (len(warm), warm[0]["json_bytes"] / ROWS))
    row("Java Paimon 1.3.1, row → JSON, cold: JVM start + first read", (start["cpu_s"] + jr[0]["cpu_s"]) * 1e6 / ROWS,
        start["wall_s"] + jr[0]["wall_s"], cmd, "JVM start alone %.2f s wall, %.2f CPU-s" % (start["wall_s"], start["cpu_s"]))

print("| reader of bench.wide (1,048,576 rows × 10 columns) | CPU-µs/row | wall (s) | command | note |")
print("|---|---:|---:|---|---|")
for name, cpu, wall, cmd, note in rows:
    print("| %s | %s | %s | `%s` | %s |" % (name, "-" if cpu is None else "%.2f" % cpu, "-" if wall is None else "%.3f" % wall, cmd, note))
PY
