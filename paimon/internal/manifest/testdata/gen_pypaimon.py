"""Regenerates the pypaimon-written manifest fixtures of paimon/internal/manifest.

Run: resources/.venv/bin/python (or $PAIMON_PYTHON) gen_pypaimon.py <scratch warehouse dir>
(pypaimon 2.1.0). It writes small tables, copies every Avro file under each table's
manifest/ directory into ./pypaimon/<table>/, and writes ./pypaimon/<table>/expected.json:
what fastavro reads from each file (bytes as hex) plus, per snapshot, the manifest lists
and the live data files pypaimon's own scan plans. The Go tests compare against that.
"""
import datetime
import json
import os
import shutil
import sys

import fastavro
import pyarrow as pa
from pypaimon import CatalogFactory, Schema

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pypaimon")


def jsonable(v):
    if isinstance(v, bytes):
        return {"hex": v.hex()}
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    if isinstance(v, datetime.datetime):
        # fastavro turns timestamp-millis into an aware datetime; keep the raw millis
        # (exact integer arithmetic, no float rounding).
        return {"millis": (v - EPOCH) // datetime.timedelta(milliseconds=1)}
    return v


def commit(table, data, overwrite=None):
    wb = table.new_batch_write_builder()
    if overwrite is not None:
        wb = wb.overwrite(overwrite)
    w = wb.new_write()
    c = wb.new_commit()
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def live_files(table):
    rb = table.new_read_builder()
    out = []
    for split in rb.new_scan().plan().splits():
        for f in split.files:
            out.append(f.file_name)
    return sorted(out)


def dump(table, name):
    path = table.table_path if hasattr(table, "table_path") else table.path
    path = str(path).replace("file://", "")
    dump_dir(path, os.path.join(OUT, name), live_files(table))


def dump_dir(path, dst, live):
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    files = {}
    for fn in sorted(os.listdir(os.path.join(path, "manifest"))):
        src = os.path.join(path, "manifest", fn)
        shutil.copy(src, os.path.join(dst, fn))
        with open(src, "rb") as fh:
            r = fastavro.reader(fh)
            files[fn] = {
                "codec": r.codec,
                "recordName": r.writer_schema.get("name"),
                "records": [jsonable(rec) for rec in r],
            }
    snapshots = []
    snapdir = os.path.join(path, "snapshot")
    ids = sorted(int(f.split("-")[1]) for f in os.listdir(snapdir) if f.startswith("snapshot-"))
    for sid in ids:
        with open(os.path.join(snapdir, "snapshot-%d" % sid)) as fh:
            s = json.load(fh)
        snapshots.append({
            "id": sid,
            "commitKind": s.get("commitKind"),
            "baseManifestList": s["baseManifestList"],
            "deltaManifestList": s["deltaManifestList"],
            "indexManifest": s.get("indexManifest"),
        })
    # the writer's own plan of the latest snapshot: the oracle for entry merging.
    snapshots[-1]["liveFiles"] = live
    # index files (deletion vectors) are tiny; keep them for the deletionvector package too.
    idx = os.path.join(path, "index")
    if os.path.isdir(idx):
        os.makedirs(os.path.join(dst, "index"))
        for fn in sorted(os.listdir(idx)):
            shutil.copy(os.path.join(idx, fn), os.path.join(dst, "index", fn))
    with open(os.path.join(dst, "expected.json"), "w") as fh:
        json.dump({"files": files, "snapshots": snapshots}, fh, indent=1, sort_keys=True)


def main():
    wh = sys.argv[1]
    shutil.rmtree(wh, ignore_errors=True)
    cat = CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    pa_schema = pa.schema([("pt", pa.string()), ("id", pa.int32()), ("v", pa.string())])

    def rows(pt, ids):
        return pa.Table.from_pydict(
            {"pt": [pt] * len(ids), "id": ids, "v": ["v%d" % i for i in ids]}, schema=pa_schema)

    # Partitioned append tables, one per manifest codec: three appends, then an OVERWRITE
    # of partition "a" (DELETE entries for a's files), then another append.
    for codec in ["null", "deflate", "snappy", "zstd", "bzip2", "xz"]:
        name = "append_" + codec
        cat.create_table("db." + name, Schema.from_pyarrow_schema(
            pa_schema, partition_keys=["pt"], options={"manifest.compression": codec}), False)
        t = cat.get_table("db." + name)
        commit(t, rows("a", [1, 2]))
        commit(t, rows("b", [3]))
        commit(t, rows("a", [4]))
        commit(t, rows("a", [5, 6]), overwrite={"pt": "a"})
        commit(t, rows("b", [7]))
        dump(t, name)

    # Primary-key table with two buckets and an update of existing keys.
    pk_schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("v", pa.string())])
    cat.create_table("db.pk", Schema.from_pyarrow_schema(
        pk_schema, primary_keys=["id"], options={"bucket": "2"}), False)
    t = cat.get_table("db.pk")
    commit(t, pa.Table.from_pydict({"id": [1, 2, 3, 4], "v": ["a", "b", "c", "d"]}, schema=pk_schema))
    commit(t, pa.Table.from_pydict({"id": [2, 3], "v": ["B", "C"]}, schema=pk_schema))
    dump(t, "pk")

    # Data-evolution table with deletion vectors: delete_by_row_id writes a DV index file
    # and an index manifest.
    cat.create_table("db.dv", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int32()), ("v", pa.string())]),
        options={"row-tracking.enabled": "true", "data-evolution.enabled": "true",
                 "deletion-vectors.enabled": "true"}), False)
    t = cat.get_table("db.dv")
    commit(t, pa.Table.from_pydict({"id": list(range(10)), "v": ["x%d" % i for i in range(10)]},
                                   schema=pa.schema([("id", pa.int32()), ("v", pa.string())])))
    wb = t.new_batch_write_builder()
    msgs = wb.new_update().delete_by_row_id([2, 3, 7])
    c = wb.new_commit()
    c.commit(msgs)
    c.close()
    dump(t, "dv")


if __name__ == "__main__":
    main()
