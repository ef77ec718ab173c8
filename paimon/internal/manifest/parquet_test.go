package manifest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// javaParquetManifests returns the manifest lists and manifests of the Java table written with
// manifest.format=parquet (resources/fixtures, javagen.codec_manifest_parquet).
func javaParquetManifests(t *testing.T) (lists, manifests []string) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "resources", "fixtures", "warehouse", "javagen.db", "codec_manifest_parquet", "manifest")
	all, err := filepath.Glob(filepath.Join(dir, "manifest-*"))
	if err != nil || len(all) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	for _, p := range all {
		if strings.HasPrefix(filepath.Base(p), "manifest-list-") {
			lists = append(lists, p)
		} else {
			manifests = append(manifests, p)
		}
	}
	return lists, manifests
}

// Parquet manifests decode into the same entries the Avro path gives, checked against what
// their list records (ADD/DELETE counts, sizes).
func TestParquetManifests(t *testing.T) {
	ctx := context.Background()
	fio := fileio.NewLocal()
	lists, _ := javaParquetManifests(t)
	dec := NewDecoder()
	entries := 0
	for _, l := range lists {
		metas, err := dec.ReadManifestList(ctx, fio, l, Want{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range metas {
			m := &metas[i]
			if m.FileName == "" || m.FileSize <= 0 || m.NumAddedFiles+m.NumDeletedFiles == 0 {
				t.Fatalf("%s: implausible entry %+v", l, m)
			}
			err := dec.ReadManifestFunc(ctx, fio, filepath.Join(filepath.Dir(l), m.FileName), WantManifest(m), func(e *Entry) error {
				if e.File.FileName == "" || e.File.RowCount <= 0 || len(e.Partition) == 0 || e.File.CreationTime == nil {
					t.Errorf("implausible entry %+v", e)
				}
				entries++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if entries == 0 {
		t.Fatal("no entries read")
	}
}

// A cut or garbled Parquet manifest is an error, never fewer entries or a panic.
func TestParquetManifestCorrupt(t *testing.T) {
	ctx := context.Background()
	_, manifests := javaParquetManifests(t)
	data, err := os.ReadFile(manifests[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, bad := range map[string][]byte{
		"cut":     data[:len(data)/2],
		"footer":  append(append([]byte(nil), data[:len(data)-12]...), []byte("xxxxxxxxPAR1")...),
		"no tail": data[:8],
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadManifest(ctx, fileio.NewLocal(), p)
		if err == nil {
			t.Errorf("%s: read without an error", name)
		} else if !errors.Is(err, types.ErrCorrupt) && !strings.Contains(err.Error(), "parquet") {
			t.Errorf("%s: error does not say what is wrong: %v", name, err)
		}
	}
}
