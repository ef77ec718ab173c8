// Package predicate implements Paimon's row predicates (pypaimon's
// PredicateBuilder set, Java's org.apache.paimon.predicate semantics) and
// evaluates them three ways: on a row of single values (partition rows), on
// min/max/null-count statistics ("may this file or row group match?"), and
// vectorised on Arrow records (the residual filter).
//
// Semantics follow Java's LeafFunctions: a comparison with a NULL value or a
// NULL literal is false; IN ignores NULL literals, NOT IN with a NULL literal
// is false for every row; strings compare as unsigned bytes; floating point
// compares like Java's Double.compare (-0.0 < 0.0, NaN equal to itself and
// greater than everything).
//
// There is no NOT node: Not pushes the negation down to the leaves (De
// Morgan, each leaf to its complement), which is exact under SQL's
// three-valued logic because every leaf other than IS [NOT] NULL is false on
// NULL. As a result every evaluation is monotone in its leaves, which is what
// makes "unknown → may match" safe at the leaf level.
package predicate

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Op is the function of a predicate node.
type Op int

// The predicate functions. NotStartsWith, NotEndsWith and NotContains only
// arise from Not; AlwaysTrue and AlwaysFalse from Remap of a column the file
// does not have.
const (
	Equal Op = iota
	NotEqual
	LessThan
	LessOrEqual
	GreaterThan
	GreaterOrEqual
	IsNull
	IsNotNull
	In
	NotIn
	StartsWith
	EndsWith
	Contains
	NotStartsWith
	NotEndsWith
	NotContains
	And
	Or
	AlwaysTrue
	AlwaysFalse
)

var opNames = [...]string{
	Equal: "=", NotEqual: "<>", LessThan: "<", LessOrEqual: "<=", GreaterThan: ">",
	GreaterOrEqual: ">=", IsNull: "IS NULL", IsNotNull: "IS NOT NULL", In: "IN", NotIn: "NOT IN",
	StartsWith: "STARTS WITH", EndsWith: "ENDS WITH", Contains: "CONTAINS",
	NotStartsWith: "NOT STARTS WITH", NotEndsWith: "NOT ENDS WITH", NotContains: "NOT CONTAINS",
	And: "AND", Or: "OR", AlwaysTrue: "TRUE", AlwaysFalse: "FALSE",
}

func (o Op) String() string {
	if int(o) >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// complement returns the op that negates a leaf op under SQL three-valued
// logic (see the package comment).
func complement(op Op) Op {
	switch op {
	case Equal:
		return NotEqual
	case NotEqual:
		return Equal
	case LessThan:
		return GreaterOrEqual
	case GreaterOrEqual:
		return LessThan
	case LessOrEqual:
		return GreaterThan
	case GreaterThan:
		return LessOrEqual
	case IsNull:
		return IsNotNull
	case IsNotNull:
		return IsNull
	case In:
		return NotIn
	case NotIn:
		return In
	case StartsWith:
		return NotStartsWith
	case NotStartsWith:
		return StartsWith
	case EndsWith:
		return NotEndsWith
	case NotEndsWith:
		return EndsWith
	case Contains:
		return NotContains
	case NotContains:
		return Contains
	case AlwaysTrue:
		return AlwaysFalse
	}
	return AlwaysTrue
}

// Predicate is an immutable predicate tree. A leaf refers to one field of
// the row type it was built against, by position (Index) and by the field
// itself (for its id, name and type). Literals hold the field's Go value
// type (package types).
type Predicate struct {
	op       Op
	index    int
	field    types.DataField
	literals []any
	children []*Predicate
	// src is a comparison leaf as it was asked for, before its literals
	// were converted to the column type (and rewritten where the type
	// cannot hold them, outside.go): the leaf is built again from it for a
	// column of another type (time travel to a schema where the name has
	// another type, a stream following a widening), where the rewritten
	// literals would no longer select what was asked for.
	src *leafSource
}

// leafSource is the op and literals a leaf was asked for.
type leafSource struct {
	op   Op
	lits []any
}

// Op returns the node's function.
func (p *Predicate) Op() Op { return p.op }

// Index returns a leaf's position in the row type it refers to.
func (p *Predicate) Index() int { return p.index }

// Field returns the field a leaf refers to.
func (p *Predicate) Field() types.DataField { return p.field }

// Literals returns a leaf's literals (do not modify).
func (p *Predicate) Literals() []any { return p.literals }

// Children returns the operands of And/Or (do not modify).
func (p *Predicate) Children() []*Predicate { return p.children }

func (p *Predicate) isLeaf() bool {
	return p.op != And && p.op != Or && p.op != AlwaysTrue && p.op != AlwaysFalse
}

// String renders the predicate in the syntax Parse accepts (for the
// operators it has a syntax for), for logs and error messages.
func (p *Predicate) String() string {
	var b strings.Builder
	p.write(&b)
	return b.String()
}

func (p *Predicate) write(b *strings.Builder) {
	switch p.op {
	case And, Or:
		b.WriteByte('(')
		for i, c := range p.children {
			if i > 0 {
				b.WriteString(" " + p.op.String() + " ")
			}
			c.write(b)
		}
		b.WriteByte(')')
		return
	case AlwaysTrue, AlwaysFalse:
		b.WriteString(p.op.String())
		return
	}
	b.WriteString("`" + strings.ReplaceAll(p.field.Name, "`", "``") + "` " + p.op.String())
	switch p.op {
	case IsNull, IsNotNull:
	case In, NotIn:
		b.WriteString(" (")
		for i, l := range p.literals {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(literalString(l))
		}
		b.WriteByte(')')
	default:
		b.WriteString(" " + literalString(p.literals[0]))
	}
}

func literalString(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case []byte:
		return fmt.Sprintf("X'%x'", x)
	case types.DateValue:
		return "DATE '" + x.String() + "'"
	case types.TimestampValue:
		return "TIMESTAMP '" + x.Time().Format("2006-01-02 15:04:05.999999999") + "'"
	case types.TimeValue:
		return "'" + x.String() + "'"
	}
	return fmt.Sprint(v)
}

