"""Writes pypaimon-written tables for the pruning property test (tests/interop
TestPruningOnlySavesWork): many small commits per partition, NULLs, NaN, +-0.0, +-inf,
extreme integers, strings over 4 KiB (pyarrow then writes no max) and non-ASCII strings,
in Parquet and Avro, stats-mode full (the only mode in which pypaimon 2.1.0 writes value
stats) and none. Lists each table with its row count in props-py.json.

    python gen_props.py --warehouse OUT/warehouse --props OUT/props-py.json [--tables db.t,...]

Data is deterministic (fixed seeds).
"""

import argparse
import datetime
import decimal
import json
import math
import os
import random

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

DB = "pystats"

SCHEMA = pa.schema([
    ("id", pa.int32()),
    ("p", pa.int32()),
    ("i8", pa.int8()),
    ("i64", pa.int64()),
    ("f", pa.float32()),
    ("d", pa.float64()),
    ("s", pa.string()),
    ("dec", pa.decimal128(10, 2)),
    ("ts", pa.timestamp("us")),
    ("dt", pa.date32()),
])

WORDS = ["abc", "abcd", "q", "zz", "mmmm", "\u00e9t\u00e9", "\u65e5\u672c", "a b", "", "\U0001F600x"]

TABLES = {
    "prop_py_full": {"metadata.stats-mode": "full", "file.format": "parquet"},
    "prop_py_none": {"metadata.stats-mode": "none", "file.format": "parquet"},
    "prop_py_avro": {"metadata.stats-mode": "full", "file.format": "avro"},
}


def _dbl(r, base):
    k = r.randrange(14)
    return [math.nan, -0.0, 0.0, math.inf, -math.inf][k] if k < 5 else base + r.randrange(100) / 8.0


def _str(r, commit):
    k = r.randrange(10)
    if k == 0:
        return chr(ord("a") + r.randrange(26)) * (4200 + r.randrange(100))
    if k == 1:
        return r.choice(WORDS) + r.choice(WORDS)
    return chr(ord("a") + (commit * 3 + r.randrange(3)) % 26) + r.choice(WORDS) + str(r.randrange(100))


def _nul(r, one_in):
    return r.randrange(one_in) == 0


def rows_for(seed, commits=10):
    r = random.Random(seed)
    next_id = 0
    out = []
    for c in range(commits):
        base = r.randrange(200) - 100
        batch = []
        for _ in range(5 + r.randrange(30)):
            i8 = max(-128, min(127, base + r.randrange(10)))
            if r.randrange(8) == 0:
                i8 = r.choice([-128, 127, 0, -1])
            i64 = base * 1_000_000_007 + r.randrange(1000)
            if r.randrange(8) == 0:
                i64 = r.choice([-(2 ** 63), 2 ** 63 - 1, 0])
            us = base * 86_400_000_000 * 30 + r.randrange(1_000_000) - 500_000
            row = {
                "id": next_id,
                "p": None if _nul(r, 10) else r.randrange(3),
                "i8": None if _nul(r, 6) else i8,
                "i64": None if _nul(r, 6) else i64,
                "f": None if _nul(r, 6) else _dbl(r, base),
                "d": None if _nul(r, 6) else _dbl(r, base),
                "s": None if _nul(r, 6) else _str(r, c),
                "dec": None if _nul(r, 6) else decimal.Decimal(base * 100 + r.randrange(500) - 250).scaleb(-2),
                "ts": None if _nul(r, 6) else datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=us),
                "dt": None if _nul(r, 6) else datetime.date(1970, 1, 1) + datetime.timedelta(days=base * 30 + r.randrange(30)),
            }
            next_id += 1
            batch.append(row)
        if c % 3 == 2:
            for row in batch:  # an all-NULL commit: null counts equal the row count
                for k in SCHEMA.names[2:]:
                    row[k] = None
        out.append(batch)
    return out


def write_table(cat, name, options, seed):
    full = DB + "." + name
    cat.drop_table(full, True)
    cat.create_table(full, Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"], options=dict(options)), False)
    for batch in rows_for(seed):
        table = cat.get_table(full)
        wb = table.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(pa.Table.from_pylist(batch, schema=SCHEMA))
        c.commit(w.prepare_commit())
        w.close()
        c.close()
    table = cat.get_table(full)
    rb = table.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--props", required=True)
    ap.add_argument("--tables")
    args = ap.parse_args()
    os.makedirs(args.warehouse, exist_ok=True)
    cat = CatalogFactory.create({"warehouse": os.path.abspath(args.warehouse)})
    cat.create_database(DB, True)
    only = set(args.tables.split(",")) if args.tables else None
    listed = []
    for i, (name, opts) in enumerate(TABLES.items()):
        if only and DB + "." + name not in only:
            continue
        n = write_table(cat, name, opts, 1000 + i)
        listed.append({"table": DB + "." + name, "rows": n, "writer": "pypaimon"})
        print("wrote %s.%s (%d rows)" % (DB, name, n))
    with open(args.props, "w", encoding="utf-8") as f:
        json.dump({"generator": "resources/pygen/gen_props.py", "tables": listed}, f, indent=1)


if __name__ == "__main__":
    main()
