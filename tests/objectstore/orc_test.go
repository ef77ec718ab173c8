package objectstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// TestORCDataFileRequests reads the committed javagen.orcidx_none table
// (Java-written, uncompressed ORC: 2 files of 4000 rows in 2 stripes each,
// 24 columns) through s3:// on versitygw, all columns and then `id` alone:
// the reader fetches each file's tail, then per stripe its footer and the
// needed streams, so the one-column read moves a small part of the bytes,
// in a bounded number of GETs per file (tail, and per stripe a footer and
// the coalesced streams). gofakes3 in process, then versitygw.
func TestORCDataFileRequests(t *testing.T) {
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	for _, start := range []func(testing.TB, fileiotest.FaultConfig) *server{fake, versity} {
		base := start(t, fileiotest.FaultConfig{})
		t.Run(base.name, func(t *testing.T) { orcRequests(t, wh, base) })
	}
}

func orcRequests(t *testing.T, wh string, base *server) {
	s, m := base.another(t, "metered", fileiotest.FaultConfig{})
	root := "s3://" + bucket + "/orc"
	upload(t, s.open(t, s.options()), filepath.Join(wh, "javagen.db", "orcidx_none"), fileio.Join(root, "javagen.db", "orcidx_none"))
	files, _ := filepath.Glob(filepath.Join(wh, "javagen.db", "orcidx_none", "bucket-0", "*.orc"))
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	// With the store's default 256 KiB read-ahead, files this small are
	// read nearly whole in a few GETs (the store layer's trade-off of
	// bytes for requests); without it the reader's own ranges show.
	for _, readAhead := range []int{0, -1} {
		t.Run(map[int]string{0: "readahead", -1: "noreadahead"}[readAhead], func(t *testing.T) {
			orcRequestsWith(t, s, m, root, size, len(files), readAhead)
		})
	}
}

func orcRequestsWith(t *testing.T, s *server, m *meter, root string, size int64, nfiles, readAhead int) {
	counter := newRequestCounter()
	opts := s.options()
	opts.Metrics = counter.hook
	opts.ReadAhead = readAhead
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, root, paimon.WithStorageOptions(opts), interop.CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, "javagen.orcidx_none")
	if err != nil {
		t.Fatal(err)
	}
	all := readDataFiles(t, tbl, m, counter)
	one := readDataFiles(t, tbl, m, counter, "id")
	const stripesPerFile = 2
	for _, r := range []struct {
		name string
		r    fileReads
	}{{"all columns", all}, {"id only", one}} {
		t.Logf("orcidx_none, read-ahead %d, %s: %d files (%d bytes), %d rows: %d requests (%d GET), %d bytes", readAhead, r.name, r.r.files, size, r.r.rows, r.r.requests, r.r.gets, r.r.bytes)
		if r.r.rows != 8000 || r.r.files != int64(nfiles) || r.r.gets != r.r.requests {
			t.Errorf("%s: %+v, want 8000 rows from %d files, GETs only", r.name, r.r, nfiles)
		}
		if limit := int(r.r.files) * (1 + 2*stripesPerFile); r.r.requests > limit {
			t.Errorf("%s: %d requests, want at most %d (tail, then per stripe footer and streams)", r.name, r.r.requests, limit)
		}
	}
	if all.bytes < size*9/10 {
		t.Errorf("all columns moved %d bytes of %d: the test's premise (a full read needs nearly every byte) is off", all.bytes, size)
	}
	// The tail (64 KiB per file) plus id's streams: well under half.
	if readAhead < 0 && one.bytes > size/2 {
		t.Errorf("id alone moved %d bytes of %d: more than the tails, stripe footers and id's streams", one.bytes, size)
	}
}
