package sqltext

import "testing"

func TestQuoted(t *testing.T) {
	for _, c := range []struct {
		s    string
		i    int
		text string
		next int
		ok   bool
	}{
		{`'abc' x`, 0, "abc", 5, true},
		{`x 'it''s'`, 2, "it's", 9, true},
		{"`a``b`", 0, "a`b", 6, true},
		{`''`, 0, "", 2, true},
		{`'open`, 0, "", 5, false},
		{`'ends in doubled''`, 0, "", 18, false},
	} {
		text, next, ok := Quoted(c.s, c.i)
		if text != c.text || next != c.next || ok != c.ok {
			t.Errorf("Quoted(%q, %d) = %q, %d, %v; want %q, %d, %v", c.s, c.i, text, next, ok, c.text, c.next, c.ok)
		}
	}
}
