#!/usr/bin/env bash
# Runs the Go benchmarks (tests/bench) and the same reads with pypaimon on the same tables in
# one go, and prints a side-by-side table of medians. Usage, from anywhere:
#
#   PAIMON_BENCH_DIR=/path/to/cache resources/bench/compare.sh [COUNT]
#
# COUNT (default 3) is the -count of the Go benchmarks and the --repeat of pypaimon. The tables
# are generated once into $PAIMON_BENCH_DIR (make_tables.py caches them). The Python venv is
# $PAIMON_PYTHON, else resources/.venv, else /work/venv. Set GO_TEST to override `go test`
# and GO_BUILD to override `go build` (e.g. GO_TEST="/tmp/vet.sh test" GO_BUILD="/tmp/vet.sh build"
# when the working tree needs a build overlay). Raw outputs
# are kept in $PAIMON_BENCH_DIR/results/. LATENCY=0 skips the ~2 minute latency test. At the
# end it runs side_by_side.sh COUNT, issue 16's summary rows (every reader of bench.wide with
# CPU-µs/row and its command); SIDE=0 skips it.
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
[ -x "$py" ] || { echo "compare.sh: no pypaimon venv (set PAIMON_PYTHON)" >&2; exit 1; }
export PAIMON_PYTHON=$py
gotest=${GO_TEST:-go test}
out="$PAIMON_BENCH_DIR/results"
mkdir -p "$out"
cd "$repo"

echo "== tables"
"$py" "$here/make_tables.py"

echo "== go benchmarks (count $count)"
$gotest ./tests/bench/ -run '^$' -bench 'ReadWide|RawPqarrow' -benchtime 3x -count "$count" -benchmem | tee "$out/go-read.txt"
$gotest ./tests/bench/ -run '^$' -bench 'PlanMany|StreamCatchUp' -benchtime 1x -count "$count" -benchmem | tee "$out/go-plan.txt"
$gotest ./tests/bench/ -run '^$' -bench 'FollowUpPlan' -count "$count" -benchmem | tee "$out/go-followup.txt"
$gotest ./tests/bench/ -run 'TestWideMemory' -v -count 1 | tee "$out/go-memory.txt"

echo "== peak RSS of a separate reader process"
bin="$out/readtable"
${GO_BUILD:-go build} -o "$bin" ./tests/bench/readtable
: > "$out/rss.txt"
for snap in 4 8; do
  for cols in "" "id,s"; do
    /usr/bin/time -f "maxrss_kb=%M elapsed_s=%e" "$bin" -warehouse "$PAIMON_BENCH_DIR/warehouse" \
      -table bench.wide -snapshot $snap -columns "$cols" > "$out/rss-rows.txt" 2> "$out/rss-time.txt"
    echo "snapshot=$snap columns=${cols:-all} $(cat "$out/rss-rows.txt") $(tail -1 "$out/rss-time.txt")" | tee -a "$out/rss.txt"
  done
done

if [ "${LATENCY:-1}" != 0 ]; then
  echo "== commit-to-plan latency"
  $gotest ./tests/bench/ -run 'TestCommitToPlanLatency' -v -count 1 -timeout 15m | tee "$out/go-latency.txt"
fi

echo "== pypaimon (repeat $count)"
"$py" "$here/pypaimon_read.py" --repeat "$count" --json "$out/pypaimon.json" | tee "$out/pypaimon.txt"

echo "== summary (medians)"
"$py" - "$out" <<'PY'
import json, re, statistics, sys
out = sys.argv[1]
runs = {}
for f in ("go-read.txt", "go-plan.txt", "go-followup.txt"):
    for line in open("%s/%s" % (out, f)):
        m = re.match(r"^(Benchmark\S+?)(-\d+)?\s+\d+\s+(\d+(?:\.\d+)?) ns/op(.*)$", line)
        if not m:
            continue
        name, ns, rest = m.group(1), float(m.group(3)), m.group(4)
        extra = dict((u, float(v)) for v, u in re.findall(r"([\d.e+]+) (\S+)", rest))
        runs.setdefault(name, []).append((ns, extra))
def med(name, key=None):
    r = runs.get(name)
    if not r:
        return None
    return statistics.median([x[0] / 1e9 if key is None else x[1].get(key, float("nan")) for x in r])
py = json.load(open("%s/pypaimon.json" % out))
rows = [
    ("read bench.wide, 10 cols (s)", med("BenchmarkReadWide/all"), med("BenchmarkRawPqarrow/all"), py["read_wide_all"]["median_s"]),
    ("read bench.wide, 2 cols (s)", med("BenchmarkReadWide/proj2"), med("BenchmarkRawPqarrow/proj2"), py["read_wide_proj2"]["median_s"]),
    ("plan bench.many, 10k files (s)", med("BenchmarkPlanMany"), None, py["plan_many"]["median_s"]),
    ("one follow-up plan (ms)", (med("BenchmarkFollowUpPlan") or 0) * 1e3, None, py["followup_many"]["median_s"] / 10 * 1e3),
    ("catch-up 1000 snapshots, plan only (snapshots/s)", med("BenchmarkStreamCatchUp/plan", "snapshots/s"), None,
     py["catchup_many_diff"]["metric"]),
    ("catch-up 1000 snapshots, plan+read (snapshots/s)", med("BenchmarkStreamCatchUp/read", "snapshots/s"), None, None),
    ("stream bench.wide as row dicts (rows/s)", None, None, py["stream_wide_dicts"]["metric"]),
]
fmt = lambda v: "-" if v is None else ("%.4g" % v)
print("| measurement | Go library | raw pqarrow | pypaimon 2.1.0 | Go / raw | pypaimon cost / Go cost |")
print("|---|---|---|---|---|---|")
for name, go, raw, pyv in rows:
    ratio = fmt(go / raw) if go and raw else "-"
    # > 1 means pypaimon takes longer than Go; times are divided as is, rates inverted.
    if go and pyv:
        vs = fmt(pyv / go if name.endswith("(s)") or name.endswith("(ms)") else go / pyv)
    else:
        vs = "-"
    print("| %s | %s | %s | %s | %s | %s |" % (name, fmt(go), fmt(raw), fmt(pyv), ratio, vs))
PY

if [ "${SIDE:-1}" != 0 ]; then
  echo "== issue 16 side by side (side_by_side.sh $count)"
  "$here/side_by_side.sh" "$count"
fi
