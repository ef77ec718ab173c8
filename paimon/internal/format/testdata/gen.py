"""Generates the data-file fixtures of paimon/internal/format.

Run with the pypaimon 2.1.0 venv:  resources/.venv/bin/python (or $PAIMON_PYTHON) gen.py
Outputs (all small, committed so tests run offline):
  pypaimon_all.parquet / .avro  data files written by pypaimon itself (copied out of real tables)
  pypaimon_all.fields.json      the table's schema-0 "fields" (what the Go reader gets as Options.Fields)
  *.expected.jsonl              rows as pyarrow reads the file back, in ARCHITECTURE.md canonical JSON
  java_layout.parquet           pyarrow file with the physical layout Java's ParquetRowDataWriter uses
                                for INT96 timestamps and INT32/INT64 decimals
  java_layout.avro              fastavro file with the schema Java's AvroSchemaConverter produces for
                                maps (string keys -> Avro map, other keys -> array of {key,value}),
                                multisets and LTZ (local-timestamp-*)
  rowgroups.parquet             500 rows in 5 row groups of 100, for pruning + deletion positions
"""
import base64, datetime, decimal, glob, json, math, os, shutil, tempfile

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

from pypaimon import CatalogFactory, Schema

decimal.getcontext().prec = 80
HERE = os.path.dirname(os.path.abspath(__file__))


