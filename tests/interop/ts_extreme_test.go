package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// TestTimestampsBeyondNanosecondRange reads the Java tables javagen.ts_extreme_* (Parquet
// INT96 and ORC), whose TIMESTAMP(9), TIMESTAMP_LTZ(9) and TIMESTAMP(7) columns hold years
// 0001 and 9999 and one nanosecond beyond each end of Arrow's nanosecond range. The JSON rows
// the input and tail emit must hold every value exactly as Java reads it; an Arrow read that
// asks for nanosecond columns must refuse, naming the column, the value and the wide read.
// TestFixtures compares the wide read's rows with Java's through the canonical encoding.
func TestTimestampsBeyondNanosecondRange(t *testing.T) {
	ctx := context.Background()
	dir := fixturesDir(t)
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	wideCols := []string{"ts9", "ltz9", "ts7"}
	for _, table := range []string{"javagen.ts_extreme_parquet", "javagen.ts_extreme_orc"} {
		java := javaRows(t, filepath.Join(dir, "expected", table, "full.jsonl"))
		tbl, err := cat.GetTable(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		for _, col := range wideCols {
			var beyond []string
			for _, r := range java {
				if v, ok := r[col].(string); ok && outsideNanos(v) {
					beyond = append(beyond, strings.TrimSuffix(v, "Z"))
				}
			}
			if len(beyond) == 0 {
				t.Fatalf("%s.%s: Java's read holds no value beyond Arrow's nanosecond range; the fixture lost its point", table, col)
			}
			_, err := readRows(ctx, tbl.NewReadBuilder().WithProjection("id", col))
			if !errors.Is(err, types.ErrNanosecondRange) || !paimon.IsPermanent(err) ||
				!strings.Contains(err.Error(), fmt.Sprintf("%q", col)) || !strings.Contains(err.Error(), "WithWideTimestamps") ||
				!containsAny(err.Error(), beyond) {
				t.Errorf("%s.%s: want a permanent refusal naming the column, one of %v and WithWideTimestamps, got %v", table, col, beyond, err)
			}
		}
		got, err := readRows(ctx, tbl.NewReadBuilder().WithWideTimestamps(true))
		if err != nil {
			t.Fatalf("%s with wide timestamps: %v", table, err)
		}
		if len(got) != len(java) {
			t.Fatalf("%s: %d JSON rows, Java read %d", table, len(got), len(java))
		}
		for _, want := range java {
			id := fmt.Sprint(want["id"])
			for _, col := range wideCols {
				if g, w := got[id][col], want[col]; g != w {
					t.Errorf("%s id %s: JSON body holds %s = %v, Java reads %v", table, id, col, g, w)
				}
			}
		}
	}
	// Java's ORC read gives year 0001 back as 0000-12-30 (its hybrid calendar) while the file's
	// manifest statistics keep 0001-01-01: Java's filtered read of that value prunes the file
	// and loses the rows its full read holds (the generator leaves these out of the cases, as
	// the residual-filter tests would find the rows). Ours prunes by the same statistics.
	for _, c := range []struct{ name, filter string }{
		{"ts9_eq_min", "ts9 = TIMESTAMP '0000-12-30 00:00:00'"},
		{"ts6_eq_min", "ts6 = TIMESTAMP '0000-12-30 00:00:00'"},
	} {
		rel := "expected/javagen.ts_extreme_orc/" + c.name + ".jsonl"
		want := Expected(t, dir, rel, 0)
		got, err := ReadCase(ctx, cat, Case{Table: "javagen.ts_extreme_orc", Filter: &c.filter})
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if d := DiffLines(want, got); d != "" {
			t.Errorf("javagen.ts_extreme_orc %s differs from Java's read:\n%s", c.filter, d)
		}
	}
}

// readRows reads every split of rb as the input and tail render rows (internal/rowjson),
// keyed by the id column.
func readRows(ctx context.Context, rb *paimon.ReadBuilder) (map[string]map[string]any, error) {
	plan, err := rb.Plan(ctx)
	if err != nil {
		return nil, err
	}
	rd := rb.NewRead()
	s, err := rd.OutputSchema()
	if err != nil {
		return nil, err
	}
	enc, err := rowjson.NewEncoder(s)
	if err != nil {
		return nil, err
	}
	rows := map[string]map[string]any{}
	for _, sp := range plan.Splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			return nil, err
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			if err := enc.Reset(rec); err != nil {
				rr.Release()
				return nil, err
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				var r map[string]any
				if err := json.Unmarshal(enc.AppendRow(nil, i), &r); err != nil {
					rr.Release()
					return nil, err
				}
				rows[fmt.Sprint(r["id"])] = r
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// outsideNanos reports whether a rendered timestamp lies outside what an int64 of epoch
// nanoseconds holds (the renderings order as the values do: four-digit years, nine digits).
func outsideNanos(v string) bool {
	v = strings.TrimSuffix(v, "Z")
	return v < "1677-09-21T00:12:43.145224192" || v > "2262-04-11T23:47:16.854775807"
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
