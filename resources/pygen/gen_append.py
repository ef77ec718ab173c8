"""Writes the pypaimon side of the interop matrix: append tables (every type, several
partition types, fixed-bucket and bucket-unaware, Parquet and Avro, several compressions,
several snapshots with schema evolution and overwrites) and pypaimon's own reads of them
as expected output in the canonical JSON of docs/ARCHITECTURE.md.

    python gen_append.py --warehouse OUT/warehouse --expected OUT/expected [--cases OUT/cases.json]
                         [--tables db.t1,db.t2]

Extending: add a TableSpec to TABLES (steps = writes/overwrites/schema changes; cases are
declared against the snapshot each step produced). Data is deterministic (fixed seeds).
"""

import argparse
import datetime
import decimal
import json
import os
import random
import shutil
import sys

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canon  # noqa: E402
import filterexpr  # noqa: E402

import pypaimon  # noqa: E402
from pypaimon import CatalogFactory, Schema  # noqa: E402
from pypaimon.schema.data_types import AtomicType  # noqa: E402
from pypaimon.schema.schema_change import SchemaChange  # noqa: E402

PYPAIMON_VERSION = getattr(pypaimon, "__version__", None) or __import__("importlib.metadata").metadata.version(
    "pypaimon")

# ---------------------------------------------------------------------------------------------
# data

ALL_TYPES = pa.schema([
    ("id", pa.int32()),
    ("b", pa.bool_()),
    ("i8", pa.int8()),
    ("i16", pa.int16()),
    ("i64", pa.int64()),
    ("f32", pa.float32()),
    ("f64", pa.float64()),
    ("d5_2", pa.decimal128(5, 2)),
    ("d18_4", pa.decimal128(18, 4)),
    ("d38_10", pa.decimal128(38, 10)),
    ("s", pa.string()),
    ("bin", pa.binary()),
    ("dt", pa.date32()),
    ("tm", pa.time32("ms")),
    ("ts0", pa.timestamp("s")),
    ("ts3", pa.timestamp("ms")),
    ("ts6", pa.timestamp("us")),
    ("ts9", pa.timestamp("ns")),
    ("ltz3", pa.timestamp("ms", tz="UTC")),
    ("ltz6", pa.timestamp("us", tz="UTC")),
    ("arr", pa.list_(pa.string())),
    ("arr_arr", pa.list_(pa.list_(pa.int64()))),
    ("m", pa.map_(pa.string(), pa.int32())),
    ("m_int", pa.map_(pa.int32(), pa.list_(pa.string()))),
    ("st", pa.struct([("x", pa.int32()), ("y", pa.string()),
                      ("inner", pa.struct([("z", pa.float64()), ("when", pa.date32())]))])),
    ("arr_st", pa.list_(pa.struct([("k", pa.string()), ("v", pa.decimal128(10, 3))]))),
])

# Avro (Java and pypaimon alike) has no TIMESTAMP(7..9), and pypaimon 2.1.0's Avro writer has no
# MAP (PyarrowFieldParser.to_avro_type); those columns are left out here and Java covers Avro maps.
AVRO_TYPES = pa.schema([f for f in ALL_TYPES if f.name not in ("ts9", "m", "m_int")])

_STRINGS = ["", "a", "héllo wörld", "日本語テキスト", "emoji 😀🎉", "quote \" and \\ backslash", "tab\tnew\nline",
            "ctrl \x01\x1f", "a/b=c d%e", "   ", "NULL", "null", "<&>", "\u2028sep"]


def _rand_ts(rng, lo=-2208988800, hi=4102444800):
    return rng.randrange(lo, hi)


