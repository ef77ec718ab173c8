package predicate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/internal/sqltext"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Parse parses a SQL-like filter expression over the given fields, e.g.
//
//	id >= 10 AND (name = 'x' OR name IS NULL)
//	dt IN ('2024-01-01', '2024-01-02') AND NOT (v BETWEEN 1 AND 5)
//	name LIKE 'abc%'
//
// Supported: comparisons = <> != < <= > >= (column on the left), IS [NOT]
// NULL, [NOT] IN (…), [NOT] BETWEEN … AND …, [NOT] LIKE with the forms
// 'prefix%', '%suffix', '%infix%' or no wildcard, AND/OR/NOT and
// parentheses, `back-quoted` identifiers, numbers, 'strings' (a doubled quote escapes a
// quote), TRUE, FALSE, NULL, DATE '…' and TIMESTAMP '…'. Keywords are
// case-insensitive. Errors give the 1-based byte position.
func Parse(expr string, fields []types.DataField) (*Predicate, error) {
	pred, err := parse(expr, fields)
	if err != nil {
		return nil, invalidFilter{err}
	}
	return pred, nil
}

// ErrInvalid is wrapped by every error of Parse: the filter text does not
// parse, names no column, or holds a literal that does not fit its column.
// Such an error is permanent; retrying the same text fails the same way.
var ErrInvalid = errors.New("invalid filter")

// invalidFilter adds ErrInvalid to a parse error without changing its text.
type invalidFilter struct{ err error }

func (e invalidFilter) Error() string   { return e.err.Error() }
func (e invalidFilter) Unwrap() []error { return []error{e.err, ErrInvalid} }

// CheckSyntax reports whether expr is a filter Parse could accept for some
// table: the grammar and the literals' spelling, without resolving columns
// or converting literals to their types. A lint runs it without opening
// the table; Parse at open checks the rest.
func CheckSyntax(expr string) error {
	if _, err := parseWith(expr, nil, true); err != nil {
		return invalidFilter{err}
	}
	return nil
}

func parse(expr string, fields []types.DataField) (*Predicate, error) {
	return parseWith(expr, fields, false)
}

func parseWith(expr string, fields []types.DataField, syntax bool) (*Predicate, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, b: NewBuilder(fields), src: expr, syntax: syntax}
	pred, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected %s", t.describe())
	}
	if pred == nil {
		return nil, fmt.Errorf("parse filter: empty expression")
	}
	return pred, nil
}

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tQuotedIdent
	tNumber
	tString
	tOp
	tLParen
	tRParen
	tComma
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tString:
		return fmt.Sprintf("string '%s'", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func (t token) is(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// punctKind is the kind of a one-character token: a parenthesis, a comma
// or the = operator.
func punctKind(c byte) tokKind {
	switch c {
	case '(':
		return tLParen
	case ')':
		return tRParen
	case ',':
		return tComma
	}
	return tOp
}

func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == ',' || c == '=':
			out = append(out, token{punctKind(c), string(c), i})
			i++
		case c == '<' || c == '>' || c == '!':
			op := string(c)
			if i+1 < len(s) && (s[i+1] == '=' || (c == '<' && s[i+1] == '>')) {
				op += string(s[i+1])
			}
			if op == "!" {
				return nil, fmt.Errorf("parse filter: at position %d: '!' must be followed by '='", i+1)
			}
			out = append(out, token{tOp, op, i})
			i += len(op)
		case c == '\'' || c == '`':
			start := i
			text, next, closed := sqltext.Quoted(s, i)
			if !closed {
				return nil, fmt.Errorf("parse filter: at position %d: unterminated %c", start+1, c)
			}
			i = next
			k := tString
			if c == '`' {
				k = tQuotedIdent
			}
			out = append(out, token{k, text, start})
		case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
			start := i
			i++
			for i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E' ||
				((s[i] == '-' || s[i] == '+') && (s[i-1] == 'e' || s[i-1] == 'E'))) {
				i++
			}
			text := s[start:i]
			if text == "-" || text == "+" || text == "." {
				return nil, fmt.Errorf("parse filter: at position %d: %q is not a number", start+1, text)
			}
			out = append(out, token{tNumber, text, start})
		case isIdentStart(c):
			start := i
			for i < len(s) && (isIdentStart(s[i]) || isDigit(s[i])) {
				i++
			}
			out = append(out, token{tIdent, s[start:i], start})
		default:
			return nil, fmt.Errorf("parse filter: at position %d: unexpected character %q", i+1, c)
		}
	}
	return append(out, token{tEOF, "", len(s)}), nil
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80 }

