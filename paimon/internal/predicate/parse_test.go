package predicate

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	fs := testFields(t)
	ok := []struct{ in, want string }{
		{"i >= 10 AND (s = 'x' OR s IS NULL)", "(`i` >= 10 AND (`s` = 'x' OR `s` IS NULL))"},
		{"dt IN ('2024-01-01','2024-01-02')", "`dt` IN (DATE '2024-01-01', DATE '2024-01-02')"},
		{"i BETWEEN 1 AND 5", "(`i` >= 1 AND `i` <= 5)"},
		{"i NOT BETWEEN 1 AND 5", "(`i` < 1 OR `i` > 5)"},
		{"NOT (i = 1)", "`i` <> 1"},
		{"not i = 1 or i != 2", "(`i` <> 1 OR `i` <> 2)"},
		{"s LIKE 'abc%'", "`s` STARTS WITH 'abc'"},
		{"s LIKE '%abc'", "`s` ENDS WITH 'abc'"},
		{"s like '%a''b%'", "`s` CONTAINS 'a''b'"},
		{"s NOT LIKE 'abc'", "`s` <> 'abc'"},
		{"`s` <> 'it''s'", "`s` <> 'it''s'"},
		{"b = TRUE AND i IS NOT NULL", "(`b` = true AND `i` IS NOT NULL)"},
		{"ts >= TIMESTAMP '2024-01-01 00:00:00'", "`ts` >= TIMESTAMP '2024-01-01 00:00:00'"},
		{"dec > -1.5e0", "`dec` > -1.50"},
		{"i NOT IN (1, NULL)", "`i` NOT IN (1, NULL)"},
		{"d < -2", "`d` < -2"},
	}
	for _, c := range ok {
		p, err := Parse(c.in, fs)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if p.String() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, p, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{"", "expected a column name, found end of expression"},
		{"nope = 1", `position 1: unknown column "nope"`},
		{"i = 1 AND zz > 2", `position 11: unknown column "zz"`},
		{"i = ", "position 5: expected a literal"},
		{"i = 'x'", "position 1"},
		{"(i = 1", "expected ')'"},
		{"i = 1)", "position 6: unexpected \")\""},
		{"s LIKE 'a_c%'", "not supported"},
		{"s LIKE 'a%c'", "not supported"},
		{"i LIKE 'a%'", "needs a string"},
		{"s = 'open", "unterminated '"},
		{"i ! 1", "'!' must be followed"},
		{"i IN ()", "expected a literal"},
		{"i IN (1 2)", "expected ',' or ')'"},
		{"i BETWEEN 1 OR 2", "expected AND"},
		{"i IS 1", "expected NULL"},
		{"i ~ 1", "unexpected character"},
		{"dt = DATE 'x'", "not a date"},
		{"tiny = '300'", "not an integer"},
	}
	for _, c := range bad {
		_, err := Parse(c.in, fs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"i >= 10 AND (s = 'x' OR s IS NULL)",
		"dt IN ('2024-01-01','2024-01-02')",
		"NOT (i BETWEEN 1 AND 5) OR s LIKE '%a%'",
		"`s` <> 'it''s' AND ts < TIMESTAMP '2024-01-01 00:00:00.5'",
		"dec > -1.5e0 AND d != 0 AND b = FALSE AND i NOT IN (1, NULL)",
	} {
		f.Add(s)
	}
	fs := testFields(f)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s, fs)
		if err != nil {
			return
		}
		// Whatever Parse accepts must evaluate without panicking, on
		// all-NULL rows and on unknown stats alike.
		_ = p.Fields()
		_ = p.Test(make([]any, len(fs)))
		if !p.TestStats(1, nil, nil, nil) && !strings.Contains(p.String(), "FALSE") && !strings.Contains(p.String(), "NULL") {
			t.Fatalf("%s pruned with unknown stats", p)
		}
	})
}

// CheckSyntax accepts what Parse could accept for some table and refuses
// what no table makes valid, without knowing the columns.
func TestCheckSyntax(t *testing.T) {
	for _, ok := range []string{
		"nope = 1",
		"a = 'x' AND (b IS NULL OR c IN (1, 2.5, -3)) AND NOT d BETWEEN 1 AND 2",
		"s LIKE 'pre%' OR s NOT LIKE '%suf'",
		"dt >= DATE '2024-01-01' AND ts < TIMESTAMP '2024-01-01 00:00:00'",
		"`quoted col` <> TRUE",
	} {
		if err := CheckSyntax(ok); err != nil {
			t.Errorf("CheckSyntax(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "id >", "id = 'unterminated", "(a = 1", "a = 1 b = 2", "a LIKE 'x_y'", "a IS 5", "a IN ()"} {
		err := CheckSyntax(bad)
		if err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("CheckSyntax(%q) = %v, want an ErrInvalid error", bad, err)
		}
	}
}
