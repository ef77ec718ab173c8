"""Writes primary-key tables with pypaimon 2.1.0 and pypaimon's merged reads of them, the
oracle for paimon/internal/mergetree:

    python gen_pk.py --warehouse OUT/warehouse --expected OUT/expected [--tables pk.dedup,...]

Every table gets several commits that update and delete keys. Deletes are real `-D`/`-U`
records: pypaimon writes `_VALUE_KIND` from the string column named by option
`rowkind.field` (pypaimon/write/row_kind.py), so the tables carry a `rk` column holding the
kind each record was written with. A raw (unmerged) read can be checked against it.

Expected output per table: `<expected>/<table>/merged.jsonl`, pypaimon's batch read of the
latest snapshot in the canonical JSON of docs/ARCHITECTURE.md (sorted lines), and
`<expected>/<table>/meta.json` (pypaimon version, snapshot ids, options).
First-row tables: pypaimon 2.1.0, like Java, hides their level-0 files from batch reads (the
spec's §9 says pypaimon does not; 2.1.0 does), so `merged.jsonl` is empty and
`model-first-row.jsonl` holds a plain Python model of the merge (first record per key).
"""

import argparse
import decimal
import json
import os
import shutil
import sys

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canon  # noqa: E402

import pypaimon  # noqa: E402
from pypaimon import CatalogFactory, Schema  # noqa: E402

PYPAIMON_VERSION = getattr(pypaimon, "__version__", None) or __import__("importlib.metadata").metadata.version(
    "pypaimon")

D = decimal.Decimal

BASE = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    pa.field("dt", pa.string(), nullable=False),
    ("name", pa.string()),
    ("v", pa.int64()),
    ("price", pa.decimal128(10, 2)),
    ("rk", pa.string()),
])


def rows(schema, recs):
    cols = {f.name: [r.get(f.name) for r in recs] for f in schema}
    return pa.Table.from_pydict(cols, schema=schema)


def base_commits():
    """Commits over keys (dt, id): inserts, updates, deletes, re-inserts, -U/+U pairs."""
    c1 = [dict(id=i, dt=dt, name="n%d" % i, v=i * 10, price=D("%d.25" % i), rk="+I")
          for dt in ("2024-01-01", "2024-01-02") for i in range(1, 13)]
    c2 = [dict(id=i, dt="2024-01-01", name="u%d" % i, v=i * 100, price=None, rk="+U") for i in (2, 4, 6, 8)]
    c2 += [dict(id=i, dt="2024-01-01", name="n%d" % i, v=i * 10, price=D("%d.25" % i), rk="-D") for i in (3, 5)]
    c2 += [dict(id=i, dt="2024-01-02", name="n%d" % i, v=i * 10, price=D("%d.25" % i), rk="-D") for i in (1, 12)]
    c2 += [dict(id=i, dt="2024-01-02", name="new%d" % i, v=-i, price=D("0.01"), rk="+I") for i in (20, 21)]
    c3 = [dict(id=3, dt="2024-01-01", name="back3", v=333, price=D("3.33"), rk="+I"),
          dict(id=4, dt="2024-01-01", name="u4", v=400, price=None, rk="-U"),
          dict(id=6, dt="2024-01-01", name="again6", v=None, price=D("-6.50"), rk="+U"),
          dict(id=20, dt="2024-01-02", name="new20", v=-20, price=D("0.01"), rk="-D"),
          dict(id=30, dt="2024-01-03", name="p3", v=30, price=D("30.00"), rk="+I")]
    c4 = [dict(id=4, dt="2024-01-01", name="re4", v=4444, price=D("4.44"), rk="+I"),
          dict(id=7, dt="2024-01-01", name=None, v=None, price=None, rk="-D"),
          dict(id=30, dt="2024-01-03", name="p3b", v=31, price=D("31.00"), rk="+U")]
    return [c1, c2, c3, c4]


