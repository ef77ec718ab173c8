package rowjson

import (
	"encoding/json"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// A TIMESTAMP partition value in paimon_partition is the text the body
// holds for the same value: no "Z" for TIMESTAMP, "Z" for TIMESTAMP_LTZ,
// the precision's digits, pre-epoch and year 0001/9999 included.
func TestPartitionTimestampMetaMatchesBody(t *testing.T) {
	vals := []types.TimestampValue{
		{Millis: 1704164645123, NanoOfMilli: 456000},
		{Millis: -1, NanoOfMilli: 999000},
		{Millis: -62135596800000},
		{Millis: 253402300799999, NanoOfMilli: 999000},
	}
	for _, ty := range []string{"TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(0)", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE"} {
		dt, err := types.ParseType(ty)
		if err != nil {
			t.Fatal(err)
		}
		fs := []types.DataField{{ID: 0, Name: "p", Type: dt}}
		sch, err := paimon.ArrowSchema(fs)
		if err != nil {
			t.Fatal(err)
		}
		tt := sch.Field(0).Type.(*arrow.TimestampType)
		for _, v := range vals {
			if tt.Unit == arrow.Nanosecond {
				continue
			}
			var e int64
			switch tt.Unit {
			case arrow.Millisecond:
				e = v.Millis
			case arrow.Microsecond:
				e = v.Millis*1000 + int64(v.NanoOfMilli)/1000
			}
			b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(e))
			rec := b.NewRecordBatch()
			b.Release()
			enc, err := NewEncoder(sch)
			if err != nil {
				t.Fatal(err)
			}
			if err := enc.Reset(rec); err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(enc.AppendRow(nil, 0), &body); err != nil {
				t.Fatal(err)
			}
			rec.Release()
			got := Partition([]string{"p"}, []any{v}, sch)["p"]
			if got != body["p"] {
				t.Errorf("%s %+v: metadata %#v, body %#v", ty, v, got, body["p"])
			}
			if s, _ := got.(string); dt.Root == types.Timestamp && len(s) > 0 && s[len(s)-1] == 'Z' {
				t.Errorf("%s: metadata %q carries a zone", ty, s)
			}
		}
	}
}
