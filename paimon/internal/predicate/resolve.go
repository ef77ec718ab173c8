package predicate

import (
	"fmt"

	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Bind rewrites p onto fields, the row type the rows are read in, finding
// each column by name: a filter names the columns of the schema its rows
// have (a past snapshot's schema in time travel), whatever schema it was
// first built against. A rename that later reused a name is why the field
// id cannot be trusted here. A name fields lacks is an error, never a
// constant: a filter on a column the rows do not have cannot select any of
// them meaningfully. A column whose type differs gets its literals
// converted (an error when they do not fit).
func Bind(p *Predicate, fields []types.DataField) (*Predicate, error) {
	q, err := rebind(p, fields, func(l *Predicate) (int, error) {
		i := typeutil.FieldByName(fields, l.field.Name)
		if i < 0 {
			return -1, fmt.Errorf("unknown column %q", l.field.Name)
		}
		return i, nil
	})
	if err != nil {
		return nil, invalidFilter{err}
	}
	return q, nil
}

// Follow rewrites p, bound to an older schema, onto a newer schema's
// fields by field id, as a stream moves on: renames are followed, and a
// column that was dropped keeps its old field, so that Remap later reads
// it as NULL (as an added column reads in older files). A column whose type
// changed (a widening) gets its literals converted.
func Follow(p *Predicate, fields []types.DataField) (*Predicate, error) {
	q, err := rebind(p, fields, func(l *Predicate) (int, error) {
		return typeutil.FieldByID(fields, l.field.ID), nil
	})
	if err != nil {
		return nil, invalidFilter{err}
	}
	return q, nil
}

func rebind(p *Predicate, fields []types.DataField, find func(*Predicate) (int, error)) (*Predicate, error) {
	return mapLeaves(p, func(l *Predicate) (*Predicate, error) {
		i, err := find(l)
		if err != nil || i < 0 {
			return l, err
		}
		f := fields[i]
		if !sameType(f.Type, l.field.Type) {
			return retype(l, fields, f)
		}
		q := *l
		q.index, q.field = i, f
		return &q, nil
	})
}

// retype builds leaf p again on field f of another type, through the
// builder, so that literals are converted and range-checked exactly as
// when a filter is first built — from the op and literals the leaf was
// asked for (src), not the ones its first type rewrote them to: `c >= 2.75`
// built on a BIGINT c is `c >= 3` there, but on a FLOAT c it must still
// hold for 2.75.
func retype(p *Predicate, fields []types.DataField, f types.DataField) (*Predicate, error) {
	b := &Builder{fields: fields}
	op, lits := p.op, p.literals
	if p.src != nil {
		op, lits = p.src.op, p.src.lits
	}
	var q *Predicate
	var err error
	switch op {
	case StartsWith, EndsWith, Contains:
		q, err = b.pattern(op, f.Name, patternText(lits[0]))
	case NotStartsWith, NotEndsWith, NotContains:
		if q, err = b.pattern(complement(op), f.Name, patternText(lits[0])); err == nil {
			q = Negate(q)
		}
	default:
		q, err = b.leaf(op, f.Name, lits...)
	}
	if err != nil {
		return nil, fmt.Errorf("column %q is %s here, %s in the filter: %w", f.Name, f.Type, p.field.Type, err)
	}
	return q, nil
}

// patternText is a pattern leaf's literal as the text it was built from
// (binary columns hold it as bytes).
func patternText(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	s, _ := v.(string)
	return s
}

// Columns returns the fields the predicate uses, each once (by field id),
// in order of first use.
func (p *Predicate) Columns() []types.DataField {
	var out []types.DataField
	seen := map[int]bool{}
	p.walkLeaves(func(l *Predicate) {
		if !seen[l.field.ID] {
			seen[l.field.ID] = true
			out = append(out, l.field)
		}
	})
	return out
}
