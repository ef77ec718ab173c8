"""Appends small commits to a table at random intervals, for the commit-to-plan latency
measurement of tests/bench (TestCommitToPlanLatency).

    python commit_loop.py --warehouse W --table db.t --create
    python commit_loop.py --warehouse W --table db.t --commits N --min-gap S --max-gap S [--seed K]

--create drops and recreates the table (one INT + one STRING column, bucket-unaware) and
commits once, so the reader can start after an existing snapshot. Otherwise each commit
writes one row; after it, a line "committed <snapshot id> <unix seconds, float>" is
printed. The gaps are uniformly random so commits do not line up with the reader's polls.
"""

import argparse
import random
import time

import pyarrow as pa

from pypaimon import CatalogFactory, Schema

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def commit_one(table, i):
    wb = table.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pydict({"id": [i], "v": ["row-%d" % i]}, schema=SCHEMA))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--create", action="store_true")
    ap.add_argument("--commits", type=int, default=0)
    ap.add_argument("--min-gap", type=float, default=0.2)
    ap.add_argument("--max-gap", type=float, default=0.6)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cat = CatalogFactory.create({"warehouse": a.warehouse})
    if a.create:
        cat.create_database(a.table.split(".")[0], True)
        cat.drop_table(a.table, True)
        cat.create_table(a.table, Schema.from_pyarrow_schema(SCHEMA, options={"bucket": "-1"}), False)
        commit_one(cat.get_table(a.table), 0)
        return
    rng = random.Random(a.seed)
    table = cat.get_table(a.table)
    for i in range(1, a.commits + 1):
        time.sleep(rng.uniform(a.min_gap, a.max_gap))
        commit_one(table, i)
        sid = table.snapshot_manager().get_latest_snapshot().id
        print("committed %d %.6f" % (sid, time.time()), flush=True)


if __name__ == "__main__":
    main()
