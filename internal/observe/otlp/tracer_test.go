package otlp

import (
	"context"
	"strings"
	"testing"
)

func TestTracerRefusesBadConfig(t *testing.T) {
	for yaml, want := range map[string]string{
		`{}`:                       "neither http nor grpc lists a collector",
		`{http: [{secure: true}]}`: "http[0]: address is required",
		`{grpc: [{address: "http://h:4317/v1/traces"}]}`:                       "has a path",
		`{http: [{address: "h:4318"}], sampling: {enabled: true}}`:             "sampling.enabled is true but sampling.ratio is not set",
		`{http: [{address: "h:4318"}], sampling: {enabled: true, ratio: 1.5}}`: "sampling.ratio: 1.5 is not between 0 and 1",
	} {
		conf, err := Spec().ParseYAML(yaml, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(context.Background(), conf); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", yaml, err, want)
		}
	}
}

// TestCollectorAddress: Connect's deprecated url works as address, and a
// URL's scheme decides secure.
func TestCollectorAddress(t *testing.T) {
	for yaml, want := range map[string]string{
		`{url: "h:4318"}`:                   "h:4318 false",
		`{address: "https://h:4318"}`:       "h:4318 true",
		`{address: "h:1", url: "x:2"}`:      "h:1 false",
		`{address: "h:4318", secure: true}`: "h:4318 true",
	} {
		conf, err := Spec().ParseYAML(`{http: [`+yaml+`]}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		list, err := conf.FieldObjectList(fHTTP)
		if err != nil {
			t.Fatal(err)
		}
		addr, secure, err := collector(list[0], fHTTP, 0)
		if err != nil {
			t.Fatalf("%s: %v", yaml, err)
		}
		if got := addr + " " + map[bool]string{true: "true", false: "false"}[secure]; got != want {
			t.Errorf("%s: %s, want %s", yaml, got, want)
		}
	}
}