# ---- canonical JSON (ARCHITECTURE.md), computed from Python values, independent of the Go code ----
def dumps(obj):
    """The one JSON spelling of resources/pygen/canon.py: sorted keys, no spaces, raw UTF-8."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)


def canon(v, t):
    if v is None:
        return None
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        return v
    if pa.types.is_floating(t):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(float(v))
    if pa.types.is_decimal(t):
        return format(v.quantize(decimal.Decimal(1).scaleb(-t.scale)), "f")
    if pa.types.is_string(t):
        return v
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return "b64:" + base64.b64encode(v).decode()
    if pa.types.is_date(t):
        return "%04d-%02d-%02d" % (v.year, v.month, v.day)
    if pa.types.is_time(t):
        return v.strftime("%H:%M:%S.") + "%03d" % (v.microsecond // 1000)
    if pa.types.is_timestamp(t):
        return None  # handled by caller with the raw integer (see canon_col)
    if pa.types.is_list(t) or pa.types.is_fixed_size_list(t):
        return [canon(x, t.value_type) for x in v]
    if pa.types.is_map(t):
        pairs = [[canon(k, t.key_type), canon(x, t.item_type)] for k, x in v]
        return sorted(pairs, key=lambda p: dumps(p[0]))
    if pa.types.is_struct(t):
        return {f.name: canon(v.get(f.name), f.type) for f in t}
    raise ValueError(t)


def ts_canon(arr):
    """Timestamps from the raw epoch integers, so no datetime rounding is involved."""
    t = arr.type
    mult = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}[t.unit]
    out = []
    for x in arr.cast(pa.int64()).to_pylist():
        if x is None:
            out.append(None)
            continue
        n = x * mult
        secs, nanos = divmod(n, 10**9)
        d = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=secs)
        s = "%04d-%02d-%02dT%02d:%02d:%02d.%09d" % (d.year, d.month, d.day, d.hour, d.minute, d.second, nanos)
        if t.tz is not None:
            s += "Z"
        out.append(s)
    return out


def canon_table(tbl):
    cols = {}
    for name, col in zip(tbl.column_names, tbl.columns):
        col = col.combine_chunks()
        if pa.types.is_timestamp(col.type):
            cols[name] = ts_canon(col)
        elif pa.types.is_struct(col.type) or pa.types.is_list(col.type) or pa.types.is_map(col.type):
            if has_ts(col.type):
                raise ValueError("nested timestamps not canonicalised here: " + name)
            cols[name] = [canon(v, col.type) for v in col.to_pylist()]
        else:
            cols[name] = [canon(v, col.type) for v in col.to_pylist()]
    rows = []
    for i in range(tbl.num_rows):
        rows.append(dumps({k: cols[k][i] for k in sorted(cols)}))
    return rows


def has_ts(t):
    if pa.types.is_timestamp(t):
        return True
    if pa.types.is_list(t):
        return has_ts(t.value_type)
    if pa.types.is_map(t):
        return has_ts(t.key_type) or has_ts(t.item_type)
    if pa.types.is_struct(t):
        return any(has_ts(f.type) for f in t)
    return False


def write_expected(name, tbl):
    with open(os.path.join(HERE, name), "w") as f:
        for r in canon_table(tbl):
            f.write(r + "\n")


# ---- data ----
D = decimal.Decimal
ROWS = 5


def all_types_table(avro):
    ts = lambda *a: datetime.datetime(*a)
    cols = {
        "b": (pa.bool_(), [True, False, None, True, False]),
        "i8": (pa.int8(), [-128, 127, None, 0, 1]),
        "i16": (pa.int16(), [-32768, 32767, None, 0, -1]),
        "i32": (pa.int32(), [-2147483648, 2147483647, None, 0, 42]),
        "i64": (pa.int64(), [-9223372036854775808, 9223372036854775807, None, 0, 7]),
        "f32": (pa.float32(), [1.5, float("inf"), None, float("nan"), -0.25]),
        "f64": (pa.float64(), [1e10, -1e-300, None, float("-inf"), 0.1]),
        "dec5": (pa.decimal128(5, 2), [D("123.45"), D("-999.99"), None, D("0.00"), D("0.01")]),
        "dec18": (pa.decimal128(18, 4), [D("99999999999999.9999"), D("-1.0000"), None, D("0"), D("12.3400")]),
        "dec38": (pa.decimal128(38, 10), [D("9999999999999999999999999999.9999999999"), D("-0.0000000001"), None, D("1"), D("-12345678901234567890.1234567890")]),
        "s": (pa.string(), ["héllo wörld ✓ 日本", "", None, "a\"b\\c\n", "𝄞"]),
        "bin": (pa.binary(), [b"\x00\x01\xff", b"", None, b"abc", bytes(range(10))]),
        "d": (pa.date32(), [datetime.date(1970, 1, 1), datetime.date(1, 1, 1), None, datetime.date(9999, 12, 31), datetime.date(1969, 12, 31)]),
        "t": (pa.time32("ms"), [datetime.time(0, 0), datetime.time(23, 59, 59, 999000), None, datetime.time(12, 30, 1, 5000), datetime.time(1, 2, 3)]),
        "ts0": (pa.timestamp("s"), [ts(2024, 2, 29, 12, 0, 1), ts(1960, 1, 1), None, ts(1970, 1, 1), ts(2262, 4, 11)]),
        "ts3": (pa.timestamp("ms"), [ts(2024, 2, 29, 12, 0, 1, 123000), ts(1900, 1, 1, 0, 0, 0, 1000), None, ts(1970, 1, 1), ts(1969, 12, 31, 23, 59, 59, 999000)]),
        "ts6": (pa.timestamp("us"), [ts(2024, 2, 29, 12, 0, 1, 123456), ts(1, 1, 1), None, ts(9999, 12, 31, 23, 59, 59, 999999), ts(1969, 12, 31, 23, 59, 59, 999999)]),
        "ltz3": (pa.timestamp("ms", tz="UTC"), [ts(2024, 2, 29, 12, 0, 1, 123000), ts(1900, 1, 1), None, ts(1970, 1, 1), ts(2038, 1, 19, 3, 14, 8)]),
        "ltz6": (pa.timestamp("us", tz="UTC"), [ts(2024, 2, 29, 12, 0, 1, 123456), ts(1950, 6, 1), None, ts(1970, 1, 1), ts(2000, 1, 1, 0, 0, 0, 1)]),
        "arr_i": (pa.list_(pa.field("item", pa.int32())), [[1, 2, None], [], None, [2147483647], [0]]),
        "arr_s": (pa.list_(pa.field("item", pa.string())), [["x", "ÿ"], [None], None, [], ["a", "b", "c"]]),
        "row": (pa.struct([pa.field("x", pa.int32()), pa.field("y", pa.string()), pa.field("z", pa.list_(pa.field("item", pa.float64())))]),
                [{"x": 1, "y": "one", "z": [1.0]}, {"x": None, "y": None, "z": None}, None, {"x": -1, "y": "ü", "z": []}, {"x": 0, "y": "", "z": [None, 2.5]}]),
        "arr_row": (pa.list_(pa.field("item", pa.struct([pa.field("k", pa.string()), pa.field("v", pa.int64())]))),
                    [[{"k": "a", "v": 1}, {"k": "b", "v": None}], [], None, [None], [{"k": "z", "v": -9}]]),
    }
    if avro:
        # pypaimon's Avro writer declares array items non-nullable, so no null elements there
        cols["arr_i"] = (cols["arr_i"][0], [[1, 2], [], None, [2147483647], [0]])
        cols["arr_s"] = (cols["arr_s"][0], [["x", "ÿ"], [""], None, [], ["a", "b", "c"]])
        cols["row"][1][4]["z"] = [2.5]
        cols["arr_row"] = (cols["arr_row"][0], [[{"k": "a", "v": 1}, {"k": "b", "v": None}], [], None, [], [{"k": "z", "v": -9}]])
    if not avro:
        cols["ts9"] = (pa.timestamp("ns"), [ts(2024, 2, 29, 12, 0, 1), ts(1677, 9, 22), None, ts(1970, 1, 1), ts(2262, 4, 11)])
        cols["map_si"] = (pa.map_(pa.string(), pa.int32()), [[("a", 1), ("b", None)], [], None, [("ü", -5)], [("z", 0)]])
        cols["map_is"] = (pa.map_(pa.int32(), pa.string()), [[(2, "two"), (1, "one")], [], None, [(-1, None)], [(0, "")]])
    fields = [pa.field(k, v[0]) for k, v in cols.items()]
    arrays = [pa.array(v[1], type=v[0]) for v in cols.values()]
    tbl = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    if not avro:
        # nanosecond values beyond what python datetime carries
        ns = pa.array([1709208001123456789, -9223285636854775808 + 10**18 * 0, None, 0, 9223372036854775807 // 10**9 * 10**9], pa.timestamp("ns"))
        tbl = tbl.set_column(tbl.column_names.index("ts9"), "ts9", ns)
    return tbl


def pypaimon_file(fmt, tbl, out):
    wh = tempfile.mkdtemp()
    cat = CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    schema = Schema.from_pyarrow_schema(tbl.schema, options={"file.format": fmt, "bucket": "-1"})
    cat.create_table("db.t", schema, False)
    t = cat.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(tbl)
    c = wb.new_commit()
    c.commit(w.prepare_commit())
    w.close()
    c.close()
    files = glob.glob(os.path.join(wh, "db.db", "t", "bucket-0", "data-*"))
    assert len(files) == 1, files
    shutil.copy(files[0], os.path.join(HERE, out))
    with open(os.path.join(wh, "db.db", "t", "schema", "schema-0")) as f:
        sch = json.load(f)
    # pypaimon reads its own file back the way its split reader does
    rb = t.new_read_builder()
    back = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    shutil.rmtree(wh)
    return sch["fields"], back


def main():
    tbl = all_types_table(avro=False)
    fields, back = pypaimon_file("parquet", tbl, "pypaimon_all.parquet")
    with open(os.path.join(HERE, "pypaimon_all.fields.json"), "w") as f:
        json.dump(fields, f, indent=1)
    direct = pq.read_table(os.path.join(HERE, "pypaimon_all.parquet"))
    write_expected("pypaimon_all.parquet.expected.jsonl", direct)
    assert canon_table(direct) == canon_table(back.select(direct.column_names)), "pypaimon read != pyarrow read"

    tbl = all_types_table(avro=True)
    fields, back = pypaimon_file("avro", tbl, "pypaimon_all.avro")
    with open(os.path.join(HERE, "pypaimon_all_avro.fields.json"), "w") as f:
        json.dump(fields, f, indent=1)
    write_expected("pypaimon_all.avro.expected.jsonl", back)

    java_layout_parquet()
    java_layout_avro()
    rowgroups()


def java_layout_parquet():
    # Java ParquetRowDataWriter: TIMESTAMP(7..9) and LTZ(7..9) as INT96, DECIMAL p<=9 as INT32,
    # 10<=p<=18 as INT64, p>18 as FIXED_LEN_BYTE_ARRAY (pyarrow's default for all decimals).
    # -2 days exactly: pyarrow (like Java's truncating division) writes a negative
    # nanos-of-day for pre-epoch instants that are not on a day boundary; those go
    # to int96_pre_epoch.parquet instead.
    ts = pa.array([1709208001123456789, -2 * 86400 * 10**9, None, 0, 253402300799999999999 // 1000], pa.timestamp("ns"))
    tbl = pa.table({
        "ts9": ts,
        "ltz9": ts.cast(pa.timestamp("ns", tz="UTC")),
        "dec9": pa.array([D("1234567.89"), D("-0.01"), None, D("9999999.99"), D("0")], pa.decimal128(9, 2)),
        "dec18": pa.array([D("12345678901234.5678"), D("-99999999999999.9999"), None, D("0.0001"), D("0")], pa.decimal128(18, 4)),
        "dec20": pa.array([D("123456789012345678.90"), D("-1"), None, D("0"), D("999999999999999999.99")], pa.decimal128(20, 2)),
    })
    path = os.path.join(HERE, "java_layout.parquet")
    pq.write_table(tbl, path, use_deprecated_int96_timestamps=True, store_decimal_as_integer=True,
                   compression="snappy")
    md = pq.ParquetFile(path).schema
    assert md.column(0).physical_type == "INT96", md
    assert md.column(2).physical_type == "INT32" and md.column(3).physical_type == "INT64", md
    pq.write_table(pa.table({"ts9": pa.array([-1], pa.timestamp("ns"))}), os.path.join(HERE, "int96_pre_epoch.parquet"),
                   use_deprecated_int96_timestamps=True)
    # expected values: INT96 read back by pyarrow as ns
    pq.write_table(pa.table({"ts9": pa.array([-1], pa.timestamp("ns"))}), os.path.join(HERE, "int96_pre_epoch.parquet"),
                   use_deprecated_int96_timestamps=True)
    # expected values: INT96 read back by pyarrow as ns; ltz9 is TIMESTAMP_LTZ(9) in the Paimon schema
    back = pq.read_table(path)
    back = back.set_column(1, "ltz9", back.column(1).cast(pa.timestamp("ns", tz="UTC")))
    write_expected("java_layout.parquet.expected.jsonl", back)


def java_layout_avro():
    # The schema Java's AvroSchemaConverter builds (record org.apache.paimon.avro.generated.record,
    # nullable = ["null", T], MAP<STRING,..> -> map, MAP<INT,..> -> array of {key,value} records
    # tagged logicalType "map", MULTISET<STRING> -> map of int, LTZ -> local-timestamp-*).
    schema = {
        "type": "record", "name": "record", "namespace": "org.apache.paimon.avro.generated",
        "fields": [
            {"name": "id", "type": "int"},
            {"name": "m_si", "type": ["null", {"type": "map", "values": ["null", "int"]}], "default": None},
            {"name": "m_is", "type": ["null", {"type": "array", "logicalType": "map", "items": {
                "type": "record", "name": "record_m_is",
                "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": ["null", "string"], "default": None}]}}], "default": None},
            {"name": "ms", "type": ["null", {"type": "map", "values": "int"}], "default": None},
            {"name": "ltz3", "type": ["null", {"type": "long", "logicalType": "local-timestamp-millis"}], "default": None},
            {"name": "ltz6", "type": ["null", {"type": "long", "logicalType": "local-timestamp-micros"}], "default": None},
            {"name": "ts3", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}], "default": None},
            {"name": "dec", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 3}], "default": None},
            {"name": "nested", "type": ["null", {"type": "record", "name": "record_nested", "fields": [
                {"name": "a", "type": ["null", "long"], "default": None},
                {"name": "arr", "type": ["null", {"type": "array", "items": ["null", "string"]}], "default": None}]}], "default": None},
        ]}
    recs = [
        {"id": 1, "m_si": {"a": 1, "b": None}, "m_is": [{"key": 2, "value": "two"}, {"key": 1, "value": None}],
         "ms": {"x": 2, "y": 1}, "ltz3": 1709208001123, "ltz6": -1, "ts3": 0, "dec": (123456789012345678901 % 10**20).to_bytes(9, "big", signed=True),
         "nested": {"a": 9223372036854775807, "arr": ["p", None]}},
        {"id": 2, "m_si": None, "m_is": None, "ms": None, "ltz3": None, "ltz6": None, "ts3": None, "dec": None, "nested": None},
        {"id": 3, "m_si": {}, "m_is": [], "ms": {}, "ltz3": -62135596800000, "ltz6": 253402300799999999,
         "ts3": -1, "dec": (-1).to_bytes(1, "big", signed=True), "nested": {"a": None, "arr": []}},
    ]
    path = os.path.join(HERE, "java_layout.avro")
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(schema), recs, codec="deflate")
    # expected, written by hand from the records above (canonical JSON)
    exp = [
        {"id": 1, "m_si": [["a", 1], ["b", None]], "m_is": [[1, None], [2, "two"]], "ms": [["x", 2], ["y", 1]],
         "ltz3": "2024-02-29T12:00:01.123000000Z", "ltz6": "1969-12-31T23:59:59.999999000Z", "ts3": "1970-01-01T00:00:00.000000000",
         "dec": "%s" % (D(123456789012345678901 % 10**20) / 1000).quantize(D("0.001")), "nested": {"a": 9223372036854775807, "arr": ["p", None]}},
        {"id": 2, "m_si": None, "m_is": None, "ms": None, "ltz3": None, "ltz6": None, "ts3": None, "dec": None, "nested": None},
        {"id": 3, "m_si": [], "m_is": [], "ms": [], "ltz3": "0001-01-01T00:00:00.000000000Z", "ltz6": "9999-12-31T23:59:59.999999000Z",
         "ts3": "1969-12-31T23:59:59.999000000", "dec": "-0.001", "nested": {"a": None, "arr": []}},
    ]
    with open(os.path.join(HERE, "java_layout.avro.expected.jsonl"), "w") as f:
        for r in exp:
            f.write(dumps(r) + "\n")


def rowgroups():
    n = 500
    tbl = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array(["n%03d" % i for i in range(n)], pa.string()),
        "v": pa.array([None if i % 7 == 0 else i * 0.5 for i in range(n)], pa.float64()),
    })
    pq.write_table(tbl, os.path.join(HERE, "rowgroups.parquet"), row_group_size=100, compression="zstd")


if __name__ == "__main__":
    main()
