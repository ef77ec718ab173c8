"""Streaming oracle: pypaimon commits a scripted sequence while a Go streaming scan follows the
table, and after every commit records what pypaimon itself reads back for exactly that commit.

Sub-commands (the warehouse is always the first argument after the command):

    gen_stream.py script WH
        The scripted sequence on db.stream (id INT, name STRING, v INT, p STRING; partition p,
        bucket 2, bucket-key id): appends to several partitions/buckets, a partition overwrite,
        add/rename/drop column, a widen INT->BIGINT, appends after each. Protocol on stdin/stdout,
        one JSON object per line:
          {"event":"created"}                          then waits for a line on stdin
          {"event":"commit", "step":..., ...}          after each commit; when "wait" is true it
                                                       waits for a line on stdin before going on
          {"event":"done"}
        The Go side expires snapshots (pypaimon has none) while the script waits.
    gen_stream.py appends WH TABLE N [--create BUCKET] [--start K]
        N single-commit appends of two rows each to TABLE; prints one commit line per snapshot.
        Columns are filled by type (INT/BIGINT: a running id, STRING: "r<id>"), so it also
        writes to tables created by Java (javagen.commits: id INT, p INT, s STRING).
    gen_stream.py pystream WH TABLE [--next N] [--buckets 0,1] [--plans K] [--timeout S]
        Runs pypaimon's own streaming scan (new_stream_read_builder) and prints one line per
        plan: {"event":"plan","rows":[...],"next":...}; {"event":"timeout"} when no plan came
        within S seconds; {"event":"error","type":...,"message":...} when it raised. Used to
        show pypaimon's documented defects next to the Go behaviour that replaces them.
    gen_stream.py consumer WH TABLE ID
        pypaimon's ConsumerManager view of consumer ID: {"nextSnapshot": n} or {"missing": true}.

Commit lines carry "rows" = canonical JSON lines (canon.py) of pypaimon's streaming follow-up
plan for that snapshot, read with to_arrow, and "written" = the canonical lines of the Arrow
table handed to the writer; the script fails if the two differ (the oracle checks itself).
For a snapshot pypaimon's follow-up scanner does not scan (OVERWRITE with
changelog-producer=none), "scanned" is false and "rows" is empty: that is Java's rule too.
"""

import asyncio
import json
import os
import sys

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canon  # noqa: E402

from pypaimon import CatalogFactory, Schema  # noqa: E402
from pypaimon.schema.data_types import AtomicType  # noqa: E402
from pypaimon.schema.schema_change import SchemaChange  # noqa: E402

_ARROW = {"INT": pa.int32(), "BIGINT": pa.int64(), "STRING": pa.string(), "DOUBLE": pa.float64()}


def emit(obj):
    sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
    sys.stdout.flush()


def wait_go():
    line = sys.stdin.readline()
    if not line:
        raise SystemExit("gen_stream: stdin closed while waiting for the go-ahead")


def arrow_schema(table):
    fields = []
    for f in table.table_schema.fields:
        name = str(f.type).replace(" NOT NULL", "")
        if name not in _ARROW:
            raise SystemExit("gen_stream: no Arrow type for column %s %s" % (f.name, f.type))
        fields.append((f.name, _ARROW[name]))
    return pa.schema(fields)


def follow_up_rows(table, snapshot_id):
    """pypaimon's streaming follow-up plan of exactly snapshot_id, read to Arrow."""
    srb = table.new_stream_read_builder()
    scan = srb.new_streaming_scan()
    snap = table.snapshot_manager().get_snapshot_by_id(snapshot_id)
    if not scan.follow_up_scanner.should_scan(snap):
        return False, [], snap
    scan._prefetch_enabled = False
    scan.next_snapshot_id = snapshot_id
    gen = scan.stream_sync()
    plan = next(gen)
    if scan.next_snapshot_id != snapshot_id + 1:
        raise SystemExit("gen_stream: pypaimon planned up to %d, wanted snapshot %d"
                         % (scan.next_snapshot_id - 1, snapshot_id))
    rows = canon.encode_table(srb.new_read().to_arrow(plan.splits()))
    return True, rows, snap


def commit(cat, name, rows, overwrite=None):
    """Writes rows (list of dicts) in one commit; returns the commit record."""
    table = cat.get_table(name)
    data = pa.Table.from_pylist(rows, schema=arrow_schema(table))
    wb = table.new_batch_write_builder()
    if overwrite is not None:
        wb = wb.overwrite(overwrite)
    w = wb.new_write()
    w.write_arrow(data)
    c = wb.new_commit()
    c.commit(w.prepare_commit())
    w.close()
    c.close()
    table = cat.get_table(name)
    sid = table.snapshot_manager().get_latest_snapshot().id
    scanned, got, snap = follow_up_rows(table, sid)
    written = canon.encode_table(data)
    if scanned and got != written:
        raise SystemExit("gen_stream: pypaimon read of snapshot %d differs from what was written:\n%s\n%s"
                         % (sid, got, written))
    return {"event": "commit", "snapshot": sid, "kind": snap.commit_kind, "schema_id": snap.schema_id,
            "scanned": scanned, "rows": got, "written": written}


