package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Tables that store a read position in their options (javagen.scanopt_*): Java's batch reads
// start there, and the cases of cases-java-scanopt.json check that ours do (TestFixtures). Here:
// a position this reader does not take is refused by name, never read as the latest snapshot,
// and a stream, which starts where it is told, says that the table stores one.
func TestStoredReadPositions(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var warnings []string
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(fixturesDir(t), "warehouse"), paimon.WithWarnings(func(m string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, m)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()

	// An incremental read plans the changes up to its end (its rows are TestFixtures' cases); a
	// read that names its snapshot does not need the stored position.
	tbl, err := cat.GetTable(ctx, "javagen.scanopt_incremental")
	if err != nil {
		t.Fatal(err)
	}
	if plan, err := tbl.NewReadBuilder().Plan(ctx); err != nil || plan.SnapshotID != 3 {
		t.Fatalf("plan of a table storing incremental-between=1,3: %+v, %v", plan, err)
	}
	if _, err := tbl.NewReadBuilder().WithSnapshot(3).Plan(ctx); err != nil {
		t.Fatalf("plan of snapshot 3: %v", err)
	}
	// Ranges outside the table's snapshots are refused as Java refuses them. (Diffs between two
	// tags or in the diff scan mode are read: javagen.scanopt_diff_*, javapk.pk_diff_*.)
	for _, tc := range []struct {
		opts map[string]string
		want string
		err  error
	}{
		{map[string]string{"incremental-between": "1,9"}, "outside the table's 1..3", fileio.ErrNotExist},
		{map[string]string{"incremental-between": "1,9", "incremental-between-scan-mode": "diff"}, "snapshot-9", fileio.ErrNotExist},
		{map[string]string{"incremental-between": "x,3"}, "neither two tags nor two snapshot ids", fileio.ErrNotExist},
		{map[string]string{"incremental-between-timestamp": "2024-01-01 00:00:00,2025-01-01 00:00:00"}, "only epoch milliseconds", types.ErrUnsupported},
	} {
		tbl := tableWithOptions(t, "javagen.scanopt_incremental", tc.opts)
		_, err := tbl.NewReadBuilder().Plan(ctx)
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("options %v: err = %v, want %v naming %q", tc.opts, err, tc.err, tc.want)
		}
	}

	// Two tags of one snapshot are an empty diff, as in Java; tags in the wrong order an error.
	plan, err := tableWithOptions(t, "javagen.scanopt_incremental", map[string]string{"incremental-between": "t1,t2"}).NewReadBuilder().Plan(ctx)
	if err != nil || len(plan.Splits) != 0 {
		t.Fatalf("diff of two tags of snapshot 1: %+v, %v", plan, err)
	}
	if _, err := tableWithOptions(t, "javagen.scanopt_diff_tags", map[string]string{"incremental-between": "t4,t1"}).NewReadBuilder().Plan(ctx); err == nil ||
		!strings.Contains(err.Error(), "tag t1 (snapshot 1) is before tag t4 (snapshot 4)") {
		t.Fatalf("diff from t4 to t1: %v", err)
	}
	// A diff of a primary-key table filters on partition columns only: which keys Java returns
	// depends on the files its statistics prune. An append table's diff takes any filter.
	pk := tableWithOptionsIn(t, filepath.Join(fixturesDir(t), "pk", "warehouse"), "javapk.pk_diff_ids", map[string]string{
		"incremental-between": "1,5", "incremental-between-scan-mode": "diff"})
	if _, err := pk.NewReadBuilder().WithFilterExpr("n > 20").Plan(ctx); !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "filter on column n of an incremental diff") {
		t.Fatalf("filtered diff of a primary-key table: %v", err)
	}
	if plan, err := pk.NewReadBuilder().Plan(ctx); err != nil || plan.SnapshotID != 5 || len(plan.Splits) == 0 {
		t.Fatalf("diff of a primary-key table: %+v, %v", plan, err)
	}

	tbl, err = cat.GetTable(ctx, "javagen.scanopt_snapshot")
	if err != nil {
		t.Fatal(err)
	}
	plan, err = tbl.NewReadBuilder().Plan(ctx)
	if err != nil || plan.SnapshotID != 2 {
		t.Fatalf("plan of a table storing scan.snapshot-id=2: snapshot %v, err %v", plan, err)
	}
	if _, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{EndAtLatest: true}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !slices.ContainsFunc(warnings, func(w string) bool {
		return strings.Contains(w, "scan.snapshot-id=2") && strings.Contains(w, "this stream starts as configured")
	}) {
		t.Fatalf("warnings %q, want one naming the stored position", warnings)
	}
	mu.Unlock()

	// Scan mode default starts where Java's stream of the table starts, or is refused where
	// Java's is (a tag, an incremental read).
	for _, name := range []string{"scanopt_snapshot", "scanopt_tag", "scanopt_incremental", "scanopt_incremental_ts", "scanopt_latest", "scanopt_ts"} {
		t.Run(name+"/stream default", func(t *testing.T) {
			dir := filepath.Join(fixturesDir(t), "expected", "javagen."+name)
			tbl, err := cat.GetTable(ctx, "javagen."+name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readStream(ctx, tbl, paimon.StreamConfig{StartMode: paimon.StartDefault, EndAtLatest: true})
			if javaErr, rerr := os.ReadFile(filepath.Join(dir, "stream_default.error")); rerr == nil {
				if !errors.Is(err, types.ErrUnsupported) {
					t.Fatalf("Java refuses the stream (%s); ours: rows %v, err %v", strings.TrimSpace(string(javaErr)), got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := testenv.ReadSortedLines(t, filepath.Join(dir, "stream_default.jsonl"))
			if d := DiffLines(want, got); d != "" {
				t.Fatalf("stream in scan mode default differs from Java's:\n%s", d)
			}
		})
	}
}

// tableWithOptions copies a fixture table into a temporary warehouse, gives it a tag t2 beside
// its t1 (when it has one), and stores opts in a new schema (what ALTER TABLE SET writes): the incremental-read
// refusals above need tables Java reads by other means than ours.
func tableWithOptions(t *testing.T, name string, opts map[string]string) *paimon.Table {
	t.Helper()
	return tableWithOptionsIn(t, filepath.Join(fixturesDir(t), "warehouse"), name, opts)
}

// tableWithOptionsIn is tableWithOptions on a table of the warehouse wh.
func tableWithOptionsIn(t *testing.T, wh, name string, opts map[string]string) *paimon.Table {
	t.Helper()
	db, tbl, _ := strings.Cut(name, ".")
	src := filepath.Join(wh, db+".db", tbl)
	tmp := t.TempDir()
	dst := filepath.Join(tmp, db+".db", tbl)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if tag, err := os.ReadFile(filepath.Join(dst, "tag", "tag-t1")); err == nil {
		if err := os.WriteFile(filepath.Join(dst, "tag", "tag-t2"), tag, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schemas, err := filepath.Glob(filepath.Join(dst, "schema", "schema-*"))
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no schema in %s: %v", dst, err)
	}
	latest := -1
	for _, p := range schemas {
		if id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(p), "schema-")); err == nil && id > latest {
			latest = id
		}
	}
	b, err := os.ReadFile(filepath.Join(dst, "schema", fmt.Sprintf("schema-%d", latest)))
	if err != nil {
		t.Fatal(err)
	}
	var sch map[string]any
	if err := json.Unmarshal(b, &sch); err != nil {
		t.Fatal(err)
	}
	o := map[string]any{}
	for k, v := range sch["options"].(map[string]any) {
		if !strings.HasPrefix(k, "incremental-") {
			o[k] = v
		}
	}
	for k, v := range opts {
		o[k] = v
	}
	sch["options"], sch["id"] = o, latest+1
	if b, err = json.Marshal(sch); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "schema", fmt.Sprintf("schema-%d", latest+1)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := paimon.OpenCatalog(context.Background(), tmp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	out, err := cat.GetTable(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
