package scan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// copyFixture copies a committed pypaimon table to a temporary directory
// the test may damage.
func copyFixture(t *testing.T, table string) string {
	t.Helper()
	src := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "interop.db", table)
	dst := filepath.Join(t.TempDir(), table)
	testenv.CopyTree(t, src, dst)
	return dst
}

func planner(t *testing.T, root string) (*scan.Planner, *snapshot.Manager) {
	t.Helper()
	fio := fileio.NewLocal()
	sm := schema.NewManager(fio, root, "main")
	s, err := sm.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &scan.Planner{FIO: fio, TableRoot: root, Schema: s, Schemas: sm,
		Paths: scan.NewPathFactory(root, s)}, snapshot.NewManager(fio, root, "main")
}

func latest(t *testing.T, sm *snapshot.Manager) *snapshot.Snapshot {
	t.Helper()
	snap, ok, err := sm.Latest(context.Background())
	if err != nil || !ok {
		t.Fatalf("latest snapshot: %v (found %v)", err, ok)
	}
	return snap
}

// cutToHeader rewrites an Avro container file as its header alone: a valid
// container with zero blocks, which is what a file cut exactly at its first
// block boundary parses as. The header ends with the sync marker every
// block repeats, and the file ends with it.
func cutToHeader(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sync := data[len(data)-16:]
	end := bytes.Index(data, sync) + 16
	if end >= len(data) {
		t.Fatalf("%s has no block after its header", path)
	}
	if err := os.WriteFile(path, data[:end], 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantCorrupt(t *testing.T, err error, file string) {
	t.Helper()
	if !errors.Is(err, types.ErrCorrupt) || !strings.Contains(err.Error(), file) {
		t.Fatalf("want ErrCorrupt naming %s, got %v", file, err)
	}
}

// A manifest cut at a block boundary still parses, as a manifest with
// fewer (here: no) entries. Its size and entry counts contradict the
// manifest list, so planning fails naming it, in full and in delta plans.
func TestTruncatedManifestIsCorrupt(t *testing.T) {
	root := copyFixture(t, "bucket4")
	p, sm := planner(t, root)
	snap := latest(t, sm)
	metas, err := manifest.ReadManifestList(context.Background(), p.FIO, filepath.Join(root, "manifest", snap.DeltaManifestList))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PlanSnapshot(context.Background(), snap, scan.Full); err != nil {
		t.Fatalf("intact table: %v", err)
	}
	victim := metas[0].FileName
	cutToHeader(t, filepath.Join(root, "manifest", victim))
	for _, kind := range []scan.ManifestKind{scan.Full, scan.Delta} {
		_, err := p.PlanSnapshot(context.Background(), snap, kind)
		wantCorrupt(t, err, victim)
	}
}

// A manifest list cut short contradicts the size the snapshot records; a
// snapshot of a writer that records no size is still caught by its record
// count, as long as no manifest was pruned.
func TestTruncatedManifestListIsCorrupt(t *testing.T) {
	root := copyFixture(t, "bucket4")
	p, sm := planner(t, root)
	snap := latest(t, sm)
	if snap.DeltaManifestListSize == nil || snap.DeltaRecordCount == nil || *snap.DeltaRecordCount == 0 {
		t.Fatal("fixture snapshot records no delta list size or rows: the test proves nothing")
	}
	cutToHeader(t, filepath.Join(root, "manifest", snap.DeltaManifestList))
	_, err := p.PlanSnapshot(context.Background(), snap, scan.Delta)
	wantCorrupt(t, err, snap.DeltaManifestList)

	// The same damage, with the sizes gone from the snapshot file.
	path := filepath.Join(root, "snapshot", "snapshot-"+strconv.FormatInt(snap.ID, 10))
	var raw map[string]any
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // commitIdentifier is a full int64
	if err := dec.Decode(&raw); err != nil {
		t.Fatal(err)
	}
	delete(raw, "baseManifestListSize")
	delete(raw, "deltaManifestListSize")
	data, _ = json.Marshal(raw)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := sm.Snapshot(context.Background(), snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if old.DeltaManifestListSize != nil {
		t.Fatal("snapshot still records the size")
	}
	_, err = p.PlanSnapshot(context.Background(), old, scan.Delta)
	if !errors.Is(err, types.ErrCorrupt) || !strings.Contains(err.Error(), "records") {
		t.Fatalf("want ErrCorrupt from the record count, got %v", err)
	}
}
