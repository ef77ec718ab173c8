package suggest

import (
	"reflect"
	"testing"
)

func TestHint(t *testing.T) {
	tables := []string{"demo.orders", "demo.customers", "sales.orders"}
	for _, c := range []struct{ name, want string }{
		{"demo.ordes", "; did you mean demo.orders?"},
		{"orders", "; did you mean demo.orders, sales.orders?"},
		{"crm.people", "; the existing tables are demo.customers, demo.orders, sales.orders"},
	} {
		if got := Hint(c.name, tables, "tables"); got != c.want {
			t.Errorf("Hint(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Hint("b2", nil, "branches"); got != "; there are no branches" {
		t.Errorf("no candidates: %q", got)
	}
	many := []string{"a01", "a02", "a03", "a04", "a05", "a06", "a07", "a08", "a09", "a10", "a11", "a12"}
	if got, want := Hint("zzzzzzzz", many, "tags"), "; the existing tags are a01, a02, a03, a04, a05, a06, a07, a08, a09, a10, and 2 more"; got != want {
		t.Errorf("many: %q, want %q", got, want)
	}
	if got := Nearest("Orders", []string{"orders", "order", "x"}, 3); !reflect.DeepEqual(got, []string{"orders", "order"}) {
		t.Errorf("Nearest: %q", got)
	}
}
