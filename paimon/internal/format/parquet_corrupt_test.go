package format

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestCorruptParquetIsAnError reads copies of a many-column file with a
// few bytes flipped in its pages: arrow-go panics on some (a page header's
// sizes out of range), and each read must end in an error or rows, never
// in a panic that ends the process (which fails this test binary).
func TestCorruptParquetIsAnError(t *testing.T) {
	fields := loadFields(t, "pypaimon_all.fields.json")
	orig, err := os.ReadFile(testdata("pypaimon_all.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 9))
	path := filepath.Join(t.TempDir(), "f.parquet")
	failed := 0
	for i := 0; i < 300; i++ {
		b := bytes.Clone(orig)
		for k := 0; k < 3; k++ {
			b[4+rng.IntN(len(b)*2/3)] ^= byte(1 + rng.IntN(255))
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(context.Background(), localIO(t), path, Options{Fields: fields})
		if err != nil {
			failed++
			continue
		}
		for {
			rec, err := r.Next(context.Background())
			if err != nil {
				if !errors.Is(err, io.EOF) {
					failed++
				}
				break
			}
			rec.Release()
		}
		r.Close()
	}
	if failed == 0 {
		t.Fatal("no corrupted copy failed to read: the test corrupts nothing that matters")
	}
}
