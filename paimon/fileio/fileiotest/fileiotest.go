// Package fileiotest is the conformance suite every fileio.FileIO must pass,
// run against Local, the in-process S3 fake and a real S3 server (with and
// without injected faults), plus a fault-injecting HTTP handler for the
// object-store tests.
package fileiotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/localpath"
)

// Config tunes the suite for slow backends.
type Config struct {
	// ManyKeys is how many files the pagination test writes into one
	// directory; more than 1000 crosses an S3 listing page. 0 skips it.
	ManyKeys int
	// Writers is the parallelism used to create ManyKeys files.
	Writers int
}

// Run runs the suite against fio. root must be a directory URI of fio that
// is empty or missing; every subtest works in its own subdirectory.
func Run(t *testing.T, fio fileio.FileIO, root string, cfg Config) {
	t.Helper()
	ctx := context.Background()
	dir := func(t *testing.T) string { return fileio.Join(root, strings.ReplaceAll(t.Name(), "/", "_")) }

	t.Run("WriteRead", func(t *testing.T) {
		d := dir(t)
		for _, n := range []int{0, 1, 7, 4096, 1<<20 + 3} {
			p := fileio.Join(d, fmt.Sprintf("f-%d", n))
			data := pseudoBytes(uint64(n), n)
			if err := fio.WriteFileAtomic(ctx, p, data, false); err != nil {
				t.Fatalf("write %d bytes: %v", n, err)
			}
			got, err := fio.ReadFile(ctx, p)
			if err != nil {
				t.Fatalf("read %s: %v", p, err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("read %s: got %d bytes, want %d (content differs)", p, len(got), len(data))
			}
			st, err := fio.Stat(ctx, p)
			if err != nil || st.Size != int64(n) || st.IsDir || st.Name != fmt.Sprintf("f-%d", n) {
				t.Fatalf("stat %s = %+v, %v; want size %d file", p, st, err, n)
			}
		}
	})

	t.Run("Overwrite", func(t *testing.T) {
		p := fileio.Join(dir(t), "consumer-1")
		if err := fio.WriteFileAtomic(ctx, p, []byte(`{"nextSnapshot":1}`), false); err != nil {
			t.Fatal(err)
		}
		err := fio.WriteFileAtomic(ctx, p, []byte(`{"nextSnapshot":2}`), false)
		if !errors.Is(err, fileio.ErrExist) {
			t.Fatalf("conditional create over an existing file: err = %v, want ErrExist", err)
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not name %s", err, p)
		}
		mustRead(t, fio, p, `{"nextSnapshot":1}`)
		if err := fio.WriteFileAtomic(ctx, p, []byte(`{"nextSnapshot":3}`), true); err != nil {
			t.Fatal(err)
		}
		mustRead(t, fio, p, `{"nextSnapshot":3}`)
	})

	t.Run("ConditionalCreateRace", func(t *testing.T) {
		p := fileio.Join(dir(t), "progress-1")
		const n = 6
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				errs[i] = fio.WriteFileAtomic(ctx, p, []byte(fmt.Sprintf("writer-%d", i)), false)
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("writers %d and %d both created %s", winner, i, p)
			case err == nil:
				winner = i
			case !errors.Is(err, fileio.ErrExist):
				t.Fatalf("writer %d: %v", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no writer won the conditional create")
		}
		mustRead(t, fio, p, fmt.Sprintf("writer-%d", winner))
	})

	t.Run("RangedReads", func(t *testing.T) {
		p := fileio.Join(dir(t), "data.parquet")
		const size = 700_001
		data := pseudoBytes(42, size)
		if err := fio.WriteFileAtomic(ctx, p, data, true); err != nil {
			t.Fatal(err)
		}
		f, err := fio.Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Size() != size || f.Path() != p {
			t.Fatalf("Size, Path = %d, %q; want %d, %q", f.Size(), f.Path(), size, p)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		cases := [][2]int{{0, 4}, {size - 8, 8}, {size - 65536, 65536 - 8}, {size - 1, 1}, {0, size}, {123_456, 300_000}, {500_000, 17}, {500_017, 5}}
		for range 20 {
			off := rng.IntN(size)
			cases = append(cases, [2]int{off, rng.IntN(min(size-off, 100_000)) + 1})
		}
		for _, c := range cases {
			buf := make([]byte, c[1])
			n, err := f.ReadAt(buf, int64(c[0]))
			if err != nil || n != c[1] {
				t.Fatalf("ReadAt(%d bytes at %d) = %d, %v", c[1], c[0], n, err)
			}
			if !bytes.Equal(buf, data[c[0]:c[0]+c[1]]) {
				t.Fatalf("ReadAt(%d bytes at %d): wrong bytes", c[1], c[0])
			}
		}
		// Past the end: the bytes that exist, then io.EOF.
		buf := make([]byte, 10)
		n, err := f.ReadAt(buf, size-4)
		if n != 4 || !errors.Is(err, io.EOF) || !bytes.Equal(buf[:4], data[size-4:]) {
			t.Fatalf("ReadAt across the end = %d, %v; want 4, io.EOF", n, err)
		}
		if n, err := f.ReadAt(buf, size); n != 0 || !errors.Is(err, io.EOF) {
			t.Fatalf("ReadAt at the end = %d, %v; want 0, io.EOF", n, err)
		}
		if _, err := f.ReadAt(buf, -1); err == nil {
			t.Fatal("ReadAt at a negative offset succeeded")
		}
		// Concurrent readers (pqarrow reads columns in parallel).
		var wg sync.WaitGroup
		errc := make(chan error, 8)
		for g := range 8 {
			wg.Go(func() {
				for i := range 10 {
					off := (g*97_001 + i*13_007) % (size - 5000)
					b := make([]byte, 1+(g*i*31)%5000)
					if _, err := f.ReadAt(b, int64(off)); err != nil {
						errc <- err
						return
					}
					if !bytes.Equal(b, data[off:off+len(b)]) {
						errc <- fmt.Errorf("concurrent ReadAt at %d: wrong bytes", off)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
	})

	t.Run("Missing", func(t *testing.T) {
		d := dir(t)
		p := fileio.Join(d, "snapshot", "snapshot-99")
		if ok, err := fio.Exists(ctx, p); ok || err != nil {
			t.Fatalf("Exists(missing) = %v, %v", ok, err)
		}
		_, err := fio.ReadFile(ctx, p)
		checkNotExist(t, "ReadFile", p, err)
		_, err = fio.Open(ctx, p)
		checkNotExist(t, "Open", p, err)
		_, err = fio.Stat(ctx, p)
		checkNotExist(t, "Stat", p, err)
		if ls, err := fio.List(ctx, fileio.Join(d, "nothing-here")); err != nil || len(ls) != 0 {
			t.Fatalf("List(missing dir) = %v, %v; want empty, nil", ls, err)
		}
		if err := fio.Delete(ctx, p); err != nil {
			t.Fatalf("Delete(missing) = %v", err)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		p := fileio.Join(dir(t), "consumer", "consumer-a")
		if err := fio.WriteFileAtomic(ctx, p, []byte("x"), false); err != nil {
			t.Fatal(err)
		}
		if ok, err := fio.Exists(ctx, p); !ok || err != nil {
			t.Fatalf("Exists after write = %v, %v", ok, err)
		}
		if err := fio.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
		if ok, err := fio.Exists(ctx, p); ok || err != nil {
			t.Fatalf("Exists after delete = %v, %v", ok, err)
		}
		if err := fio.Delete(ctx, p); err != nil {
			t.Fatalf("second Delete = %v", err)
		}
	})

	t.Run("List", func(t *testing.T) {
		d := dir(t)
		tbl := fileio.Join(d, "t")
		files := map[string]int{
			"t/a": 3, "t/b-1": 5, "t/sub/c": 1, "t/sub2/x/y": 2, "tx/z": 1, "t.json": 2,
		}
		for k, n := range files {
			if err := fio.WriteFileAtomic(ctx, fileio.Join(d, k), pseudoBytes(7, n), true); err != nil {
				t.Fatal(err)
			}
		}
		ls, err := fio.List(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range ls {
			if e.Path != fileio.Join(tbl, e.Name) {
				t.Errorf("entry %q has path %q, want %q", e.Name, e.Path, fileio.Join(tbl, e.Name))
			}
			got = append(got, fmt.Sprintf("%s dir=%v size=%d", e.Name, e.IsDir, e.Size))
			if !e.IsDir && e.ModTime.IsZero() {
				t.Errorf("entry %q has no ModTime", e.Name)
			}
		}
		slices.Sort(got)
		want := []string{"a dir=false size=3", "b-1 dir=false size=5", "sub dir=true size=0", "sub2 dir=true size=0"}
		if !slices.Equal(got, want) {
			t.Fatalf("List(%s) = %q, want %q", tbl, got, want)
		}
		// A trailing slash names the same directory.
		if ls2, err := fio.List(ctx, tbl+"/"); err != nil || len(ls2) != len(ls) {
			t.Fatalf("List(dir/) = %d entries, %v; want %d", len(ls2), err, len(ls))
		}
		st, err := fio.Stat(ctx, fileio.Join(tbl, "sub2"))
		if err != nil || !st.IsDir {
			t.Fatalf("Stat(dir) = %+v, %v; want a directory", st, err)
		}
	})

	if cfg.ManyKeys > 0 {
		t.Run("ManyKeys", func(t *testing.T) {
			d := fileio.Join(dir(t), "manifest")
			writers := max(cfg.Writers, 1)
			var wg sync.WaitGroup
			errc := make(chan error, writers)
			for w := range writers {
				wg.Go(func() {
					for i := w; i < cfg.ManyKeys; i += writers {
						p := fileio.Join(d, fmt.Sprintf("manifest-%05d", i))
						if err := fio.WriteFileAtomic(ctx, p, []byte{byte(i)}, true); err != nil {
							errc <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Fatal(err)
			}
			ls, err := fio.List(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) != cfg.ManyKeys {
				t.Fatalf("List returned %d entries, want %d", len(ls), cfg.ManyKeys)
			}
			seen := make(map[string]bool, len(ls))
			for _, e := range ls {
				if seen[e.Name] || e.IsDir || e.Size != 1 {
					t.Fatalf("bad or duplicate entry %+v", e)
				}
				seen[e.Name] = true
			}
		})
	}
}

func mustRead(t *testing.T, fio fileio.FileIO, p, want string) {
	t.Helper()
	got, err := fio.ReadFile(context.Background(), p)
	if err != nil || string(got) != want {
		t.Fatalf("ReadFile(%s) = %q, %v; want %q", p, got, err, want)
	}
}

func checkNotExist(t *testing.T, op, p string, err error) {
	t.Helper()
	if !fileio.IsNotExist(err) {
		t.Fatalf("%s(missing): err = %v, want one wrapping ErrNotExist", op, err)
	}
	if !strings.Contains(err.Error(), strings.TrimPrefix(localpath.Strip(p), "/")) {
		t.Errorf("%s(missing): error %q does not name the path %s", op, err, p)
	}
}

// pseudoBytes returns n deterministic pseudo-random bytes, so expected
// content is generated independently of the code under test.
func pseudoBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
