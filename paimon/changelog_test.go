package paimon_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
)

// llCopy copies javapk.pk_ll_input, written by Java with snapshots retained 2 and changelogs
// 100: snapshots 8 and 9 remain, changelog/changelog-1..7 hold the expired ones.
func llCopy(t *testing.T) (wh, table string) {
	t.Helper()
	return fixtureCopy(t, filepath.Join("resources", "fixtures", "pk", "warehouse"), "javapk", "pk_ll_input")
}

func openLL(t *testing.T, wh string) *paimon.Table {
	t.Helper()
	_, tbl := openTableAt(t, wh, "javapk.pk_ll_input")
	return tbl
}

// plannedIDs runs the scan to its end and returns the snapshot id of every plan.
func plannedIDs(t *testing.T, s *paimon.StreamingScan) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var ids []int64
	for {
		p, err := s.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return ids
			}
			t.Fatalf("after plans %v: %v", ids, err)
		}
		ids = append(ids, p.SnapshotID)
	}
}

func TestLongLivedChangelogFixtureShape(t *testing.T) {
	_, table := llCopy(t)
	for _, f := range []string{"changelog/changelog-1", "changelog/changelog-7", "snapshot/snapshot-8", "snapshot/snapshot-9"} {
		if _, err := os.Stat(filepath.Join(table, f)); err != nil {
			t.Fatalf("fixture no longer has the layout these tests need: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(table, "snapshot", "snapshot-7")); !os.IsNotExist(err) {
		t.Fatalf("snapshot-7 should have expired into changelog-7: %v", err)
	}
}

// A consumer whose next snapshot expired but whose changelog is retained resumes from the
// changelog: that position is not expired (Java's NextSnapshotFetcher).
func TestConsumerResumesFromLongLivedChangelog(t *testing.T) {
	ctx := context.Background()
	wh, _ := llCopy(t)
	tbl := openLL(t, wh)
	if err := tbl.Consumers().Reset(ctx, "c", consumer.Consumer{NextSnapshot: 3}); err != nil {
		t.Fatal(err)
	}
	s, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "c", EndSnapshot: 9, EmitEmptyPlans: true})
	if err != nil {
		t.Fatal(err)
	}
	got := plannedIDs(t, s)
	want := []int64{3, 4, 5, 6, 7, 8, 9}
	if !slices.Equal(got, want) {
		t.Fatalf("plans %v, want %v", got, want)
	}
}

// Expiry is decided against the earliest changelog: with changelog-1 and -2 gone, a consumer at
// 2 fails naming the earliest changelog (3), and with on_expired=earliest resumes there.
func TestExpiredAgainstEarliestChangelog(t *testing.T) {
	ctx := context.Background()
	wh, table := llCopy(t)
	for _, f := range []string{"changelog-1", "changelog-2", "EARLIEST"} {
		if err := os.Remove(filepath.Join(table, "changelog", f)); err != nil {
			t.Fatal(err)
		}
	}
	tbl := openLL(t, wh)
	if err := tbl.Consumers().Reset(ctx, "c", consumer.Consumer{NextSnapshot: 2}); err != nil {
		t.Fatal(err)
	}
	s, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "c", EndSnapshot: 9, EmitEmptyPlans: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Next(ctx)
	if !errors.Is(err, paimon.ErrExpired) || !strings.Contains(err.Error(), "earliest snapshot or long-lived changelog is 3") {
		t.Fatalf("want ErrExpired naming changelog 3, got %v", err)
	}
	s, _, err = tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "c", EndSnapshot: 9, EmitEmptyPlans: true,
		OnExpired: paimon.ExpiredEarliest})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.SnapshotID != 3 || p.Expired == nil || p.Expired.Earliest != 3 || p.Expired.Skipped() != 1 {
		t.Fatalf("first plan %d expired %+v, want snapshot 3 after skipping 1", p.SnapshotID, p.Expired)
	}
}

// from-snapshot clamps to the earliest changelog, not the earliest snapshot; from-timestamp
// searches the changelogs' commit times too.
func TestStartModesSeeLongLivedChangelogs(t *testing.T) {
	ctx := context.Background()
	wh, _ := llCopy(t)
	tbl := openLL(t, wh)
	s, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromSnapshot, StartSnapshot: 1,
		EndSnapshot: 9, EmitEmptyPlans: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := plannedIDs(t, s); !slices.Equal(got, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("from-snapshot 1: plans %v", got)
	}
	c4, err := tbl.History().Snapshot(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err = tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromTimestamp,
		StartTime: time.UnixMilli(c4.TimeMillis), EndSnapshot: 9, EmitEmptyPlans: true})
	if err != nil {
		t.Fatal(err)
	}
	got := plannedIDs(t, s)
	if len(got) == 0 || got[0] > 4 || got[len(got)-1] != 9 {
		t.Fatalf("from-timestamp of changelog 4: plans %v, want a start at or before 4", got)
	}
}

// Without decoupled retention the changelog directory is not Java's to read, nor ours: the
// same files with the changelog options removed make the expired position an error.
func TestChangelogIgnoredWhenNotDecoupled(t *testing.T) {
	ctx := context.Background()
	wh, table := llCopy(t)
	sch := filepath.Join(table, "schema", "schema-0")
	b, err := os.ReadFile(sch)
	if err != nil {
		t.Fatal(err)
	}
	txt := strings.NewReplacer(`"changelog.num-retained.min" : "2",`, "", `"changelog.num-retained.max" : "100",`, "").Replace(string(b))
	if txt == string(b) {
		t.Fatalf("schema-0 no longer has the changelog options this test removes:\n%s", b)
	}
	if err := os.WriteFile(sch, []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := openLL(t, wh)
	if tbl.History().Changelogs() != nil {
		t.Fatal("history reads changelogs of a table that does not retain them longer")
	}
	if err := tbl.Consumers().Reset(ctx, "c", consumer.Consumer{NextSnapshot: 3}); err != nil {
		t.Fatal(err)
	}
	s, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "c", EndSnapshot: 9})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(ctx); !errors.Is(err, paimon.ErrExpired) {
		t.Fatalf("want ErrExpired, got %v", err)
	}
}
