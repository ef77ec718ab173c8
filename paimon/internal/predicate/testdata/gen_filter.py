# Writes an append table with pypaimon 2.1.0, copies its single Parquet data
# file to testdata/filter.parquet and, for each filter in CASES, the row ids
# pypaimon's own filtered read returns (read_builder.with_filter) into
# filter_expected.json. Run: resources/.venv/bin/python (or $PAIMON_PYTHON) gen_filter.py
import json, os, glob, shutil, tempfile, datetime, decimal
import pyarrow as pa
from pypaimon import CatalogFactory, Schema

here = os.path.dirname(os.path.abspath(__file__))
wh = tempfile.mkdtemp()
cat = CatalogFactory.create({'warehouse': wh})
cat.create_database('db', True)
schema = pa.schema([('id', pa.int64()), ('i', pa.int32()), ('s', pa.string()), ('d', pa.float64()),
                    ('dec', pa.decimal128(10, 2)), ('dt', pa.date32()), ('ts', pa.timestamp('us')),
                    ('b', pa.bool_())])
cat.create_table('db.t', Schema.from_pyarrow_schema(schema), False)
t = cat.get_table('db.t')
D = decimal.Decimal
rows = []
words = ['apple', 'apricot', 'banana', 'cherry', 'date', None, 'élan', 'zebra', 'app', '']
for k in range(60):
    rows.append({
        'id': k,
        'i': None if k % 7 == 3 else (k * 37) % 23 - 11,
        's': words[k % len(words)],
        'd': None if k % 11 == 5 else ((k * 13) % 17) / 4.0 - 2.0,
        'dec': None if k % 9 == 4 else D((k * 7919) % 2001 - 1000) / 100,
        'dt': None if k % 13 == 6 else datetime.date(2024, 1, 1) + datetime.timedelta(days=k % 5),
        'ts': None if k % 8 == 2 else datetime.datetime(2024, 1, 1) + datetime.timedelta(microseconds=k * 1500001),
        'b': None if k % 6 == 1 else k % 2 == 0,
    })
tbl = pa.Table.from_pylist(rows, schema=schema)
wb = t.new_batch_write_builder()
w = wb.new_write(); c = wb.new_commit()
w.write_arrow(tbl); c.commit(w.prepare_commit()); w.close(); c.close()
files = glob.glob(os.path.join(wh, 'db.db', 't', 'bucket-*', '*.parquet'))
assert len(files) == 1, files
shutil.copy(files[0], os.path.join(here, 'filter.parquet'))

# (name, go expression for Parse, pypaimon builder call)
CASES = [
    ('i_ge', 'i >= 3', lambda pb: pb.greater_or_equal('i', 3)),
    ('i_ne', 'i <> 0', lambda pb: pb.not_equal('i', 0)),
    ('i_in', 'i IN (1, -11, 5)', lambda pb: pb.is_in('i', [1, -11, 5])),
    ('i_notin', 'i NOT IN (1, -11, 5)', lambda pb: pb.is_not_in('i', [1, -11, 5])),
    ('s_eq', "s = 'banana'", lambda pb: pb.equal('s', 'banana')),
    ('s_lt', "s < 'b'", lambda pb: pb.less_than('s', 'b')),
    ('s_gt_unicode', "s > 'zebra'", lambda pb: pb.greater_than('s', 'zebra')),
    ('s_prefix', "s LIKE 'ap%'", lambda pb: pb.startswith('s', 'ap')),
    ('s_suffix', "s LIKE '%a'", lambda pb: pb.endswith('s', 'a')),
    ('s_contains', "s LIKE '%an%'", lambda pb: pb.contains('s', 'an')),
    ('s_null', 's IS NULL', lambda pb: pb.is_null('s')),
    ('d_between', 'd BETWEEN -0.5 AND 1.25', lambda pb: pb.between('d', -0.5, 1.25)),
    ('dec_gt', 'dec > 1.5', lambda pb: pb.greater_than('dec', D('1.50'))),
    ('dt_eq', "dt = DATE '2024-01-03'", lambda pb: pb.equal('dt', datetime.date(2024, 1, 3))),
    ('ts_lt', "ts < TIMESTAMP '2024-01-01 00:00:30.000001'", lambda pb: pb.less_than('ts', datetime.datetime(2024, 1, 1, 0, 0, 30, 1))),
    ('b_true', 'b = TRUE', lambda pb: pb.equal('b', True)),
    ('b_notnull', 'b IS NOT NULL', lambda pb: pb.is_not_null('b')),
    ('and_or', "i > 0 AND (s = 'apple' OR d IS NULL)",
     lambda pb: pb.and_predicates([pb.greater_than('i', 0), pb.or_predicates([pb.equal('s', 'apple'), pb.is_null('d')])])),
]
expected = {}
for name, expr, mk in CASES:
    rb = t.new_read_builder()
    pred = mk(rb.new_predicate_builder())
    rb = rb.with_filter(pred)
    splits = rb.new_scan().plan().splits()
    out = rb.new_read().to_arrow(splits)
    ids = sorted(out.column('id').to_pylist()) if out is not None else []
    expected[name] = {'expr': expr, 'ids': ids}
json.dump(expected, open(os.path.join(here, 'filter_expected.json'), 'w'), indent=1)
print({k: len(v['ids']) for k, v in expected.items()})
