package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// TestSubUnitTimestamps pins issue 11 item 4 on the Java-written tables of resources/java
// JavaTsSubUnitGen: Java Paimon 1.3.1 returns nanoseconds below a column's declared precision
// when the file holds them (ORC stores nanoseconds; OrcTimestampColumnVector passes them on)
// or when a narrowing cast keeps them (DateTimeUtils.truncate leaves a nano-of-second of at
// most p digits alone). The Arrow unit of TIMESTAMP(3) is milliseconds and of TIMESTAMP(4..6)
// microseconds, so the reader cannot return those digits: it refuses the column, naming it,
// instead of flooring. Columns without such values read as Java reads them.
func TestSubUnitTimestamps(t *testing.T) {
	ctx := context.Background()
	dir := fixturesDir(t)
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table string
		cols  map[string]int // column → fraction digits its Arrow unit holds
	}{
		{"javats.sub_orc", map[string]int{"t3": 3, "t4": 6, "t6": 6, "l3": 3}},
		{"javats.sub_cast", map[string]int{"c3": 3, "c4": 6, "c6": 6}},
	} {
		java := javaRows(t, filepath.Join(dir, "expected", c.table, "full.jsonl"))
		for col, digits := range c.cols {
			// Java's read shows digits below the unit for this column.
			below := false
			for _, r := range java {
				if v, ok := r[col].(string); ok && subUnitDigits(v, digits) {
					below = true
				}
			}
			if !below {
				t.Fatalf("%s.%s: Java's read holds no value below the Arrow unit; the fixture lost its point", c.table, col)
			}
			_, err := ReadCase(ctx, cat, Case{Table: c.table, Projection: []string{"id", col}})
			if !errors.Is(err, types.ErrUnsupported) || !paimon.IsPermanent(err) ||
				!strings.Contains(err.Error(), col) || !strings.Contains(err.Error(), "below the") {
				t.Errorf("%s.%s: want a permanent refusal naming the column, got %v", c.table, col, err)
			}
		}
		// The other columns read as Java reads them.
		lines, err := ReadCase(ctx, cat, Case{Table: c.table, Projection: []string{"id"}})
		if err != nil {
			t.Fatalf("%s (id only): %v", c.table, err)
		}
		if len(lines) != len(java) {
			t.Errorf("%s (id only): %d rows, Java read %d", c.table, len(lines), len(java))
		}
	}
}

func javaRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// subUnitDigits reports whether a canonical timestamp ("…:SS.fffffffff", optional "Z") has a
// non-zero digit after the first digits fraction digits.
func subUnitDigits(v string, digits int) bool {
	i := strings.LastIndexByte(v, '.')
	if i < 0 {
		return false
	}
	frac := strings.TrimSuffix(v[i+1:], "Z")
	return len(frac) > digits && strings.Trim(frac[digits:], "0") != ""
}
