"""Writes the benchmark tables with pypaimon 2.1.0 into a filesystem warehouse.

    python make_tables.py [--dir DIR] [--only wide|wide_orc|many|wide4] [--force]

DIR defaults to $PAIMON_BENCH_DIR. The warehouse is DIR/warehouse. A table that is already
complete (its marker file DIR/<table>.done exists and names the same parameters) is left
alone, so benchmarks do not regenerate it on every run; --force rebuilds.

Tables:
  bench.wide  WIDE_COMMITS commits of WIDE_ROWS_PER_COMMIT rows (1,048,576 rows in total),
              10 columns (BIGINT, INT, BIGINT, DOUBLE, DOUBLE, STRING, STRING with nulls,
              TIMESTAMP(6), DECIMAL(18,2), DATE), Parquet + zstd, bucket-unaware. Each commit
              writes one data file, so snapshot k holds k files and k*WIDE_ROWS_PER_COMMIT rows:
              the benchmarks read snapshot 4 vs 8 to see whether memory grows with table size.
  bench.wide_orc  the same rows and commits as bench.wide, written as ORC + zstd (pypaimon
              writes ORC through pyarrow's C++ ORC writer): the ORC-vs-Parquet benchmark.
  bench.wide4  bench.wide four times over (4 * WIDE_COMMITS commits, 4,194,304 rows, the same
              formulas continued): the binary's peak RSS must not grow with rows. Written
              only with --only wide4, so compare.sh does not pay for it.
  bench.many  MANY_COMMITS commits, each writing one row into each of 10 partitions
              (p = 0..9), i.e. 10 tiny data files per snapshot and 10,000 live files at the
              end. Bucket-unaware. One pypaimon write + commit per snapshot, exactly what a
              slow trickle of small appends produces.

Data is deterministic (fixed formulas, no randomness), so Go and Python read the same bytes
and the expected row counts are the constants below.
"""

import argparse
import datetime
import json
import os
import shutil
import sys
import time

import numpy as np
import pyarrow as pa

from pypaimon import CatalogFactory, Schema

WIDE_COMMITS = 8
WIDE_ROWS_PER_COMMIT = 131072
MANY_COMMITS = 1000
MANY_PARTITIONS = 10

WIDE_SCHEMA = pa.schema([
    ("id", pa.int64()),
    ("i", pa.int32()),
    ("l", pa.int64()),
    ("d", pa.float64()),
    ("f", pa.float64()),
    ("s", pa.string()),
    ("tag", pa.string()),
    ("ts", pa.timestamp("us")),
    ("dec", pa.decimal128(18, 2)),
    ("dt", pa.date32()),
])

MANY_SCHEMA = pa.schema([
    ("p", pa.int32()),
    ("id", pa.int64()),
    ("v", pa.string()),
])

# pypaimon never expires snapshots on commit, but Java writers would (1 h by default); the
# tables are cached for a long time, so make the intent explicit.
RETAIN = {"snapshot.num-retained.min": "1000000", "snapshot.time-retained": "3650 d"}


def wide_batch(first, n):
    ids = np.arange(first, first + n, dtype=np.int64)
    names = pa.array(["name-%d" % (x % 50000) for x in range(first, first + n)], pa.string())
    tags = pa.array([None if x % 3 == 0 else "t%d" % (x % 7) for x in range(first, first + n)], pa.string())
    ts = pa.array(1_700_000_000_000_000 + ids * 1000, pa.timestamp("us"))
    # DECIMAL(18,2) with unscaled value id*7 (so id 3 -> 0.21): built from the 128-bit
    # little-endian two's-complement buffer, which is exact and fast.
    unscaled = np.zeros((n, 2), dtype=np.int64)
    unscaled[:, 0] = ids * 7
    unscaled[:, 1] = np.where(ids * 7 < 0, -1, 0)
    dec = pa.Array.from_buffers(pa.decimal128(18, 2), n, [None, pa.py_buffer(unscaled.tobytes())])
    dt = pa.array((ids % 20000).astype(np.int32), pa.int32()).cast(pa.date32())
    return pa.Table.from_arrays([
        pa.array(ids),
        pa.array((ids * 7 % 2147483647).astype(np.int32)),
        pa.array(ids * 31),
        pa.array(ids.astype(np.float64) * 0.5),
        pa.array(np.sqrt(ids.astype(np.float64))),
        names, tags, ts, dec, dt,
    ], schema=WIDE_SCHEMA)


