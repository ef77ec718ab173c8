package predicate

import (
	"fmt"

	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// conjuncts splits p into its top-level AND operands.
func conjuncts(p *Predicate) []*Predicate {
	if p == nil {
		return nil
	}
	if p.op == And {
		return p.children
	}
	return []*Predicate{p}
}

// PartitionPart returns the conjuncts of p that use only partition columns,
// rewritten to index the partition row (partitionFields, in partition key
// order), or nil when there are none. Columns are matched by field id. The
// result is weaker than p — rows it rejects are rejected by p too — which is
// what partition pruning needs.
func PartitionPart(p *Predicate, partitionFields []types.DataField) *Predicate {
	var keep []*Predicate
	for _, c := range conjuncts(p) {
		ok := true
		c.walkLeaves(func(l *Predicate) {
			if typeutil.FieldByID(partitionFields, l.field.ID) < 0 {
				ok = false
			}
		})
		if !ok {
			continue
		}
		r, err := Remap(c, partitionFields)
		if err != nil {
			continue // a type mismatch makes it unusable for pruning; skip it
		}
		keep = append(keep, r)
	}
	return AndOf(keep...)
}

// Remap rewrites p onto another list of fields, matching columns by field
// id (names may have changed by rename). A column absent from fields reads
// as NULL, as a column added after a file was written does: its leaves
// become constants (IS NULL → TRUE, anything else → FALSE). A column whose
// type differs (nullability aside) is an error: the literals are in the
// other type and comparing them would be wrong; callers evaluate such
// predicates after casting the data instead.
func Remap(p *Predicate, fields []types.DataField) (*Predicate, error) {
	return mapLeaves(p, func(l *Predicate) (*Predicate, error) {
		i := typeutil.FieldByID(fields, l.field.ID)
		if i < 0 {
			c := &Predicate{op: AlwaysFalse, index: -1}
			if l.testValue(nil) {
				c.op = AlwaysTrue
			}
			return c, nil
		}
		f := fields[i]
		if !sameType(f.Type, l.field.Type) {
			return nil, fmt.Errorf("remap predicate on column %q (id %d): type changed from %s to %s", l.field.Name, l.field.ID, l.field.Type, f.Type)
		}
		q := *l
		q.index, q.field = i, f
		return &q, nil
	})
}

// mapLeaves rebuilds p with every leaf replaced by f's result; And and Or
// keep their shape and the constants stay.
func mapLeaves(p *Predicate, f func(leaf *Predicate) (*Predicate, error)) (*Predicate, error) {
	if p == nil {
		return nil, nil
	}
	switch p.op {
	case And, Or:
		kids := make([]*Predicate, len(p.children))
		for i, c := range p.children {
			r, err := mapLeaves(c, f)
			if err != nil {
				return nil, err
			}
			kids[i] = r
		}
		return &Predicate{op: p.op, index: -1, children: kids}, nil
	case AlwaysTrue, AlwaysFalse:
		return p, nil
	}
	return f(p)
}

// sameType compares column types, nullability aside: literals of one fit
// the other.
func sameType(a, b types.DataType) bool {
	return a.WithNullable(true).String() == b.WithNullable(true).String()
}