def all_types_rows(seed, n, first_id):
    """n rows: the first few hold extremes and nulls, the rest are seeded random values."""
    rng = random.Random(seed)
    cols = {f.name: [] for f in ALL_TYPES}

    def add(**kv):
        for f in ALL_TYPES:
            cols[f.name].append(kv.get(f.name))

    epoch = datetime.datetime(1970, 1, 1)
    extremes = [
        dict(b=True, i8=-128, i16=-32768, i64=-(2 ** 63), f32=float("-inf"), f64=-1.7976931348623157e308,
             d5_2=decimal.Decimal("-999.99"), d18_4=decimal.Decimal("-99999999999999.9999"),
             d38_10=decimal.Decimal("-9999999999999999999999999999.9999999999"), s="", bin=b"",
             dt=datetime.date(1, 1, 1), tm=datetime.time(0, 0, 0), ts0=datetime.datetime(1, 1, 1),
             ts3=datetime.datetime(1677, 9, 22, 0, 12, 43, 145000), ts6=datetime.datetime(1, 1, 1, 0, 0, 0, 1),
             ts9=-(2 ** 63) + 1, ltz3=datetime.datetime(1900, 1, 1, tzinfo=datetime.timezone.utc),
             ltz6=datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.timezone.utc),
             arr=[], arr_arr=[[]], m=[], m_int=[], st={"x": None, "y": None, "inner": None}, arr_st=[]),
        dict(b=False, i8=127, i16=32767, i64=2 ** 63 - 1, f32=float("inf"), f64=5e-324,
             d5_2=decimal.Decimal("999.99"), d18_4=decimal.Decimal("99999999999999.9999"),
             d38_10=decimal.Decimal("9999999999999999999999999999.9999999999"), s="\U0010ffff max",
             bin=bytes(range(256)), dt=datetime.date(9999, 12, 31), tm=datetime.time(23, 59, 59, 999000),
             ts0=datetime.datetime(9999, 12, 31, 23, 59, 59), ts3=datetime.datetime(9999, 12, 31, 23, 59, 59, 999000),
             ts6=datetime.datetime(9999, 12, 31, 23, 59, 59, 999999), ts9=2 ** 63 - 1,
             ltz3=datetime.datetime(2262, 4, 11, 23, 47, 16, 854000, tzinfo=datetime.timezone.utc),
             ltz6=datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.timezone.utc),
             arr=[None, "", "x"], arr_arr=[None, [1, None, -1]], m=[("k", None), ("", 0)],
             m_int=[(-1, None), (2, [])], st={"x": 0, "y": "", "inner": {"z": float("nan"), "when": None}},
             arr_st=[None, {"k": None, "v": None}]),
        dict(f32=float("nan"), f64=-0.0, d5_2=decimal.Decimal("0.00"), d18_4=decimal.Decimal("-0.0001"),
             d38_10=decimal.Decimal("0.0000000001"), ts9=0, s="NULL"),
        {},  # every column NULL
    ]
    for i in range(n):
        if i < len(extremes):
            add(id=first_id + i, **extremes[i])
            continue
        secs = _rand_ts(rng)
        add(id=first_id + i,
            b=rng.random() < 0.5,
            i8=rng.randint(-128, 127),
            i16=rng.randint(-32768, 32767),
            i64=rng.randint(-(2 ** 63), 2 ** 63 - 1),
            f32=rng.uniform(-1e6, 1e6),
            f64=rng.choice([rng.uniform(-1e300, 1e300), rng.uniform(-1, 1), float(rng.randint(-10, 10)), 1e16, 1e-7]),
            d5_2=decimal.Decimal(rng.randint(-99999, 99999)).scaleb(-2),
            d18_4=decimal.Decimal(rng.randint(-10 ** 18 + 1, 10 ** 18 - 1)).scaleb(-4),
            d38_10=decimal.Decimal(rng.randint(-10 ** 38 + 1, 10 ** 38 - 1)).scaleb(-10),
            s=rng.choice(_STRINGS) + str(i),
            bin=bytes(rng.randrange(256) for _ in range(rng.randint(0, 12))),
            dt=datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-25000, 50000)),
            tm=datetime.time(rng.randrange(24), rng.randrange(60), rng.randrange(60), rng.randrange(1000) * 1000),
            ts0=epoch + datetime.timedelta(seconds=secs),
            ts3=epoch + datetime.timedelta(seconds=secs, milliseconds=rng.randrange(1000)),
            ts6=epoch + datetime.timedelta(seconds=secs, microseconds=rng.randrange(10 ** 6)),
            ts9=rng.randrange(-(2 ** 62), 2 ** 62),
            ltz3=(epoch + datetime.timedelta(seconds=secs, milliseconds=rng.randrange(1000))).replace(
                tzinfo=datetime.timezone.utc),
            ltz6=(epoch + datetime.timedelta(seconds=secs, microseconds=rng.randrange(10 ** 6))).replace(
                tzinfo=datetime.timezone.utc),
            arr=None if rng.random() < 0.2 else [rng.choice(_STRINGS) for _ in range(rng.randint(0, 3))],
            arr_arr=[[rng.randint(-5, 5) for _ in range(rng.randint(0, 2))] for _ in range(rng.randint(0, 2))],
            m=None if rng.random() < 0.2 else [("k%d" % j, rng.choice([None, rng.randint(-9, 9)]))
                                                for j in range(rng.randint(0, 3))],
            m_int=[(j * 7 - 3, ["v%d" % j]) for j in range(rng.randint(0, 2))],
            st=None if rng.random() < 0.2 else {"x": rng.randint(-100, 100), "y": rng.choice(_STRINGS),
                                                 "inner": {"z": rng.uniform(-1, 1),
                                                           "when": datetime.date(2024, 1, 1 + rng.randrange(28))}},
            arr_st=[{"k": "k%d" % j, "v": decimal.Decimal(rng.randint(-10 ** 6, 10 ** 6)).scaleb(-3)}
                    for j in range(rng.randint(0, 2))])
    return cols


