package manifest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadManifest feeds arbitrary bytes to all three readers: they must
// return an error or records, never panic or hang.
func FuzzReadManifest(f *testing.F) {
	for _, dir := range []string{"pypaimon/append_null", "pypaimon/append_snappy", "pypaimon/append_zstd", "pypaimon/append_deflate", "pypaimon/dv", "java/pk_dv32"} {
		ents, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() || filepath.Ext(e.Name()) == ".json" {
				continue
			}
			b, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte("Obj\x01"))
	f.Add([]byte("PAR1"))
	// One decoder for every input: parsing the (mostly unchanged) writer
	// schema again for each input would cost the fuzzer most of its time.
	dec := NewDecoder()
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		fs := memFS{crafted: data}
		_, _ = ReadManifest(ctx, fs, crafted)
		_ = dec.ReadManifestFunc(ctx, fs, crafted, Want{}, func(*Entry) error { return nil })
		_, _ = dec.ReadManifestList(ctx, fs, crafted, Want{})
		_, _ = dec.ReadIndexManifest(ctx, fs, crafted)
	})
}
