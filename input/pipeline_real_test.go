package input

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// realWriterPy commits to pypaimon tables for the real-table pipeline tests.
// One invocation runs a list of operations (JSON on argv) so a test pays the
// interpreter start-up once per step, not once per commit.
//
// Rows are (id INT, name STRING[, p STRING][, rk STRING][, extra BIGINT]),
// name = "n<id>" unless given. PK tables use rowkind.field = rk, so pypaimon
// writes the record kind named in rk (real -U/+U/-D records).
const realWriterPy = `
import json, sys
import pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import AtomicType
from pypaimon.schema.schema_change import SchemaChange

wh, name, ops = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
cat = CatalogFactory.create({"warehouse": wh})
TYPES = {"id": pa.int32(), "name": pa.string(), "p": pa.string(), "rk": pa.string(), "extra": pa.int64()}

def commit(rows):
    table = cat.get_table(name)
    cols = [f.name for f in table.table_schema.fields]
    schema = pa.schema([pa.field(c, TYPES[c], nullable=(c != "id" or not table.table_schema.primary_keys)) for c in cols])
    data = {c: [r.get(c) for r in rows] for c in cols}
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pydict(data, schema=schema))
    c = wb.new_commit()
    c.commit(w.prepare_commit())
    w.close()
    c.close()

for op in ops:
    kind = op["op"]
    if kind == "create":
        fields = [pa.field("id", pa.int32(), nullable=not op.get("pk")), ("name", pa.string())]
        if op.get("partitioned"):
            fields.append(("p", pa.string()))
        if op.get("pk"):
            fields.append(("rk", pa.string()))
        opts = {"bucket": str(op.get("bucket", -1))}
        if op.get("pk"):
            opts["rowkind.field"] = "rk"
        elif op.get("bucket", -1) != -1:
            opts["bucket-key"] = "id"
        cat.create_database(name.split(".")[0], True)
        cat.create_table(name, Schema.from_pyarrow_schema(pa.schema(fields),
            partition_keys=["p"] if op.get("partitioned") else None,
            primary_keys=["id"] if op.get("pk") else None, options=opts), False)
    elif kind == "append":
        rows = [{"id": i, "name": "n%d" % i, "p": op.get("part"), "extra": i * 10 if op.get("extra") else None}
                for i in range(op["start"], op["start"] + op["count"])]
        commit(rows)
    elif kind == "rows":
        commit(op["rows"])
    elif kind == "addcol":
        cat.alter_table(name, [SchemaChange.add_column(op["name"], AtomicType("BIGINT"))], False)
    else:
        raise SystemExit("unknown op %r" % kind)
`

type pyOp map[string]any

// realTable is a pypaimon-written table in a temporary warehouse.
type realTable struct {
	t      *testing.T
	wh     string
	name   string
	script string
}

func newRealTable(t *testing.T, name string, create pyOp, ops ...pyOp) *realTable {
	t.Helper()
	testenv.Python(t)
	dir := t.TempDir()
	rt := &realTable{t: t, wh: filepath.Join(dir, "wh"), name: name, script: filepath.Join(dir, "writer.py")}
	if err := os.WriteFile(rt.script, []byte(realWriterPy), 0o644); err != nil {
		t.Fatal(err)
	}
	create["op"] = "create"
	rt.run(append([]pyOp{create}, ops...)...)
	return rt
}

func (rt *realTable) run(ops ...pyOp) {
	rt.t.Helper()
	js, err := json.Marshal(ops)
	if err != nil {
		rt.t.Fatal(err)
	}
	testenv.RunPython(rt.t, rt.script, rt.wh, rt.name, string(js))
}

func (rt *realTable) dir() string {
	db, tbl, _ := strings.Cut(rt.name, ".")
	return filepath.Join(rt.wh, db+".db", tbl)
}

// dataFiles lists the table's data files as the file system has them,
// independently of the library's manifests.
func (rt *realTable) dataFiles() (paths []string, size int64) {
	rt.t.Helper()
	err := filepath.WalkDir(rt.dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "data-") {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			paths = append(paths, p)
			size += fi.Size()
		}
		return nil
	})
	if err != nil {
		rt.t.Fatal(err)
	}
	return paths, size
}

// snapshotJSON reads snapshot-id's file as written by pypaimon.
func (rt *realTable) snapshotJSON(id int64) map[string]any {
	rt.t.Helper()
	b, err := os.ReadFile(filepath.Join(rt.dir(), "snapshot", fmt.Sprintf("snapshot-%d", id)))
	if err != nil {
		rt.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		rt.t.Fatal(err)
	}
	return m
}

