"""Copies the manifests, index files and plan of Java-written tables into ./java/<table>/.

The tables come from a throwaway Maven project (not committed) using
org.apache.paimon:paimon-bundle:1.3.1; see README.md for what it writes. Run:
resources/.venv/bin/python (or $PAIMON_PYTHON) dump_java.py <warehouse>/db.db/<table> ...
"""
import json
import os
import shutil
import sys

from gen_pypaimon import dump_dir

HERE = os.path.dirname(os.path.abspath(__file__))

for path in sys.argv[1:]:
    name = os.path.basename(path.rstrip("/"))
    with open(os.path.join(path, "java-plan.json")) as fh:
        plan = json.load(fh)
    live = sorted(f["name"] for s in plan["splits"] for f in s["files"])
    dst = os.path.join(HERE, "java", name)
    dump_dir(path, dst, live)
    shutil.copy(os.path.join(path, "java-plan.json"), os.path.join(dst, "java-plan.json"))
