"""Builds the primary-key benchmark tables of issue 5 with Java Paimon and checks their shape.

    python make_pk_table.py [--dir DIR] [--only pk|pk_half] [--force] [--mvn MVN]

DIR defaults to $PAIMON_BENCH_DIR; the warehouse is DIR/warehouse (shared with make_tables.py).
pypaimon cannot compact, so the tables are written by the Java generator
resources/java/.../BenchPkGen.java (Java Paimon 1.3.1, run through Maven):

  bench.pk       1,000,000 keys, 4 buckets, per bucket 8 sorted runs on 4 levels
                 (1 run on level 3, 1 on level 2, 1 on level 1, 5 overlapping runs on level 0),
                 32 files holding 1,428,880 rows for 1,000,000 live keys; ~50 s to write.
  bench.pk_half  the same history with every count halved: 500,000 keys, same buckets and runs,
                 so the two differ in rows per bucket but not in runs per bucket (the memory
                 comparison of tests/bench/pk_bench_test.go); 714,355 rows in 32 files.

BenchPkGen verifies Java's own merged read (row count and sum of the `ver` column against the
history it wrote) and writes a JSON marker. This script then plans the table with pypaimon
(a second manifest reader) and checks that it sees the same files on the same levels before
renaming the marker to DIR/<table>.done, which is what the benchmarks look for. A table whose
marker names the same parameters is left alone; --force rebuilds.
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import time

from pypaimon import CatalogFactory

HERE = os.path.dirname(os.path.abspath(__file__))
JAVA_DIR = os.path.normpath(os.path.join(HERE, "..", "java"))
BUCKETS = 4
TABLES = {"pk": 1_000_000, "pk_half": 500_000}
GENERATOR = "BenchPkGen/1"


def pypaimon_levels(wh, name):
    """bucket -> level -> file count of the latest snapshot, as pypaimon's planner sees it."""
    cat = CatalogFactory.create({"warehouse": wh})
    t = cat.get_table(name)
    out = collections.defaultdict(collections.Counter)
    files = rows = 0
    for sp in t.new_read_builder().new_scan().plan().splits():
        for f in sp.files:
            out[str(sp.bucket)][str(f.level)] += 1
            files += 1
            rows += f.row_count
    return {b: dict(c) for b, c in out.items()}, files, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.environ.get("PAIMON_BENCH_DIR"))
    ap.add_argument("--only", choices=sorted(TABLES))
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--mvn", default=os.environ.get("MVN", "mvn"))
    a = ap.parse_args()
    if not a.dir:
        sys.exit("make_pk_table.py: give --dir or set PAIMON_BENCH_DIR")
    if shutil.which(a.mvn) is None:
        sys.exit("make_pk_table.py: %s not found (Java 17 + Maven build the PK tables)" % a.mvn)
    wh = os.path.join(os.path.abspath(a.dir), "warehouse")
    os.makedirs(wh, exist_ok=True)
    for short, keys in TABLES.items():
        if a.only and a.only != short:
            continue
        name = "bench." + short
        marker = os.path.join(a.dir, name + ".done")
        want = {"keys": keys, "buckets": BUCKETS, "generator": GENERATOR}
        if not a.force and os.path.exists(marker):
            with open(marker) as f:
                if json.load(f).get("params") == want:
                    print("%s: cached (%s)" % (name, marker))
                    continue
        if os.path.exists(marker):
            os.remove(marker)
        tmp = marker + ".tmp"
        print("%s: writing with Java Paimon (BenchPkGen)" % name, flush=True)
        t0 = time.time()
        cmd = [a.mvn, "-q", "compile", "exec:java", "-Dexec.mainClass=org.connectpaimon.gen.BenchPkGen",
               "-Dexec.args=--warehouse %s --table %s --keys %d --buckets %d --marker %s"
               % (wh, name, keys, BUCKETS, tmp)]
        r = subprocess.run(cmd, cwd=JAVA_DIR)
        if r.returncode != 0:
            sys.exit("make_pk_table.py: %s: BenchPkGen failed (exit %d): %s" % (name, r.returncode, " ".join(cmd)))
        with open(tmp) as f:
            meta = json.load(f)
        if meta.get("params") != want:
            sys.exit("make_pk_table.py: %s: generator wrote params %r, want %r" % (name, meta.get("params"), want))
        levels, files, rows = pypaimon_levels(wh, name)
        if levels != meta["levels"] or files != meta["files"] or rows != meta["rows_in_files"]:
            sys.exit("make_pk_table.py: %s: pypaimon plans %d files (%d rows) on %r, Java %d files (%d rows) on %r"
                     % (name, files, rows, levels, meta["files"], meta["rows_in_files"], meta["levels"]))
        for b, lv in sorted(levels.items()):
            runs = lv.get("0", 0) + sum(1 for l in lv if l != "0")
            if runs != 8 or len(lv) != 4:
                sys.exit("make_pk_table.py: %s: bucket %s has %d sorted runs on levels %s, want 8 on 4 levels "
                         "(BenchPkGen's compaction picks did not go as planned)" % (name, b, runs, sorted(lv)))
        os.replace(tmp, marker)
        print("%s: done in %.1f s; %d files, %d rows in files, %d live rows; levels per bucket %s"
              % (name, time.time() - t0, files, rows, meta["rows"], json.dumps(levels, sort_keys=True)), flush=True)


if __name__ == "__main__":
    main()
