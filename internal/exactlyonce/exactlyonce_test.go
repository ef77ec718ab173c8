package exactlyonce

import (
	"errors"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

func TestRecordRoundTrip(t *testing.T) {
	k := Key{Table: "db.t", Consumer: "c-slot-3"}
	pos := Position{Snapshot: 7, Full: true, Split: 2, Rows: 99, File: "data-1.parquet"}
	b, err := EncodeRecord(k, pos)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseRecord(k, b)
	if err != nil || got != pos {
		t.Fatalf("ParseRecord(%s) = %+v, %v; want %+v", b, got, err, pos)
	}
	for _, bad := range []string{
		`{"table":"db.t","consumer":"other","snapshot":7}`, // another key's record
		`{"table":"db.t","consumer":"c-slot-3","snapshot":0}`,
		`{"table":"db.t","consumer":"c-slot-3","snapshot":3,"rows":-1}`,
		`{"table":`,
	} {
		if _, err := ParseRecord(k, []byte(bad)); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "db.t/c-slot-3") {
			t.Errorf("ParseRecord(%s): %v, want ErrConfig naming the key", bad, err)
		}
	}
}

func TestNextSnapshotNeverLeads(t *testing.T) {
	for _, tc := range []struct {
		pos  Position
		next int64
		ok   bool
	}{
		{Position{Snapshot: 5, Done: true}, 6, true},
		{Position{Snapshot: 5, Split: 2, Rows: 10}, 5, true},    // the rest of 5 is still to read
		{Position{Snapshot: 5, Full: true, Split: 1}, 0, false}, // no consumer position means "part of a full read"
		{Position{Snapshot: 5, Full: true, Done: true}, 6, true},
	} {
		if next, ok := tc.pos.NextSnapshot(); next != tc.next || ok != tc.ok {
			t.Errorf("%s: NextSnapshot = %d, %t; want %d, %t", tc.pos, next, ok, tc.next, tc.ok)
		}
	}
}

func TestPositionKeysSortInReadOrder(t *testing.T) {
	keys := []string{
		SplitKey(9, true, 0) + RowKey(0), SplitKey(9, true, 0) + RowKey(1024), SplitKey(9, true, 10) + RowKey(3),
		SplitKey(10, false, 0) + RowKey(0), SplitKey(100, false, 2) + RowKey(7),
	}
	for i := 1; i < len(keys); i++ {
		if keys[i-1] >= keys[i] {
			t.Errorf("%q does not sort before %q", keys[i-1], keys[i])
		}
	}
}

func TestOneCommitterPerStream(t *testing.T) {
	res := service.MockResources()
	if Lookup(res) != nil {
		t.Fatal("a stream without a transactional output has a committer")
	}
	var c Committer = nil
	if err := Register(res, c); err != nil {
		t.Fatal(err)
	}
	if err := Register(res, c); err == nil {
		t.Fatal("a second transactional output was accepted")
	}
}
