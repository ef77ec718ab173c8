package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// memFS is an in-memory FileIO for tests that need crafted bytes.
type memFS map[string][]byte

type memFile struct {
	*bytes.Reader
	path string
}

func (f memFile) Close() error { return nil }
func (f memFile) Path() string { return f.path }
func (f memFile) Size() int64  { return f.Reader.Size() }

func (m memFS) Open(_ context.Context, p string) (fileio.File, error) {
	b, ok := m[p]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return memFile{bytes.NewReader(b), p}, nil
}

func (m memFS) ReadFile(_ context.Context, p string) ([]byte, error) {
	b, ok := m[p]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return b, nil
}

func (m memFS) Stat(_ context.Context, p string) (fileio.FileInfo, error) {
	b, ok := m[p]
	if !ok {
		return fileio.FileInfo{}, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	return fileio.FileInfo{Path: p, Name: filepath.Base(p), Size: int64(len(b))}, nil
}

func (m memFS) Exists(_ context.Context, p string) (bool, error) { _, ok := m[p]; return ok, nil }

func (m memFS) List(context.Context, string) ([]fileio.FileInfo, error) {
	return nil, errors.New("memFS: List not implemented")
}

func (m memFS) WriteFileAtomic(_ context.Context, p string, data []byte, _ bool) error {
	m[p] = data
	return nil
}

func (m memFS) Delete(_ context.Context, p string) error { delete(m, p); return nil }

// fixture returns the path of the first fixture file in testdata/<dir> whose
// name starts with prefix and that holds at least minRecords records.
func fixture(t testing.TB, dir, prefix string, minRecords int) string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, prefix) && !(prefix == "manifest-" && strings.HasPrefix(n, "manifest-list-")) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join("testdata", dir, n)
		if len(readRecords(t, p)) >= minRecords {
			return p
		}
	}
	t.Fatalf("no %s* fixture with %d records in %s", prefix, minRecords, dir)
	return ""
}

// readRecords decodes a real file generically (maps), so tests can rewrite
// its records with changes the writers never produce.
func readRecords(t testing.TB, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := ocf.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []map[string]any
	for {
		var m map[string]any
		if err := rd.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatal(err)
		}
		out = append(out, m)
	}
}

func schemaOf(t testing.TB, path string) *avro.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := ocf.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	return rd.Schema()
}

// writeOCF encodes records with schema s into an Avro container.
func writeOCF(t testing.TB, s *avro.Schema, codec ocf.Codec, recs []map[string]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts := []ocf.WriterOpt{}
	if codec != nil {
		opts = append(opts, ocf.WithCodec(codec))
	}
	w, err := ocf.NewWriter(&buf, s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if err := w.Encode(r); err != nil {
			t.Fatal(fmt.Errorf("record %d: %w", i, err))
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rewrite reads a real file and writes its records back after mutate.
func rewrite(t testing.TB, path string, mutate func(m map[string]any)) []byte {
	t.Helper()
	recs := readRecords(t, path)
	for _, r := range recs {
		mutate(r)
	}
	return writeOCF(t, schemaOf(t, path), nil, recs)
}
