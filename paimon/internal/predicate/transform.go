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
	if p == nil {
		return nil, nil
	}
	switch p.op {
	case And, Or:
		kids := make([]*Predicate, len(p.children))
		for i, c := range p.children {
			r, err := Remap(c, fields)
			if err != nil {
				return nil, err
			}
			kids[i] = r
		}
		return &Predicate{op: p.op, index: -1, children: kids}, nil
	case AlwaysTrue, AlwaysFalse:
		return p, nil
	}
	i := typeutil.FieldByID(fields, p.field.ID)
	if i < 0 {
		c := &Predicate{op: AlwaysFalse, index: -1}
		if p.testValue(nil) {
			c.op = AlwaysTrue
		}
		return c, nil
	}
	f := fields[i]
	if f.Type.WithNullable(true).String() != p.field.Type.WithNullable(true).String() {
		return nil, fmt.Errorf("remap predicate on column %q (id %d): type changed from %s to %s", p.field.Name, p.field.ID, p.field.Type, f.Type)
	}
	q := *p
	q.index = i
	q.field = f
	return &q, nil
}
