package input

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// Register puts the real input (tables opened from storage) into a private
// environment: the committed demo table reads in full, 300 rows.
func TestRegisterPrivateEnvironment(t *testing.T) {
	env := service.NewEnvironment()
	if err := Register(env); err != nil {
		t.Fatal(err)
	}
	sb := env.NewStreamBuilder()
	if err := sb.SetLoggerYAML("level: none"); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddInputYAML("paimon:\n  warehouse: ../resources/fixtures/warehouse\n  table: demo.orders\n  end: {at_latest: true}\n"); err != nil {
		t.Fatal(err)
	}
	var rows atomic.Int64
	if err := sb.AddBatchConsumerFunc(func(_ context.Context, b service.MessageBatch) error {
		rows.Add(int64(len(b)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	stream, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := stream.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rows.Load(); n != 300 {
		t.Fatalf("read %d rows of demo.orders, want 300", n)
	}
}