def insert_only(commits):
    """The commits without retracts (for engines pypaimon refuses retracts on)."""
    out = []
    for c in commits:
        out.append([dict(r, rk="+I") if r["rk"] == "+U" else r for r in c if r["rk"] in ("+I", "+U")])
    return out


def partial_commits():
    c1 = [dict(id=i, dt="2024-01-01", name="n%d" % i, v=None, price=None, rk="+I") for i in range(1, 9)]
    c2 = [dict(id=i, dt="2024-01-01", name=None, v=i * 7, price=None, rk="+I") for i in range(1, 9, 2)]
    c3 = [dict(id=i, dt="2024-01-01", name="late%d" % i, v=None, price=D("%d.50" % i), rk="+I") for i in (1, 2, 8)]
    c3 += [dict(id=40, dt="2024-01-02", name=None, v=None, price=D("1.00"), rk="+I")]
    c4 = [dict(id=40, dt="2024-01-02", name="x", v=None, price=None, rk="+I")]
    return [c1, c2, c3, c4]


AGG = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    ("s_int", pa.int32()),
    ("s_dec", pa.decimal128(10, 2)),
    ("s_dbl", pa.float64()),
    ("mx", pa.int64()),
    ("mn", pa.string()),
    ("lv", pa.string()),
    ("lnn", pa.string()),
    ("fv", pa.string()),
    ("fnn", pa.string()),
    ("la", pa.string()),
    ("band", pa.bool_()),
    ("bor", pa.bool_()),
    ("dflt", pa.int64()),
])

AGG_OPTIONS = {
    "merge-engine": "aggregation",
    "fields.s_int.aggregate-function": "sum",
    "fields.s_dec.aggregate-function": "sum",
    "fields.s_dbl.aggregate-function": "sum",
    "fields.mx.aggregate-function": "max",
    "fields.mn.aggregate-function": "min",
    "fields.lv.aggregate-function": "last_value",
    "fields.lnn.aggregate-function": "last_non_null_value",
    "fields.fv.aggregate-function": "first_value",
    "fields.fnn.aggregate-function": "first_non_null_value",
    "fields.la.aggregate-function": "listagg",
    "fields.la.list-agg-delimiter": "|",
    "fields.band.aggregate-function": "bool_and",
    "fields.bor.aggregate-function": "bool_or",
}


def agg_commits():
    out = []
    for c in range(4):
        recs = []
        for i in range(1, 7):
            if (i + c) % 3 == 0 and c > 0:
                continue  # not every key in every commit
            recs.append(dict(
                id=i,
                s_int=None if (i == 2 and c == 1) else i + c,
                s_dec=D("%d.%02d" % (c, i)),
                s_dbl=0.1 * (c + 1),
                mx=(i * 7 + c * 13) % 17,
                mn=None if c == 2 else "m%d" % ((i * 3 + c * 5) % 7),
                lv=None if (c == 3 and i % 2) else "lv%d" % c,
                lnn=None if c == 3 else "lnn%d" % c,
                fv=None if c == 0 and i == 1 else "fv%d" % c,
                fnn=None if c == 0 and i == 1 else "fnn%d" % c,
                la=" " if (c == 1 and i == 3) else "a%d" % c,
                band=(i + c) % 4 != 0,
                bor=(i * c) % 5 == 3,
                dflt=None if c == 2 else i * 1000 + c,
            ))
        out.append(recs)
    return out


def seq_commits():
    """sequence.field=ts: later commits carry older ts for some keys and must lose."""
    c1 = [dict(id=i, dt="2024-01-01", name="c1", v=100, price=None, rk="+I") for i in range(1, 7)]
    c2 = [dict(id=i, dt="2024-01-01", name="c2", v=50 if i % 2 else 200, price=None, rk="+I") for i in range(1, 7)]
    c3 = [dict(id=i, dt="2024-01-01", name="c3", v=200, price=None, rk="+I") for i in (1, 2)]
    c3 += [dict(id=5, dt="2024-01-01", name="c3", v=None, price=None, rk="+I")]
    return [c1, c2, c3]