def many_batch(commit):
    ps = list(range(MANY_PARTITIONS))
    return pa.Table.from_arrays([
        pa.array(ps, pa.int32()),
        pa.array([commit * MANY_PARTITIONS + p for p in ps], pa.int64()),
        pa.array(["c%d-p%d" % (commit, p) for p in ps], pa.string()),
    ], schema=MANY_SCHEMA)


def commit(table, data):
    wb = table.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def build(cat, name, schema, partition_keys, options, batches, total):
    cat.drop_table(name, True)
    cat.create_table(name, Schema.from_pyarrow_schema(schema, partition_keys=partition_keys, options=options), False)
    table = cat.get_table(name)
    t0 = time.time()
    for k, data in enumerate(batches):
        commit(table, data)
        if (k + 1) % 100 == 0 or k + 1 == total:
            el = time.time() - t0
            print("  %s: %d/%d commits, %.1f s (%.1f commits/s)" % (name, k + 1, total, el, (k + 1) / el),
                  flush=True)
    return time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.environ.get("PAIMON_BENCH_DIR"))
    ap.add_argument("--only", choices=["wide", "wide_orc", "many", "wide4"])
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    if not a.dir:
        sys.exit("make_tables.py: give --dir or set PAIMON_BENCH_DIR")
    wh = os.path.join(a.dir, "warehouse")
    os.makedirs(wh, exist_ok=True)
    cat = CatalogFactory.create({"warehouse": wh})
    cat.create_database("bench", True)

    specs = {
        "wide": dict(name="bench.wide", schema=WIDE_SCHEMA, partition_keys=[],
                     options=dict(RETAIN, **{"file.format": "parquet", "file.compression": "zstd",
                                             "bucket": "-1"}),
                     params={"commits": WIDE_COMMITS, "rows_per_commit": WIDE_ROWS_PER_COMMIT},
                     batches=lambda: (wide_batch(k * WIDE_ROWS_PER_COMMIT, WIDE_ROWS_PER_COMMIT)
                                      for k in range(WIDE_COMMITS)),
                     total=WIDE_COMMITS),
        "wide_orc": dict(name="bench.wide_orc", schema=WIDE_SCHEMA, partition_keys=[],
                         options=dict(RETAIN, **{"file.format": "orc", "file.compression": "zstd",
                                                 "bucket": "-1"}),
                         params={"commits": WIDE_COMMITS, "rows_per_commit": WIDE_ROWS_PER_COMMIT},
                         batches=lambda: (wide_batch(k * WIDE_ROWS_PER_COMMIT, WIDE_ROWS_PER_COMMIT)
                                          for k in range(WIDE_COMMITS)),
                         total=WIDE_COMMITS),
        "wide4": dict(name="bench.wide4", schema=WIDE_SCHEMA, partition_keys=[],
                      options=dict(RETAIN, **{"file.format": "parquet", "file.compression": "zstd",
                                              "bucket": "-1"}),
                      params={"commits": 4 * WIDE_COMMITS, "rows_per_commit": WIDE_ROWS_PER_COMMIT},
                      batches=lambda: (wide_batch(k * WIDE_ROWS_PER_COMMIT, WIDE_ROWS_PER_COMMIT)
                                       for k in range(4 * WIDE_COMMITS)),
                      total=4 * WIDE_COMMITS),
        "many": dict(name="bench.many", schema=MANY_SCHEMA, partition_keys=["p"],
                     options=dict(RETAIN, **{"file.format": "parquet", "file.compression": "zstd",
                                             "bucket": "-1"}),
                     params={"commits": MANY_COMMITS, "partitions": MANY_PARTITIONS},
                     batches=lambda: (many_batch(k) for k in range(MANY_COMMITS)),
                     total=MANY_COMMITS),
    }
    for key, sp in specs.items():
        if (a.only and a.only != key) or (key == "wide4" and a.only != key):
            continue
        marker = os.path.join(a.dir, sp["name"] + ".done")
        want = dict(sp["params"], pypaimon="2.1.0")
        if not a.force and os.path.exists(marker):
            with open(marker) as f:
                if json.load(f).get("params") == want:
                    print("%s: cached (%s)" % (sp["name"], marker))
                    continue
        if os.path.exists(marker):
            os.remove(marker)
        print("%s: writing" % sp["name"], flush=True)
        secs = build(cat, sp["name"], sp["schema"], sp["partition_keys"], sp["options"], sp["batches"](),
                     sp["total"])
        with open(marker, "w") as f:
            json.dump({"params": want, "seconds": round(secs, 1),
                       "written": datetime.datetime.now(datetime.timezone.utc).isoformat()}, f)
        print("%s: done in %.1f s" % (sp["name"], secs), flush=True)


if __name__ == "__main__":
    main()
