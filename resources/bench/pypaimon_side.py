"""The Python rows of issue 16's side-by-side table: one reader of bench.wide, timed with CPU.

    python pypaimon_side.py --mode to_arrow|native|rust [--dir DIR] [--repeat N]

DIR defaults to $PAIMON_BENCH_DIR (bench.wide from make_tables.py). Modes, each a full read of the
latest snapshot (1,048,576 rows, 10 columns) into one pyarrow Table:

  to_arrow  pypaimon 2.1.0's own reader: plan + to_arrow(splits) (pyarrow's C++ Parquet decoder)
  native    the same calls with the table option read.native.enabled=true: pypaimon hands the
            read to pypaimon_rust (and says so: the run fails unless the native route was taken)
  rust      pypaimon_rust's own catalog and reader, without pypaimon's read path

Prints one JSON line per run: rows, wall and CPU seconds (time.process_time: every thread of the
process, so pyarrow's and Rust's worker threads are counted), or, when the mode cannot run here,
one line {"unavailable": "<reason>"} and exit status 3. Every read is checked against the row and
column counts the generator wrote.
"""

import argparse
import json
import os
import sys
import time

WIDE_ROWS = 8 * 131072
WIDE_COLS = 10


def unavailable(reason):
    print(json.dumps({"unavailable": reason}), flush=True)
    sys.exit(3)


def check(t):
    if t.num_rows != WIDE_ROWS or t.num_columns != WIDE_COLS:
        sys.exit("pypaimon_side.py: read %d rows x %d columns, want %d x %d"
                 % (t.num_rows, t.num_columns, WIDE_ROWS, WIDE_COLS))


def pypaimon_reader(wh, native):
    from pypaimon import CatalogFactory
    table = CatalogFactory.create({"warehouse": wh}).get_table("bench.wide")
    if native:
        try:
            import pypaimon_rust  # noqa: F401
        except ImportError as e:
            unavailable("pypaimon_rust is not installed in %s (%s)" % (sys.prefix, e))
        from pypaimon.read import native_plan
        if not native_plan.native_reader_available():
            unavailable("pypaimon_rust %s lacks the reader pypaimon 2.1.0 calls (ReadBuilder.new_read, TableRead.read)"
                        % _version("pypaimon-rust"))
        table = table.copy({"read.native.enabled": "true"})
        # pypaimon falls back to its Python reader silently when the native route
        # refuses a read; a fallback would time the wrong reader, so it fails here.
        from pypaimon.read.table_read import TableRead
        orig = TableRead._native_fallback

        def refuse(self, reason, error=None, log=False):
            unavailable("pypaimon fell back to its Python reader: %s" % reason)
        TableRead._native_fallback = refuse
        assert orig is not None

    def run():
        rb = table.new_read_builder()
        read = rb.new_read()
        t = read.to_arrow(rb.new_scan().plan().splits())
        check(t)
        return t.num_rows
    return run


def rust_reader(wh):
    try:
        from pypaimon_rust.datafusion import PaimonCatalog
    except ImportError as e:
        unavailable("pypaimon_rust is not installed in %s (%s)" % (sys.prefix, e))
    cat = PaimonCatalog({"warehouse": wh})
    table = cat.get_table("bench.wide")

    def run():
        import pyarrow as pa
        rb = table.new_read_builder()
        t = pa.Table.from_batches(rb.new_read().read(rb.new_scan().plan().splits()))
        check(t)
        return t.num_rows
    return run


def _version(dist):
    import importlib.metadata as m
    try:
        return m.version(dist)
    except m.PackageNotFoundError:
        return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("to_arrow", "native", "rust"), required=True)
    ap.add_argument("--dir", default=os.environ.get("PAIMON_BENCH_DIR"))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if not a.dir:
        sys.exit("pypaimon_side.py: give --dir or set PAIMON_BENCH_DIR")
    wh = os.path.join(a.dir, "warehouse")
    if a.mode == "rust":
        run = rust_reader(wh)
    else:
        run = pypaimon_reader(wh, a.mode == "native")
    versions = {"pypaimon": _version("pypaimon"), "pypaimon-rust": _version("pypaimon-rust"),
                "pyarrow": _version("pyarrow")}
    for i in range(1, a.repeat + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        rows = run()
        w, c = time.perf_counter() - t0, time.process_time() - c0
        print(json.dumps({"run": i, "mode": a.mode, "rows": rows, "wall_s": w, "cpu_s": c, "versions": versions}),
              flush=True)


if __name__ == "__main__":
    main()
