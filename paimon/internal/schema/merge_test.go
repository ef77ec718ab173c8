package schema

import (
	"errors"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func pkSchemaJSON(opts string) []byte {
	return []byte(`{"version":3,"id":0,"fields":[{"id":0,"name":"k","type":"INT NOT NULL"},{"id":1,"name":"v","type":"BIGINT"}],
"highestFieldId":1,"partitionKeys":[],"primaryKeys":["k"],"options":{` + opts + `}}`)
}

func TestMergeOptionsParsedOncePerSchema(t *testing.T) {
	s, err := Parse(pkSchemaJSON(`"merge-engine":"aggregation","fields.v.aggregate-function":"sum"`))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.MergeOptions()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.MergeOptions()
	if a != b {
		t.Fatal("MergeOptions of a parsed schema must be the value computed by Parse, not a new parse")
	}
	if a.Engine != MergeEngineAggregation || a.Aggregates["v"] != "sum" {
		t.Fatalf("got engine %q aggregates %v", a.Engine, a.Aggregates)
	}
	// A derived schema gets its own options, parsed again.
	d := s.WithOptions(map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "theta_sketch"})
	if _, err := d.MergeOptions(); !errors.Is(err, types.ErrUnsupported) {
		t.Fatalf("theta_sketch must be refused as unsupported, got %v", err)
	}
	if got, _ := s.MergeOptions(); got != a {
		t.Fatal("WithOptions changed the original schema")
	}
}

func TestMergeOptionsErrorsSurfaceOnlyWhenAsked(t *testing.T) {
	// An unsupported merge option is not a corrupt schema file: Parse
	// succeeds, the read that needs the merge refuses.
	s, err := Parse(pkSchemaJSON(`"merge-engine":"no-such-engine"`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if _, err := s.MergeOptions(); !errors.Is(err, types.ErrUnsupported) {
		t.Fatalf("want ErrUnsupported naming the engine, got %v", err)
	}
	bad, err := Parse(pkSchemaJSON(`"ignore-delete":"maybe"`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if _, err := bad.MergeOptions(); err == nil || errors.Is(err, types.ErrUnsupported) {
		t.Fatalf("a non-boolean ignore-delete is a configuration error, got %v", err)
	}
}
