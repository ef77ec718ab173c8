package input

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// A read bounded to its start snapshot (scan_mode from-snapshot-full with
// end.snapshot_id equal to snapshot_id) is a time-travel read: its filter
// and columns resolve in that snapshot's schema, as Java's time travel
// does. The oracle is Java's own reads of tables whose history renames a
// column and later reuses its name, drops and re-adds a column with
// another type, and changes BIGINT to STRING.
func TestRealTimeTravelFilterInSnapshotSchema(t *testing.T) {
	fixtures := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures")
	ran := 0
	for _, file := range []string{"cases-java-schemahist.json", "cases-randhist.json"} {
		ran += runTimeTravelCases(t, fixtures, file)
	}
	if ran == 0 {
		t.Fatal("no time-travel case in cases-java-schemahist.json and cases-randhist.json")
	}
}

// runTimeTravelCases runs the time-travel cases of a cases file of the fixtures through the input
// and returns how many it ran: the hand-written histories' filtered cases, and every snapshot of
// the random histories (resources/java SchemaHistGen, read unfiltered by Java; the interop
// property test checks filters on them).
func runTimeTravelCases(t *testing.T, fixtures, file string) int {
	raw, err := os.ReadFile(filepath.Join(fixtures, file))
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
		if c.Snapshot == nil || (c.Filter == nil && !strings.HasPrefix(c.Table, "randhist.")) {
			continue
		}
		ran++
		t.Run(c.Table+"/"+c.Case, func(t *testing.T) {
			cfg := fmt.Sprintf("paimon:\n  warehouse: %s\n  table: %s\n  scan_mode: from-snapshot-full\n  snapshot_id: %d\n  end: {snapshot_id: %d}\n",
				filepath.Join(fixtures, "warehouse"), c.Table, *c.Snapshot, *c.Snapshot)
			if c.Filter != nil {
				cfg += "  filter: " + quoteYAML(*c.Filter) + "\n"
			}
			if c.Projection != nil {
				cfg += "  columns: [" + strings.Join(c.Projection, ", ") + "]\n"
			}
			random := strings.HasPrefix(c.Table, "randhist.")
			var fields []types.DataField
			got := runBodies(t, cfg)
			if random {
				fields = snapshotFields(t, fixtures, c.Table, *c.Snapshot)
				got = floatsAsCanon(t, fields, got)
			}
			want := testenv.ReadSortedLines(t, filepath.Join(fixtures, filepath.FromSlash(c.Expected)))
			if len(want) != c.Rows {
				t.Fatalf("%s holds %d rows, the cases file says %d", c.Expected, len(want), c.Rows)
			}
			if !slices.Equal(got, want) {
				filter := "none"
				if c.Filter != nil {
					filter = *c.Filter
				}
				t.Fatalf("snapshot %d filter %s: got %d rows, Java %d\ngot  %v\nwant %v", *c.Snapshot, filter, len(got), len(want), got, want)
			}
			if !random {
				return
			}
			// Filters through the input on every column of a random history's snapshot, in
			// that snapshot's schema: IS NULL and IS NOT NULL against Java's rows.
			for _, f := range fields {
				for _, op := range []string{"IS NULL", "IS NOT NULL"} {
					var w []string
					for _, l := range want {
						var row map[string]any
						if err := json.Unmarshal([]byte(l), &row); err != nil {
							t.Fatal(err)
						}
						v, ok := row[f.Name]
						if !ok {
							t.Fatalf("%s: Java's row lacks %s: %s", c.Expected, f.Name, l)
						}
						if (v == nil) == (op == "IS NULL") {
							w = append(w, l)
						}
					}
					filter := f.Name + " " + op
					g := floatsAsCanon(t, fields, runBodies(t, cfg+"  filter: "+quoteYAML(filter)+"\n"))
					if !slices.Equal(g, w) {
						t.Fatalf("snapshot %d filter %s: got %d rows, Java's rows filtered %d\ngot  %v\nwant %v", *c.Snapshot, filter, len(g), len(w), g, w)
					}
				}
			}
		})
	}
	return ran
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

// snapshotFields returns the fields of the schema a snapshot of a fixture table was written in.
func snapshotFields(t *testing.T, fixtures, table string, snapshot int64) []types.DataField {
	t.Helper()
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(fixtures, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := tbl.Snapshots().Snapshot(ctx, snapshot)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := tbl.Schemas().Schema(ctx, snap.SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return sch.Fields
}

// floatsAsCanon rewrites the FLOAT and DOUBLE values of bodies (JSON numbers, or "NaN" and
// "±Infinity" as strings) in the fixtures' canonical form (canon.Float of the value, a FLOAT
// widened to DOUBLE first), the one place the input's JSON and the canonical JSON differ for the
// types of the random histories. Which columns are FLOAT or DOUBLE comes from fields, the
// snapshot's schema; a value that is not a number there is left as it is, to show up as a difference.
func floatsAsCanon(t *testing.T, fields []types.DataField, bodies []string) []string {
	t.Helper()
	bits := map[string]int{}
	for _, f := range fields {
		switch f.Type.Root {
		case types.Float:
			bits[f.Name] = 32
		case types.Double:
			bits[f.Name] = 64
		}
	}
	out := make([]string, len(bodies))
	for i, b := range bodies {
		var row map[string]any
		dec := json.NewDecoder(strings.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("body %s: %v", b, err)
		}
		for name, n := range bits {
			num, ok := row[name].(json.Number)
			if !ok {
				continue
			}
			v, err := strconv.ParseFloat(num.String(), n)
			if err != nil {
				t.Fatalf("%s %s: %v", name, num, err)
			}
			row[name] = canon.Float(v)
		}
		c, _ := json.Marshal(row)
		out[i] = string(c)
	}
	slices.Sort(out)
	return out
}
