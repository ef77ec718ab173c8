// Package recordreader holds what every array.RecordReader of the read path
// shares, so that each reader only writes its Next.
package recordreader

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// Base is the bookkeeping of an array.RecordReader: the reference count,
// the output schema, the current batch and the error that stopped the
// reader. A reader embeds it, calls Init once, and writes a Next that
// starts with Begin and ends with Set or Fail.
type Base struct {
	refs   atomic.Int64
	schema *arrow.Schema
	free   func()
	rec    arrow.RecordBatch
	err    error
}

// Init gives the reader one reference, its output schema, and free, which
// Release calls (if not nil) when the last reference goes, after the
// current batch is released.
func (b *Base) Init(schema *arrow.Schema, free func()) {
	b.schema, b.free = schema, free
	b.refs.Store(1)
}

// Retain increases the reference count.
func (b *Base) Retain() { b.refs.Add(1) }

// Release decreases the reference count and frees everything at zero.
func (b *Base) Release() {
	if b.refs.Add(-1) != 0 {
		return
	}
	b.releaseRec()
	if b.free != nil {
		b.free()
	}
}

// Schema is the output schema.
func (b *Base) Schema() *arrow.Schema { return b.schema }

// RecordBatch is the current batch, valid until the next call to Next.
func (b *Base) RecordBatch() arrow.RecordBatch { return b.rec }

// Record is the deprecated alias of RecordBatch.
func (b *Base) Record() arrow.RecordBatch { return b.rec }

// Err is the error that stopped Next, nil at a clean end.
func (b *Base) Err() error { return b.err }

// Begin releases the current batch and reports whether Next may read on:
// false once an error has stopped the reader.
func (b *Base) Begin() bool {
	b.releaseRec()
	return b.err == nil
}

// Set makes rec (owned by the reader from now on) the current batch and
// returns Next's result: false for nil, the clean end.
func (b *Base) Set(rec arrow.RecordBatch) bool {
	b.rec = rec
	return rec != nil
}

// Fail stops the reader with err (nil is a clean end) and returns Next's
// result, false.
func (b *Base) Fail(err error) bool {
	b.err = err
	return false
}

func (b *Base) releaseRec() {
	if b.rec != nil {
		b.rec.Release()
		b.rec = nil
	}
}
