"""The pypaimon side of the benchmarks: the same reads as tests/bench on the same tables.

    python pypaimon_read.py [--dir DIR] [--repeat N] [--json OUT]

DIR defaults to $PAIMON_BENCH_DIR (tables from make_tables.py). Each measurement runs N times
(default 3) and the median is reported; every read checks the row/file counts the generator
wrote, so a fast wrong answer cannot pass. Measurements:

  read_wide_all     plan + to_arrow() of bench.wide, all 10 columns (1,048,576 rows)
  read_wide_proj2   the same with with_projection(["id", "s"])
  stream_wide_dicts streaming read of bench.wide (first plan = the full latest snapshot),
                    rows delivered one by one as Python dicts (to_arrow_batch_reader +
                    RecordBatch.to_pylist), the shape a message-per-row consumer needs
  plan_many         plan of the latest snapshot of bench.many (10,000 live files)
  followup_many     streaming follow-up plans of the last 10 snapshots of bench.many, per
                    snapshot (next_snapshot_id = 991, below pypaimon's diff threshold of 10)
  catchup_many_diff streaming catch-up from snapshot 2 to 1,000: pypaimon folds a lag of more
                    than 10 snapshots into ONE diff plan, so this is one plan, not 999

Output: one line per measurement "name median_seconds metric unit", plus JSON with --json. Each
run's CPU (user+sys of this process, getrusage around the run: imports and start-up excluded) is
printed and kept in the JSON as cpu_s, with the median CPU-µs per unit (cpu_us_per_unit): on a
shared machine CPU is the stable figure, wall time is not.
"""

import argparse
import json
import os
import resource
import statistics
import sys
import time

from pypaimon import CatalogFactory

WIDE_ROWS = 8 * 131072
MANY_FILES = 10000
MANY_COMMITS = 1000


def cpu_now():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def timed(fn, repeat):
    secs, cpus = [], []
    for _ in range(repeat):
        c0 = cpu_now()
        t0 = time.perf_counter()
        fn()
        secs.append(time.perf_counter() - t0)
        cpus.append(cpu_now() - c0)
    return statistics.median(secs), secs, cpus


def check(what, got, want):
    if got != want:
        raise SystemExit("pypaimon_read.py: %s: got %r, want %r" % (what, got, want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.environ.get("PAIMON_BENCH_DIR"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--only", help="comma-separated measurement names")
    a = ap.parse_args()
    if not a.dir:
        sys.exit("pypaimon_read.py: give --dir or set PAIMON_BENCH_DIR")
    only = set(a.only.split(",")) if a.only else None
    need = ["bench.wide"]
    if not only or only - {"read_wide_all", "read_wide_proj2", "stream_wide_dicts"}:
        need.append("bench.many")
    for t in need:
        if not os.path.exists(os.path.join(a.dir, t + ".done")):
            sys.exit("pypaimon_read.py: %s is not generated in %s: run make_tables.py first" % (t, a.dir))
    cat = CatalogFactory.create({"warehouse": os.path.join(a.dir, "warehouse")})
    wide = cat.get_table("bench.wide")
    many = cat.get_table("bench.many") if "bench.many" in need else None

    def read_wide(proj):
        def run():
            rb = wide.new_read_builder()
            if proj:
                rb = rb.with_projection(proj)
            splits = rb.new_scan().plan().splits()
            t = rb.new_read().to_arrow(splits)
            check("bench.wide rows", t.num_rows, WIDE_ROWS)
            check("bench.wide columns", t.num_columns, len(proj) if proj else 10)
        return run

    def stream_wide_dicts():
        srb = wide.new_stream_read_builder()
        scan = srb.new_streaming_scan()
        plan = next(iter(scan.stream_sync()))
        rd = srb.new_read()
        n = 0
        for batch in rd.to_arrow_batch_reader(plan.splits()):
            for row in batch.to_pylist():
                n += len(row) > 0
        check("bench.wide streamed rows", n, WIDE_ROWS)

    def plan_many():
        splits = many.new_read_builder().new_scan().plan().splits()
        check("bench.many files", sum(len(s.files) for s in splits), MANY_FILES)

    def followup_many():
        scan = many.new_stream_read_builder().new_streaming_scan()
        scan.next_snapshot_id = MANY_COMMITS - 9
        files = 0
        it = scan.stream_sync()
        for _ in range(10):
            files += sum(len(s.files) for s in next(it).splits())
        it.close()
        check("bench.many follow-up files of the last 10 snapshots", files, 100)

    def catchup_many_diff():
        scan = many.new_stream_read_builder().new_streaming_scan()
        scan.next_snapshot_id = 2
        it = scan.stream_sync()
        files = sum(len(s.files) for s in next(it).splits())
        it.close()
        check("bench.many diff plan files (snapshots 2..1000)", files, MANY_FILES - 10)

    todo = [
        ("read_wide_all", read_wide(None), WIDE_ROWS, "rows/s"),
        ("read_wide_proj2", read_wide(["id", "s"]), WIDE_ROWS, "rows/s"),
        ("stream_wide_dicts", stream_wide_dicts, WIDE_ROWS, "rows/s"),
        ("plan_many", plan_many, MANY_FILES, "files/s"),
        ("followup_many", followup_many, 10, "snapshots/s"),
        ("catchup_many_diff", catchup_many_diff, MANY_COMMITS - 1, "snapshots/s"),
    ]
    out = {}
    for name, fn, units, unit in todo:
        if only and name not in only:
            continue
        med, all_secs, cpus = timed(fn, a.repeat)
        cpu_per = statistics.median(cpus) * 1e6 / units
        out[name] = {"median_s": med, "runs_s": all_secs, "metric": units / med, "unit": unit,
                     "cpu_s": cpus, "cpu_us_per_unit": cpu_per}
        print("%-18s %9.4f s  %14.1f %s  %8.3f CPU-us/%s  (runs: %s; cpu: %s)" % (
            name, med, units / med, unit, cpu_per, unit.split("/")[0],
            ", ".join("%.4f" % s for s in all_secs), ", ".join("%.3f" % c for c in cpus)), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
