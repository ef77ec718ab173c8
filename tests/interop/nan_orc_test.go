//go:build !interop_noapi

package interop

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// TestNaNStatisticsOfORCFiles: javagen.nan_{orc,parquet,avro} hold the same rows (DOUBLE and
// FLOAT columns with NaN first, last and in the middle of files and of ORC row-index groups).
//
// Our filtered reads of the ORC table return exactly Java's reads of the Parquet and Avro
// tables: every row the filter matches under Java's own comparison (Double.compare, NaN above
// everything).
//
// Java's reads of the ORC table lose rows, and this test proves why, file by file: Java
// trusts the DOUBLE/FLOAT minimum and maximum ORC's writer records, which leave NaN out (a NaN
// after the first value compares false both ways) unless NaN is the file's first value (then
// both are NaN), and prunes a file when those bounds, compared with Double.compare, cannot
// match. Predicting Java's ORC read from that rule alone must give Java's read exactly. Our
// reader does not reproduce it: the lost rows include non-NaN rows that match (d < 50 loses
// d = 1.0 when the file began with NaN), and a reader that loses matching rows silently is
// what this project exists not to be.
func TestNaNStatisticsOfORCFiles(t *testing.T) {
	dir := fixturesDir(t)
	cases, err := LoadCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	files := filesBySnapshot(t, ctx, cat, "javagen.nan_orc")
	checked, lossy := 0, 0
	for _, c := range cases {
		if c.Table != "javagen.nan_parquet" || c.Filter == nil {
			continue
		}
		checked++
		t.Run(c.Case, func(t *testing.T) {
			want := Expected(t, dir, c.Expected, c.Rows)
			orc := c
			orc.Table = "javagen.nan_orc"
			got, err := ReadCase(ctx, cat, orc)
			if err != nil {
				t.Fatal(err)
			}
			if d := DiffLines(want, got); d != "" {
				t.Fatalf("our ORC read of %s differs from Java's Parquet read:\n%s", *c.Filter, d)
			}
			leaf := parseNaNLeaf(t, *c.Filter)
			var predicted []string
			for _, rows := range files {
				if !leaf.statsMayMatch(rows) {
					continue
				}
				for _, r := range rows {
					if leaf.rowMatches(r.vals[leaf.col]) {
						predicted = append(predicted, r.line)
					}
				}
			}
			sortLines(predicted)
			javaORC := testenv.ReadSortedLines(t, filepath.Join(dir, "expected", "javagen.nan_orc", c.Case+".jsonl"))
			if d := DiffLines(predicted, javaORC); d != "" {
				t.Fatalf("Java's ORC read of %s is not what trusting ORC's min/max predicts:\n%s", *c.Filter, d)
			}
			if len(javaORC) < len(want) {
				lossy++
			}
		})
	}
	if checked == 0 || lossy == 0 {
		t.Fatalf("%d filtered javagen.nan_parquet cases, %d where Java's ORC read loses rows: the fixture no longer shows what this test explains", checked, lossy)
	}
}

type nanRow struct {
	line string
	vals map[string]float64
}

// filesBySnapshot returns the rows of each commit of table, in write order (ids ascend in
// write order), from the differences of consecutive snapshots: the generator writes one data
// file per commit.
func filesBySnapshot(t *testing.T, ctx context.Context, cat *paimon.Catalog, table string) [][]nanRow {
	tbl, err := cat.GetTable(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	latest, _, err := tbl.Snapshots().LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out [][]nanRow
	for id := int64(1); id <= latest; id++ {
		lines, err := ReadCase(ctx, cat, Case{Table: table, Snapshot: &id})
		if err != nil {
			t.Fatal(err)
		}
		var rows []nanRow
		for _, l := range lines {
			if seen[l] {
				continue
			}
			seen[l] = true
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			r := nanRow{line: l, vals: map[string]float64{"id": m["id"].(float64)}}
			for _, col := range []string{"d", "f"} {
				v, err := strconv.ParseFloat(m[col].(string), 64)
				if err != nil {
					t.Fatalf("%s: %v", l, err)
				}
				r.vals[col] = v
			}
			rows = append(rows, r)
		}
		slices.SortFunc(rows, func(a, b nanRow) int { return cmp.Compare(a.vals["id"], b.vals["id"]) })
		out = append(out, rows)
	}
	return out
}

// nanLeaf is one comparison of the cases' filters.
type nanLeaf struct {
	col  string
	op   string
	lits []float64
}

var nanLeafRe = regexp.MustCompile(`^(d|f) (>|>=|<|<=|=|<>|IN) \(?([0-9., ]+)\)?$`)

func parseNaNLeaf(t *testing.T, text string) nanLeaf {
	m := nanLeafRe.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("filter %q: not a single comparison this test knows", text)
	}
	l := nanLeaf{col: m[1], op: m[2]}
	for _, s := range strings.Split(m[3], ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			t.Fatal(err)
		}
		l.lits = append(l.lits, v)
	}
	return l
}

// javaCmp is Double.compare: NaN above everything, equal to itself.
func javaCmp(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

// rowMatches is Java's row filter.
func (l nanLeaf) rowMatches(v float64) bool {
	c := javaCmp(v, l.lits[0])
	switch l.op {
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case "=":
		return c == 0
	case "<>":
		return c != 0
	}
	for _, x := range l.lits { // IN
		if javaCmp(v, x) == 0 {
			return true
		}
	}
	return false
}

// statsMayMatch is Java's file pruning on ORC's min/max of l.col over rows (in write order):
// ORC's writer starts both at the first value and then moves them only on value < min or
// value > max, which NaN never is; the bounds are compared with Double.compare.
func (l nanLeaf) statsMayMatch(rows []nanRow) bool {
	lo, hi := rows[0].vals[l.col], rows[0].vals[l.col]
	for _, r := range rows[1:] {
		v := r.vals[l.col]
		if v < lo {
			lo = v
		} else if v > hi {
			hi = v
		}
	}
	x := l.lits[0]
	switch l.op {
	case ">":
		return javaCmp(hi, x) > 0
	case ">=":
		return javaCmp(hi, x) >= 0
	case "<":
		return javaCmp(lo, x) < 0
	case "<=":
		return javaCmp(lo, x) <= 0
	case "=":
		return javaCmp(lo, x) <= 0 && javaCmp(x, hi) <= 0
	case "<>":
		return !(javaCmp(lo, x) == 0 && javaCmp(hi, x) == 0)
	}
	for _, x := range l.lits {
		if javaCmp(lo, x) <= 0 && javaCmp(x, hi) <= 0 {
			return true
		}
	}
	return false
}
