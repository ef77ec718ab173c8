package input

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestRealChangeMetadata: on a primary-key table every message carries its
// key as JSON (paimon_key) and Connect's CDC operation: `read` for the
// rows of the full plan, then the row kind's operation; on an append table
// the operation is `read` then `insert`, and there is no key.
func TestRealChangeMetadata(t *testing.T) {
	rt := newRealTable(t, "db.pk", pyOp{"pk": true, "bucket": 1},
		pyOp{"op": "rows", "rows": []map[string]any{
			{"id": 1, "name": "a", "rk": "+I"}, {"id": 2, "name": "b", "rk": "+I"}, {"id": 3, "name": "c", "rk": "+I"}}},
		pyOp{"op": "rows", "rows": []map[string]any{
			{"id": 2, "name": "b", "rk": "-U"}, {"id": 3, "name": "c", "rk": "-D"}, {"id": 4, "name": "d", "rk": "+I"}}},
		pyOp{"op": "rows", "rows": []map[string]any{{"id": 2, "name": "b2", "rk": "+U"}}})
	got := describe(t, startReal(t, rt, "  scan_mode: from-snapshot-full\n  snapshot_id: 1\n  end: {at_latest: true}\n").wait(), true)
	want := []string{
		`1:a@1 read {"id":1}`, `2:b2@3 update {"id":2}`, `2:b@1 read {"id":2}`, `2:b@2 update_before {"id":2}`,
		`3:c@1 read {"id":3}`, `3:c@2 delete {"id":3}`, `4:d@2 insert {"id":4}`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("messages %v\nwant %v", got, want)
	}

	// key_metadata: false leaves out only the key.
	got = describe(t, startReal(t, rt, "  scan_mode: from-snapshot-full\n  snapshot_id: 1\n  end: {at_latest: true}\n  key_metadata: false\n").wait(), true)
	for i := range want {
		want[i] = strings.Replace(want[i], want[i][strings.LastIndex(want[i], " "):], " <nil>", 1)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("key_metadata false: messages %v\nwant %v", got, want)
	}

	at := newRealTable(t, "db.e", pyOp{}, pyOp{"op": "append", "start": 0, "count": 2}, pyOp{"op": "append", "start": 2, "count": 1})
	got = describe(t, startReal(t, at, "  scan_mode: from-snapshot-full\n  snapshot_id: 1\n  end: {at_latest: true}\n").wait(), false)
	want = []string{"0:@1 read <nil>", "1:@1 read <nil>", "2:@2 insert <nil>"}
	if !slices.Equal(got, want) {
		t.Fatalf("append table messages %v\nwant %v", got, want)
	}
}

func describe(t *testing.T, rows []delivered, named bool) []string {
	t.Helper()
	var out []string
	for _, d := range rows {
		var m struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal([]byte(d.body), &m); err != nil {
			t.Fatal(err)
		}
		name := m.Name
		if !named {
			name = ""
		}
		out = append(out, fmt.Sprintf("%d:%s@%v %v %v", m.ID, name, d.meta[MetaSnapshotID], d.meta[MetaOperation], d.meta[MetaKey]))
	}
	sort.Strings(out)
	return out
}