class Spec:
    def __init__(self, name, schema, pks, commits, options, partition_keys=("dt",)):
        self.name, self.schema, self.pks, self.commits = name, schema, pks, commits
        self.options, self.partition_keys = options, list(partition_keys)


def specs():
    rk = {"rowkind.field": "rk"}
    return [
        Spec("pk.dedup", BASE, ["id", "dt"], base_commits(), dict(rk, bucket="2")),
        Spec("pk.dedup_avro", BASE, ["id", "dt"], base_commits(), dict(rk, bucket="1", **{"file.format": "avro"})),
        Spec("pk.first_row", BASE, ["id", "dt"], insert_only(base_commits()),
             dict(rk, bucket="2", **{"merge-engine": "first-row"})),
        Spec("pk.partial", BASE, ["id", "dt"], partial_commits(),
             dict(rk, bucket="2", **{"merge-engine": "partial-update"})),
        Spec("pk.agg", AGG, ["id"], agg_commits(), dict(AGG_OPTIONS, bucket="2"), partition_keys=()),
        Spec("pk.seq", BASE, ["id", "dt"], seq_commits(), dict(rk, bucket="1", **{"sequence.field": "v"})),
    ]


def write_table(cat, spec, expected_dir):
    cat.create_database(spec.name.split(".")[0], True)
    schema = Schema.from_pyarrow_schema(spec.schema, partition_keys=spec.partition_keys,
                                        primary_keys=spec.pks, options=spec.options)
    cat.create_table(spec.name, schema, False)
    snaps = []
    for recs in spec.commits:
        table = cat.get_table(spec.name)
        wb = table.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(rows(spec.schema, recs))
        c.commit(w.prepare_commit())
        w.close()
        c.close()
        snaps.append(cat.get_table(spec.name).snapshot_manager().get_latest_snapshot().id)
    table = cat.get_table(spec.name)
    rb = table.new_read_builder()
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    lines = canon.encode_table(out)
    d = os.path.join(expected_dir, spec.name)
    os.makedirs(d, exist_ok=True)
    canon.write_lines(os.path.join(d, "merged.jsonl"), lines)
    if spec.options.get("merge-engine") == "first-row":
        # pypaimon, like Java, hides level-0 files of first-row tables from batch reads, so
        # its read is empty; the merge itself is checked against this model: the first
        # record written for each key, over the commits in order.
        first = {}
        for recs in spec.commits:
            for r in recs:
                first.setdefault(tuple(r[k] for k in spec.pks), r)
        model = canon.encode_table(rows(spec.schema, list(first.values())))
        canon.write_lines(os.path.join(d, "model-first-row.jsonl"), model)
    with open(os.path.join(d, "meta.json"), "w", encoding="utf-8") as f:
        json.dump({"writer": "pypaimon", "pypaimon": PYPAIMON_VERSION, "snapshots": snaps,
                   "options": spec.options, "rows": len(lines)}, f, indent=1, sort_keys=True)
        f.write("\n")
    return len(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--expected", required=True)
    ap.add_argument("--tables", help="comma-separated db.table subset")
    args = ap.parse_args()
    os.makedirs(args.warehouse, exist_ok=True)
    cat = CatalogFactory.create({"warehouse": os.path.abspath(args.warehouse)})
    only = set(args.tables.split(",")) if args.tables else None
    for spec in specs():
        if only and spec.name not in only:
            continue
        db, tbl = spec.name.split(".")
        shutil.rmtree(os.path.join(args.warehouse, db + ".db", tbl), ignore_errors=True)
        shutil.rmtree(os.path.join(args.expected, spec.name), ignore_errors=True)
        n = write_table(cat, spec, args.expected)
        print("wrote %s (%d merged rows)" % (spec.name, n))


if __name__ == "__main__":
    main()
