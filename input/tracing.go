package input

import (
	"context"
	"errors"
	"io"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the input's spans.
const tracerName = "github.com/connect-paimon/connect-paimon/input"

// The input's own spans, beside Benthos' per-message ones: what an
// operator looking at a slow pipeline needs to tell a slow plan (manifests
// on a far object store) from slow data files or a slow consumer write.
const (
	spanPlan      = "paimon.plan"
	spanReadSplit = "paimon.read_split"
	spanCommit    = "paimon.commit"
)

// Span attribute keys.
const (
	attrTable    = attribute.Key("paimon.table")
	attrSnapshot = attribute.Key("paimon.snapshot_id")
	attrSplits   = attribute.Key("paimon.splits")
	attrFiles    = attribute.Key("paimon.files")
	attrFull     = attribute.Key("paimon.full")
	attrBucket   = attribute.Key("paimon.bucket")
	attrRows     = attribute.Key("paimon.rows")
	attrSkip     = attribute.Key("paimon.resumed_after_rows")
	attrConsumer = attribute.Key("paimon.consumer_id")
	attrNext     = attribute.Key("paimon.next_snapshot")
)

// endSpan ends s, marking it failed by err. The end of a bounded stream
// and a cancellation on shutdown are how reads stop, not failures.
func endSpan(s trace.Span, err error) {
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		s.RecordError(err)
		s.SetStatus(codes.Error, err.Error())
	}
	s.End()
}
