#!/usr/bin/env bash
# The binary's issue 16 figures over several interleaved rounds: `connect-paimon run` paimon ->
# drop on bench.wide (1 M rows) and bench.wide4 (4 M rows), one JSON message per row and
# `rows_per_message: 512`, each variant once per round. Per variant it prints the median, the
# lowest and the highest CPU-µs per row (user + sys of the process / rows), the median and highest
# rows/s and the highest peak RSS, plus the hypervisor's steal time during each run (the `steal`
# column of /proc/stat): on a shared VM single runs of the same binary differ by up to 40 %, so
# only medians of interleaved rounds are quoted (docs/benchmarks.md).
#
#   PAIMON_BENCH_DIR=/path/to/cache resources/bench/binary_rounds.sh [ROUNDS]   # default 5
#
# With BASE_REV=<git revision> the binary of that revision is built too (in a temporary git
# worktree) and run in the same rounds, interleaved with the working tree's, as variants named
# "base": a before/after comparison in one run. TABLES (default "wide wide4") picks the tables.
#
# Raw lines go to $PAIMON_BENCH_DIR/results/rounds.txt. GO_BUILD overrides `go build`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
: "${PAIMON_BENCH_DIR:?set PAIMON_BENCH_DIR to a cache directory for the generated tables}"
export PAIMON_BENCH_DIR
rounds=${1:-5}
py=${PAIMON_PYTHON:-$repo/resources/.venv/bin/python}
[ -x "$py" ] || { echo "binary_rounds.sh: no pypaimon venv at $py (set PAIMON_PYTHON)" >&2; exit 1; }
out="$PAIMON_BENCH_DIR/results"
wh="$PAIMON_BENCH_DIR/warehouse"
mkdir -p "$out"
cd "$repo"

"$py" "$here/make_tables.py" --only wide
"$py" "$here/make_tables.py" --only wide4
bin="$out/connect-paimon"
${GO_BUILD:-go build} -o "$bin" ./cmd/connect-paimon
bins=(cur)
if [ -n "${BASE_REV:-}" ]; then
  base_tree=$(mktemp -d)
  git worktree add -q --detach "$base_tree" "$BASE_REV"
  (cd "$base_tree" && ${GO_BUILD:-go build} -o "$out/connect-paimon-base" ./cmd/connect-paimon)
  git worktree remove --force "$base_tree"
  bins=(base cur)
fi
binfor() { if [ "$1" = base ]; then echo "$out/connect-paimon-base"; else echo "$bin"; fi; }

variants=()
for table in ${TABLES:-wide wide4}; do
  for per in 1 512; do
    v="rounds-$table-$per"
    {
      echo "logger: {level: error}"
      echo "http: {enabled: false}"
      echo "metrics: {none: {}}"
      echo "input:"
      echo "  paimon:"
      echo "    warehouse: $wh"
      echo "    table: bench.$table"
      echo "    end: {at_latest: true}"
      [ "$per" = 1 ] || echo "    rows_per_message: $per"
      echo "output:"
      echo "  drop: {}"
    } > "$out/$v.yaml"
    variants+=("$v")
  done
done

steal() { awk '/^cpu /{print $9}' /proc/stat; }
started="$(date -u '+%Y-%m-%d %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$out/rounds.txt"
for r in $(seq "$rounds"); do
  for v in "${variants[@]}"; do
    for b in "${bins[@]}"; do
      s0=$(steal)
      line=$(/usr/bin/time -f "wall_s=%e user_s=%U sys_s=%S maxrss_kb=%M" "$(binfor "$b")" run "$out/$v.yaml" 2>&1 | tail -1)
      s1=$(steal)
      echo "$v-$b $line steal_jiffies=$((s1 - s0))" | tee -a "$out/rounds.txt"
    done
  done
done

echo
echo "== binary paimon -> drop, $rounds interleaved rounds (started $started; now load $(cut -d' ' -f1-3 /proc/loadavg))"
"$py" - "$out/rounds.txt" <<'PY'
import statistics, sys
ROWS = {"wide": 8 * 131072, "wide4": 32 * 131072}
runs = {}
for line in open(sys.argv[1]):
    name, *fields = line.split()
    kv = dict(f.split("=", 1) for f in fields)
    table = name.split("-")[1]
    rows = ROWS[table]
    cpu_us = (float(kv["user_s"]) + float(kv["sys_s"])) / rows * 1e6
    runs.setdefault(name, []).append((cpu_us, rows / float(kv["wall_s"]), int(kv["maxrss_kb"]) / 1024, int(kv["steal_jiffies"])))
print("| variant | CPU-µs/row median (min–max) | rows/s median (max) | peak RSS max | steal per run (jiffies) |")
print("|---|---:|---:|---:|---|")
for name, xs in runs.items():
    cpu = [x[0] for x in xs]
    rps = [x[1] for x in xs]
    _, table, per, which = name.split("-")
    label = "%s: bench.%s, %s" % (which, table, "one row per message" if per == "1" else "rows_per_message: " + per)
    print("| %s | %.2f (%.2f–%.2f) | %.2f M (%.2f M) | %.0f MiB | %s |" % (
        label, statistics.median(cpu), min(cpu), max(cpu),
        statistics.median(rps) / 1e6, max(rps) / 1e6, max(x[2] for x in xs),
        " ".join(str(x[3]) for x in xs)))
PY
