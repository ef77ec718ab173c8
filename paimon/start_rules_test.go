package paimon_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
)

// TestStartPastLatest: one rule for a start position past the latest
// snapshot (demo.orders holds 1..3): from-snapshot may start at the next
// snapshot (4) and waits for it, nothing later; from-snapshot-full needs a
// snapshot that exists. The error is permanent, names StartSnapshot, the
// start and the latest — never a raw "no such file" — with or without an
// end bound.
func TestStartPastLatest(t *testing.T) {
	_, tbl := openDemo(t)
	ctx := context.Background()
	for _, c := range []struct {
		mode  paimon.StartMode
		start int64
		end   bool
	}{
		{paimon.StartFromSnapshot, 99, false},
		{paimon.StartFromSnapshot, 99, true},
		{paimon.StartFromSnapshot, 5, false},
		{paimon.StartFromSnapshotFull, 4, false},
		{paimon.StartFromSnapshotFull, 99, true},
	} {
		sc, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: c.mode, StartSnapshot: c.start, EndAtLatest: c.end})
		if err != nil {
			t.Fatal(err)
		}
		_, err = sc.Next(ctx)
		var fe *paimon.FieldError
		var se *paimon.StartError
		if !errors.As(err, &fe) || fe.Field != "StartSnapshot" || !errors.As(err, &se) || !paimon.IsPermanent(err) {
			t.Fatalf("%s %d (end at latest %t): got %v, want a permanent StartSnapshot error", c.mode, c.start, c.end, err)
		}
		want := "scan mode " + c.mode.String() + " starts at snapshot " + itoa(c.start) + ", but the latest snapshot is 3 (the table holds snapshots 1..3"
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "no such file") {
			t.Errorf("%s %d: %q, want it to contain %q", c.mode, c.start, err, want)
		}
	}
	// from-snapshot 4 waits for snapshot 4.
	sc, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromSnapshot, StartSnapshot: 4, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := sc.Next(wctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("from-snapshot 4: %v, want a wait for snapshot 4", err)
	}
}

// TestEndBoundAlreadyPassed: a start past the end bound ends the stream
// normally (io.EOF) before reading anything, with an EndPassed that says
// why — the scan mode's start or the consumer's position, and the bound.
func TestEndBoundAlreadyPassed(t *testing.T) {
	ctx := context.Background()
	_, tbl := openDemo(t)
	sc, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromSnapshot, StartSnapshot: 4, EndAtLatest: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Next(ctx)
	var ep *paimon.EndPassed
	if !errors.Is(err, io.EOF) || !errors.As(err, &ep) || !strings.Contains(err.Error(), "scan mode from-snapshot starts at snapshot 4, past the end snapshot 3: nothing to read") {
		t.Fatalf("from-snapshot 4, end at latest 3: %v", err)
	}
	if _, err := sc.Next(ctx); err != io.EOF {
		t.Fatalf("after the end: %v, want io.EOF", err)
	}

	wh, _ := demoCopy(t)
	_, tbl = openDemoAt(t, wh)
	if err := tbl.Consumers().Reset(ctx, "done", consumer.Consumer{NextSnapshot: 4}); err != nil {
		t.Fatal(err)
	}
	sc, _, err = tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "done", EndSnapshot: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Next(ctx)
	if !errors.Is(err, io.EOF) || !errors.As(err, &ep) || !strings.Contains(err.Error(), `consumer "done" (`) || !strings.Contains(err.Error(), "starts at snapshot 4, past the end snapshot 3") {
		t.Fatalf("consumer at 4, end 3: %v", err)
	}

	// A read that reaches its bound ends with a plain io.EOF.
	sc, _, err = tbl.NewStreamingScan(ctx, paimon.StreamConfig{EndAtLatest: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Next(ctx); err != io.EOF {
		t.Fatalf("after the full plan of the end snapshot: %v, want io.EOF", err)
	}
}

// TestReadSnapshotPastLatest: a batch read of a snapshot that does not
// exist says which snapshots do.
func TestReadSnapshotPastLatest(t *testing.T) {
	_, tbl := openDemo(t)
	_, err := tbl.NewReadBuilder().WithSnapshot(9).Plan(context.Background())
	if err == nil || !paimon.IsPermanent(err) || err.Error() != "table demo.orders: snapshot 9 does not exist (the latest is 3, the table holds snapshots 1..3)" {
		t.Fatalf("got %v", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
