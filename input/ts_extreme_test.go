package input

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestInputTimestampsBeyondNanosecondRange: message bodies are JSON, which has no range
// limit, so the TIMESTAMP(7..9) values of years 0001 and 9999 (and one nanosecond beyond each
// end of Arrow's nanosecond range) in the Java tables javagen.ts_extreme_* reach the messages
// exactly as Java reads them, in Parquet (INT96) and ORC files alike.
func TestInputTimestampsBeyondNanosecondRange(t *testing.T) {
	fixtures := filepath.Join("..", "resources", "fixtures")
	for _, table := range []string{"ts_extreme_parquet", "ts_extreme_orc"} {
		wh := t.TempDir()
		testenv.CopyTree(t, filepath.Join(fixtures, "warehouse", "javagen.db", table), filepath.Join(wh, "javagen.db", table))
		want := map[string]map[string]any{}
		for _, l := range testenv.ReadLines(t, filepath.Join(fixtures, "expected", "javagen."+table, "full.jsonl")) {
			var r map[string]any
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			want[fmt.Sprint(r["id"])] = r
		}
		got := startPipeline(t, fmt.Sprintf("paimon:\n  warehouse: %s\n  table: javagen.%s\n  end: {at_latest: true}\n", wh, table), nil).wait()
		if len(got) != len(want) {
			t.Fatalf("%s: %d messages, Java read %d rows", table, len(got), len(want))
		}
		for _, m := range got {
			var r map[string]any
			if err := json.Unmarshal([]byte(m.body), &r); err != nil {
				t.Fatalf("%s: body %q: %v", table, m.body, err)
			}
			w := want[fmt.Sprint(r["id"])]
			for _, col := range []string{"ts9", "ltz9", "ts7"} {
				if r[col] != w[col] {
					t.Errorf("%s id %v: the message holds %s = %v, Java reads %v", table, r["id"], col, r[col], w[col])
				}
			}
		}
	}
}
