#!/usr/bin/env bash
# CPU-µs per row of the library's Arrow read of bench.wide (all columns) and of pypaimon 2.1.0's
# to_arrow of the same table, in the same run, interleaved (Go, pypaimon, Go, pypaimon, ...), the
# median of ROUNDS (default 3). Each round is one process per side reading the table twice; the
# second (warm) read's user+sys CPU (getrusage inside the process: start-up, imports and the
# first read excluded, alike on both sides) divided by 1,048,576 rows is the round's figure.
# CPU, not wall time: the machine is shared, CPU per row is what stays comparable (issue 16).
#
#   PAIMON_BENCH_DIR=/tmp/pb resources/bench/cpu_per_row.sh [ROUNDS] [GO_BINARY...]
#
# GO_BINARY: readtable binaries to compare (e.g. built before and after a change); default: one
# built from this tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
: "${PAIMON_BENCH_DIR:?set PAIMON_BENCH_DIR to the directory of the generated tables}"
rounds=${1:-3}
shift || true
py=${PAIMON_PYTHON:-$repo/resources/.venv/bin/python}
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  bins=("$(mktemp -d)/readtable")
  (cd "$repo" && go build -o "${bins[0]}" ./tests/bench/readtable)
fi
results=$(mktemp)
for r in $(seq "$rounds"); do
  for b in "${bins[@]}"; do
    v=$("$b" -warehouse "$PAIMON_BENCH_DIR/warehouse" -table bench.wide -repeat 2 | tail -1 | sed 's/.*cpu_us_per_row=//')
    echo "round $r go $b: $v CPU-µs/row"
    echo "$b $v" >> "$results"
  done
  v=$("$py" "$here/pypaimon_read.py" --dir "$PAIMON_BENCH_DIR" --only read_wide_all --repeat 2 --json /dev/stdout \
      | "$py" -c 'import json,sys; t=sys.stdin.read(); d=json.loads(t[t.index("{"):]); print("%.3f" % (d["read_wide_all"]["cpu_s"][-1]*1e6/1048576))')
  echo "round $r pypaimon to_arrow: $v CPU-µs/row"
  echo "pypaimon $v" >> "$results"
done
echo "== medians of $rounds (CPU-µs/row, warm read, bench.wide all columns)"
"$py" - "$results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    k, v = line.rsplit(" ", 1)
    runs.setdefault(k, []).append(float(v))
for k, vs in runs.items():
    print("%-60s %.3f   (%s)" % (k, statistics.median(vs), ", ".join("%.3f" % v for v in vs)))
PY