def script(wh):
    cat = CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    name = "db.stream"
    fields = [("id", pa.int32()), ("name", pa.string()), ("v", pa.int32()), ("p", pa.string())]
    cat.create_table(name, Schema.from_pyarrow_schema(
        pa.schema(fields), partition_keys=["p"], options={"bucket": "2", "bucket-key": "id"}), False)
    emit({"event": "created", "table": name})
    wait_go()

    def rows(ids, part, **extra):
        out = []
        for i in ids:
            r = {"id": i, "p": part}
            for k, f in extra.items():
                r[k] = f(i)
            out.append(r)
        return out

    name_v = {"name": lambda i: "n%d" % i, "v": lambda i: i * 10}
    label_v = {"label": lambda i: "l%d" % i, "v": lambda i: i * 10}
    # (step, schema change before the commit, rows, overwrite partition, wait for go-ahead)
    steps = [
        ("append a+b", None, rows(range(0, 8), "a", **name_v) + rows(range(8, 16), "b", **name_v), None, True),
        ("append a (burst 1/2)", None, rows(range(16, 20), "a", **name_v), None, False),
        ("append b (burst 2/2)", None, rows(range(20, 24), "b", **name_v), None, True),
        ("overwrite a", None, rows(range(100, 103), "a", **name_v), {"p": "a"}, True),
        ("add column score", [SchemaChange.add_column("score", AtomicType("DOUBLE"))],
         rows(range(30, 34), "b", score=lambda i: i + 0.5, **name_v), None, True),
        ("rename name->label", [SchemaChange.rename_column("name", "label")],
         rows(range(40, 43), "a", score=lambda i: -i / 4, **label_v), None, True),
        ("drop column score", [SchemaChange.drop_column("score")],
         rows(range(50, 52), "b", **label_v), None, True),
        ("widen v INT->BIGINT", [SchemaChange.update_column_type("v", AtomicType("BIGINT"))],
         rows(range(60, 62), "a", label=lambda i: "w%d" % i, v=lambda i: (1 << 40) + i), None, True),
        ("append after expiry", None,
         rows(range(70, 73), "b", label=lambda i: "e%d" % i, v=lambda i: -i), None, True),
    ]
    for n, (step, changes, data, overwrite, wait) in enumerate(steps, 1):
        if changes:
            cat.alter_table(name, changes, False)
        rec = commit(cat, name, data, overwrite)
        rec.update({"step": n, "name": step, "wait": wait})
        emit(rec)
        if wait:
            wait_go()
    emit({"event": "done"})


def appends(wh, name, n, create_bucket, start):
    cat = CatalogFactory.create({"warehouse": wh})
    if create_bucket is not None:
        cat.create_database(name.split(".")[0], True)
        opts = {"bucket": create_bucket}
        if create_bucket != "-1":
            opts["bucket-key"] = "id"
        cat.create_table(name, Schema.from_pyarrow_schema(
            pa.schema([("id", pa.int32()), ("s", pa.string())]), options=opts), False)
    table = cat.get_table(name)
    cols = [(f.name, str(f.type).replace(" NOT NULL", "")) for f in table.table_schema.fields]
    k = start
    for _ in range(n):
        data = []
        for i in (k, k + 1):
            r = {}
            for c, typ in cols:
                r[c] = "r%d" % i if typ == "STRING" else (i % 2 if c == "p" else i)
            data.append(r)
        k += 2
        emit(commit(cat, name, data))


def pystream(wh, name, next_id, buckets, plans, timeout):
    cat = CatalogFactory.create({"warehouse": wh})
    table = cat.get_table(name)
    srb = table.new_stream_read_builder().with_poll_interval_ms(50)
    if buckets is not None:
        srb = srb.with_buckets(buckets)
    scan = srb.new_streaming_scan()
    if next_id is not None:
        scan.next_snapshot_id = next_id

    async def run():
        gen = scan.stream()
        for _ in range(plans):
            try:
                plan = await asyncio.wait_for(gen.__anext__(), timeout)
            except asyncio.TimeoutError:
                emit({"event": "timeout", "next": scan.next_snapshot_id})
                return
            except Exception as e:  # the point is to report what pypaimon raises
                emit({"event": "error", "type": type(e).__name__, "message": str(e)})
                return
            splits = plan.splits()
            emit({"event": "plan", "next": scan.next_snapshot_id,
                  "buckets": sorted({s.bucket for s in splits}),
                  "rows": canon.encode_table(srb.new_read().to_arrow(splits))})

    asyncio.run(run())
    os._exit(0)  # pypaimon's prefetch thread may still be polling


def consumer(wh, name, cid):
    from pypaimon.consumer.consumer_manager import ConsumerManager
    cat = CatalogFactory.create({"warehouse": wh})
    table = cat.get_table(name)
    c = ConsumerManager(table.file_io, table.table_path).consumer(cid)
    emit({"missing": True} if c is None else {"nextSnapshot": c.next_snapshot})


def flag(args, name, default=None):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return v
    return default


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    cmd, wh = args[0], args[1]
    rest = args[2:]
    if cmd == "script":
        script(wh)
    elif cmd == "appends":
        create = flag(rest, "--create")
        start = int(flag(rest, "--start", "0"))
        appends(wh, rest[0], int(rest[1]), create, start)
    elif cmd == "pystream":
        nxt = flag(rest, "--next")
        b = flag(rest, "--buckets")
        plans = int(flag(rest, "--plans", "1"))
        timeout = float(flag(rest, "--timeout", "10"))
        pystream(wh, rest[0], int(nxt) if nxt else None,
                  [int(x) for x in b.split(",")] if b else None, plans, timeout)
    elif cmd == "consumer":
        consumer(wh, rest[0], rest[1])
    else:
        raise SystemExit("gen_stream: unknown command %r\n%s" % (cmd, __doc__))


if __name__ == "__main__":
    main()
