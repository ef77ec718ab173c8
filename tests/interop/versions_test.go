//go:build !interop_noapi

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// TestOldParquetReadsOfNullRows checks the reads VersionGen kept out of the cases
// (differs-*.json): a release's Parquet read of the nullrow tables that differs from its ORC read
// of the same rows. Paimon 0.9's Parquet reader returns NULL for a row whose fields are all NULL
// (RowColumnReader/NestedColumnReader: "null only when all fields are null"), although its writer
// stores such a row apart from a NULL one and Java 1.3.1 reads the same file apart
// (cases-java-by-1.3.1.json). This reader follows the file, as Java 1.3.1 does; here
// the old read must be exactly that collapse of ours and nothing else, so the difference stays
// the documented one (docs/interop.md, "Writer versions").
func TestOldParquetReadsOfNullRows(t *testing.T) {
	dir := fixturesDir(t)
	if n := runDiffers(t, dir); n == 0 && os.Getenv("PAIMON_INTEROP_DIR") == "" {
		t.Fatal("the committed fixtures hold no differs-*.json case: Paimon 0.9's Parquet read of NULL rows is no longer shown")
	}
}

// runDiffers checks every case of dir's differs-*.json files and returns how many there were.
func runDiffers(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "differs-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatalf("open catalog %s: %v", dir, err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cf CaseFile
		if err := json.Unmarshal(b, &cf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cf.Cases {
			n++
			t.Run(c.Writer+"/"+c.Table+"/"+c.Case, func(t *testing.T) {
				db, table, _ := strings.Cut(c.Table, ".")
				if table != "nullrow_parquet" {
					t.Fatalf("%s: only the Parquet nullrow reads may differ from the ORC ones (%s)", f, c.Table)
				}
				theirs := Expected(t, dir, c.Expected, c.Rows)
				got, err := ReadCase(ctx, cat, c)
				if err != nil {
					t.Fatalf("read %s: %v", describe(c), err)
				}
				// The same release's read of the same rows in ORC.
				orc := strings.Replace(c.Expected, "/"+db+".nullrow_parquet/", "/"+db+".nullrow_orc/", 1)
				if d := DiffLines(testenv.ReadSortedLines(t, filepath.Join(dir, filepath.FromSlash(orc))), got); d != "" {
					t.Fatalf("%s differs from %s's read of the same rows in ORC (%s):\n%s", describe(c), c.Writer, orc, d)
				}
				if c.Filter != nil {
					return // the filter selects by the collapsed values: only unfiltered reads compare below
				}
				collapsed := make([]string, len(got))
				for i, l := range got {
					if collapsed[i], err = collapseNullFieldRows(l); err != nil {
						t.Fatal(err)
					}
				}
				sortLines(collapsed)
				if d := DiffLines(theirs, collapsed); d != "" {
					t.Fatalf("%s: %s's Parquet read is not our read with every all-NULL row made NULL:\n%s", describe(c), c.Writer, d)
				}
			})
		}
	}
	return n
}

// collapseNullFieldRows rewrites one canonical line as Paimon 0.9's Parquet reader returns it:
// every ROW value (a JSON object; maps are arrays of pairs) whose fields are all NULL, after its
// own nested rows were rewritten, becomes NULL. The line's top-level object is the table row.
func collapseNullFieldRows(line string) (string, error) {
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	var row map[string]any
	if err := d.Decode(&row); err != nil {
		return "", fmt.Errorf("canonical line %q: %w", line, err)
	}
	for k, v := range row {
		row[k] = collapse(v)
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(row); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func collapse(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = collapse(x[i])
		}
	case map[string]any:
		allNull := true
		for k, f := range x {
			x[k] = collapse(f)
			allNull = allNull && x[k] == nil
		}
		if allNull {
			return nil
		}
	}
	return v
}
