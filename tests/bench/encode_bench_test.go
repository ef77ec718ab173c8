package bench

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/internal/rowjson"
)

// BenchmarkEncodeWide is the JSON encoder alone on bench.wide's real
// batches, read once beforehand the way the input reads them (dictionary
// arrays): the encoder's share of the binary's CPU without the decoder,
// Benthos and the scheduling noise of a whole pipeline. One op encodes
// every row of the table.
func BenchmarkEncodeWide(b *testing.B) {
	t := openBenchTable(b, "wide")
	ctx := context.Background()
	rb := t.NewReadBuilder().WithDictionary(true)
	plan, err := rb.Plan(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var recs []arrow.RecordBatch
	var rows int64
	for _, sp := range plan.Splits {
		rr, err := rb.NewRead().Read(ctx, sp)
		if err != nil {
			b.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
			rows += rec.NumRows()
		}
		if err := rr.Err(); err != nil {
			b.Fatal(err)
		}
		rr.Release()
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if rows != wideRows {
		b.Fatalf("read %d rows, want %d", rows, wideRows)
	}
	enc, err := rowjson.NewEncoder(recs[0].Schema())
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1<<20)
	var bytes int64
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		bytes = 0
		for _, rec := range recs {
			if err := enc.Reset(rec); err != nil {
				b.Fatal(err)
			}
			buf = buf[:0]
			for i := 0; i < int(rec.NumRows()); i++ {
				buf = append(enc.AppendRow(buf, i), '\n')
			}
			bytes += int64(len(buf))
		}
	}
	reportCPU(b, cpu0, wideRows)
	b.ReportMetric(float64(bytes)/float64(wideRows), "bytes/row")
}
