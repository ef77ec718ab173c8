package types

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// CheckedNanos holds exactly the int64 range: both ends (whose millisecond is only partly
// representable) and nothing one nanosecond beyond, which would wrap into a wrong row.
func TestCheckedNanos(t *testing.T) {
	for _, c := range []struct {
		v    TimestampValue
		want int64
		ok   bool
	}{
		{TimestampValue{Millis: 0, NanoOfMilli: 1}, 1, true},
		{TimestampValue{Millis: -1, NanoOfMilli: 999999}, -1, true},
		{TimestampValue{Millis: math.MaxInt64 / 1_000_000, NanoOfMilli: 775807}, math.MaxInt64, true},
		{TimestampValue{Millis: math.MaxInt64 / 1_000_000, NanoOfMilli: 775808}, 0, false},
		{TimestampValue{Millis: -9223372036855, NanoOfMilli: 224192}, math.MinInt64, true},
		{TimestampValue{Millis: -9223372036855, NanoOfMilli: 224191}, 0, false},
		{TimestampValue{Millis: -62135596800000}, 0, false}, // 0001-01-01
		{TimestampValue{Millis: 253402300799999}, 0, false}, // 9999-12-31T23:59:59.999
	} {
		got, err := c.v.CheckedNanos()
		if c.ok && (err != nil || got != c.want) {
			t.Errorf("%s: %d, %v; want %d", c.v.Text(), got, err, c.want)
		}
		if !c.ok && (!errors.Is(err, ErrNanosecondRange) || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.v.Text())) {
			t.Errorf("%s: %d, %v; want ErrNanosecondRange naming the value", c.v.Text(), got, err)
		}
	}
}

func TestWideTimestampArray(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	wt := newWideTimestampType(true)
	b := array.NewExtensionBuilder(mem, wt)
	defer b.Release()
	vals := []TimestampValue{{Millis: -62135596800000, NanoOfMilli: 1}, {Millis: 253402300799999, NanoOfMilli: 999999}}
	for _, v := range vals {
		s := b.StorageBuilder().(*array.StructBuilder)
		s.Append(true)
		s.FieldBuilder(0).(*array.Int64Builder).Append(v.Millis)
		s.FieldBuilder(1).(*array.Int32Builder).Append(v.NanoOfMilli)
	}
	b.AppendNull()
	arr := b.NewArray()
	defer arr.Release()
	wa, ok := arr.(*WideTimestampArray)
	if !ok {
		t.Fatalf("array of %s is %T", wt, arr)
	}
	for i, v := range vals {
		if wa.Value(i) != v || wa.IsNull(i) {
			t.Errorf("row %d: %v, want %v", i, wa.Value(i), v)
		}
	}
	if !wa.IsNull(2) {
		t.Error("row 2 is not null")
	}
	// Arrow IPC rebuilds the type from its storage and Serialize.
	back, err := wt.Deserialize(wt.StorageType(), wt.Serialize())
	if err != nil || !arrow.TypeEqual(back, wt) {
		t.Errorf("Deserialize(Serialize()) = %v, %v", back, err)
	}
	if arrow.TypeEqual(newWideTimestampType(false), wt) {
		t.Error("TIMESTAMP and TIMESTAMP_LTZ wide types are equal")
	}
}