def avro_safe(cols):
    """pypaimon 2.1.0's Avro writer declares array items non-null, so null elements are dropped
    for the Avro tables (Java covers nullable Avro array items)."""
    def strip(v):
        return [strip(x) for x in v if x is not None] if isinstance(v, list) else v

    out = dict(cols)
    for name in ("arr", "arr_arr", "arr_st"):
        out[name] = [strip(v) for v in cols[name]]
    return out


def simple_rows(seed, n, first_id, parts=None):
    """A narrow schema for the partition / bucket / compression / overwrite tables."""
    rng = random.Random(seed)
    regions = ["eu", "us", "ap", None]
    rows = {"id": [], "name": [], "amount": [], "price": [], "dt": [], "region": [], "flag": [], "ts": []}
    for i in range(n):
        rows["id"].append(first_id + i)
        rows["name"].append(None if i % 7 == 3 else rng.choice(_STRINGS[:6]) + "-%d" % (first_id + i))
        rows["amount"].append(rng.randint(-1000, 1000))
        rows["price"].append(decimal.Decimal(rng.randint(-10 ** 6, 10 ** 6)).scaleb(-2))
        rows["dt"].append(datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randrange(3)))
        rows["region"].append(regions[rng.randrange(len(regions))])
        rows["flag"].append(None if i % 5 == 4 else rng.random() < 0.5)
        rows["ts"].append(datetime.datetime(2024, 1, 1, rng.randrange(2) * 12))
    if parts:
        for k, v in parts.items():
            rows[k] = [v] * n
    return rows


SIMPLE = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.int32()),
                    ("price", pa.decimal128(12, 2)), ("dt", pa.date32()), ("region", pa.string()),
                    ("flag", pa.bool_()), ("ts", pa.timestamp("ms"))])

SPECIAL_REGIONS = ["a/b", "x=y", "sp ace", "pct%41", "colon:semi;", "ünï", "", None, "__DEFAULT_PARTITION__x"]


def special_partition_rows(seed):
    rows = simple_rows(seed, len(SPECIAL_REGIONS) * 3, 1)
    rows["region"] = [SPECIAL_REGIONS[i % len(SPECIAL_REGIONS)] for i in range(len(rows["id"]))]
    return rows


# ---------------------------------------------------------------------------------------------
# table specs