// Fields returns the names of the columns the predicate uses, each once, in
// order of first use.
func (p *Predicate) Fields() []string {
	var out []string
	seen := map[string]bool{}
	p.walkLeaves(func(l *Predicate) {
		if !seen[l.field.Name] {
			seen[l.field.Name] = true
			out = append(out, l.field.Name)
		}
	})
	return out
}

func (p *Predicate) walkLeaves(f func(*Predicate)) {
	if p.isLeaf() {
		f(p)
		return
	}
	for _, c := range p.children {
		c.walkLeaves(f)
	}
}

// logical decides the nodes that are not leaves (AND, OR and the
// constants), testing children with test; ok is false for a leaf.
func (p *Predicate) logical(test func(*Predicate) bool) (result, ok bool) {
	switch p.op {
	case And:
		for _, c := range p.children {
			if !test(c) {
				return false, true
			}
		}
		return true, true
	case Or:
		for _, c := range p.children {
			if test(c) {
				return true, true
			}
		}
		return false, true
	case AlwaysTrue:
		return true, true
	case AlwaysFalse:
		return false, true
	}
	return false, false
}

// Test evaluates the predicate on one row whose values are indexed like
// the row type the predicate refers to. A leaf whose column lies beyond the
// row, or whose value has an unexpected Go type, counts as a match: Test is
// used to skip data, and skipping must never drop a matching row.
func (p *Predicate) Test(row []any) bool {
	if r, ok := p.logical(func(c *Predicate) bool { return c.Test(row) }); ok {
		return r
	}
	if p.index < 0 || p.index >= len(row) {
		return true
	}
	return p.testValue(row[p.index])
}

