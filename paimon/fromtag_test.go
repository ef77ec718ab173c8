package paimon_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// TestStreamFromTag: scan mode from-tag reads the snapshot a tag holds in
// full and ends, as Java reads scan.tag-name (a batch read; Java refuses to
// stream from a tag) — also when the snapshot itself has expired, and a
// consumer resuming past the tag ends without reading. javagen.branchy:
// tag t1 holds snapshot 1 (ids 1, 2); snapshot 2 adds id 3.
func TestStreamFromTag(t *testing.T) {
	ctx := context.Background()
	wh, dir := fixtureCopy(t, filepath.Join("resources", "fixtures", "warehouse"), "javagen", "branchy")
	// The tag outlives its snapshot.
	if err := os.Remove(filepath.Join(dir, "snapshot", "snapshot-1")); err != nil {
		t.Fatal(err)
	}
	_, tbl := openTableAt(t, wh, "javagen.branchy")
	cfg := paimon.StreamConfig{StartMode: paimon.StartFromTag, StartTag: "t1", ConsumerID: "tagged"}
	sc, rd, err := tbl.NewStreamingScan(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sc.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !p.FirstPlan || p.SnapshotID != 1 || p.NextSnapshotID != 2 {
		t.Fatalf("first plan: %+v", p)
	}
	var rows int64
	for _, sp := range p.Splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		rr.Release()
	}
	if rows != 2 {
		t.Fatalf("tag t1: %d rows, want 2", rows)
	}
	if _, err := sc.Next(ctx); err != io.EOF {
		t.Fatalf("after the tag: %v, want io.EOF", err)
	}
	if err := sc.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
		t.Fatal(err)
	}
	// Resumed, the consumer is past the tag: nothing to read, and why.
	sc, _, err = tbl.NewStreamingScan(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Next(ctx)
	var ep *paimon.EndPassed
	if !errors.As(err, &ep) || !errors.Is(err, io.EOF) || ep.End != 1 {
		t.Fatalf("resumed past the tag: %v", err)
	}

	// A wrong tag names the existing ones, as the StartTag field.
	sc, _, err = tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromTag, StartTag: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Next(ctx)
	var fe *paimon.FieldError
	if !errors.As(err, &fe) || fe.Field != "StartTag" || !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "table javagen.branchy has no tag t2; did you mean t1?") {
		t.Fatalf("tag t2: %v", err)
	}

	for _, c := range []struct {
		cfg  paimon.StreamConfig
		want string
	}{
		{paimon.StreamConfig{StartMode: paimon.StartFromTag}, "StartTag: required by scan mode from-tag"},
		{paimon.StreamConfig{StartTag: "t1"}, "StartTag: only used with scan mode from-tag, not latest-full"},
		{paimon.StreamConfig{StartMode: paimon.StartFromTag, StartTag: "t1", EndAtLatest: true}, "from-tag ends after the tag's snapshot"},
	} {
		if err := c.cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	var m paimon.StartMode
	if err := m.UnmarshalText([]byte("from-tag")); err != nil || m != paimon.StartFromTag {
		t.Errorf("from-tag parses as %v, %v", m, err)
	}
}