class Write:
    def __init__(self, data, overwrite=False, static_partition=None):
        self.data, self.overwrite, self.static_partition = data, overwrite, static_partition


class Alter:
    def __init__(self, *changes):
        self.changes = changes


class Case:
    """after_step: index of the step whose snapshot is read (None = latest, no time travel)."""

    def __init__(self, name, projection=None, filter=None, after_step=None):
        self.name, self.projection, self.filter, self.after_step = name, projection, filter, after_step


class TableSpec:
    def __init__(self, name, schema, steps, cases, partition_keys=(), options=None, tags=()):
        self.name, self.schema, self.steps, self.cases = name, schema, steps, cases
        self.partition_keys, self.options, self.tags = list(partition_keys), dict(options or {}), tags


STD_FILTERS = [
    Case("filter_id_range", filter="id >= 10 AND id < 20"),
    Case("filter_or_null", filter="id < 3 OR s IS NULL"),
    Case("filter_in", filter="id IN (1, 2, 5, 30, 999)"),
    Case("filter_not_in", filter="i16 NOT IN (0, 32767)"),
    Case("filter_between_date", filter="dt BETWEEN DATE '1970-01-01' AND DATE '2050-12-31'"),
    Case("filter_like_prefix", filter="s LIKE 'héllo%'"),
    Case("filter_like_suffix", filter="s LIKE '%1'"),
    Case("filter_like_contains", filter="s LIKE '%a%'"),
    Case("filter_decimal", filter="d18_4 > 0 AND d5_2 <= 500.5"),
    Case("filter_ts", filter="ts3 >= TIMESTAMP '2000-01-01 00:00:00.000'"),
    Case("filter_bool_ne", filter="b <> TRUE"),
    Case("filter_double", filter="f64 < 0.5 AND f64 > -0.5"),
    Case("filter_parens", filter="(id = 5 OR id = 6) AND (b IS NOT NULL OR i8 >= 0)"),
]


def all_types_cases(avro=False):
    cases = [Case("full"), Case("proj_subset", projection=["s", "id", "d38_10", "ltz6"]),
             Case("proj_nested", projection=["st", "arr_st", "id"] + ([] if avro else ["m_int"])),
             Case("snap1_full", after_step=0)]
    return cases + STD_FILTERS


def simple_cases(extra=()):
    return [Case("full"), Case("proj_id_region", projection=["region", "id"]),
            Case("filter_region", filter="region = 'eu' OR region IS NULL"),
            Case("filter_dt", filter="dt > DATE '2024-01-01' AND amount >= 0")] + list(extra)


