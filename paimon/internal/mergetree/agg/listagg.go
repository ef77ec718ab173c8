package agg

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// listAgg is Java 1.3.1's FieldListaggAgg: a NULL side yields the other
// one, otherwise acc + delimiter + input. Blank strings are concatenated
// like any other (the blank-skipping and distinct of later Paimon
// versions do not exist in 1.3.1; the JavaPkGen table pk_pu_seqgrp
// shows " ,l1,lz").
type listAgg struct {
	name, delim string
	acc         *string
}

func (g *listAgg) Reset() { g.acc = nil }
func (g *listAgg) Clear() { g.acc = nil }

func (g *listAgg) SetAcc(a arrow.Array, i int) {
	g.acc = nil
	if !a.IsNull(i) {
		v := strings.Clone(a.(*array.String).Value(i))
		g.acc = &v
	}
}

func (g *listAgg) Add(a arrow.Array, i int) error { return g.join(a, i, false) }

// AddReversed is agg(input, acc): input + delimiter + acc.
func (g *listAgg) AddReversed(a arrow.Array, i int) error { return g.join(a, i, true) }

// join appends value i of a to the accumulator after the delimiter, or
// puts it in front when reversed; a NULL side yields the other one.
func (g *listAgg) join(a arrow.Array, i int, reversed bool) error {
	if a.IsNull(i) {
		return nil
	}
	s := a.(*array.String).Value(i)
	if g.acc == nil {
		v := strings.Clone(s)
		g.acc = &v
		return nil
	}
	var v string
	if reversed {
		v = s + g.delim + *g.acc
	} else {
		v = *g.acc + g.delim + s
	}
	g.acc = &v
	return nil
}

func (g *listAgg) Retract(arrow.Array, int) error { return errNoRetract("listagg", g.name) }

func (g *listAgg) Emit(w Writer) error {
	if g.acc == nil {
		w.AppendNull()
		return nil
	}
	return w.AppendVal(*g.acc)
}
