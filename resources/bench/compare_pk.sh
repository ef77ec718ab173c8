#!/usr/bin/env bash
# Primary-key merged read (issue 5): the Go library and pypaimon on the same Java-written tables,
# in one run. Usage, from anywhere:
#
#   PAIMON_BENCH_DIR=/path/to/cache resources/bench/compare_pk.sh [COUNT]
#
# COUNT (default 3) is the -count of the Go benchmark and the --repeat of pypaimon. The tables
# bench.pk and bench.pk_half are generated once into $PAIMON_BENCH_DIR by make_pk_table.py (Java
# 17 + Maven). The Python venv is $PAIMON_PYTHON, else resources/.venv, else /work/venv; GO_TEST
# and GO_BUILD override `go test` / `go build` as in compare.sh. Raw outputs go to
# $PAIMON_BENCH_DIR/results/pk-*.
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

echo "== summary (medians; load: $(cut -d' ' -f1-3 /proc/loadavg))"
"$py" - "$out" <<'PY'
import json, re, statistics, sys
out = sys.argv[1]
runs = {}
for line in open("%s/pk-go-read.txt" % out):
    m = re.match(r"^(Benchmark\S+?)(-\d+)?\s+\d+\s+(\d+(?:\.\d+)?) ns/op", line)
    if m:
        runs.setdefault(m.group(1), []).append(float(m.group(3)) / 1e9)
py = json.load(open("%s/pk-pypaimon.json" % out))
print("| read of bench.pk | Go median (s) | Go rows/s | pypaimon median (s) | pypaimon rows/s | pypaimon time / Go time |")
print("|---|---|---|---|---|---|")
for sub, key in (("all", "read_pk_all"), ("ver", "read_pk_ver")):
    r = runs.get("BenchmarkPKMergedRead/" + sub)
    go = statistics.median(r) if r else None
    p = py[key]["median_s"]
    print("| %s | %s | %s | %.3f | %.0f | %s |" % (
        sub, "-" if go is None else "%.3f" % go, "-" if go is None else "%.0f" % (1e6 / go),
        p, py[key]["metric"], "-" if go is None else "%.2f" % (p / go)))
PY
