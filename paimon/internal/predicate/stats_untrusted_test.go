package predicate

import (
	"math"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Statistics writers are known to get wrong never prune (issue 11 item 1).
func TestStatsUntrustedNeverPrune(t *testing.T) {
	fs := []types.DataField{
		{ID: 1, Name: "s", Type: typ(t, "STRING")},
		{ID: 2, Name: "d", Type: typ(t, "DOUBLE")},
		{ID: 3, Name: "f", Type: typ(t, "FLOAT")},
	}
	i64 := func(v int64) *int64 { return &v }
	nan := math.NaN()
	cases := []struct {
		expr     string
		min, max []any
		nulls    []*int64
	}{
		// parquet-java's "not set" null count (-1), copied by Java Paimon.
		{"s IS NULL", []any{nil, nil, nil}, []any{nil, nil, nil}, []*int64{i64(-1), nil, nil}},
		{"s IS NOT NULL", []any{nil, nil, nil}, []any{nil, nil, nil}, []*int64{i64(11), nil, nil}},
		{"s = 'x'", []any{nil, nil, nil}, []any{nil, nil, nil}, []*int64{i64(11), nil, nil}},
		// A NaN minimum (a running min seeded with NaN) bounds nothing.
		{"d < 1", []any{nil, nan, nil}, []any{nil, nan, nil}, []*int64{nil, i64(0), nil}},
		{"f = -5", []any{nil, nil, float32(nan)}, []any{nil, nil, float32(3)}, []*int64{nil, nil, i64(0)}},
		// -0.0 is below a +0.0 minimum; NaN above any maximum.
		{"d < 0", []any{nil, 0.0, nil}, []any{nil, 1.0, nil}, []*int64{nil, i64(0), nil}},
		{"f > 1", []any{nil, nil, float32(0)}, []any{nil, nil, float32(1)}, []*int64{nil, nil, i64(0)}},
		// A missing bound.
		{"s >= 'm'", []any{"a", nil, nil}, []any{nil, nil, nil}, []*int64{i64(0), nil, nil}},
	}
	for _, c := range cases {
		p, err := Parse(c.expr, fs)
		if err != nil {
			t.Fatal(err)
		}
		if !p.TestStats(10, c.min, c.max, c.nulls) {
			t.Errorf("%s pruned on min %v max %v nulls %v", c.expr, c.min, c.max, c.nulls)
		}
	}
}
