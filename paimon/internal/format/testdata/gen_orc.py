"""Generates the ORC decoder fixtures of paimon/internal/format (issue 14).

Run with the pypaimon venv (it has pyarrow):  resources/.venv/bin/python gen_orc.py
pyarrow writes with ORC's C++ writer, an implementation independent of Java's, and
reads back with its C++ reader: the expected rows are that reader's output, so the Go
decoder is checked against a second decoder of the same bytes. Java Paimon's own ORC
files are covered by the Java interop cases (resources/java).

Outputs (small, committed):
  orc_all.fields.json          the Paimon fields the Go test reads the files with
  orc_all_<variant>.orc        the same 500 rows, one file per variant:
                                 zstd, zlib, snappy, lz4, none  (compression, file version 0.12, RLE v2)
                                 v11                            (file version 0.11: RLE v1)
                                 dict                           (every string dictionary-encoded)
                               small stripes so there are several per file, row groups of 16 rows
  orc_all.expected.jsonl       canonical JSON of the rows as pyarrow reads every one of them
"""
import datetime, decimal, json, os, random, sys

import pyarrow as pa
import pyarrow.orc as orc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "resources", "pygen"))
import canon  # noqa: E402

decimal.getcontext().prec = 80
N = 500
rnd = random.Random(14)


def maybe(i, v, every=7):
    return None if i % every == 3 else v


def rows():
    out = {k: [] for k in ["b", "i8", "i16", "i32", "i64", "patched", "delta", "f32", "f64",
                           "dec5", "dec18", "dec38", "s", "lowcard", "bin", "d", "ts", "ts_ms",
                           "lst", "mp", "st"]}
    for i in range(N):
        out["b"].append(maybe(i, i % 3 == 0))
        out["i8"].append(maybe(i, [-128, 127, 0, -1, 5][i % 5] if i % 11 else rnd.randint(-128, 127)))
        out["i16"].append(maybe(i, [-32768, 32767][i % 2] if i % 13 == 0 else rnd.randint(-300, 300)))
        out["i32"].append(maybe(i, 7 if i < 40 else (i * 3 if i < 600 else rnd.randint(-2**31, 2**31 - 1))))
        out["i64"].append(maybe(i, [-2**63, 2**63 - 1, 0][i % 3] if i % 17 == 0 else rnd.randint(-2**62, 2**62)))
        # mostly small with rare large outliers: RLEv2 PATCHED_BASE
        out["patched"].append(rnd.randint(0, 100) if i % 50 else rnd.randint(10**9, 10**12))
        out["delta"].append(1000 - 3 * i)  # monotonic: RLEv2 DELTA
        out["f32"].append(maybe(i, [float("nan"), float("inf"), -0.0, 1.5e-40, 3.4e38][i % 5] if i % 19 == 0 else rnd.uniform(-1e6, 1e6)))
        out["f64"].append(maybe(i, [float("-inf"), 5e-324, 1.7976931348623157e308][i % 3] if i % 23 == 0 else rnd.uniform(-1e12, 1e12)))
        out["dec5"].append(maybe(i, decimal.Decimal(rnd.randint(-99999, 99999)).scaleb(-2)))
        out["dec18"].append(maybe(i, decimal.Decimal(rnd.randint(-10**18 + 1, 10**18 - 1)).scaleb(-4)))
        big = [10**38 - 1, -(10**38 - 1)][i % 2] if i % 29 == 0 else rnd.randint(-10**30, 10**30)
        out["dec38"].append(maybe(i, decimal.Decimal(big).scaleb(-10)))
        out["s"].append(maybe(i, "" if i % 31 == 0 else "s%d-%s" % (i, "ü€😀"[: i % 4]) * (1 + i % 3)))
        out["lowcard"].append(maybe(i, ["red", "green", "blue"][i % 3], every=5))
        out["bin"].append(maybe(i, bytes([i % 256, (i * 7) % 256]) * (i % 4)))
        out["d"].append(maybe(i, datetime.date(1970, 1, 1) + datetime.timedelta(days=rnd.randint(-719000, 2900000))))
        # nanosecond timestamps, before and after 1970
        secs = rnd.randint(-5 * 10**9, 5 * 10**9) if i % 9 else [-1, 0, -86400, 1420070400][i % 4]
        nanos = [0, 1, 999_999_999, 500_000_000, 123_456_000, 100][i % 6]
        if secs < 0:
            # pyarrow's ORC adapter writes C++ remainders (negative nanos) for
            # fractional pre-1970 values, which no Java reader accepts; Java
            # cases cover those.
            nanos = 0
        out["ts"].append(maybe(i, secs * 10**9 + nanos))
        out["ts_ms"].append(maybe(i, (1420070400 + i * 3600) * 1000 + i % 1000))
        out["lst"].append(maybe(i, [maybe(j, i * 10 + j, 4) for j in range(i % 5)]))
        out["mp"].append(maybe(i, [("k%d" % j, maybe(j, j * i, 3)) for j in range(i % 4)]))
        out["st"].append(maybe(i, {"a": maybe(i + 1, i), "b": "x%d" % i}, every=6))
    return out