func (rt *realTable) consumerNext(id string) int64 {
	rt.t.Helper()
	b, err := os.ReadFile(filepath.Join(rt.dir(), "consumer", "consumer-"+id))
	if err != nil {
		rt.t.Fatal(err)
	}
	var c struct {
		NextSnapshot int64 `json:"nextSnapshot"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		rt.t.Fatalf("consumer file %s: %v", b, err)
	}
	return c.NextSnapshot
}

// recMetrics is a metrics exporter that remembers the last value of every
// gauge and the sum of every counter, so tests can read the input's metrics
// as Benthos reports them.
type recMetrics struct {
	mu     sync.Mutex
	vals   map[string]int64
	timers map[string]int
}

func (m *recMetrics) get(name string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.vals[name]
}

func (m *recMetrics) timings(name string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.timers[name]
}

type recFn func(int64)

func (f recFn) Incr(n int64)   { f(n) }
func (f recFn) Set(n int64)    { f(n) }
func (f recFn) Timing(n int64) { f(n) }

func (m *recMetrics) NewCounterCtor(name string, _ ...string) service.MetricsExporterCounterCtor {
	return func(...string) service.MetricsExporterCounter {
		return recFn(func(n int64) { m.mu.Lock(); m.vals[name] += n; m.mu.Unlock() })
	}
}

func (m *recMetrics) NewTimerCtor(name string, _ ...string) service.MetricsExporterTimerCtor {
	return func(...string) service.MetricsExporterTimer {
		return recFn(func(int64) { m.mu.Lock(); m.timers[name]++; m.mu.Unlock() })
	}
}

func (m *recMetrics) NewGaugeCtor(name string, _ ...string) service.MetricsExporterGaugeCtor {
	return func(...string) service.MetricsExporterGauge {
		return recFn(func(n int64) { m.mu.Lock(); m.vals[name] = n; m.mu.Unlock() })
	}
}

func (m *recMetrics) Close(context.Context) error { return nil }

// syncBuf is a log sink shared by the pipeline's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// realRun is one running pipeline: the paimon input over a real table into
// a consumer that records every message.
type realRun struct {
	t       *testing.T
	strm    *service.Stream
	done    chan error
	metrics *recMetrics
	logs    *syncBuf

	mu  sync.Mutex
	got []delivered
}

// startReal starts a pipeline with the input fields in cfgYAML (indented by
// two spaces, below `paimon:`).
func startReal(t *testing.T, rt *realTable, cfgYAML string) *realRun {
	t.Helper()
	return startRealRejecting(t, rt, cfgYAML, nil)
}

// startRealRejecting is startReal whose output rejects the batches reject
// returns an error for; rejected rows are not recorded as delivered.
func startRealRejecting(t *testing.T, rt *realTable, cfgYAML string, reject func([]delivered) error) *realRun {
	t.Helper()
	return startPipeline(t, fmt.Sprintf("paimon:\n  warehouse: %s\n  table: %s\n  poll_interval: 100ms\n%s", rt.wh, rt.name, cfgYAML), reject)
}

// startPipeline starts a pipeline whose input is inputYAML into a consumer
// that records every message, rejecting the batches reject returns an error
// for.
func startPipeline(t *testing.T, inputYAML string, reject func([]delivered) error) *realRun {
	t.Helper()
	env := service.NewEnvironment()
	r := &realRun{t: t, done: make(chan error, 1), metrics: &recMetrics{vals: map[string]int64{}, timers: map[string]int{}}, logs: &syncBuf{}}
	if err := env.RegisterMetricsExporter("rec", service.NewConfigSpec(), func(*service.ParsedConfig, *service.Logger) (service.MetricsExporter, error) {
		return r.metrics, nil
	}); err != nil {
		t.Fatal(err)
	}
	sb := env.NewStreamBuilder()
	sb.SetLogger(slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if err := sb.SetMetricsYAML("rec: {}"); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddInputYAML(inputYAML); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddBatchConsumerFunc(func(_ context.Context, b service.MessageBatch) error {
		var batch []delivered
		for _, m := range b {
			body, err := m.AsBytes()
			if err != nil {
				return err
			}
			d := delivered{body: string(body), meta: map[string]any{}}
			_ = m.MetaWalkMut(func(k string, v any) error { d.meta[k] = v; return nil })
			batch = append(batch, d)
		}
		if reject != nil {
			if err := reject(batch); err != nil {
				return err
			}
		}
		r.mu.Lock()
		r.got = append(r.got, batch...)
		r.mu.Unlock()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	r.strm = strm
	go func() { r.done <- strm.Run(context.Background()) }()
	t.Cleanup(func() { r.stop() })
	return r
}

func (r *realRun) rows() []delivered {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// waitRows waits until at least n rows arrived, failing after 30 s.
func (r *realRun) waitRows(n int) []delivered {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if got := r.rows(); len(got) >= n {
			return got
		}
		select {
		case err := <-r.done:
			r.done <- err
			r.t.Fatalf("pipeline ended with %d of %d rows: %v\nlogs:\n%s", len(r.rows()), n, err, r.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	r.t.Fatalf("timeout: %d of %d rows\nlogs:\n%s", len(r.rows()), n, r.logs.String())
	return nil
}

// wait waits for a bounded pipeline (end.at_latest) to finish by itself.
func (r *realRun) wait() []delivered {
	r.t.Helper()
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil {
			r.t.Fatalf("pipeline: %v\nlogs:\n%s", err, r.logs.String())
		}
	case <-time.After(60 * time.Second):
		r.t.Fatalf("bounded pipeline did not end\nlogs:\n%s", r.logs.String())
	}
	return r.rows()
}

// stop shuts the pipeline down gracefully (the input's final commit runs).
func (r *realRun) stop() {
	select {
	case err := <-r.done:
		r.done <- err
		return
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := r.strm.Stop(ctx); err != nil {
		r.t.Errorf("stop: %v", err)
	}
	<-r.done
	r.done <- nil
}

func realIDs(rows []delivered) []int {
	var out []int
	for _, d := range rows {
		var m struct {
			ID int `json:"id"`
		}
		if err := json.Unmarshal([]byte(d.body), &m); err != nil {
			panic(fmt.Sprintf("body %q: %v", d.body, err))
		}
		out = append(out, m.ID)
	}
	sort.Ints(out)
	return out
}

func idRange(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

func byID(rows []delivered, id int) []delivered {
	var out []delivered
	for _, d := range rows {
		if strings.HasPrefix(d.body, fmt.Sprintf(`{"id":%d,`, id)) {
			out = append(out, d)
		}
	}
	return out
}

// TestRealFullFollowUpRestart follows a partitioned, bucketed pypaimon
// table: the full plan, a commit made while the pipeline runs, every
// metadata key checked against the files pypaimon wrote, the metrics
// against the data files on disk, and a restart with the same consumer_id
// that delivers exactly the snapshot committed while it was down.
func TestRealFullFollowUpRestart(t *testing.T) {
	rt := newRealTable(t, "db.t", pyOp{"bucket": 2, "partitioned": true},
		pyOp{"op": "append", "start": 0, "count": 100, "part": "a"},
		pyOp{"op": "append", "start": 100, "count": 50, "part": "b"})
	r := startReal(t, rt, "  consumer_id: c1\n  commit_period: 100ms\n  batch_size: 16\n")
	r.waitRows(150)
	rt.run(pyOp{"op": "append", "start": 150, "count": 50, "part": "a"}) // snapshot 3, while streaming
	got := r.waitRows(200)
	// Give a duplicate a chance to show up before stopping.
	time.Sleep(300 * time.Millisecond)
	r.stop()
	got = r.rows()
	if ids := realIDs(got); !slices.Equal(ids, idRange(0, 200)) {
		t.Fatalf("ids %v, want 0..199 once each", ids)
	}

	// Metadata of a full-plan row and a follow-up row.
	snap2, snap3 := rt.snapshotJSON(2), rt.snapshotJSON(3)
	for _, c := range []struct {
		id   int
		snap int64
		json map[string]any
		part string
	}{{120, 2, snap2, "b"}, {170, 3, snap3, "a"}} {
		rows := byID(got, c.id)
		if len(rows) != 1 {
			t.Fatalf("id %d delivered %d times", c.id, len(rows))
		}
		m := rows[0].meta
		if want := fmt.Sprintf(`{"id":%d,"name":"n%d","p":"%s"}`, c.id, c.id, c.part); rows[0].body != want {
			t.Errorf("body %s, want %s", rows[0].body, want)
		}
		if m[MetaSnapshotID] != c.snap || m[MetaCommitKind] != c.json["commitKind"] || m[MetaSchemaID] != int64(0) ||
			m[MetaTable] != "db.t" || m[MetaRowKind] != "+I" {
			t.Errorf("id %d meta %v", c.id, m)
		}
		ms := int64(c.json["timeMillis"].(float64))
		if ct, ok := m[MetaCommitTime].(time.Time); !ok || ct.UnixMilli() != ms {
			t.Errorf("id %d commit time %v, want %d ms from snapshot-%d", c.id, m[MetaCommitTime], ms, c.snap)
		}
		if p, ok := m[MetaPartition].(map[string]any); !ok || len(p) != 1 || p["p"] != c.part {
			t.Errorf("id %d partition %#v", c.id, m[MetaPartition])
		}
		// The bucket and file must agree with where pypaimon put the file.
		b, _ := m[MetaBucket].(int64)
		file, _ := m[MetaFile].(string)
		if !strings.Contains(file, fmt.Sprintf("p=%s/bucket-%d/data-", c.part, b)) {
			t.Errorf("id %d: file %q is not in p=%s/bucket-%d", c.id, file, c.part, b)
		}
		if _, err := os.Stat(strings.TrimPrefix(file, "file://")); err != nil {
			t.Errorf("id %d: paimon_file: %v", c.id, err)
		}
	}
	// The nine paimon_* keys, paimon_schema and Connect's CDC operation (an
	// append table has no paimon_key).
	if n := len(m2keys(got[0].meta)); n != 11 || got[0].meta[MetaOperation] == nil || got[0].meta[MetaSchema] == nil {
		t.Errorf("meta keys %v, want all 11", m2keys(got[0].meta))
	}

	// Metrics against the files on disk: every data file opened once.
	files, size := rt.dataFiles()
	mt := r.metrics
	if mt.get("paimon_rows_read") != 200 || mt.get("paimon_files_read") != int64(len(files)) || mt.get("paimon_bytes_read") != size {
		t.Errorf("metrics rows %d files %d bytes %d, want 200, %d, %d", mt.get("paimon_rows_read"), mt.get("paimon_files_read"), mt.get("paimon_bytes_read"), len(files), size)
	}
	if mt.get("paimon_committed_snapshot") != 4 || mt.get("paimon_snapshot_lag") != 0 || mt.timings("paimon_plan_latency_ns") < 2 {
		t.Errorf("committed %d lag %d plan timings %d", mt.get("paimon_committed_snapshot"), mt.get("paimon_snapshot_lag"), mt.timings("paimon_plan_latency_ns"))
	}
	if n := rt.consumerNext("c1"); n != 4 {
		t.Fatalf("consumer nextSnapshot %d, want 4", n)
	}

	// Down time: one more commit. The restart resumes at snapshot 4: its
	// rows, none of the acknowledged ones.
	rt.run(pyOp{"op": "append", "start": 200, "count": 30, "part": "b"})
	r2 := startReal(t, rt, "  consumer_id: c1\n  commit_period: 100ms\n")
	r2.waitRows(30)
	time.Sleep(500 * time.Millisecond)
	r2.stop()
	if ids := realIDs(r2.rows()); !slices.Equal(ids, idRange(200, 230)) {
		t.Fatalf("after restart ids %v, want 200..229", ids)
	}
	if n := rt.consumerNext("c1"); n != 5 {
		t.Fatalf("consumer nextSnapshot %d after restart, want 5", n)
	}
}

func m2keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestRealShardingExactlyOnce runs shards 0/2 and 1/2 on a 4-bucket table
// at once: together they deliver every row exactly once, and each reads only
// its own buckets.
func TestRealShardingExactlyOnce(t *testing.T) {
	rt := newRealTable(t, "db.s", pyOp{"bucket": 4},
		pyOp{"op": "append", "start": 0, "count": 200},
		pyOp{"op": "append", "start": 200, "count": 100})
	a := startReal(t, rt, "  consumer_id: s0\n  shard: {index: 0, count: 2}\n  end: {at_latest: true}\n")
	b := startReal(t, rt, "  consumer_id: s1\n  shard: {index: 1, count: 2}\n  end: {at_latest: true}\n")
	ra, rb := a.wait(), b.wait()
	if len(ra) == 0 || len(rb) == 0 {
		t.Fatalf("a shard got nothing: %d and %d rows", len(ra), len(rb))
	}
	if ids := realIDs(append(ra, rb...)); !slices.Equal(ids, idRange(0, 300)) {
		t.Fatalf("union of shards: %d rows, want 0..299 once each", len(ids))
	}
	for i, rows := range [][]delivered{ra, rb} {
		for _, d := range rows {
			if bk := d.meta[MetaBucket].(int64); bk%2 != int64(i) {
				t.Fatalf("shard %d delivered bucket %d", i, bk)
			}
		}
	}
}

// Shards of a bucket-unaware table (demo.orders: bucket = -1, 9 data files,
// committed) split it by data file: the two shards of config/sharding.yaml
// each read some rows, and together every row once.
func TestRealShardSplitsBucketUnaware(t *testing.T) {
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	var union []string
	for i := 0; i < 2; i++ {
		got := runBodies(t, fmt.Sprintf("paimon:\n  warehouse: %s\n  table: demo.orders\n  shard: {index: %d, count: 2}\n  end: {at_latest: true}\n", wh, i))
		if len(got) == 0 {
			t.Errorf("shard %d of 2 read no row", i)
		}
		union = append(union, got...)
	}
	all := runBodies(t, "paimon:\n  warehouse: "+wh+"\n  table: demo.orders\n  end: {at_latest: true}\n")
	slices.Sort(union)
	if len(all) != 300 || !slices.Equal(union, all) {
		t.Fatalf("the shards read %d rows together, the table %d: a row read twice or never", len(union), len(all))
	}
}

// TestRealFilterProjection pushes a partition filter and a projection down:
// only the files of the matching partition are opened (files_read against
// the files on disk) and bodies hold only the projected columns.
func TestRealFilterProjection(t *testing.T) {
	rt := newRealTable(t, "db.f", pyOp{"partitioned": true},
		pyOp{"op": "append", "start": 0, "count": 40, "part": "a"},
		pyOp{"op": "append", "start": 40, "count": 40, "part": "b"},
		pyOp{"op": "append", "start": 80, "count": 40, "part": "a"})
	r := startReal(t, rt, "  columns: [name, id]\n  filter: \"p = 'a' AND id >= 30 AND id < 90\"\n  end: {at_latest: true}\n")
	got := r.wait()
	var bodiesGot []string
	for _, d := range got {
		bodiesGot = append(bodiesGot, d.body)
	}
	sort.Strings(bodiesGot)
	var want []string
	for _, id := range append(idRange(30, 40), idRange(80, 90)...) {
		want = append(want, fmt.Sprintf(`{"name":"n%d","id":%d}`, id, id))
	}
	sort.Strings(want)
	if !slices.Equal(bodiesGot, want) {
		t.Fatalf("bodies\n%v\nwant\n%v", bodiesGot, want)
	}
	files, _ := rt.dataFiles()
	var inA int64
	for _, f := range files {
		if strings.Contains(f, "/p=a/") {
			inA++
		}
	}
	if n := r.metrics.get("paimon_files_read"); n != inA || inA >= int64(len(files)) {
		t.Fatalf("files read %d, want the %d of partition a (of %d)", n, inA, len(files))
	}
}

// TestRealUpsertMode reads a primary-key table whose follow-up commit holds
// real -U/+U/-D records (pypaimon's rowkind.field): the row kind metadata
// matches the kind each record was written with (its rk column), and the
// upsert modes drop exactly the kinds they name.
// TestRealRejectedBatchesReplayed rejects every third batch of a real
// table's read (batches of 7 rows cut across record batches, splits and
// snapshots): every row is delivered in the end, rejected rows exactly once
// more, and the consumer reaches the end only after the replays were
// accepted.
func TestRealRejectedBatchesReplayed(t *testing.T) {
	rt := newRealTable(t, "db.t", pyOp{"bucket": 2, "partitioned": true},
		pyOp{"op": "append", "start": 0, "count": 100, "part": "a"},
		pyOp{"op": "append", "start": 100, "count": 100, "part": "b"},
		pyOp{"op": "append", "start": 200, "count": 100, "part": "a"})
	var mu sync.Mutex
	calls, rejected := 0, 0
	r := startRealRejecting(t, rt, "  consumer_id: c\n  batch_size: 7\n  commit_period: 50ms\n  scan_mode: from-snapshot\n  snapshot_id: 1\n  end: {at_latest: true}\n", func(b []delivered) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls%3 == 0 {
			rejected += len(b)
			return errors.New("sink unavailable")
		}
		return nil
	})
	got := r.wait()
	if ids := realIDs(got); !slices.Equal(ids, idRange(0, 300)) {
		t.Fatalf("accepted %d rows, want ids 0..299 each once: %v", len(ids), ids)
	}
	if rejected == 0 {
		t.Fatal("no batch was rejected: the test did not exercise replays")
	}
	if n := r.metrics.get("paimon_replayed_rows"); n != int64(rejected) {
		t.Errorf("paimon_replayed_rows %d, want the %d rejected rows", n, rejected)
	}
	if n := rt.consumerNext("c"); n != 4 {
		t.Errorf("consumer nextSnapshot %d, want 4 after snapshots 1-3", n)
	}
}

func TestRealUpsertMode(t *testing.T) {
	rt := newRealTable(t, "db.pk", pyOp{"pk": true, "bucket": 1},
		pyOp{"op": "rows", "rows": []map[string]any{
			{"id": 1, "name": "a", "rk": "+I"}, {"id": 2, "name": "b", "rk": "+I"}, {"id": 3, "name": "c", "rk": "+I"}}},
		// pypaimon's write buffer keeps the last record per key within one
		// commit, so the -U and its +U go into separate commits.
		pyOp{"op": "rows", "rows": []map[string]any{
			{"id": 2, "name": "b", "rk": "-U"}, {"id": 3, "name": "c", "rk": "-D"}, {"id": 4, "name": "d", "rk": "+I"}}},
		pyOp{"op": "rows", "rows": []map[string]any{{"id": 2, "name": "b2", "rk": "+U"}}})
	kindsOf := func(rows []delivered) []string {
		var out []string
		for _, d := range rows {
			var m struct {
				ID   int    `json:"id"`
				Name string `json:"name"`
				RK   string `json:"rk"`
			}
			if err := json.Unmarshal([]byte(d.body), &m); err != nil {
				t.Fatal(err)
			}
			if d.meta[MetaRowKind] != m.RK && !(m.RK == "" && d.meta[MetaRowKind] == "+I") {
				t.Errorf("row %s has row kind %v", d.body, d.meta[MetaRowKind])
			}
			out = append(out, fmt.Sprintf("%d:%s:%v@%v", m.ID, m.Name, d.meta[MetaRowKind], d.meta[MetaSnapshotID]))
		}
		sort.Strings(out)
		return out
	}
	base := "  scan_mode: from-snapshot-full\n  snapshot_id: 1\n  end: {at_latest: true}\n"
	for _, c := range []struct {
		mode string
		want []string
	}{
		{"off", []string{"1:a:+I@1", "2:b2:+U@3", "2:b:+I@1", "2:b:-U@2", "3:c:+I@1", "3:c:-D@2", "4:d:+I@2"}},
		{"drop_update_before", []string{"1:a:+I@1", "2:b2:+U@3", "2:b:+I@1", "3:c:+I@1", "3:c:-D@2", "4:d:+I@2"}},
		{"drop_update_before_and_delete", []string{"1:a:+I@1", "2:b2:+U@3", "2:b:+I@1", "3:c:+I@1", "4:d:+I@2"}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			got := kindsOf(startReal(t, rt, base+"  upsert_mode: "+c.mode+"\n").wait())
			if !slices.Equal(got, c.want) {
				t.Fatalf("rows %v\nwant %v", got, c.want)
			}
		})
	}
}

// TestRealSchemaChangeMidStream adds a column while the pipeline follows the
// table (pypaimon's alter writes schema-1 without a snapshot, the next
// append is snapshot 2): later rows carry the new schema id and the new column, and a log
// line names the added column.
func TestRealSchemaChangeMidStream(t *testing.T) {
	rt := newRealTable(t, "db.e", pyOp{}, pyOp{"op": "append", "start": 0, "count": 10})
	r := startReal(t, rt, "  consumer_id: e\n")
	r.waitRows(10)
	rt.run(pyOp{"op": "addcol", "name": "extra"}, pyOp{"op": "append", "start": 10, "count": 5, "extra": true})
	got := r.waitRows(15)
	r.stop()
	for _, d := range got {
		var m struct{ ID int }
		_ = json.Unmarshal([]byte(d.body), &m)
		wantSchema, wantBody := int64(0), fmt.Sprintf(`{"id":%d,"name":"n%d"}`, m.ID, m.ID)
		if m.ID >= 10 {
			wantSchema, wantBody = 1, fmt.Sprintf(`{"id":%d,"name":"n%d","extra":%d}`, m.ID, m.ID, m.ID*10)
		}
		if d.meta[MetaSchemaID] != wantSchema || d.body != wantBody {
			t.Errorf("row %s schema %v, want %s schema %d", d.body, d.meta[MetaSchemaID], wantBody, wantSchema)
		}
	}
	if logs := r.logs.String(); !strings.Contains(logs, "schema changed at snapshot 2 (schema id 1): added columns [extra int64]") {
		t.Fatalf("no schema change log line naming the column:\n%s", logs)
	}
}

// TestRealProgressLogLongPlan throttles the first plan of a table with many
// files so that it takes longer than the progress period: a line with files
// done/total and rows so far is logged while it runs.
func TestRealProgressLogLongPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("takes ~7 s")
	}
	rt := newRealTable(t, "db.g", pyOp{"bucket": 8}, pyOp{"op": "append", "start": 0, "count": 400})
	files, _ := rt.dataFiles()
	r := startReal(t, rt, "  batch_size: 10\n  checkpoint_limit: 10\n  throttle: {interval: 1s, max_files: 1}\n  end: {at_latest: true}\n")
	got := r.wait()
	if len(got) != 400 {
		t.Fatalf("%d rows, want 400", len(got))
	}
	logs := r.logs.String()
	want := fmt.Sprintf("/%d files, ", len(files))
	if !strings.Contains(logs, "reading snapshot 1 of db.g: ") || !strings.Contains(logs, want) || !strings.Contains(logs, "rows so far") {
		t.Fatalf("no progress line with %q:\n%s", want, logs)
	}
	if !strings.Contains(logs, fmt.Sprintf("snapshot 1 of db.g read: %d/%d files, 400 rows", len(files), len(files))) {
		t.Fatalf("no completion line:\n%s", logs)
	}
	// Percent, rate and ETA from the plan's totals: the bytes of the data
	// files on disk and the 400 rows the manifests record.
	_, size := rt.dataFiles()
	line := regexp.MustCompile(`reading snapshot 1 of db\.g: ([0-9.]+)% \((\d+)/(\d+) files, [0-9.]+ [KMG]?i?B of ([0-9.]+ [KMG]?i?B); 400 rows in the manifests\), (\d+) rows so far, ([0-9.]+) rows/s, ETA (\S+), `)
	matches := line.FindAllStringSubmatch(logs, -1)
	if len(matches) == 0 {
		t.Fatalf("no progress line with percent, rate and ETA:\n%s", logs)
	}
	t.Logf("last progress line: %s", matches[len(matches)-1][0])
	last := -1.0
	for _, m := range matches {
		pct, _ := strconv.ParseFloat(m[1], 64)
		if pct < last || pct > 100 {
			t.Errorf("progress %v%% after %v%%: %s", pct, last, m[0])
		}
		last = pct
		if m[4] != byteSize(size) {
			t.Errorf("total %s, the data files hold %s: %s", m[4], byteSize(size), m[0])
		}
		if m[7] != "unknown" {
			if _, err := time.ParseDuration(m[7]); err != nil {
				t.Errorf("ETA %q: %v", m[7], err)
			}
		}
	}
	if last <= 0 || last >= 100 {
		t.Errorf("last progress line at %v%%, want strictly between 0 and 100 while reading", last)
	}
	for name, want := range map[string]int64{
		"paimon_plan_files": int64(len(files)), "paimon_plan_bytes": size, "paimon_plan_rows": 400,
		"paimon_plan_progress_percent": 100, "paimon_plan_files_done": int64(len(files)), "paimon_plan_bytes_done": size, "paimon_plan_eta_seconds": 0,
	} {
		if got := r.metrics.get(name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}

// The progress arithmetic: bytes of finished splits plus the current
// split's share of its manifest rows, over the plan's bytes.
func TestProgressFraction(t *testing.T) {
	p := &paimonInput{}
	splits := []*fakeSplit{{FileCount: 2, Bytes: 600, Rows: 60}, {FileCount: 1, Bytes: 300, Rows: 30}, {FileCount: 1, Bytes: 100, Rows: 10}}
	mt := service.MockResources().Metrics()
	p.m.progress = newProgressMetrics(func(name string) tableGauge { return tableGauge{mt.NewGauge(name, labelTable), "db.t"} })
	plan := (&fakePlan{SnapshotID: 1, Splits: splits}).plan()
	p.cur.setPlan(plan)
	p.startProgress(plan.Splits)
	if p.planFiles != 4 || p.planBytes != 1000 || p.planRowsTotal != 100 {
		t.Fatalf("totals: %d files %d bytes %d rows", p.planFiles, p.planBytes, p.planRowsTotal)
	}
	p.planStart = time.Now().Add(-10 * time.Second)
	// First split done, a third of the second read.
	p.cur.splitIdx, p.planBytesDone, p.planFilesDone, p.cur.splitDone, p.planRows = 1, 600, 2, 10, 70
	pr := p.progressNow(time.Now())
	if pr.fraction < 0.699 || pr.fraction > 0.701 {
		t.Errorf("fraction %v, want 0.7 ((600 + 300/3) / 1000)", pr.fraction)
	}
	if pr.rowRate < 6.9 || pr.rowRate > 7.1 {
		t.Errorf("rate %v rows/s, want 7", pr.rowRate)
	}
	if eta := pr.eta.Seconds(); eta < 4.2 || eta > 4.4 {
		t.Errorf("ETA %v, want about 4.3 s (10 s × 0.3/0.7)", pr.eta)
	}
	// Nothing read yet: no ETA.
	p.cur.splitIdx, p.planBytesDone, p.cur.splitDone = 0, 0, 0
	if pr := p.progressNow(time.Now()); pr.fraction != 0 || pr.eta != -1 {
		t.Errorf("at start: %+v", pr)
	}
}

// TestRealMissingTable: Connect on a table that does not exist fails with
// an error naming the table and the warehouse path.
func TestRealMissingTable(t *testing.T) {
	wh := t.TempDir()
	in := newInput(config{Warehouse: wh, Database: "db", Table: "nope", Read: paimon.StreamConfig{StartMode: paimon.StartLatestFull, PollInterval: time.Second, ShardCount: 1}, BatchSize: 10, CheckpointLimit: 10, CommitPeriod: time.Second},
		openTable, service.MockResources())
	if err := in.Connect(context.Background()); !errors.Is(err, service.ErrEndOfInput) {
		t.Fatalf("Connect = %v, want end of input (a missing table is permanent)", err)
	}
	err := in.stoppedOn()
	if err == nil || !strings.Contains(err.Error(), "db.nope") || !strings.Contains(err.Error(), wh) {
		t.Fatalf("Connect error %v does not name db.nope and %s", err, wh)
	}
	_ = in.Close(context.Background())
}

// TestRealExpiredPositionWarns: with on_expired earliest the input goes on
// from the earliest snapshot, and says at WARN that rows were lost: which
// consumer, the snapshot it needed, where it went, how many snapshots.
func TestRealExpiredPositionWarns(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	orders := filepath.Join(wh, "demo.db", "orders")
	testenv.WriteFile(t, orders, "consumer/consumer-behind", `{"nextSnapshot": 1}`)
	if err := os.Remove(filepath.Join(orders, "snapshot", "snapshot-1")); err != nil {
		t.Fatal(err)
	}
	r := startReal(t, &realTable{t: t, wh: wh, name: "demo.orders"}, "  consumer_id: behind\n  on_expired: earliest\n  end:\n    at_latest: true\n")
	r.wait()
	logs := r.logs.String()
	for _, want := range []string{`consumer \"behind\" needed snapshot 1, which has expired (earliest is 2)`, "continuing with the changes of snapshot 2", "1 snapshot(s) were not read", "level=WARN"} {
		if !strings.Contains(logs, want) {
			t.Fatalf("no %q in the logs:\n%s", want, logs)
		}
	}
}

// TestRealHeartbeatAfterRestart: an input restarted from an existing
// consumer, idle because the snapshot the consumer points at is not written
// yet, still rewrites the consumer file every heartbeat_interval (so a
// writer's consumer.expiration-time does not expire it), and never moves
// its position.
func TestRealHeartbeatAfterRestart(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	file := filepath.Join(wh, "demo.db", "orders", "consumer", "consumer-idle")
	testenv.WriteFile(t, filepath.Dir(file), "consumer-idle", `{"nextSnapshot": 4}`) // latest is 3
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	r := startReal(t, &realTable{t: t, wh: wh, name: "demo.orders"}, "  consumer_id: idle\n  heartbeat_interval: 200ms\n  commit_period: 200ms\n")
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(st.ModTime()) < time.Minute {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer file not rewritten within 10 s of a 200ms heartbeat\nlogs:\n%s", r.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.stop()
	if got := string(testenv.ReadFile(t, file)); !strings.Contains(got, `"nextSnapshot" : 4`) {
		t.Fatalf("heartbeat moved the position: %q", got)
	}
	if n := len(r.rows()); n != 0 {
		t.Fatalf("%d rows delivered while waiting for snapshot 4", n)
	}
}

// TestRealConsumerConflictStops: when another writer changes the consumer
// file under a running input (a second replica with the same consumer_id),
// the input stops with the error instead of overwriting its position.
func TestRealConsumerConflictStops(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	file := filepath.Join(wh, "demo.db", "orders", "consumer", "consumer-shared")
	r := startReal(t, &realTable{t: t, wh: wh, name: "demo.orders"}, "  consumer_id: shared\n  commit_period: 100ms\n  heartbeat_interval: 200ms\n")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(file); err == nil && strings.Contains(string(b), `"nextSnapshot" : 4`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer never reached 4\nlogs:\n%s", r.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	testenv.WriteFile(t, filepath.Dir(file), "consumer-shared", `{"nextSnapshot": 2}`) // the other writer
	r.wait()                                                                           // the input ends by itself
	if logs := r.logs.String(); !strings.Contains(logs, "another writer uses this consumer id") || !strings.Contains(logs, `consumer_id \"shared\"`) {
		t.Fatalf("no conflict error in the logs:\n%s", logs)
	}
	if got := string(testenv.ReadFile(t, file)); !strings.Contains(got, "2") {
		t.Fatalf("the input overwrote the other writer's position: %q", got)
	}
	if Failed() == nil {
		t.Fatal("Failed() is nil")
	}
}

// TestRealOutageCatchUp: an output that rejects every batch for two seconds
// (an HTTP sink answering 500), then recovers. Nothing is lost, the consumer
// never passes undelivered rows, and the input catches up within a bound:
// the replay back-off is capped at one second per batch, and rejected
// batches are replayed as soon as the output takes them again.
func TestRealOutageCatchUp(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	consumer := filepath.Join(wh, "demo.db", "orders", "consumer", "consumer-c")
	outageEnd := time.Now().Add(2 * time.Second)
	var mu sync.Mutex
	rejected, outageCommit := 0, false
	var recovered time.Time
	r := startRealRejecting(t, &realTable{t: t, wh: wh, name: "demo.orders"},
		"  consumer_id: c\n  batch_size: 10\n  commit_period: 50ms\n  end: {at_latest: true}\n", func(b []delivered) error {
			mu.Lock()
			defer mu.Unlock()
			if time.Now().Before(outageEnd) {
				rejected += len(b)
				if _, err := os.Stat(consumer); err == nil {
					outageCommit = true // nothing was delivered yet
				}
				return errors.New("503 sink unavailable")
			}
			if recovered.IsZero() {
				recovered = time.Now()
			}
			return nil
		})
	got := r.wait()
	done := time.Now()
	if n := len(got); n != 300 {
		t.Fatalf("delivered %d rows after the outage, want all 300", n)
	}
	if rejected == 0 {
		t.Fatal("nothing was rejected: the outage did not happen")
	}
	if outageCommit {
		t.Error("the consumer file was written during the outage, before any row was delivered")
	}
	if b, err := os.ReadFile(consumer); err != nil || !strings.Contains(string(b), `"nextSnapshot" : 4`) {
		t.Errorf("consumer after catching up: %q %v, want nextSnapshot 4", b, err)
	}
	catchUp := done.Sub(recovered)
	t.Logf("outage 2 s, %d rows rejected (replays); caught up %s after the sink recovered", rejected, catchUp.Round(time.Millisecond))
	if catchUp > 15*time.Second {
		t.Errorf("took %s to catch up after the outage, want well under 15 s", catchUp)
	}
}

// TestRealCorruptHintWarns: a LATEST hint that holds no snapshot id is read
// around by listing (every row still arrives) and said at WARN.
func TestRealCorruptHintWarns(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	testenv.WriteFile(t, filepath.Join(wh, "demo.db", "orders", "snapshot"), "LATEST", "not-a-number")
	r := startReal(t, &realTable{t: t, wh: wh, name: "demo.orders"}, "  end:\n    at_latest: true\n")
	if n := len(r.wait()); n != 300 {
		t.Fatalf("%d rows, want the 300 of snapshot 3", n)
	}
	if logs := r.logs.String(); !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, `LATEST holds \"not-a-number\"`) {
		t.Fatalf("no warning about the hint:\n%s", logs)
	}
}
