package predicate

import (
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// A filter built on one schema and bound by name to another where the
// column has another type (time travel after a name was reused, a stream
// following a widening) selects what was asked for in that other type,
// not what its literals were rewritten to in the first one. Found by the
// schema-history property test on random histories: `a >= 2.75` built on a
// BIGINT a is `a >= 3` there, and bound to a snapshot whose a is FLOAT it
// lost the row holding 2.75; IN and NOT IN dropped literals the first
// type cannot hold (999999999 on DECIMAL(4, 0), 0.5 on BIGINT) that the
// other type does hold.
func TestBindToAnotherTypeKeepsTheLiteralsAskedFor(t *testing.T) {
	field := func(id int, name, ty string) []types.DataField {
		return []types.DataField{{ID: id, Name: name, Type: typ(t, ty)}}
	}
	val := func(s string, ty string) any {
		v, err := Convert(number(s), typ(t, ty))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		filter, built, bound string
		rows                 map[string]bool // value (in bound's type) → whether it matches
	}{
		{"a >= 2.75", "BIGINT", "FLOAT", map[string]bool{"2.75": true, "2.5": false, "3": true}},
		{"a < 2.75", "BIGINT", "DOUBLE", map[string]bool{"2.75": false, "2.5": true, "3": false}},
		{"NOT (a < 2.75)", "BIGINT", "DOUBLE", map[string]bool{"2.75": true, "2.5": false}},
		{"a = 2.5", "INT", "DECIMAL(5, 2)", map[string]bool{"2.5": true, "2": false, "3": false}},
		{"a <> 2.5", "INT", "DECIMAL(5, 2)", map[string]bool{"2.5": false, "2": true}},
		{"a IN (398, 999999999)", "DECIMAL(4, 0)", "DECIMAL(9, 0)", map[string]bool{"999999999": true, "398": true, "1": false}},
		{"a IN (-22.1, 0.5, 99999999999)", "BIGINT", "DECIMAL(17, 1)", map[string]bool{"-22.1": true, "0.5": true, "1": false}},
		{"a NOT IN (0.000912)", "DECIMAL(10, 2)", "DECIMAL(12, 6)", map[string]bool{"0.000912": false, "1": true}},
		{"NOT (a IN (0.5))", "BIGINT", "DOUBLE", map[string]bool{"0.5": false, "1": true}},
		{"a BETWEEN 0.5 AND 1.5", "BIGINT", "DOUBLE", map[string]bool{"0.5": true, "1.5": true, "0.25": false, "1.75": false}},
		{"a > 3000000000", "INT", "BIGINT", map[string]bool{"3000000001": true, "5": false}},
		// -0.0 is 0 on INT; on FLOAT it is -0.0, which Java's order keeps apart from 0.0.
		{"a NOT IN (-0.0, 3.5e38)", "INT", "FLOAT", map[string]bool{"-0.0": false, "0.0": true, "1": true}},
	} {
		p, err := Parse(c.filter, field(1, "a", c.built))
		if err != nil {
			t.Fatalf("%s on %s: %v", c.filter, c.built, err)
		}
		// The name a now belongs to another column (id 7) of another type.
		q, err := Bind(p, field(7, "a", c.bound))
		if err != nil {
			t.Fatalf("%s built on %s, bound to %s: %v", c.filter, c.built, c.bound, err)
		}
		for v, want := range c.rows {
			if got := q.Test([]any{val(v, c.bound)}); got != want {
				t.Errorf("%s built on %s, bound to %s (%s): %s matches %v, want %v", c.filter, c.built, c.bound, q, v, got, want)
			}
		}
		// Following the field by id instead (a stream after the column widened) is the same.
		q, err = Follow(p, field(1, "a", c.bound))
		if err != nil {
			t.Fatalf("%s built on %s, followed to %s: %v", c.filter, c.built, c.bound, err)
		}
		for v, want := range c.rows {
			if got := q.Test([]any{val(v, c.bound)}); got != want {
				t.Errorf("%s built on %s, followed to %s (%s): %s matches %v, want %v", c.filter, c.built, c.bound, q, v, got, want)
			}
		}
	}
}