def build_tables():
    t = []
    # every type; two writes => two snapshots; time travel to the first
    for fmt, comp in [("parquet", "zstd"), ("parquet", "snappy"), ("parquet", "gzip"), ("parquet", "none"),
                      ("avro", "zstd"), ("avro", "snappy"), ("avro", "deflate"), ("avro", "null")]:
        sch = AVRO_TYPES if fmt == "avro" else ALL_TYPES
        name = "interop.types_%s_%s" % (fmt, comp)
        fix = avro_safe if fmt == "avro" else (lambda c: c)
        t.append(TableSpec(name, sch, [Write(fix(all_types_rows(11, 30, 1))), Write(fix(all_types_rows(12, 12, 101)))],
                           all_types_cases(fmt == "avro"), options={"file.format": fmt, "file.compression": comp}))
    # one write => one Parquet file: tests/interop cross-checks the Go canonical encoder on the raw
    # file against this table's pypaimon read (both encoders must agree byte for byte)
    t.append(TableSpec("interop.types_single", ALL_TYPES, [Write(all_types_rows(13, 40, 1))], [Case("full")],
                       options={"file.format": "parquet", "bucket": "-1"}))
    # partitioned by several types (the value landing in the path is what matters)
    for name, keys in [("part_date_region", ["dt", "region"]), ("part_int", ["amount"]),
                       ("part_bool", ["flag"]), ("part_ts", ["ts"]), ("part_decimal", ["price"])]:
        t.append(TableSpec("interop." + name, SIMPLE, [Write(simple_rows(21, 40, 1)), Write(simple_rows(22, 20, 41))],
                           simple_cases([Case("snap1_full", after_step=0)]), partition_keys=keys))
    t.append(TableSpec("interop.part_special_chars", SIMPLE, [Write(special_partition_rows(31))],
                       simple_cases([Case("filter_special", filter="region IN ('a/b', 'x=y', 'sp ace', '')")]),
                       partition_keys=["region"]))
    # fixed bucket, with and without partitions, parquet and avro
    t.append(TableSpec("interop.bucket4", SIMPLE, [Write(simple_rows(41, 60, 1)), Write(simple_rows(42, 30, 61))],
                       simple_cases(), options={"bucket": "4", "bucket-key": "id"}))
    t.append(TableSpec("interop.bucket2_part_avro", SIMPLE, [Write(simple_rows(43, 50, 1))], simple_cases(),
                       partition_keys=["dt"], options={"bucket": "2", "bucket-key": "id", "file.format": "avro"}))
    # schema evolution: add, rename, drop, widen — one write per schema version
    t.append(TableSpec("interop.evolution", SIMPLE, [
        Write(simple_rows(51, 10, 1)),
        Alter(SchemaChange.add_column("extra", AtomicType("STRING"))),
        Write(dict(simple_rows(52, 10, 11), extra=["e%d" % i for i in range(10)]), ),
        Alter(SchemaChange.rename_column("name", "label")),
        Write(simple_rows(53, 10, 21)),
        Alter(SchemaChange.drop_column("flag")),
        Write(simple_rows(54, 10, 31)),
        Alter(SchemaChange.update_column_type("amount", AtomicType("BIGINT")),
              SchemaChange.update_column_type("price", AtomicType("DECIMAL(20, 4)"))),
        Write(simple_rows(55, 10, 41)),
    ], [Case("full"), Case("proj_renamed", projection=["label", "id", "extra"]),
        Case("filter_renamed", filter="label IS NOT NULL AND amount > 0"),
        Case("filter_added", filter="extra IS NULL"),
        Case("snap1_full", after_step=0), Case("snap2_full", after_step=2), Case("snap3_full", after_step=4),
        Case("snap4_full", after_step=6)]))
    # overwrite: a static-partition overwrite, then a full-table overwrite
    t.append(TableSpec("interop.overwrite", SIMPLE, [
        Write(simple_rows(61, 30, 1)),
        Write(simple_rows(62, 5, 100, parts={"dt": datetime.date(2024, 1, 2)}), overwrite=True,
              static_partition={"dt": "2024-01-02"}),
        Write(simple_rows(63, 7, 200), overwrite=True),
    ], [Case("full"), Case("snap1_full", after_step=0), Case("snap2_full", after_step=1),
        Case("snap2_filter", after_step=1, filter="dt = DATE '2024-01-02'")], partition_keys=["dt"]))
    # quickstart demo table
    t.append(TableSpec("demo.orders", SIMPLE, [Write(simple_rows(71, 120, 1)), Write(simple_rows(72, 100, 121)),
                                               Write(simple_rows(73, 80, 221))],
                       simple_cases([Case("snap1_full", after_step=0)]), partition_keys=["dt"]))
    return t


# ---------------------------------------------------------------------------------------------
# execution


def _py_schema(schema, data):
    return pa.Table.from_pydict({k: v for k, v in data.items() if k in schema.names}, schema=schema)


