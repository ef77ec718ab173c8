package snapshot

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// runPypaimon runs script with pypaimon's Python (argv[1] = a fresh
// warehouse) and returns the warehouse and the script's stdout. Without the
// venv the test is skipped loudly (testenv): CI installs it.
func runPypaimon(t *testing.T, script string) (string, []byte) {
	t.Helper()
	wh := t.TempDir()
	return wh, []byte(testenv.RunPypaimon(t, script, wh))
}

// TestPypaimonSnapshots: pypaimon commits, tags, rolls back (so id 3 is
// reused with new content) and branches; Go must agree with pypaimon's own
// view of the result, printed by the script.
func TestPypaimonSnapshots(t *testing.T) {
	wh, out := runPypaimon(t, `
import sys, json, pyarrow as pa
from pypaimon import CatalogFactory, Schema
cat = CatalogFactory.create({"warehouse": sys.argv[1]})
cat.create_database("db", True)
sch = pa.schema([("a", pa.int32())])
cat.create_table("db.t", Schema.from_pyarrow_schema(sch), False)
t = cat.get_table("db.t")
def commit(v):
    wb = t.new_batch_write_builder(); w = wb.new_write(); c = wb.new_commit()
    w.write_arrow(pa.Table.from_pylist([{"a": v}], schema=sch)); c.commit(w.prepare_commit()); w.close(); c.close()
for v in range(3):
    commit(v)
sm = t.snapshot_manager()
old3 = sm.get_snapshot_by_id(3).uuid
t.create_tag("keep", snapshot_id=2, time_retained="2h")
t.rollback_to(2)
commit(9)
t = cat.get_table("db.t")
sm = t.snapshot_manager()
latest = sm.get_latest_snapshot()
t.branch_manager().create_branch("b1", "keep")
print(json.dumps({"latest": latest.id, "uuid": latest.uuid, "old3": old3,
    "times": {str(i): sm.get_snapshot_by_id(i).time_millis for i in (1, 2, 3)},
    "total": latest.total_record_count, "tags": sorted(t.list_tags())}))
`)
	var want struct {
		Latest int64            `json:"latest"`
		UUID   string           `json:"uuid"`
		Old3   string           `json:"old3"`
		Times  map[string]int64 `json:"times"`
		Total  int64            `json:"total"`
		Tags   []string         `json:"tags"`
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("script output %q: %v", out, err)
	}
	ctx := context.Background()
	root := filepath.Join(wh, "db.db", "t")
	fio := fileio.NewLocal()
	m := NewManager(fio, root, "")
	s, ok, err := m.Latest(ctx)
	if err != nil || !ok {
		t.Fatalf("Latest = %v, %v", ok, err)
	}
	if s.ID != want.Latest || s.UUID != want.UUID || *s.TotalRecordCount != want.Total {
		t.Errorf("latest = id %d uuid %s total %d, pypaimon says %d %s %d", s.ID, s.UUID, *s.TotalRecordCount, want.Latest, want.UUID, want.Total)
	}
	if s.UUID == want.Old3 {
		t.Errorf("snapshot 3 after rollback has the pre-rollback uuid")
	}
	ids, err := m.ListIDs(ctx)
	if err != nil || !reflect.DeepEqual(ids, []int64{1, 2, 3}) {
		t.Errorf("ListIDs = %v, %v", ids, err)
	}
	if id, ok, err := m.EarliestID(ctx); err != nil || !ok || id != 1 {
		t.Errorf("EarliestID = %d, %v, %v", id, ok, err)
	}
	// Time lookups against pypaimon's commit times.
	t2 := want.Times["2"]
	if e, ok, err := m.EarlierThanTime(ctx, t2); err != nil || !ok || e.ID != 1 {
		t.Errorf("EarlierThanTime(time of 2) = %v, %v, %v, want 1", e, ok, err)
	}
	if e, ok, err := m.EarlierOrEqualTime(ctx, t2); err != nil || !ok || e.ID != 2 {
		t.Errorf("EarlierOrEqualTime(time of 2) = %v, %v, %v, want 2", e, ok, err)
	}
	if e, ok, err := m.LaterOrEqualTime(ctx, t2+1); err != nil || !ok || e.ID != 3 {
		t.Errorf("LaterOrEqualTime(time of 2 + 1) = %v, %v, %v, want 3", e, ok, err)
	}
	tm := NewTagManager(fio, root, "main")
	names, err := tm.List(ctx)
	if err != nil || !reflect.DeepEqual(names, want.Tags) {
		t.Errorf("tags = %v, %v; pypaimon says %v", names, err, want.Tags)
	}
	tag, err := tm.Tag(ctx, "keep")
	if err != nil || tag.ID != 2 || tag.TagCreateTime == nil || tag.TagTimeRetained == nil || tag.TagTimeRetained.Hours() != 2 {
		t.Errorf("tag keep = %+v, %v", tag, err)
	}
	// The branch created from the tag has its own snapshot dir.
	b, ok, err := NewManager(fio, root, "b1").Latest(ctx)
	if err != nil || !ok || b.ID != 2 {
		t.Errorf("branch b1 latest = %v, %v, %v, want snapshot 2", b, ok, err)
	}
}