type parser struct {
	toks []token
	i    int
	b    *Builder
	src  string
	// syntax checks the text alone: columns are not resolved and literals
	// not converted (CheckSyntax, for a lint that has no table).
	syntax bool
}

// build runs one builder call, or stands in for it when only the syntax is
// checked.
func (p *parser) build(f func(b *Builder) (*Predicate, error)) (*Predicate, error) {
	if p.syntax {
		return &Predicate{op: AlwaysTrue}, nil
	}
	return f(p.b)
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return fmt.Errorf("parse filter: at position %d: %s", t.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) or() (*Predicate, error) { return p.chain("OR", p.and, OrOf) }

func (p *parser) and() (*Predicate, error) { return p.chain("AND", p.unary, AndOf) }

// chain parses operands joined by the keyword op, combined by join.
func (p *parser) chain(op string, operand func() (*Predicate, error), join func(...*Predicate) *Predicate) (*Predicate, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	ps := []*Predicate{l}
	for p.peek().is(op) {
		p.next()
		r, err := operand()
		if err != nil {
			return nil, err
		}
		ps = append(ps, r)
	}
	return join(ps...), nil
}

func (p *parser) unary() (*Predicate, error) {
	if p.peek().is("NOT") {
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return Negate(x), nil
	}
	if p.peek().kind == tLParen {
		p.next()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tRParen {
			return nil, p.errAt(t, "expected ')', found %s", t.describe())
		}
		return x, nil
	}
	return p.comparison()
}

func (p *parser) comparison() (*Predicate, error) {
	t := p.next()
	if t.kind != tIdent && t.kind != tQuotedIdent {
		return nil, p.errAt(t, "expected a column name, found %s", t.describe())
	}
	name := t.text
	if !p.syntax && typeutil.FieldByName(p.b.fields, name) < 0 {
		return nil, p.errAt(t, "unknown column %q", name)
	}
	wrap := func(pr *Predicate, err error) (*Predicate, error) {
		if err != nil {
			return nil, p.errAt(t, "%v", err)
		}
		return pr, nil
	}
	op := p.next()
	if op.kind == tOp {
		lit, err := p.literal()
		if err != nil {
			return nil, err
		}
		switch op.text {
		case "=":
			return wrap(p.build(func(b *Builder) (*Predicate, error) { return b.Equal(name, lit) }))
		case "<>", "!=":
			return wrap(p.build(func(b *Builder) (*Predicate, error) { return b.NotEqual(name, lit) }))
		case "<":
			return wrap(p.build(func(b *Builder) (*Predicate, error) { return b.LessThan(name, lit) }))
		case "<=":
			return wrap(p.build(func(b *Builder) (*Predicate, error) { return b.LessOrEqual(name, lit) }))
		case ">":
			return wrap(p.build(func(b *Builder) (*Predicate, error) { return b.GreaterThan(name, lit) }))
		case ">=":
			return wrap(p.build(func(b *Builder) (*Predicate, error) { return b.GreaterOrEqual(name, lit) }))
		}
	}
	if op.is("IS") {
		neg := false
		if p.peek().is("NOT") {
			p.next()
			neg = true
		}
		if n := p.next(); !n.is("NULL") {
			return nil, p.errAt(n, "expected NULL after IS, found %s", n.describe())
		}
		if neg {
			return wrap(p.build(func(b *Builder) (*Predicate, error) { return b.IsNotNull(name) }))
		}
		return wrap(p.build(func(b *Builder) (*Predicate, error) { return b.IsNull(name) }))
	}
	neg := false
	if op.is("NOT") {
		neg = true
		op = p.next()
	}
	var pr *Predicate
	var err error
	switch {
	case op.is("IN"):
		pr, err = p.inList(name, t)
	case op.is("BETWEEN"):
		var lo, hi any
		if lo, err = p.literal(); err != nil {
			return nil, err
		}
		if a := p.next(); !a.is("AND") {
			return nil, p.errAt(a, "expected AND in BETWEEN, found %s", a.describe())
		}
		if hi, err = p.literal(); err != nil {
			return nil, err
		}
		pr, err = wrap(p.build(func(b *Builder) (*Predicate, error) { return b.Between(name, lo, hi) }))
	case op.is("LIKE"):
		pt := p.next()
		if pt.kind != tString {
			return nil, p.errAt(pt, "LIKE needs a string pattern, found %s", pt.describe())
		}
		pr, err = p.like(name, pt)
	default:
		return nil, p.errAt(op, "expected a comparison, IS, IN, BETWEEN or LIKE after column %q, found %s", name, op.describe())
	}
	if err != nil {
		return nil, err
	}
	if neg {
		pr = Negate(pr)
	}
	return pr, nil
}

func (p *parser) inList(name string, col token) (*Predicate, error) {
	if t := p.next(); t.kind != tLParen {
		return nil, p.errAt(t, "expected '(' after IN, found %s", t.describe())
	}
	var lits []any
	for {
		l, err := p.literal()
		if err != nil {
			return nil, err
		}
		lits = append(lits, l)
		t := p.next()
		if t.kind == tRParen {
			break
		}
		if t.kind != tComma {
			return nil, p.errAt(t, "expected ',' or ')' in IN list, found %s", t.describe())
		}
	}
	pr, err := p.build(func(b *Builder) (*Predicate, error) { return b.In(name, lits...) })
	if err != nil {
		return nil, p.errAt(col, "%v", err)
	}
	return pr, nil
}

// like maps the LIKE forms that have an exact predicate; '_' and inner '%'
// wildcards have none, so they are refused rather than approximated.
func (p *parser) like(name string, pt token) (*Predicate, error) {
	s := pt.text
	core := s
	pre := strings.HasPrefix(core, "%")
	if pre {
		core = core[1:]
	}
	suf := strings.HasSuffix(core, "%")
	if suf {
		core = core[:len(core)-1]
	}
	if strings.ContainsAny(core, "%_\\") {
		return nil, p.errAt(pt, "LIKE pattern '%s' is not supported: only 'prefix%%', '%%suffix', '%%infix%%' or a pattern without wildcards ('_', '\\' and inner '%%' are not)", s)
	}
	var pr *Predicate
	var err error
	switch {
	case pre && suf:
		pr, err = p.build(func(b *Builder) (*Predicate, error) { return b.Contains(name, core) })
	case pre:
		pr, err = p.build(func(b *Builder) (*Predicate, error) { return b.EndsWith(name, core) })
	case suf:
		pr, err = p.build(func(b *Builder) (*Predicate, error) { return b.StartsWith(name, core) })
	default:
		pr, err = p.build(func(b *Builder) (*Predicate, error) { return b.Equal(name, core) })
	}
	if err != nil {
		return nil, p.errAt(pt, "%v", err)
	}
	return pr, nil
}

func (p *parser) literal() (any, error) {
	t := p.next()
	switch t.kind {
	case tNumber:
		return number(t.text), nil
	case tString:
		return t.text, nil
	case tIdent:
		switch {
		case t.is("TRUE"):
			return true, nil
		case t.is("FALSE"):
			return false, nil
		case t.is("NULL"):
			return nil, nil
		case t.is("DATE"), t.is("TIMESTAMP"):
			s := p.next()
			if s.kind != tString {
				return nil, p.errAt(s, "%s needs a quoted value, found %s", strings.ToUpper(t.text), s.describe())
			}
			if t.is("DATE") {
				v, err := Convert(s.text, types.DataType{Root: types.Date})
				if err != nil {
					return nil, p.errAt(s, "%v", err)
				}
				return v, nil
			}
			tm, err := parseTimestamp(s.text)
			if err != nil {
				return nil, p.errAt(s, "%v", err)
			}
			return timestampOf(tm), nil
		}
	}
	return nil, p.errAt(t, "expected a literal, found %s", t.describe())
}
