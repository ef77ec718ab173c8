package notrace

import (
	"context"
	"errors"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// A context without a span comes back unchanged, with a span that records
// nothing, and no allocation.
func TestStartWithoutParentAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	tr := Provider{}.Tracer("x")
	got, span := tr.Start(ctx, "op")
	if got != ctx {
		t.Fatal("the context was wrapped")
	}
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Fatalf("span records or carries a span context: %v", span.SpanContext())
	}
	if trace.SpanFromContext(got).IsRecording() {
		t.Fatal("SpanFromContext finds a recording span")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = tr.Start(ctx, "op") }); n != 0 {
		t.Fatalf("%v allocations per span, want 0", n)
	}
}

// A valid parent span context (a trace propagated from upstream) is kept in
// the child's context, as the no-op tracer keeps it.
func TestStartPropagatesParent(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5}, TraceFlags: trace.FlagsSampled,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	got, span := Provider{}.Tracer("x").Start(ctx, "op")
	if span.IsRecording() {
		t.Fatal("span records")
	}
	if !trace.SpanContextFromContext(got).Equal(sc) {
		t.Fatalf("child context carries %v, want the parent's %v", trace.SpanContextFromContext(got), sc)
	}
}

// A config with `tracer: none` (the default) runs on the global environment
// with this package's `none`, not pure's: the messages' contexts carry no
// no-op span (pure's tracer puts one in every message's context).
func TestNoneTracerConfigRuns(t *testing.T) {
	sb := service.NewStreamBuilder()
	if err := sb.AddInputYAML("generate: { count: 3, interval: 1ms, mapping: 'root.n = 1' }"); err != nil {
		t.Fatal(err)
	}
	if err := sb.SetTracerYAML("none: {}"); err != nil {
		t.Fatal(err)
	}
	if err := sb.SetLoggerYAML("level: none"); err != nil {
		t.Fatal(err)
	}
	n := 0
	wrapped := 0
	seen := make(chan struct{})
	if err := sb.AddConsumerFunc(func(_ context.Context, m *service.Message) error {
		n++
		if _, ok := trace.SpanFromContext(m.Context()).(noop.Span); ok {
			wrapped++
		}
		if n == 3 {
			close(seen)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Stopped once the messages arrived, rather than waiting for the
	// generator's end to drain the pipeline.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-seen
		cancel()
	}()
	if err := strm.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if n != 3 || wrapped != 0 {
		t.Fatalf("%d messages, want 3; %d carry pure's no-op span, want 0", n, wrapped)
	}
}
