"""Drive pypaimon's ConsumerManager for the Go interop test.

usage: pyconsumer.py <table_path> <branch|""> <op> [args...]
  write <id> <n>            reset_consumer(id, Consumer(n))
  read                      print consumers/min/ids/each as JSON
  clear <incl> [<excl>]     clear_consumers(incl, excl)
  expire <epoch_seconds>    expire(datetime.fromtimestamp(epoch))
"""
import json
import sys
from datetime import datetime

from pypaimon.consumer import Consumer, ConsumerManager
from pypaimon.filesystem.local_file_io import LocalFileIO


def main():
    table, branch, op, args = sys.argv[1], sys.argv[2] or None, sys.argv[3], sys.argv[4:]
    m = ConsumerManager(LocalFileIO(table), table, branch)
    if op == "write":
        m.reset_consumer(args[0], Consumer(next_snapshot=int(args[1])))
    elif op == "read":
        ids = sorted(m.list_all_ids())
        each = {}
        for i in ids:
            c = m.consumer(i)
            each[i] = None if c is None else c.next_snapshot
        print(json.dumps({
            "consumers": m.consumers(),
            "min": m.min_next_snapshot(),
            "ids": ids,
            "each": each,
        }))
    elif op == "clear":
        m.clear_consumers(args[0], args[1] if len(args) > 1 and args[1] else None)
    elif op == "expire":
        m.expire(datetime.fromtimestamp(float(args[0])))
    else:
        raise SystemExit("unknown op " + op)


if __name__ == "__main__":
    main()
