// Package agg holds the field aggregators of Java Paimon 1.3.1
// (paimon-core mergetree/compact/aggregate): one per column of the
// aggregation merge engine and of partial-update sequence-group members.
// Accumulators reference values of the input arrays (valid while the merge
// group's batches are pinned) and are materialised once, at emit.
package agg

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/compare"
	"github.com/connect-paimon/connect-paimon/paimon/internal/roaring64"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Writer is the output column an aggregator emits its result into.
type Writer interface {
	AppendNull()
	// AppendRef appends value i of a, an array of the column's Arrow type.
	AppendRef(a arrow.Array, i int)
	// AppendVal appends a computed Go value; nil is NULL.
	AppendVal(v any) error
	// AppendPiece appends a computed one-row nested value, taking
	// ownership of v.
	AppendPiece(v arrow.Array)
	// Alloc and ArrowType let nested results be built in the column's
	// allocator and type.
	Alloc() memory.Allocator
	ArrowType() arrow.DataType
}

// Aggregator is Java's FieldAggregator for one column.
//
// The accumulator lives inside the aggregator; the methods beyond Java's
// agg/retract let the merge functions do what Java does to the row slot
// directly: Clear sets it NULL and SetAcc sets it to an input value, both
// leaving other state (first_value's flag) alone.
type Aggregator interface {
	Reset()
	Add(a arrow.Array, i int) error
	// AddReversed is FieldAggregator.aggReversed = agg(input, acc): a
	// partial-update record older than its sequence group's.
	AddReversed(a arrow.Array, i int) error
	Retract(a arrow.Array, i int) error
	Clear()
	SetAcc(a arrow.Array, i int)
	Emit(w Writer) error
}

// New builds the aggregator of column f: fn is one of the functions
// schema.MergeOptions accepts, or "primary-key"; c holds the per-field
// options (ignore-retract, delimiter, distinct, count-limit).
func New(fn string, f types.DataField, c *schema.MergeOptions) (Aggregator, error) {
	name, t := f.Name, f.Type
	delim, ok := c.ListaggDelimiter[name]
	if !ok {
		delim = ","
	}
	var g Aggregator
	switch fn {
	case "primary-key", "last_value", "last_non_null_value", "first_value", "first_non_null_value":
		g = &refAgg{fn: fn, name: name}
	case "min", "max":
		c, err := compare.For(t)
		if err != nil {
			return nil, fmt.Errorf("aggregate %s on column %q: %w", fn, name, err)
		}
		g = &refAgg{fn: fn, name: name, cmp: c}
	case "sum":
		g = &sumAgg{name: name, t: t}
	case "listagg":
		g = &listAgg{name: name, delim: delim}
	case "bool_and", "bool_or":
		g = &boolAgg{and: fn == "bool_and", name: name}
	case "product":
		g = &productAgg{sumAgg: sumAgg{name: name, t: t}}
	case "collect":
		g = &collectAgg{name: name, t: t, distinct: c.Distinct[name]}
	case "merge_map":
		g = &mergeMapAgg{name: name, t: t}
	case "nested_update":
		limit, ok := c.CountLimit[name]
		if !ok {
			limit = math.MaxInt32
		}
		g, err := newNestedUpdate(name, t, limit, c.NestedKey[name])
		if err != nil {
			return nil, err
		}
		return wrapRetract(g, c.IgnoreRetract[name]), nil
	case "rbm32":
		g = &rbmAgg{fn: fn, name: name, merge: mergeRbm32}
	case "rbm64":
		g = &rbmAgg{fn: fn, name: name, merge: roaring64.Merge}
	default:
		return nil, fmt.Errorf("aggregate function %q on column %q: %w", fn, name, types.ErrUnsupported)
	}
	return wrapRetract(g, c.IgnoreRetract[name]), nil
}

func wrapRetract(g Aggregator, ignore bool) Aggregator {
	if ignore {
		return ignoreRetractAgg{g}
	}
	return g
}

// errNoRetract is FieldAggregator.retract's default refusal.
func errNoRetract(fn, name string) error {
	return fmt.Errorf("aggregate function %q (column %q) does not support retraction; configure fields.%s.ignore-retract=true to ignore retraction messages", fn, name, name)
}

// ignoreRetractAgg is FieldIgnoreRetractAgg: retracts leave the
// accumulator unchanged.
type ignoreRetractAgg struct{ Aggregator }

func (ignoreRetractAgg) Retract(arrow.Array, int) error { return nil }