func (p *Predicate) testValue(v any) bool {
	switch p.op {
	case IsNull:
		return v == nil
	case IsNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	switch p.op {
	case In, NotIn:
		// A value is the range [v, v]: membership is decided by the same
		// loop as on statistics.
		return p.testRange(v, v)
	case StartsWith, EndsWith, Contains, NotStartsWith, NotEndsWith, NotContains:
		s, ok1 := asBytes(v)
		pat, ok2 := asBytes(p.literals[0])
		if !ok1 || !ok2 {
			return true
		}
		return matchPattern(p.op, s, pat)
	}
	l := p.literals[0]
	if l == nil {
		return false
	}
	c, ok := typeutil.CompareValues(v, l)
	if !ok {
		return true
	}
	return opHolds(p.op, c)
}

// opHolds reports whether a comparison op holds given compare(value, literal).
func opHolds(op Op, c int) bool {
	switch op {
	case Equal:
		return c == 0
	case NotEqual:
		return c != 0
	case LessThan:
		return c < 0
	case LessOrEqual:
		return c <= 0
	case GreaterThan:
		return c > 0
	case GreaterOrEqual:
		return c >= 0
	}
	return true
}

func matchPattern(op Op, s, pat []byte) bool {
	switch op {
	case StartsWith:
		return bytes.HasPrefix(s, pat)
	case EndsWith:
		return bytes.HasSuffix(s, pat)
	case Contains:
		return bytes.Contains(s, pat)
	case NotStartsWith:
		return !bytes.HasPrefix(s, pat)
	case NotEndsWith:
		return !bytes.HasSuffix(s, pat)
	case NotContains:
		return !bytes.Contains(s, pat)
	}
	return true
}

func asBytes(v any) ([]byte, bool) {
	switch x := v.(type) {
	case string:
		return []byte(x), true
	case []byte:
		return x, true
	}
	return nil, false
}

// TestStats reports whether rows described by statistics may match: min,
// max and nullCounts are indexed like the row type. A nil min or max means
// unknown (or, for a column that is all NULL, absent); a nil null count
// means unknown. Min and max are inclusive bounds that need not be attained
// — truncated string stats (max = incremented prefix) are bounds of this
// kind — so pruning only happens when no value between them can match.
//
// Floating point stats get extra care: Parquet min/max leave NaN out and may
// write +0.0 for a -0.0 minimum, while Java's ordering puts NaN above
// everything and -0.0 below +0.0. The upper bound of a FLOAT/DOUBLE column is
// therefore taken as NaN, a +0.0 minimum as -0.0 and a NaN minimum as -Inf.
// A null count outside [0, rowCount] is unknown.
func (p *Predicate) TestStats(rowCount int64, min, max []any, nullCounts []*int64) bool {
	if r, ok := p.logical(func(c *Predicate) bool { return c.TestStats(rowCount, min, max, nullCounts) }); ok {
		return r
	}
	i := p.index
	var lo, hi any
	var nulls *int64
	if i >= 0 && i < len(min) {
		lo = min[i]
	}
	if i >= 0 && i < len(max) {
		hi = max[i]
	}
	if i >= 0 && i < len(nullCounts) {
		nulls = nullCounts[i]
	}
	if nulls != nil && (*nulls < 0 || *nulls > rowCount) {
		// parquet-java records -1 for "not set" (its footer statistics are
		// dropped whole when a value exceeds 4 KiB) and Java Paimon copies it
		// into the file stats; a count outside [0, rowCount] says nothing.
		nulls = nil
	}
	switch p.op {
	case IsNull:
		return nulls == nil || *nulls > 0
	case IsNotNull:
		return nulls == nil || *nulls < rowCount
	}
	if nulls != nil && *nulls >= rowCount {
		return false // every row is NULL: no non-IS-NULL leaf can hold
	}
	if lo == nil || hi == nil {
		return true
	}
	switch p.field.Type.Root {
	case types.Float:
		hi = float32(math.NaN())
		if x, ok := lo.(float32); ok && (x == 0 || x != x) {
			lo = p.minFloatBound(float64(x))
		}
	case types.Double:
		hi = math.NaN()
		if x, ok := lo.(float64); ok && (x == 0 || x != x) {
			lo = p.minFloatBound(x)
		}
	}
	return p.testRange(lo, hi)
}

// minFloatBound widens a FLOAT/DOUBLE minimum of 0 to -0.0 and a NaN
// minimum to -Inf: writers (parquet-mr before PARQUET-1222, a running min
// seeded with NaN) have recorded NaN minima for columns holding numbers, so
// a NaN minimum bounds nothing. The result keeps the column's Go type.
func (p *Predicate) minFloatBound(x float64) any {
	b := math.Copysign(0, -1)
	if x != x {
		b = math.Inf(-1)
	}
	if p.field.Type.Root == types.Float {
		return float32(b)
	}
	return b
}

// testRange decides a leaf on inclusive bounds lo ≤ v ≤ hi (non-null).
func (p *Predicate) testRange(lo, hi any) bool {
	cmp := typeutil.CompareValues
	switch p.op {
	case In:
		for _, l := range p.literals {
			if l == nil {
				continue
			}
			c1, ok1 := cmp(l, lo)
			c2, ok2 := cmp(l, hi)
			if !ok1 || !ok2 || (c1 >= 0 && c2 <= 0) {
				return true
			}
		}
		return false
	case NotIn:
		for _, l := range p.literals {
			if l == nil {
				return false
			}
			c1, ok1 := cmp(l, lo)
			c2, ok2 := cmp(l, hi)
			if ok1 && ok2 && c1 == 0 && c2 == 0 {
				return false
			}
		}
		return true
	case StartsWith:
		// Java's StartsWith.test on stats: the prefix range [pat, pat+)
		// must intersect [min, max].
		lb, ok1 := asBytes(lo)
		hb, ok2 := asBytes(hi)
		pat, ok3 := asBytes(p.literals[0])
		if !ok1 || !ok2 || !ok3 {
			return true
		}
		return (bytes.HasPrefix(lb, pat) || bytes.Compare(lb, pat) <= 0) &&
			(bytes.HasPrefix(hb, pat) || bytes.Compare(hb, pat) >= 0)
	case EndsWith, Contains, NotStartsWith, NotEndsWith, NotContains:
		return true
	}
	l := p.literals[0]
	if l == nil {
		return false
	}
	cLo, ok1 := cmp(l, lo) // literal vs min
	cHi, ok2 := cmp(l, hi) // literal vs max
	if !ok1 || !ok2 {
		return true
	}
	switch p.op {
	case Equal:
		return cLo >= 0 && cHi <= 0
	case NotEqual:
		return cLo != 0 || cHi != 0
	case LessThan:
		return cLo > 0 // some v < l iff min < l
	case LessOrEqual:
		return cLo >= 0
	case GreaterThan:
		return cHi < 0 // some v > l iff max > l
	case GreaterOrEqual:
		return cHi <= 0
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ordered[T int8 | int16 | int32 | int64 | types.DateValue | types.TimeValue](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
