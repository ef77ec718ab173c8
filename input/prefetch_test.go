package input

import (
	"encoding/json"
	"runtime"
	"testing"
)

// A split of many record batches is encoded by several encoders at once
// (encodeWorkers), yet its rows arrive in the order of its file, each once:
// one data file of 30,000 rows is eight record batches of the library's
// 4,096, spread over four encoders here.
func TestSplitOrderAcrossEncoders(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	if n := encodeWorkers(); n != 4 {
		t.Fatalf("encodeWorkers() = %d with GOMAXPROCS 4", n)
	}
	const rows = 30000
	rt := newRealTable(t, "db.order", pyOp{}, pyOp{"op": "append", "start": 0, "count": rows})
	for _, cfg := range []string{"", "  rows_per_message: 100\n"} {
		got := startReal(t, rt, "  end: {at_latest: true}\n"+cfg).wait()
		next := 0
		for _, d := range got {
			for _, line := range splitLines(d.body) {
				var r struct{ ID int }
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				if r.ID != next {
					t.Fatalf("%q: row %d has id %d, want %d: rows out of order", cfg, next, r.ID, next)
				}
				next++
			}
		}
		if next != rows {
			t.Fatalf("%q: %d rows, want %d", cfg, next, rows)
		}
	}
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
