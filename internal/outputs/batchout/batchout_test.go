package batchout

import (
	"errors"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

type stubOutput struct{ service.BatchOutput }

func parse(t *testing.T, yaml string) *service.ParsedConfig {
	t.Helper()
	spec := service.NewConfigSpec().Fields(service.NewOutputMaxInFlightField(), service.NewBatchPolicyField("batching"))
	conf, err := spec.ParseYAML(yaml, nil)
	if err != nil {
		t.Fatal(err)
	}
	return conf
}

func TestConstructorReadsInFlightAndBatching(t *testing.T) {
	built := &stubOutput{}
	ctor := Constructor("batching", func(*service.ParsedConfig, *service.Resources) (*stubOutput, error) { return built, nil })
	out, pol, n, err := ctor(parse(t, "max_in_flight: 3\nbatching:\n  count: 7\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out != built || n != 3 || pol.Count != 7 {
		t.Fatalf("got %v, policy count %d, in flight %d", out, pol.Count, n)
	}
}

func TestConstructorBuildError(t *testing.T) {
	boom := errors.New("boom")
	ctor := Constructor("batching", func(*service.ParsedConfig, *service.Resources) (*stubOutput, error) { return nil, boom })
	out, _, _, err := ctor(parse(t, "{}"), nil)
	if !errors.Is(err, boom) || out != nil {
		t.Fatalf("got %v, %v", out, err)
	}
}
