"""Generates dictionary.parquet, the dictionary-read fixture of paimon/internal/format (issue 16).

Run with the pypaimon 2.1.0 venv:  resources/.venv/bin/python gen_dict.py
pyarrow (the Parquet writer of pypaimon and of bench.wide) dictionary-encodes every column; the
file is cut so that the read path sees: dictionaries of thousands of entries (more than the 1,024
indices arrow-go resolves at a time), nulls, three row groups each with its own dictionaries,
dictionaries outgrowing the 16 KiB page-size limit mid-column (later pages of the chunk PLAIN, the
fallback parquet-java and parquet-cpp share), and dictionary-encoded leaves of lists, structs and
maps. Outputs: dictionary.parquet (and dictionary_v2.parquet, the same rows in V2 data pages),
dictionary.fields.json (Options.Fields),
dictionary.parquet.expected.jsonl (rows as pyarrow reads them back, canonical JSON).
"""
import decimal
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

from gen import HERE, write_expected

N = 9_000
GROUP = 4_000

FIELDS = [
    (0, "id", "BIGINT NOT NULL", pa.int64(), False),
    (1, "i", "INT", pa.int32(), True),
    (2, "s", "STRING", pa.string(), True),
    (3, "dec", "DECIMAL(18, 2)", pa.decimal128(18, 2), True),
    (4, "d", "DOUBLE", pa.float64(), True),
    (5, "tag", "STRING", pa.string(), True),
    (6, "arr", "ARRAY<STRING>", pa.list_(pa.field("element", pa.string())), True),
    (7, "st", "ROW<a STRING, b INT>", pa.struct([("a", pa.string()), ("b", pa.int32())]), True),
    (8, "m", "MAP<STRING, BIGINT>", pa.map_(pa.string(), pa.int64()), True),
    # Decimals whose chunks stay dictionary-encoded throughout, at each
    # FIXED_LEN_BYTE_ARRAY width class pyarrow picks from the precision (1, 4,
    # 8 and 16 bytes), with nulls, negatives and the extremes of each
    # precision: the decimal dictionary read (dictcol.go).
    (9, "dec1", "DECIMAL(2, 1)", pa.decimal128(2, 1), True),
    (10, "dec4", "DECIMAL(9, 0)", pa.decimal128(9, 0), True),
    (11, "dec8", "DECIMAL(18, 4)", pa.decimal128(18, 4), True),
    (12, "dec16", "DECIMAL(38, 10)", pa.decimal128(38, 10), False),
]

DEC1 = [decimal.Decimal(v) for v in ("9.9", "-9.9", "0.0", "-0.1", "0.1", "5.5")]
DEC4 = [decimal.Decimal(v) for v in ("999999999", "-999999999", "0", "-1", "1", "128", "-129", "65536")]
DEC8 = [decimal.Decimal(v) for v in ("99999999999999.9999", "-99999999999999.9999", "0.0000",
                                     "-0.0001", "1234.5678", "-2147483648.0001")]
DEC16 = [decimal.Decimal(v) for v in ("9999999999999999999999999999.9999999999",
                                      "-9999999999999999999999999999.9999999999",
                                      "0E-10", "-0.0000000001", "18446744073709551616.0000000001",
                                      "-9223372036854775808.5")]


def row(x):
    return {
        "id": x * 3,
        "i": None if x % 7 == 0 else x % 3000 - 1500,
        "s": None if x % 5 == 0 else 'name-"%d"-\u00e9' % (x % 4000),
        "dec": decimal.Decimal(x % 4000 * 7).scaleb(-2),
        "d": None if x % 9 == 0 else (x % 2500) * 0.25,
        "tag": None if x % 3 == 0 else "t%d" % (x % 7),
        "arr": None if x % 11 == 0 else [None if k == 2 else "e%d" % ((x + k) % 1500) for k in range(x % 4)],
        "st": None if x % 13 == 0 else {"a": "a%d" % (x % 2000), "b": None if x % 2 == 0 else x % 1700},
        "m": None if x % 17 == 0 else [("k%d" % k, x % 1800 + k) for k in range(x % 3)],
        "dec1": None if x % 4 == 0 else DEC1[x % len(DEC1)],
        "dec4": None if x % 6 == 1 else DEC4[x % len(DEC4)],
        "dec8": None if x % 10 == 3 else DEC8[x % len(DEC8)],
        "dec16": DEC16[x % len(DEC16)],
    }


def main():
    rows = [row(x) for x in range(N)]
    schema = pa.schema([pa.field(n, t, nullable=nb) for _, n, _, t, nb in FIELDS])
    tbl = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(tbl, os.path.join(HERE, "dictionary.parquet"), row_group_size=GROUP,
                   data_page_size=4 << 10, dictionary_pagesize_limit=16 << 10, compression="zstd")
    back = pq.read_table(os.path.join(HERE, "dictionary.parquet"))
    write_expected("dictionary.parquet.expected.jsonl", back)
    # The same rows in V2 data pages (levels outside the compressed values), for the
    # dictionary-array reader; pyarrow reads both files back identically.
    pq.write_table(tbl, os.path.join(HERE, "dictionary_v2.parquet"), row_group_size=GROUP,
                   data_page_size=4 << 10, dictionary_pagesize_limit=16 << 10, compression="zstd",
                   data_page_version="2.0")
    if pq.read_table(os.path.join(HERE, "dictionary_v2.parquet")) != back:
        raise SystemExit("dictionary_v2.parquet reads back differently")
    with open(os.path.join(HERE, "dictionary.fields.json"), "w") as f:
        json.dump([{"id": i, "name": n, "type": s} for i, n, s, _, _ in FIELDS], f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
