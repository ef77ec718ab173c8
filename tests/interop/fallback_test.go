package interop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Tables with scan.fallback-branch (javagen.fallback, javagen.fallback_pk): the batch reads are
// cases of cases-java-fallback.json (TestFixtures); here what a batch read does not show.
func TestFallbackBranch(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fallback", "fallback_pk"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(fixturesDir(t), "warehouse", "javagen.db", name)
			streamFirst := testenv.ReadSortedLines(t, filepath.Join(fixturesDir(t), "expected", "javagen."+name, "stream_first.jsonl"))
			open := func(t *testing.T, edit func(table string)) (*paimon.Table, *[]string) {
				wh := t.TempDir()
				testenv.CopyTree(t, src, filepath.Join(wh, "javagen.db", name))
				if edit != nil {
					edit(filepath.Join(wh, "javagen.db", name))
				}
				// Read once the calls that warn have returned.
				warnings := new([]string)
				var mu sync.Mutex
				cat, err := paimon.OpenCatalog(ctx, wh, paimon.WithWarnings(func(m string) {
					mu.Lock()
					defer mu.Unlock()
					*warnings = append(*warnings, m)
				}))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cat.Close() })
				tbl, err := cat.GetTable(ctx, "javagen."+name)
				if err != nil {
					t.Fatal(err)
				}
				return tbl, warnings
			}
			batch := func(t *testing.T, tbl *paimon.Table, filter string) ([]string, error) {
				rb := tbl.NewReadBuilder().WithFilterExpr(filter)
				plan, err := rb.Plan(ctx)
				if err != nil {
					return nil, err
				}
				return ReadSplits(ctx, rb.NewRead(), plan.Splits)
			}

			// A stream reads the table's own branch, as Java's stream scan does: its
			// first plan is Java's, and it is not the batch read.
			t.Run("stream", func(t *testing.T) {
				tbl, warnings := open(t, nil)
				got, err := readStream(ctx, tbl, paimon.StreamConfig{EndAtLatest: true})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(*warnings, func(w string) bool { return strings.Contains(w, "a stream reads javagen."+name+" alone") }) {
					t.Errorf("warnings %q, want one saying the stream reads the table alone", *warnings)
				}
				if d := DiffLines(streamFirst, got); d != "" {
					t.Fatalf("stream differs from Java's stream scan:\n%s", d)
				}
				all, err := batch(t, tbl, "")
				if err != nil {
					t.Fatal(err)
				}
				if len(all) <= len(got) {
					t.Fatalf("the batch read has %d rows, the stream %d: the fallback added none", len(all), len(got))
				}
			})

			// A filter on another column would make Java's rows depend on its statistics.
			t.Run("value filter refused", func(t *testing.T) {
				tbl, _ := open(t, nil)
				_, err := batch(t, tbl, "id = 1")
				if !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "column id") || !strings.Contains(err.Error(), "scan.fallback-branch") {
					t.Fatalf("err = %v, want a refusal naming the column and the option", err)
				}
			})

			// A fallback branch that is gone: Java logs it and reads the table alone.
			t.Run("missing branch", func(t *testing.T) {
				tbl, warnings := open(t, func(dir string) {
					if err := os.RemoveAll(filepath.Join(dir, "branch", "branch-stream")); err != nil {
						t.Fatal(err)
					}
				})
				if !slices.ContainsFunc(*warnings, func(w string) bool { return strings.Contains(w, "scan.fallback-branch names branch stream") }) {
					t.Fatalf("warnings %q, want one naming the branch", warnings)
				}
				got, err := batch(t, tbl, "")
				if err != nil {
					t.Fatal(err)
				}
				if d := DiffLines(streamFirst, got); d != "" {
					t.Fatalf("batch read without its fallback differs from the table's own rows:\n%s", d)
				}
			})

			// Java refuses a batch scan of a fallback whose row type differs.
			t.Run("other row type", func(t *testing.T) {
				tbl, _ := open(t, func(dir string) {
					schemas, err := filepath.Glob(filepath.Join(dir, "branch", "branch-stream", "schema", "schema-*"))
					if err != nil || len(schemas) == 0 {
						t.Fatalf("branch schemas: %v %v", schemas, err)
					}
					last := slices.MaxFunc(schemas, cmpNum)
					b, err := os.ReadFile(last)
					if err != nil {
						t.Fatal(err)
					}
					edited := strings.Replace(string(b), `"type" : "INT NOT NULL"`, `"type" : "BIGINT NOT NULL"`, 1)
					if edited == string(b) {
						t.Fatalf("%s has no INT NOT NULL column:\n%s", last, b)
					}
					if err := os.WriteFile(last, []byte(edited), 0o644); err != nil {
						t.Fatal(err)
					}
				})
				_, err := batch(t, tbl, "")
				if !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "fallback branch") || !strings.Contains(err.Error(), "BIGINT") {
					t.Fatalf("err = %v, want a refusal naming the fallback branch and the type", err)
				}
			})
		})
	}
}

// cmpNum orders schema-N paths by N.
func cmpNum(a, b string) int {
	na, nb := a[strings.LastIndex(a, "-")+1:], b[strings.LastIndex(b, "-")+1:]
	if len(na) != len(nb) {
		return len(na) - len(nb)
	}
	return strings.Compare(na, nb)
}
