"""pypaimon 2.1.0 on an S3 warehouse, driven line by line from stdin, so a Go
test can commit while its streaming scan follows the table and can check
consumer files with pypaimon's own ConsumerManager.

    s3writer.py ENDPOINT ACCESS_KEY SECRET_KEY WAREHOUSE

Commands (one per line; each answers one line "ok ..." or "error ..."):
    create db.t BUCKETS          table (id INT, name STRING), append-only
    append db.t START COUNT      one commit of ids START..START+COUNT-1,
                                 name "n<id>"; answers "ok <snapshot id>"
    consumer db.t ID             answers "ok <next_snapshot>" or "ok none"
    setconsumer db.t ID N        reset_consumer(ID, Consumer(N))
"""
import sys
import traceback

import pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon.consumer import Consumer, ConsumerManager

SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string())])


def main():
    endpoint, access, secret, warehouse = sys.argv[1:5]
    cat = CatalogFactory.create({
        "warehouse": warehouse,
        "fs.s3.endpoint": endpoint,
        "fs.s3.accessKeyId": access,
        "fs.s3.accessKeySecret": secret,
        "fs.s3.region": "us-east-1",
        "fs.s3.path.style.access": "true",
    })
    for line in sys.stdin:
        args = line.split()
        if not args:
            continue
        try:
            print("ok " + run(cat, args), flush=True)
        except Exception as e:  # report, keep serving: the Go side fails the test
            traceback.print_exc()
            print("error %s: %s" % (type(e).__name__, str(e).replace("\n", " ")), flush=True)


def run(cat, args):
    cmd, name = args[0], args[1]
    if cmd == "create":
        buckets = args[2]
        opts = {"bucket": buckets}
        if buckets != "-1":
            opts["bucket-key"] = "id"
        cat.create_database(name.split(".")[0], True)
        cat.create_table(name, Schema.from_pyarrow_schema(SCHEMA, options=opts), False)
        return name
    table = cat.get_table(name)
    if cmd == "append":
        start, count = int(args[2]), int(args[3])
        ids = list(range(start, start + count))
        data = pa.Table.from_pydict({"id": ids, "name": ["n%d" % i for i in ids]}, schema=SCHEMA)
        wb = table.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(data)
        c.commit(w.prepare_commit())
        w.close()
        c.close()
        return str(table.snapshot_manager().get_latest_snapshot().id)
    m = ConsumerManager(table.file_io, table.table_path)
    if cmd == "consumer":
        c = m.consumer(args[2])
        return "none" if c is None else str(c.next_snapshot)
    if cmd == "setconsumer":
        m.reset_consumer(args[2], Consumer(next_snapshot=int(args[3])))
        return args[3]
    raise ValueError("unknown command " + cmd)


if __name__ == "__main__":
    main()
