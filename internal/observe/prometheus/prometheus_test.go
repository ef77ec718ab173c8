package prometheus

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

func newExporter(t *testing.T, yaml string) (*Exporter, error) {
	t.Helper()
	conf, err := Spec().ParseYAML(yaml, nil)
	if err != nil {
		t.Fatal(err)
	}
	return New(conf, service.MockResources().Logger())
}

func serve(t *testing.T, e *Exporter) string {
	t.Helper()
	rec := httptest.NewRecorder()
	e.HandlerFunc()(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// TestExporterNamesAndLabels: one name asked for twice with the same keys
// is one series family (Benthos asks per component); with other keys the
// second is dropped rather than breaking the registry; names Prometheus
// refuses are sanitised; summaries keep nanoseconds.
func TestExporterNamesAndLabels(t *testing.T) {
	e, err := newExporter(t, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	e.NewCounterCtor("rows", "table")("a.b").Incr(2)
	e.NewCounterCtor("rows", "table")("a.b").Incr(3)
	e.NewCounterCtor("rows", "other")("x").Incr(100)
	e.NewGaugeCtor("my.gauge-1")().Set(7)
	e.NewTimerCtor("lat_ns", "table")("a.b").Timing(1500)
	out := serve(t, e)
	for _, want := range []string{`rows{table="a.b"} 5`, `my_gauge_1 7`, `lat_ns_sum{table="a.b"} 1500`, `lat_ns{table="a.b",quantile="0.5"} 1500`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "100") {
		t.Errorf("the conflicting registration was exported:\n%s", out)
	}
}

// TestExporterHistogramSeconds: histogram timings are seconds (Connect's
// convention), on the configured buckets.
func TestExporterHistogramSeconds(t *testing.T) {
	e, err := newExporter(t, `{use_histogram_timing: true, histogram_buckets: [0.5, 2]}`)
	if err != nil {
		t.Fatal(err)
	}
	e.NewTimerCtor("lat_ns")().Timing(1e9)
	out := serve(t, e)
	for _, want := range []string{`lat_ns_bucket{le="0.5"} 0`, `lat_ns_bucket{le="2"} 1`, `lat_ns_sum 1`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestExporterRefusesBadConfig(t *testing.T) {
	for yaml, want := range map[string]string{
		`{histogram_buckets: [1, 0.5]}`:                               "histogram_buckets: buckets must increase",
		`{summary_quantiles_objectives: [{quantile: 1.5, error: 0}]}`: "quantile 1.5 is not between 0 and 1",
		`{push_interval: 1s}`:                                         "push_interval is set but push_url is not",
	} {
		if _, err := newExporter(t, yaml); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", yaml, err, want)
		}
	}
}
