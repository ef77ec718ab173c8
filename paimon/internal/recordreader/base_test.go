package recordreader

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestBase: the batch lives until the next Begin or the last Release, free
// runs once at the last Release, and an error stops every later Next.
func TestBase(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := func() arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(1)
		return b.NewRecordBatch()
	}
	var b Base
	freed := 0
	b.Init(sc, func() { freed++ })
	if b.Schema() != sc {
		t.Fatal("schema not kept")
	}
	if !b.Begin() || !b.Set(batch()) || b.RecordBatch() == nil || b.Record() != b.RecordBatch() {
		t.Fatal("a set batch must be current")
	}
	if !b.Begin() || b.RecordBatch() != nil {
		t.Fatal("Begin must release the current batch")
	}
	if b.Set(nil) {
		t.Fatal("a nil batch is the end")
	}
	b.Set(batch())
	err := errors.New("boom")
	if b.Fail(err) || b.Begin() || !errors.Is(b.Err(), err) {
		t.Fatal("an error must stop the reader")
	}
	b.Set(batch())
	b.Retain()
	b.Release()
	if freed != 0 {
		t.Fatal("freed while referenced")
	}
	b.Release()
	if freed != 1 || b.RecordBatch() != nil {
		t.Fatalf("freed %d times, batch %v after the last Release", freed, b.RecordBatch())
	}
}
