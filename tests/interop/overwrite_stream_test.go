package interop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// An OVERWRITE commit read by a stream, against Java's stream of the same snapshot: on an
// append table with streaming-read-append-overwrite the rows it wrote, on a primary-key table
// with streaming-read-overwrite -D of the rows it replaced and +I of the new ones. The table's
// option decides unless the stream overrides it; overridden off, the commit is passed.
func TestOverwriteStreams(t *testing.T) {
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(fixturesDir(t), "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	off := false
	for _, name := range []string{"overwrite_stream", "overwrite_stream_pk"} {
		t.Run(name, func(t *testing.T) {
			want := testenv.ReadSortedLines(t, filepath.Join(fixturesDir(t), "expected", "javagen."+name, "stream_overwrite.jsonl"))
			tbl, err := cat.GetTable(ctx, "javagen."+name)
			if err != nil {
				t.Fatal(err)
			}
			read := func(override *bool) []string {
				got, err := readStream(ctx, tbl, paimon.StreamConfig{StartMode: paimon.StartFromSnapshot, StartSnapshot: 3, EndSnapshot: 3,
					IncludeRowKind: true, StreamingReadOverwrite: override})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			if d := DiffLines(want, read(nil)); d != "" {
				t.Fatalf("stream of the overwrite differs from Java's:\n%s", d)
			}
			if got := read(&off); len(got) != 0 {
				t.Fatalf("overridden off, the overwrite gave %d rows: %v", len(got), got)
			}
		})
	}
}

// streaming-read-overwrite on a table without primary key: Java refuses to load the table (its
// SchemaValidation), and so does this reader, naming the option an append table has instead.
func TestStreamingReadOverwriteOnAppendTableRefused(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	dir := filepath.Join(wh, "javagen.db", "overwrite_stream")
	testenv.CopyTree(t, filepath.Join(fixturesDir(t), "warehouse", "javagen.db", "overwrite_stream"), dir)
	schemas, err := filepath.Glob(filepath.Join(dir, "schema", "schema-*"))
	if err != nil || len(schemas) != 1 {
		t.Fatalf("schemas %v %v, want one", schemas, err)
	}
	b, err := os.ReadFile(schemas[0])
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `"streaming-read-append-overwrite"`, `"streaming-read-overwrite"`, 1)
	if edited == string(b) {
		t.Fatalf("%s does not hold streaming-read-append-overwrite:\n%s", schemas[0], b)
	}
	if err := os.WriteFile(schemas[0], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := paimon.OpenCatalog(ctx, wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	_, err = cat.GetTable(ctx, "javagen.overwrite_stream")
	if !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "streaming-read-overwrite=true on a table without primary key") ||
		!strings.Contains(err.Error(), "streaming-read-append-overwrite") {
		t.Fatalf("err = %v, want a refusal naming both options", err)
	}
}
