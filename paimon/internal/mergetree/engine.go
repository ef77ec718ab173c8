package mergetree

import (
	"fmt"

	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/agg"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// rowRef points at one record of a batch.
type rowRef struct {
	b *batch
	i int
}

func (r rowRef) kind() types.RowKind { return r.b.rowKind(r.i) }

// emit appends the record as it is: one writer per output column, reading
// need column cols[j]. It returns the record's kind.
func (r rowRef) emit(out []*colWriter, cols []int) types.RowKind {
	for j, w := range out {
		w.AppendRef(r.b.cols[cols[j]], r.i)
	}
	return r.kind()
}

// mergeFunc folds the records of one key, oldest first, like Java's
// MergeFunction (reset, add..., getResult).
type mergeFunc interface {
	reset()
	add(r rowRef) error
	// emit appends the merged row to out (one writer per output column,
	// reading need column cols[j]) and returns its kind. ok is false when
	// the key has no row to return.
	emit(out []*colWriter, cols []int) (kind types.RowKind, ok bool, err error)
}

// kept is the one record of a key that a deduplicate or first-row merge
// keeps.
type kept struct {
	row rowRef
	has bool
}

func (k *kept) reset() { *k = kept{} }

func (k *kept) keep(r rowRef) { k.row, k.has = r, true }

func (k *kept) emit(out []*colWriter, cols []int) (types.RowKind, bool, error) {
	if !k.has {
		return 0, false, nil
	}
	return k.row.emit(out, cols), true, nil
}

// dedupe is DeduplicateMergeFunction: the last record wins; a retract
// result makes the key disappear (DropDeleteReader). With ignore-delete
// retracts are skipped, so the previous version survives.
type dedupe struct {
	kept
	ignoreDelete bool
}

func (d *dedupe) add(r rowRef) error {
	if d.ignoreDelete && r.kind().IsRetract() {
		return nil
	}
	d.keep(r)
	return nil
}

func (d *dedupe) emit(out []*colWriter, cols []int) (types.RowKind, bool, error) {
	if d.has && d.row.kind().IsRetract() {
		return 0, false, nil
	}
	return d.kept.emit(out, cols)
}

// firstRow is FirstRowMergeFunction: the first (oldest) record wins.
// Retracts are an error unless ignore-delete skips them.
type firstRow struct {
	kept
	ignoreDelete bool
}

func (f *firstRow) add(r rowRef) error {
	if r.kind().IsRetract() {
		if f.ignoreDelete {
			return nil
		}
		// Java: "By default, First row merge engine can not accept
		// DELETE/UPDATE_BEFORE records."
		return fmt.Errorf("first-row merge engine got a %s record; set ignore-delete=true to skip DELETE/UPDATE_BEFORE records", r.kind())
	}
	if !f.has {
		f.keep(r)
	}
	return nil
}

// aggregate is AggregateMergeFunction: one field aggregator per column,
// add for +I/+U and retract for -U/-D. With
// aggregation.remove-record-on-delete a -D instead resets the row (only
// its NOT NULL columns keep the -D's values) and, if it is the key's last
// record, removes the key; aggregators keep their other state
// (first_value's "seen a value"), as Java's reset-free GenericRow swap does.
type aggregate struct {
	aggs           []agg.Aggregator // per need column
	nullable       []bool           // per need column
	removeOnDelete bool
	has            bool
	deleteRow      bool
}

func (a *aggregate) reset() {
	for _, g := range a.aggs {
		g.Reset()
	}
	a.has, a.deleteRow = false, false
}

func (a *aggregate) add(r rowRef) error {
	a.has = true
	a.deleteRow = a.removeOnDelete && r.kind() == types.Delete
	if a.deleteRow {
		for j, g := range a.aggs {
			g.Clear()
			if !a.nullable[j] {
				if r.b.cols[j].IsNull(r.i) {
					return fmt.Errorf("NOT NULL column %d is NULL in a %s record", j, r.kind())
				}
				g.SetAcc(r.b.cols[j], r.i)
			}
		}
		return nil
	}
	retract := r.kind().IsRetract()
	for j, g := range a.aggs {
		if retract {
			if err := g.Retract(r.b.cols[j], r.i); err != nil {
				return err
			}
		} else if err := g.Add(r.b.cols[j], r.i); err != nil {
			return err
		}
	}
	return nil
}

func (a *aggregate) emit(out []*colWriter, cols []int) (types.RowKind, bool, error) {
	if !a.has || a.deleteRow {
		return 0, false, nil
	}
	for j, w := range out {
		if err := a.aggs[cols[j]].Emit(w); err != nil {
			return 0, false, err
		}
	}
	return types.Insert, true, nil
}
