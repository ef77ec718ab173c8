package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestTailTimestampsBeyondNanosecondRange: tail prints JSON, which has no range limit, so the
// TIMESTAMP(7..9) values of years 0001 and 9999 (and one nanosecond beyond each end of Arrow's
// nanosecond range) in the Java tables javagen.ts_extreme_* print exactly as Java reads them,
// in Parquet (INT96) and ORC files alike, instead of failing the read.
func TestTailTimestampsBeyondNanosecondRange(t *testing.T) {
	for _, table := range []string{"javagen.ts_extreme_parquet", "javagen.ts_extreme_orc"} {
		want := map[string]map[string]any{}
		for _, l := range testenv.ReadLines(t, filepath.Join("..", "..", "resources", "fixtures", "expected", table, "full.jsonl")) {
			var r map[string]any
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			want[fmt.Sprint(r["id"])] = r
		}
		out := mustRun(t, "paimon", "tail", "--warehouse", fixtureWarehouse, "--table", table, "--end-at-latest", "--include-row-kind=false")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != len(want) {
			t.Fatalf("%s: tail printed %d lines, Java read %d rows:\n%s", table, len(lines), len(want), out)
		}
		for _, l := range lines {
			var r map[string]any
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%s: line %q: %v", table, l, err)
			}
			w := want[fmt.Sprint(r["id"])]
			for _, col := range []string{"ts9", "ltz9", "ts7"} {
				if r[col] != w[col] {
					t.Errorf("%s id %v: tail prints %s = %v, Java reads %v", table, r["id"], col, r[col], w[col])
				}
			}
		}
	}
}
