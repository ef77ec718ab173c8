package mergetree

import (
	"fmt"

	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/agg"
	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/compare"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// partialUpdate is Java 1.3.1's PartialUpdateMergeFunction over the need
// columns.
//
// Without sequence groups each non-null field of a newer record overwrites
// the accumulated one. Retracts are an error unless ignore-delete (skipped)
// or partial-update.remove-record-on-delete (a -D resets the row, a -U is
// ignored).
//
// With sequence groups a group's members are written only by records
// whose sequence fields compare not older than the accumulated ones (NULL
// oldest); a record whose sequence fields are all NULL leaves the group
// alone. Members with an aggregate function aggregate, reversed for an
// older record. A -U/-D that is not older nulls the members out (or
// retracts their aggregators; older ones retract aggregators only), and
// with partial-update.remove-record-on-sequence-group a -D of a named
// group resets the row.
//
// The result is the row, or nothing when the last record removed it or no
// insert was met (Java returns it as a DELETE, which the reader drops).
type partialUpdate struct {
	ignoreDelete   bool
	removeOnDelete bool
	nullable       []bool           // per need column
	groupOf        []int            // per need column: its group, or -1
	isSeq          []bool           // per need column: a sequence field of its group
	aggs           []agg.Aggregator // per need column: nil unless an aggregated group member
	groups         []puGroup

	acc           []rowRef // per need column, for columns without aggregator; b == nil is NULL
	meetInsert    bool
	deleteRow     bool
	notNullFilled bool
	// scratch per group, recomputed for each record
	empty, newer []bool
}

// puGroup is a sequence group resolved to need columns.
type puGroup struct {
	seq    []int
	cmp    []compare.Func
	remove bool // a -D not older than the group removes the row
}

func newPartialUpdate(c *schema.MergeOptions, need []types.DataField) (*partialUpdate, error) {
	n := len(need)
	p := &partialUpdate{
		ignoreDelete:   c.IgnoreDelete,
		removeOnDelete: c.RemoveOnDelete,
		nullable:       make([]bool, n),
		groupOf:        make([]int, n),
		isSeq:          make([]bool, n),
		aggs:           make([]agg.Aggregator, n),
		acc:            make([]rowRef, n),
	}
	byName := map[string]int{}
	for j, f := range need {
		byName[f.Name] = j
		p.nullable[j] = f.Type.Nullable
		p.groupOf[j] = -1
	}
	for gi, g := range c.SequenceGroups {
		var pg puGroup
		for _, name := range g.SequenceFields {
			j, ok := byName[name]
			if !ok {
				// newLayout reads every sequence field.
				return nil, fmt.Errorf("sequence group field %q is not read", name)
			}
			cf, err := compare.For(need[j].Type)
			if err != nil {
				return nil, fmt.Errorf("sequence group field %q: %w", name, err)
			}
			pg.seq = append(pg.seq, j)
			pg.cmp = append(pg.cmp, cf)
			p.groupOf[j], p.isSeq[j] = gi, true
			pg.remove = pg.remove || c.RemoveOnSequenceGroup[name]
		}
		for _, name := range g.Members {
			if j, ok := byName[name]; ok {
				p.groupOf[j] = gi
			}
		}
		p.groups = append(p.groups, pg)
	}
	for j, f := range need {
		fn := c.GroupAggregates[f.Name]
		if fn == "" {
			continue
		}
		g, err := agg.New(fn, f, c)
		if err != nil {
			return nil, err
		}
		p.aggs[j] = g
	}
	p.empty = make([]bool, len(p.groups))
	p.newer = make([]bool, len(p.groups))
	return p, nil
}

func (p *partialUpdate) reset() {
	for j := range p.acc {
		p.acc[j] = rowRef{}
		if p.aggs[j] != nil {
			p.aggs[j].Reset()
		}
	}
	p.meetInsert, p.deleteRow, p.notNullFilled = false, false, false
}

// clearRow is Java's `row = new GenericRow(n)`: every column NULL,
// aggregator state other than the accumulator kept.
func (p *partialUpdate) clearRow() {
	for j := range p.acc {
		p.acc[j] = rowRef{}
		if p.aggs[j] != nil {
			p.aggs[j].Clear()
		}
	}
}

// set stores column j of r (NULL stays NULL) in the row.
// setSequence reports whether column j is a sequence field of its group
// gi; a sequence field takes r's value when r is the group's newer row, in
// an update and a retraction alike.
func (p *partialUpdate) setSequence(j, gi int, r rowRef) bool {
	if !p.isSeq[j] {
		return false
	}
	if p.newer[gi] {
		p.set(j, r)
	}
	return true
}

func (p *partialUpdate) set(j int, r rowRef) {
	if r.b.cols[j].IsNull(r.i) {
		p.acc[j] = rowRef{}
		return
	}
	p.acc[j] = r
}

// initRow is Java's initRow: the NOT NULL columns take r's values.
func (p *partialUpdate) initRow(r rowRef) error {
	for j, c := range r.b.cols {
		if p.nullable[j] {
			continue
		}
		if c.IsNull(r.i) {
			return fmt.Errorf("partial-update: NOT NULL column %d is NULL in a %s record", j, r.kind())
		}
		if p.aggs[j] != nil {
			p.aggs[j].SetAcc(c, r.i)
		} else {
			p.acc[j] = r
		}
	}
	return nil
}

func (p *partialUpdate) add(r rowRef) error {
	p.deleteRow = false
	if r.kind().IsRetract() {
		if !p.notNullFilled {
			if err := p.initRow(r); err != nil {
				return err
			}
			p.notNullFilled = true
		}
		if p.ignoreDelete {
			return nil
		}
		if len(p.groups) > 0 {
			return p.retractGroups(r)
		}
		if p.removeOnDelete {
			if r.kind() == types.Delete {
				p.deleteRow = true
				p.clearRow()
				return p.initRow(r)
			}
			return nil
		}
		// Java: "By default, Partial update can not accept delete
		// records, you can choose one of the following solutions: ..."
		return fmt.Errorf("partial-update merge engine got a %s record; configure ignore-delete, partial-update.remove-record-on-delete or sequence groups to accept them", r.kind())
	}
	var err error
	if len(p.groups) == 0 {
		err = p.updateNonNull(r)
	} else {
		err = p.updateGroups(r)
	}
	if err != nil {
		return err
	}
	p.meetInsert, p.notNullFilled = true, true
	return nil
}

func (p *partialUpdate) updateNonNull(r rowRef) error {
	for j, c := range r.b.cols {
		if !c.IsNull(r.i) {
			p.acc[j] = r
		} else if !p.nullable[j] {
			return fmt.Errorf("partial-update: NOT NULL column %d is NULL in a %s record", j, r.kind())
		}
	}
	return nil
}

// classify fills empty and newer for record r against the row. It runs
// before any column changes: Java compares column by column against a row
// whose sequence fields may already have been replaced, but a replacement
// only happens when r is not older, after which r compares equal (still
// not older), so the per-record answer is the same.
func (p *partialUpdate) classify(r rowRef) {
	for gi, g := range p.groups {
		empty := true
		for _, j := range g.seq {
			if !r.b.cols[j].IsNull(r.i) {
				empty = false
				break
			}
		}
		p.empty[gi] = empty
		if empty {
			p.newer[gi] = false
			continue
		}
		c := 0
		for k, j := range g.seq {
			c = p.compareToRow(g.cmp[k], j, r)
			if c != 0 {
				break
			}
		}
		p.newer[gi] = c >= 0
	}
}

// compareToRow compares column j of r with the row's value (NULL first).
func (p *partialUpdate) compareToRow(cmp compare.Func, j int, r rowRef) int {
	acc := p.acc[j]
	if acc.b == nil {
		if r.b.cols[j].IsNull(r.i) {
			return 0
		}
		return 1
	}
	return cmp(r.b.cols[j], r.i, acc.b.cols[j], acc.i)
}

func (p *partialUpdate) updateGroups(r rowRef) error {
	p.classify(r)
	for j, c := range r.b.cols {
		gi := p.groupOf[j]
		if gi < 0 {
			// Outside groups: primary keys and plain columns (their only
			// allowed aggregator, last_non_null_value, is the same).
			if !c.IsNull(r.i) {
				p.acc[j] = r
			}
			continue
		}
		if p.empty[gi] || p.setSequence(j, gi, r) {
			continue
		}
		g := p.aggs[j]
		switch {
		case p.newer[gi]:
			if g != nil {
				if err := g.Add(c, r.i); err != nil {
					return err
				}
			} else {
				p.set(j, r)
			}
		case g != nil:
			if err := g.AddReversed(c, r.i); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *partialUpdate) retractGroups(r rowRef) error {
	p.classify(r)
	if r.kind() == types.Delete {
		for gi, g := range p.groups {
			if g.remove && p.newer[gi] {
				p.deleteRow = true
				p.clearRow()
				return p.initRow(r)
			}
		}
	}
	for j, c := range r.b.cols {
		gi := p.groupOf[j]
		if gi < 0 || p.empty[gi] || p.setSequence(j, gi, r) {
			continue
		}
		g := p.aggs[j]
		switch {
		case g != nil:
			// Newer or older, an aggregated member is retracted.
			if err := g.Retract(c, r.i); err != nil {
				return err
			}
		case p.newer[gi]:
			p.acc[j] = rowRef{}
		}
	}
	return nil
}

func (p *partialUpdate) emit(out []*colWriter, cols []int) (types.RowKind, bool, error) {
	if p.deleteRow || !p.meetInsert {
		return 0, false, nil
	}
	for k, w := range out {
		j := cols[k]
		if g := p.aggs[j]; g != nil {
			if err := g.Emit(w); err != nil {
				return 0, false, err
			}
			continue
		}
		ref := p.acc[j]
		if ref.b == nil {
			w.AppendNull()
		} else {
			w.AppendRef(ref.b.cols[j], ref.i)
		}
	}
	return types.Insert, true, nil
}
