package input

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// The storage request hook the input hands to the catalog feeds
// paimon_storage_requests and paimon_storage_request_errors (by operation).
// The opener stands in for an object-store FileIO: it reports two requests,
// one failed, the way objstore's Metrics hook does.
func TestStorageRequestMetrics(t *testing.T) {
	env := service.NewEnvironment()
	rec := &recMetrics{vals: map[string]int64{}, timers: map[string]int{}}
	if err := env.RegisterMetricsExporter("rec", service.NewConfigSpec(), func(*service.ParsedConfig, *service.Logger) (service.MetricsExporter, error) {
		return rec, nil
	}); err != nil {
		t.Fatal(err)
	}
	called := make(chan struct{}, 16)
	open := func(_ context.Context, cfg config) (source, error) {
		if cfg.Storage.Metrics == nil {
			return nil, errors.New("no storage metrics hook in the config handed to the opener")
		}
		cfg.Storage.Metrics("GetObject", nil, time.Millisecond)
		cfg.Storage.Metrics("HeadObject", errors.New("503"), time.Millisecond)
		called <- struct{}{}
		return nil, errors.New("stop here")
	}
	if err := register(env, open); err != nil {
		t.Fatal(err)
	}
	sb := env.NewStreamBuilder()
	if err := sb.SetMetricsYAML("rec: {}"); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddInputYAML("paimon:\n  warehouse: s3://b/wh\n  table: db.t\n"); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddOutputYAML("drop: {}"); err != nil {
		t.Fatal(err)
	}
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { _ = strm.Run(ctx) }()
	select {
	case <-called:
	case <-ctx.Done():
		t.Fatal("the input never opened the table")
	}
	_ = strm.StopWithin(5 * time.Second)
	if got := rec.get("paimon_storage_requests"); got < 2 {
		t.Errorf("paimon_storage_requests = %d, want ≥ 2", got)
	}
	if got := rec.get("paimon_storage_request_errors"); got < 1 {
		t.Errorf("paimon_storage_request_errors = %d, want ≥ 1", got)
	}
}
