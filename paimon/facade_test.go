package paimon_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/types"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// demoWarehouse is the committed quickstart table (demo.orders: snapshots
// 1..3, 300 rows, ids 1..300).
func demoWarehouse(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "resources", "fixtures", "warehouse")
}

// openDemo opens the committed demo table, read-only.
func openDemo(t *testing.T, opts ...paimon.CatalogOption) (*paimon.Catalog, *paimon.Table) {
	t.Helper()
	return openDemoAt(t, demoWarehouse(t), opts...)
}

func TestStreamConfigValidate(t *testing.T) {
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		cfg   paimon.StreamConfig
		field string // "" = valid
	}{
		{paimon.StreamConfig{}, ""},
		{paimon.StreamConfig{StartMode: paimon.StartFromSnapshot, StartSnapshot: 3, EndSnapshot: 3}, ""},
		{paimon.StreamConfig{StartMode: paimon.StartFromTimestamp, StartTime: at}, ""},
		{paimon.StreamConfig{ShardIndex: 2, ShardCount: 3, Buckets: []int32{0, 5}, Columns: []string{"a", "b"}, ConsumerID: "c-1"}, ""},
		{paimon.StreamConfig{StartMode: paimon.StartMode(99)}, "StartMode"},
		{paimon.StreamConfig{StartSnapshot: 3}, "StartSnapshot"},
		{paimon.StreamConfig{StartMode: paimon.StartFromSnapshotFull}, "StartSnapshot"},
		{paimon.StreamConfig{StartMode: paimon.StartFromSnapshot, StartSnapshot: -1}, "StartSnapshot"},
		{paimon.StreamConfig{StartTime: at}, "StartTime"},
		{paimon.StreamConfig{StartMode: paimon.StartFromTimestamp}, "StartTime"},
		{paimon.StreamConfig{EndSnapshot: -1}, "EndSnapshot"},
		{paimon.StreamConfig{EndSnapshot: 4, EndAtLatest: true}, "EndSnapshot"},
		{paimon.StreamConfig{StartMode: paimon.StartFromSnapshot, StartSnapshot: 5, EndSnapshot: 4}, "EndSnapshot"},
		{paimon.StreamConfig{Columns: []string{"a", "a"}}, "Columns"},
		{paimon.StreamConfig{Columns: []string{""}}, "Columns"},
		{paimon.StreamConfig{Buckets: []int32{-1}}, "Buckets"},
		{paimon.StreamConfig{ShardCount: -1}, "ShardCount"},
		{paimon.StreamConfig{ShardIndex: 1}, "ShardIndex"},
		{paimon.StreamConfig{ShardIndex: 3, ShardCount: 3}, "ShardIndex"},
		{paimon.StreamConfig{ConsumerID: "a/b"}, "ConsumerID"},
		{paimon.StreamConfig{ConsumerID: "a\x01b"}, "ConsumerID"},
		{paimon.StreamConfig{ConsumerID: strings.Repeat("x", 201)}, "ConsumerID"},
		{paimon.StreamConfig{OnExpired: paimon.ExpiredPolicy(7)}, "OnExpired"},
		{paimon.StreamConfig{PollInterval: -time.Second}, "PollInterval"},
		{paimon.StreamConfig{BatchSize: -1}, "BatchSize"},
	}
	for i, tc := range cases {
		err := tc.cfg.Validate()
		var fe *paimon.FieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("case %d: want valid, got %v", i, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
			t.Errorf("case %d: want an error on %s, got %v", i, tc.field, err)
		}
	}
}

func TestParseExpiredPolicy(t *testing.T) {
	for _, p := range []paimon.ExpiredPolicy{paimon.ExpiredFail, paimon.ExpiredEarliest, paimon.ExpiredLatestFull} {
		var got paimon.ExpiredPolicy
		err := got.UnmarshalText([]byte(p.String()))
		if err != nil || got != p {
			t.Errorf("%s: got %v, %v", p, got, err)
		}
	}
	p := paimon.ExpiredPolicy(-1)
	if err := p.UnmarshalText(nil); err != nil || p != paimon.ExpiredFail {
		t.Errorf("empty: got %v, %v", p, err)
	}
	if err := new(paimon.ExpiredPolicy).UnmarshalText([]byte("never")); err == nil || !strings.Contains(err.Error(), "never") {
		t.Errorf("unknown policy: got %v", err)
	}
}

func readCounting(t *testing.T, rd *paimon.Read, splits []*paimon.Split, each func(kind string)) int {
	t.Helper()
	n := 0
	for _, sp := range splits {
		rr, err := rd.Read(context.Background(), sp)
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			if each != nil {
				kinds := rec.Column(0).(*array.String)
				for i := 0; i < kinds.Len(); i++ {
					// Value aliases the record's buffer, freed by the
					// next Next: a kept string must be a copy.
					each(strings.Clone(kinds.Value(i)))
				}
			}
			n += int(rec.NumRows())
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
	}
	return n
}

