"""Test helper: commits to a pypaimon table, one command per invocation, so Go
tests can change a table while a streaming scan follows it.

    pywriter.py WAREHOUSE create db.t [bucket] [partitioned]
    pywriter.py WAREHOUSE append db.t START COUNT [part]
    pywriter.py WAREHOUSE overwrite db.t START COUNT [part]
    pywriter.py WAREHOUSE addcol db.t NAME
    pywriter.py WAREHOUSE serve        (commands as lines on stdin, "ok"/"err ..." replies)

Rows are (id INT, name STRING[, p STRING]); name = "n<id>".
"""
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import AtomicType
from pypaimon.schema.schema_change import SchemaChange


def main():
    if sys.argv[2] == "serve":
        # One process for a whole test: importing pypaimon costs more than
        # a commit, and tests make many commits.
        for line in sys.stdin:
            args = line.split()
            if not args:
                continue
            try:
                run([sys.argv[1]] + args)
                print("ok", flush=True)
            except Exception as e:  # reported to the Go test, which fails
                print("err " + repr(e).replace("\n", " "), flush=True)
        return
    run(sys.argv[1:])


def run(argv):
    wh, cmd, name = argv[0], argv[1], argv[2]
    sys.argv = [sys.argv[0]] + argv
    cat = CatalogFactory.create({"warehouse": wh})
    db = name.split(".")[0]
    if cmd == "create":
        bucket = sys.argv[4] if len(sys.argv) > 4 else "-1"
        part = len(sys.argv) > 5 and sys.argv[5] == "partitioned"
        fields = [("id", pa.int32()), ("name", pa.string())]
        if part:
            fields.append(("p", pa.string()))
        opts = {"bucket": bucket}
        if bucket != "-1":
            opts["bucket-key"] = "id"
        cat.create_database(db, True)
        cat.create_table(name, Schema.from_pyarrow_schema(pa.schema(fields), partition_keys=["p"] if part else None, options=opts), False)
        return
    table = cat.get_table(name)
    if cmd == "addcol":
        cat.alter_table(name, [SchemaChange.add_column(sys.argv[4], AtomicType("BIGINT"))], False)
        return
    start, count = int(sys.argv[4]), int(sys.argv[5])
    part = sys.argv[6] if len(sys.argv) > 6 else None
    cols = [f.name for f in table.table_schema.fields]
    data = {"id": list(range(start, start + count)), "name": ["n%d" % i for i in range(start, start + count)]}
    if "p" in cols:
        data["p"] = [part] * count
    for c in cols:
        if c not in data:
            data[c] = [None] * count
    schema = pa.schema([(c, pa.int32() if c == "id" else pa.int64() if c not in ("name", "p") else pa.string()) for c in cols])
    tbl = pa.Table.from_pydict(data, schema=schema)
    wb = table.new_batch_write_builder()
    if cmd == "overwrite":
        wb = wb.overwrite({"p": part} if part else {})
    w = wb.new_write()
    w.write_arrow(tbl)
    c = wb.new_commit()
    c.commit(w.prepare_commit())
    w.close()
    c.close()


if __name__ == "__main__":
    main()
