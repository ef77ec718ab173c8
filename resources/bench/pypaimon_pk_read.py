"""The pypaimon side of the primary-key merged-read benchmark (issue 5).

    python pypaimon_pk_read.py [--dir DIR] [--repeat N] [--json OUT]

DIR defaults to $PAIMON_BENCH_DIR (tables from make_pk_table.py). Measurements, each the median
of N runs (default 3), wall and process CPU (time.process_time: all threads):

  read_pk_all   plan + to_arrow() of bench.pk (1,000,000 keys, 8 sorted runs on 4 levels per
                bucket), all 5 columns: pypaimon's merge-on-read of the same files the Go
                benchmark reads
  read_pk_ver   the same with with_projection(["id", "ver"])

Every read is checked against Java Paimon's own read recorded in the marker (row count and sum
of the ver column), so a fast wrong merge cannot pass. The process's peak RSS after reading
bench.pk_half once and after the bench.pk runs is printed too; to_arrow() materialises the
whole table, so unlike the Go reader's streaming peak it is expected to grow with the rows.
"""

import argparse
import json
import os
import resource
import statistics
import sys
import time

import pyarrow.compute as pc

from pypaimon import CatalogFactory


def maxrss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def load_marker(d, name):
    path = os.path.join(d, name + ".done")
    if not os.path.exists(path):
        sys.exit("pypaimon_pk_read.py: %s is not generated in %s: run make_pk_table.py first" % (name, d))
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.environ.get("PAIMON_BENCH_DIR"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    if not a.dir:
        sys.exit("pypaimon_pk_read.py: give --dir or set PAIMON_BENCH_DIR")
    cat = CatalogFactory.create({"warehouse": os.path.join(a.dir, "warehouse")})

    def read(name, proj):
        meta = load_marker(a.dir, name)
        table = cat.get_table(name)

        def run():
            rb = table.new_read_builder()
            if proj:
                rb = rb.with_projection(proj)
            t = rb.new_read().to_arrow(rb.new_scan().plan().splits())
            got = (t.num_rows, pc.sum(t.column("ver")).as_py() or 0)
            want = (meta["rows"], meta["sum_ver"])
            if got != want:
                raise SystemExit("pypaimon_pk_read.py: %s %s: read (rows, sum(ver)) = %r, Java read %r"
                                 % (name, proj or "all columns", got, want))
        return run, meta

    out = {}
    half, _ = read("bench.pk_half", None)
    half()
    out["maxrss_after_pk_half_mib"] = maxrss_mib()
    print("peak RSS after one read of bench.pk_half: %.1f MiB" % out["maxrss_after_pk_half_mib"], flush=True)
    for key, proj in (("read_pk_all", None), ("read_pk_ver", ["id", "ver"])):
        fn, meta = read("bench.pk", proj)
        secs, cpus = [], []
        for _ in range(a.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            secs.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        med = statistics.median(secs)
        cpu = statistics.median(cpus)
        # process_time: user + system CPU of every thread of the process (pyarrow's too).
        out[key] = {"median_s": med, "runs_s": secs, "metric": meta["rows"] / med, "unit": "rows/s",
                    "file_rows_per_s": meta["rows_in_files"] / med,
                    "median_cpu_s": cpu, "runs_cpu_s": cpus, "cpu_us_per_row": cpu * 1e6 / meta["rows"]}
        print("%-12s %8.3f s  %10.0f rows/s  %6.2f CPU-us/row  (runs: %s)" % (
            key, med, meta["rows"] / med, cpu * 1e6 / meta["rows"], ", ".join("%.3f" % s for s in secs)), flush=True)
    out["maxrss_after_pk_mib"] = maxrss_mib()
    print("peak RSS after the bench.pk reads: %.1f MiB" % out["maxrss_after_pk_mib"], flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