// NewStreamingScan from plain data: EndAtLatest resolves to snapshot 3 at
// creation, filter text and columns apply, the allocator is used.
func TestNewStreamingScanFromConfig(t *testing.T) {
	_, tbl := openDemo(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var st paimon.ReadStats
	sc, rd, err := tbl.NewStreamingScan(context.Background(), paimon.StreamConfig{
		EndAtLatest: true, Filter: "id <= 10", Columns: []string{"id"}, IncludeRowKind: true,
		Allocator: mem, Stats: &st,
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := sc.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !p.FirstPlan || p.SnapshotID != 3 {
		t.Fatalf("first plan: snapshot %d, first %v", p.SnapshotID, p.FirstPlan)
	}
	kinds := map[string]int{}
	if n := readCounting(t, rd, p.Splits, func(k string) { kinds[k]++ }); n != 10 || kinds["+I"] != 10 {
		t.Fatalf("read %d rows, kinds %v; want 10 +I", n, kinds)
	}
	if st.FilesRead.Load() == 0 {
		t.Error("stats counted no file")
	}
	if _, err := sc.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("after the latest snapshot: %v, want io.EOF", err)
	}
}

func TestNewStreamingScanErrorsNameField(t *testing.T) {
	_, tbl := openDemo(t)
	for cfg, field := range map[*paimon.StreamConfig]string{
		{Filter: "nope = 1"}:           "Filter",
		{ShardIndex: 2, ShardCount: 2}: "ShardIndex",
	} {
		_, _, err := tbl.NewStreamingScan(context.Background(), *cfg)
		var fe *paimon.FieldError
		if !errors.As(err, &fe) || fe.Field != field || !strings.Contains(err.Error(), "table demo.orders: ") {
			t.Errorf("%s: got %v", field, err)
		}
	}
	_, _, err := tbl.NewStreamingScan(context.Background(), paimon.StreamConfig{Columns: []string{"nope"}})
	if err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Errorf("unknown column: %v", err)
	}
}

// Batch reads share the streaming options: row kinds and stats.
func TestBatchReadRowKindAndStats(t *testing.T) {
	_, tbl := openDemo(t)
	var st paimon.ReadStats
	rb := tbl.NewReadBuilder().WithProjection("id").WithIncludeRowKind(true).WithStats(&st)
	plan, err := rb.Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	if n := readCounting(t, rb.NewRead(), plan.Splits, func(k string) { kinds[k]++ }); n != 300 || kinds["+I"] != 300 {
		t.Fatalf("read %d rows, kinds %v", n, kinds)
	}
	if st.RowsRead.Load() == 0 {
		t.Error("stats counted no rows")
	}
	sch, err := rb.NewRead().OutputSchema()
	if err != nil || sch.Field(0).Name != types.RowKindColumn {
		t.Fatalf("output schema %v, %v", sch, err)
	}
}

type closeCounter struct {
	fileio.FileIO
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// A FileIO given with WithFileIO is the caller's: Catalog.Close leaves it
// open. Close is idempotent.
func TestCatalogCloseOwnership(t *testing.T) {
	fio := &closeCounter{FileIO: fileio.NewLocal()}
	cat, err := paimon.OpenCatalog(context.Background(), demoWarehouse(t), paimon.WithFileIO(fio), interop.CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cat.Close(); err != nil {
		t.Fatal(err)
	}
	if fio.closed != 0 {
		t.Fatalf("caller's FileIO closed %d times", fio.closed)
	}
}

func TestTableConsumersAndParseFilter(t *testing.T) {
	_, tbl := openDemo(t)
	m := tbl.Consumers()
	if want := filepath.Join(tbl.Path(), "consumer"); filepath.Clean(m.Dir()) != filepath.Clean(want) {
		t.Errorf("consumer dir %s, want %s", m.Dir(), want)
	}
	if _, ok, err := m.Consumer(context.Background(), "nobody"); err != nil || ok {
		t.Errorf("unknown consumer: ok %v, err %v", ok, err)
	}
	if p, err := predicate.Parse("", tbl.Schema().Fields); p != nil || err != nil {
		t.Errorf("empty filter: %v, %v", p, err)
	}
	if p, err := predicate.Parse("id > 3", tbl.Schema().Fields); p == nil || err != nil {
		t.Errorf("filter: %v, %v", p, err)
	}
	if _, err := predicate.Parse("nope > 3", tbl.Schema().Fields); err == nil {
		t.Error("unknown column accepted")
	}
}
