# Generates partitions.json: a pypaimon 2.1.0 table partitioned by many types;
# dumps each manifest entry's raw _PARTITION / _VALUE_STATS bytes as hex with the
# values this script wrote, so the Go decoder is checked against real files.
# Run: resources/.venv/bin/python (or $PAIMON_PYTHON) gen_rows.py <out.json>
import json, sys, tempfile, glob, os, datetime, decimal
import pyarrow as pa
import fastavro
from pypaimon import CatalogFactory, Schema

out = sys.argv[1]
wh = tempfile.mkdtemp()
cat = CatalogFactory.create({'warehouse': wh})
cat.create_database('db', True)
part = [('p_int', pa.int32()), ('p_bigint', pa.int64()), ('p_str', pa.string()),
        ('p_date', pa.date32()), ('p_bool', pa.bool_()), ('p_dec', pa.decimal128(10, 2)),
        ('p_bigdec', pa.decimal128(25, 5)), ('p_ts3', pa.timestamp('ms')), ('p_ts6', pa.timestamp('us'))]
vals = [('v_tiny', pa.int8()), ('v_small', pa.int16()), ('v_float', pa.float32()),
        ('v_double', pa.float64()), ('v_str', pa.string()), ('v_bin', pa.binary()),
        ('v_int', pa.int32())]
schema = pa.schema(part + vals)
cat.create_table('db.t', Schema.from_pyarrow_schema(schema, partition_keys=[n for n, _ in part], options={'metadata.stats-mode': 'full'}), False)
t = cat.get_table('db.t')
D = decimal.Decimal
parts = [
    (1, 1 << 40, 'a', datetime.date(2024, 1, 2), True, D('12.30'), D('12345678901234567890.12345'),
     datetime.datetime(2024, 1, 2, 3, 4, 5, 678000), datetime.datetime(2024, 1, 2, 3, 4, 5, 678901)),
    (-7, -(1 << 62), 'a long partition value über 7 bytes ✓', datetime.date(1969, 12, 31), False,
     D('-0.01'), D('-99999999999999999999.99999'),
     datetime.datetime(1969, 12, 31, 23, 59, 59, 999000), datetime.datetime(1960, 1, 1, 0, 0, 0, 1)),
    (0, 0, '', datetime.date(1970, 1, 1), True, D('0.00'), D('0.00000'),
     datetime.datetime(1970, 1, 1), datetime.datetime(1970, 1, 1)),
    (2147483647, 9223372036854775807, 'sevenb7', datetime.date(9999, 12, 31), False,
     D('99999999.99'), D('1.00001'), datetime.datetime(2262, 4, 11), datetime.datetime(2038, 1, 19, 3, 14, 7, 999999)),
]
rows = []
for i, p in enumerate(parts):
    for j in range(3):
        v = (i * 10 + j - 5, (i + 1) * 1000 - j, float(j) / 4 - i, j * 1.5e300 - i,
             ['x', 'héllo', 'zz' * 10][j] if j != 1 or i % 2 == 0 else None,
             bytes([i, j, 255]), None if i == 3 else j)
        rows.append(p + v)
cols = list(zip(*rows))
tbl = pa.Table.from_arrays([pa.array(list(c), type=ty) for c, (_, ty) in zip(cols, part + vals)], schema=schema)
wb = t.new_batch_write_builder()
w = wb.new_write(); c = wb.new_commit()
w.write_arrow(tbl); c.commit(w.prepare_commit()); w.close(); c.close()

def canon(v, ty):
    if v is None: return None
    if isinstance(v, bool): return v
    if isinstance(v, int): return str(v)
    if isinstance(v, float): return repr(v)
    if isinstance(v, D): return str(v)
    if isinstance(v, datetime.datetime): return v.strftime('%Y-%m-%dT%H:%M:%S.%f')
    if isinstance(v, datetime.date): return v.isoformat()
    if isinstance(v, bytes): return 'hex:' + v.hex()
    return v

entries = []
for mf in sorted(glob.glob(os.path.join(wh, 'db.db', 't', 'manifest', 'manifest-*'))):
    if 'manifest-list' in mf: continue
    with open(mf, 'rb') as f:
        for rec in fastavro.reader(f):
            fi = rec['_FILE']
            st = fi['_VALUE_STATS']
            entries.append({'partition': rec['_PARTITION'].hex(),
                            'min_key': fi['_MIN_KEY'].hex(),
                            'row_count': fi['_ROW_COUNT'],
                            'stats_cols': fi.get('_VALUE_STATS_COLS'),
                            'min_values': st['_MIN_VALUES'].hex(), 'max_values': st['_MAX_VALUES'].hex(),
                            'null_counts': st['_NULL_COUNTS']})
# Expected values come from the rows written above, not from any deserializer.
expected_parts = [[canon(v, None) for v in p] for p in parts]
expected_stats = []
for i, p in enumerate(parts):
    # Stats rows cover every schema column (partition columns too) when
    # _VALUE_STATS_COLS is null.
    grp = [r for r in rows if r[:len(part)] == p]
    mins, maxs, nulls = [], [], []
    for k in range(len(part) + len(vals)):
        col = [g[k] for g in grp if g[k] is not None]
        mins.append(canon(min(col), None) if col else None)
        maxs.append(canon(max(col), None) if col else None)
        nulls.append(sum(1 for g in grp if g[k] is None))
    expected_stats.append({'partition': expected_parts[i], 'min': mins, 'max': maxs, 'nulls': nulls})
json.dump({'partition_types': ['INT', 'BIGINT', 'STRING', 'DATE', 'BOOLEAN', 'DECIMAL(10, 2)', 'DECIMAL(25, 5)', 'TIMESTAMP(3)', 'TIMESTAMP(6)'],
           'all_names': [n for n, _ in part + vals],
           'value_types': ['TINYINT', 'SMALLINT', 'FLOAT', 'DOUBLE', 'STRING', 'BYTES', 'INT'],
           'entries': entries, 'expected': expected_stats}, open(out, 'w'), indent=1, ensure_ascii=False)
print(len(entries), 'entries', wh)
