package input

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// A read bounded to its start snapshot (scan_mode from-snapshot-full with
// end.snapshot_id equal to snapshot_id) is a time-travel read: its filter
// and columns resolve in that snapshot's schema, as Java's time travel
// does. The oracle is Java's own reads of tables whose history renames a
// column and later reuses its name, drops and re-adds a column with
// another type, and changes BIGINT to STRING.
func TestRealTimeTravelFilterInSnapshotSchema(t *testing.T) {
	fixtures := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures")
	raw, err := os.ReadFile(filepath.Join(fixtures, "cases-java-schemahist.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cf struct {
		Cases []struct {
			Table      string   `json:"table"`
			Case       string   `json:"case"`
			Snapshot   *int64   `json:"snapshot"`
			Projection []string `json:"projection"`
			Filter     *string  `json:"filter"`
			Expected   string   `json:"expected"`
			Rows       int      `json:"rows"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &cf); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cf.Cases {
		if c.Snapshot == nil || c.Filter == nil {
			continue
		}
		ran++
		t.Run(c.Table+"/"+c.Case, func(t *testing.T) {
			cfg := fmt.Sprintf("paimon:\n  warehouse: %s\n  table: %s\n  scan_mode: from-snapshot-full\n  snapshot_id: %d\n  end: {snapshot_id: %d}\n  filter: %s\n",
				filepath.Join(fixtures, "warehouse"), c.Table, *c.Snapshot, *c.Snapshot, quoteYAML(*c.Filter))
			if c.Projection != nil {
				cfg += "  columns: [" + strings.Join(c.Projection, ", ") + "]\n"
			}
			got := runBodies(t, cfg)
			want := testenv.ReadSortedLines(t, filepath.Join(fixtures, filepath.FromSlash(c.Expected)))
			if len(want) != c.Rows {
				t.Fatalf("%s holds %d rows, the cases file says %d", c.Expected, len(want), c.Rows)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("snapshot %d filter %q: got %d rows, Java %d\ngot  %v\nwant %v", *c.Snapshot, *c.Filter, len(got), len(want), got, want)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no time-travel case with a filter in cases-java-schemahist.json")
	}
}

func quoteYAML(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a YAML double-quoted scalar
	return string(b)
}

// runBodies runs the bounded input described by inputYAML to its end and
// returns the message bodies with their keys sorted (the fixtures'
// canonical form), sorted.
func runBodies(t *testing.T, inputYAML string) []string {
	t.Helper()
	var out []string
	for _, d := range startPipeline(t, inputYAML, nil).wait() {
		var row map[string]any
		dec := json.NewDecoder(strings.NewReader(d.body))
		dec.UseNumber()
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("body %s: %v", d.body, err)
		}
		canon, _ := json.Marshal(row)
		out = append(out, string(canon))
	}
	slices.Sort(out)
	return out
}