SCHEMA = pa.schema([
    ("b", pa.bool_()), ("i8", pa.int8()), ("i16", pa.int16()), ("i32", pa.int32()), ("i64", pa.int64()),
    ("patched", pa.int64()), ("delta", pa.int64()),
    ("f32", pa.float32()), ("f64", pa.float64()),
    ("dec5", pa.decimal128(5, 2)), ("dec18", pa.decimal128(18, 4)), ("dec38", pa.decimal128(38, 10)),
    ("s", pa.string()), ("lowcard", pa.string()), ("bin", pa.binary()), ("d", pa.date32()),
    ("ts", pa.timestamp("ns")), ("ts_ms", pa.timestamp("ns")),
    ("lst", pa.list_(pa.int64())), ("mp", pa.map_(pa.string(), pa.int64())),
    ("st", pa.struct([("a", pa.int32()), ("b", pa.string())])),
])

FIELDS = [
    ("b", "BOOLEAN"), ("i8", "TINYINT"), ("i16", "SMALLINT"), ("i32", "INT"), ("i64", "BIGINT"),
    ("patched", "BIGINT"), ("delta", "BIGINT"), ("f32", "FLOAT"), ("f64", "DOUBLE"),
    ("dec5", "DECIMAL(5, 2)"), ("dec18", "DECIMAL(18, 4)"), ("dec38", "DECIMAL(38, 10)"),
    ("s", "STRING"), ("lowcard", "STRING"), ("bin", "BYTES"), ("d", "DATE"),
    ("ts", "TIMESTAMP(9)"), ("ts_ms", "TIMESTAMP(9)"),
    ("lst", {"type": "ARRAY", "element": "BIGINT", "nullable": True}),
    ("mp", {"type": "MAP", "key": "STRING NOT NULL", "value": "BIGINT", "nullable": True}),
    ("st", {"type": "ROW", "fields": [{"id": 100, "name": "a", "type": "INT"}, {"id": 101, "name": "b", "type": "STRING"}], "nullable": True}),
]

VARIANTS = {
    # small chunks: row groups start inside and across compression chunks
    "zstd": dict(compression="zstd", compression_block_size=1024),
    "zlib": dict(compression="zlib", compression_block_size=1024),
    "snappy": dict(compression="snappy"),
    "lz4": dict(compression="lz4"),
    "none": dict(compression="uncompressed"),
    "v11": dict(compression="zlib", file_version="0.11"),
    "dict": dict(compression="zstd", dictionary_key_size_threshold=1.0),
}


def main():
    data = rows()
    table = pa.table({k: pa.array(v, type=SCHEMA.field(k).type) for k, v in data.items()}, schema=SCHEMA)
    expected = None
    for name, kw in VARIANTS.items():
        path = os.path.join(HERE, "orc_all_%s.orc" % name)
        kw.setdefault("compression_block_size", 16 * 1024)
        # row_index_stride=16: ~8 row groups per stripe, for row-group pruning by the row index
        w = orc.ORCWriter(path, stripe_size=1024, batch_size=100, row_index_stride=16, **kw)
        for off in range(0, N, 125):  # each write ends a batch; a tiny stripe size cuts stripes there
            # (built from the Python values: pyarrow's ORC writer ignores the
            # offset of a sliced struct array)
            w.write(pa.table({k: pa.array(v[off:off + 125], type=SCHEMA.field(k).type) for k, v in data.items()}, schema=SCHEMA))
        w.close()
        lines = canon.encode_table(orc.read_table(path))
        if expected is None:
            expected = lines
        assert lines == expected, name
    assert expected == canon.encode_table(table)
    canon.write_lines(os.path.join(HERE, "orc_all.expected.jsonl"), expected)
    fields = [{"id": i, "name": n, "type": t} for i, (n, t) in enumerate(FIELDS)]
    with open(os.path.join(HERE, "orc_all.fields.json"), "w") as f:
        json.dump(fields, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
