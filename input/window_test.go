package input

import (
	"context"
	"testing"
	"time"
)

// waitsFor reports whether w.wait returns within d.
func waitsFor(w *window, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return w.wait(ctx) == nil
}

func TestWindowRowsAndBytes(t *testing.T) {
	w := newWindow(100, 1000)
	l := w.lease()
	r1 := l.take(60, 100)
	if !waitsFor(w, 10*time.Millisecond) {
		t.Fatal("60 of 100 rows: the window must have room")
	}
	r2 := l.take(40, 100)
	if waitsFor(w, 20*time.Millisecond) {
		t.Fatal("100 of 100 rows: wait must block")
	}
	done := make(chan bool, 1)
	go func() { done <- waitsFor(w, 5*time.Second) }()
	r1()
	if !<-done {
		t.Fatal("a release must wake a waiting reader")
	}
	r1() // a second ack of the same batch releases nothing more
	r3 := l.take(60, 1)
	if waitsFor(w, 20*time.Millisecond) {
		t.Fatal("a double release must not have freed room: 100 rows are in flight")
	}
	r2()
	r3()
	big := l.take(1, 1000)
	if waitsFor(w, 20*time.Millisecond) {
		t.Fatal("1000 of 1000 bytes: wait must block whatever the rows")
	}
	big()
	if !waitsFor(w, 10*time.Millisecond) {
		t.Fatal("empty window must have room")
	}
}

// A slot's reader dropped with batches unacknowledged gives their room back
// to the replica's other slots; its late acks release nothing twice.
func TestWindowLeaseClose(t *testing.T) {
	w := newWindow(10, 0)
	dropped, kept := w.lease(), w.lease()
	late := dropped.take(6, 10)
	k := kept.take(4, 10)
	if waitsFor(w, 20*time.Millisecond) {
		t.Fatal("10 of 10 rows: wait must block")
	}
	dropped.close()
	if !waitsFor(w, time.Second) {
		t.Fatal("closing a lease must give its rows back")
	}
	late()
	if got := w.rows; got != 4 {
		t.Fatalf("rows in flight after a late ack of a closed lease: %d, want 4", got)
	}
	k()
	if w.rows != 0 || w.bytes != 0 {
		t.Fatalf("window not empty: %d rows, %d bytes", w.rows, w.bytes)
	}
	dropped.take(3, 3)
	if w.rows != 0 {
		t.Fatalf("a closed lease took %d rows", w.rows)
	}
}