def _read(table, case):
    rb = table.new_read_builder()
    if case.projection:
        rb = rb.with_projection(case.projection)
    if case.filter:
        full = _read(table, Case("full"))
        ast = filterexpr.parse(case.filter)
        rb = rb.with_filter(filterexpr.to_pypaimon(ast, rb.new_predicate_builder(), full.schema))
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    if case.filter:
        # pypaimon must agree with an exact evaluation, or it is no oracle for this filter.
        exact = [r for r in full.to_pylist() if filterexpr.evaluate(ast, r, full.schema)]
        want = sorted(canon.encode_table(pa.Table.from_pylist(exact, schema=full.schema)))
        got = canon.encode_table(out)
        if case.projection is None and want != got:
            raise RuntimeError("case %s (%s): pypaimon filtered read (%d rows) differs from the exact filter "
                               "(%d rows); pypaimon is no oracle for this filter" % (case.name, case.filter, len(got),
                                                                                     len(want)))
    return out


def run_table(cat, spec, expected_dir, cases_out):
    db, tname = spec.name.split(".")
    cat.create_database(db, True)
    cat.drop_table(spec.name, True)
    opts = dict(spec.options)
    cat.create_table(spec.name, Schema.from_pyarrow_schema(spec.schema, partition_keys=spec.partition_keys,
                                                           options=opts), False)
    snap_after = {}
    cur_schema = spec.schema
    for i, step in enumerate(spec.steps):
        table = cat.get_table(spec.name)
        if isinstance(step, Alter):
            cat.alter_table(spec.name, list(step.changes), False)
            cur_schema = _current_arrow_schema(cat.get_table(spec.name))
            continue
        data = {k: v for k, v in step.data.items()}
        _rename_for(cur_schema, data)
        wb = table.new_batch_write_builder()
        if step.overwrite:
            wb = wb.overwrite(step.static_partition or {})
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(_py_schema(cur_schema, data))
        c.commit(w.prepare_commit())
        w.close()
        c.close()
        snap_after[i] = cat.get_table(spec.name).snapshot_manager().get_latest_snapshot().id
    out_dir = os.path.join(expected_dir, spec.name)
    os.makedirs(out_dir, exist_ok=True)
    latest = cat.get_table(spec.name)
    for case in spec.cases:
        snap = None
        table = latest
        if case.after_step is not None:
            snap = snap_after[case.after_step]
            table = latest.copy({"scan.snapshot-id": str(snap)})
        lines = canon.encode_table(_read(table, case))
        rel = "expected/%s/%s.jsonl" % (spec.name, case.name)
        canon.write_lines(os.path.join(out_dir, case.name + ".jsonl"), lines)
        cases_out.append({"table": spec.name, "case": case.name, "snapshot": snap, "projection": case.projection,
                          "filter": case.filter, "expected": rel, "rows": len(lines), "writer": "pypaimon"})


def _current_arrow_schema(table):
    from pypaimon.schema.data_types import PyarrowFieldParser
    return PyarrowFieldParser.from_paimon_schema(table.fields)


def _rename_for(schema, data):
    """Later writes use the evolved names: map the generic row dict onto them."""
    if "label" in schema.names and "name" in data:
        data["label"] = data.pop("name")
    if "extra" in schema.names and "extra" not in data:
        data["extra"] = [None] * len(data["id"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--expected", required=True)
    ap.add_argument("--cases", help="default: <expected>/../cases.json")
    ap.add_argument("--tables", help="comma-separated db.table subset")
    args = ap.parse_args()
    cases_path = args.cases or os.path.join(os.path.dirname(os.path.abspath(args.expected)), "cases.json")
    os.makedirs(args.warehouse, exist_ok=True)
    cat = CatalogFactory.create({"warehouse": os.path.abspath(args.warehouse)})
    only = set(args.tables.split(",")) if args.tables else None
    cases = []
    for spec in build_tables():
        if only and spec.name not in only:
            continue
        shutil.rmtree(os.path.join(args.expected, spec.name), ignore_errors=True)
        run_table(cat, spec, args.expected, cases)
        print("wrote %s (%d cases)" % (spec.name, sum(1 for c in cases if c["table"] == spec.name)))
    with open(cases_path, "w", encoding="utf-8") as f:
        json.dump({"generator": "resources/pygen/gen_append.py", "writer_version": "pypaimon " + PYPAIMON_VERSION,
                   "pyarrow_version": pa.__version__, "cases": cases}, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
