package format

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// slowIO is a store whose reads take a round trip, counting how many are
// in flight at once.
type slowIO struct {
	fileio.FileIO
	inFlight, most atomic.Int32
}

func (s *slowIO) Open(ctx context.Context, path string) (fileio.File, error) {
	f, err := s.FileIO.Open(ctx, path)
	return &slowFile{File: f, io: s}, err
}

type slowFile struct {
	fileio.File
	io *slowIO
}

func (f *slowFile) ReadAt(b []byte, off int64) (int, error) {
	n := f.io.inFlight.Add(1)
	defer f.io.inFlight.Add(-1)
	for m := f.io.most.Load(); n > m && !f.io.most.CompareAndSwap(m, n); m = f.io.most.Load() {
	}
	time.Sleep(5 * time.Millisecond)
	return f.File.ReadAt(b, off)
}

// TestColumnChunksFetchedConcurrently: columns are decoded one after
// another, but a row group's column chunks are fetched at once, as
// pqarrow's parallel readers fetched them, and the rows are the same.
func TestColumnChunksFetchedConcurrently(t *testing.T) {
	fields := loadFields(t, "pypaimon_all.fields.json")
	path := testdata("pypaimon_all.parquet")
	want := readAll(t, path, Options{Fields: fields})
	sio := &slowIO{FileIO: localIO(t)}
	got, _ := readAllFrom(t, sio, path, Options{Fields: fields})
	compareRows(t, got, want)
	if m := sio.most.Load(); m < 2 {
		t.Fatalf("at most %d read in flight: the column chunks were fetched one after another", m)
	}
}
