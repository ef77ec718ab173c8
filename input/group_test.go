package input

import (
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// The group's rules, each reported naming the fields: it needs a
// consumer (each slot keeps its progress in one), excludes shard and end,
// bounds slots; without seed brokers it is not a group at all, which
// Benthos' lint reports.
func TestGroupValidation(t *testing.T) {
	base := "input:\n  paimon:\n    warehouse: /w\n    table: d.t\n"
	group := "    group:\n      seed_brokers: [ \"localhost:9092\" ]\n"
	for _, tc := range []struct{ extra, want string }{
		{group, "group needs consumer_id"},
		{"    consumer_id: c\n    shard: {index: 0, count: 2}\n" + group, "group and shard both split the table"},
		{"    consumer_id: c\n    end: {at_latest: true}\n" + group, "group follows the table without end"},
		{"    consumer_id: c\n" + group + "      slots: 0\n", "must be in [1, 1024], got 0"},
	} {
		lints, err := LintYAML([]byte(base + tc.extra))
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, l := range lints {
			all = append(all, l.String())
		}
		if !strings.Contains(strings.Join(all, "\n"), tc.want) {
			t.Errorf("config\n%s\nlints %q, want one containing %q", base+tc.extra, all, tc.want)
		}
	}
	ok := base + "    consumer_id: c\n" + group
	if lints, err := LintYAML([]byte(ok)); err != nil || len(lints) != 0 {
		t.Errorf("a valid group config lints %v, %v", lints, err)
	}
	// Benthos' own lint runs the field's rule: a group without brokers.
	env := service.NewEmptyEnvironment()
	if err := register(env, openTable); err != nil {
		t.Fatal(err)
	}
	linter := env.NewComponentConfigLinter()
	lints, err := linter.LintInputYAML([]byte("paimon:\n  warehouse: /w\n  table: d.t\n  consumer_id: c\n  group: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range lints {
		found = found || strings.Contains(l.What, "group needs seed_brokers")
	}
	if !found {
		t.Errorf("Benthos lint of a group without seed_brokers: %v", lints)
	}
}

// A group whose table does not exist stops the replica with the error
// (logged once, exit non-zero under run) instead of retrying forever.
func TestGroupStopsOnPermanentError(t *testing.T) {
	r := startPipeline(t, "paimon:\n  warehouse: "+t.TempDir()+"\n  table: nodb.missing\n  consumer_id: c\n  group:\n    seed_brokers: [ \"127.0.0.1:1\" ]\n", nil)
	r.wait()
	if logs := r.logs.String(); strings.Count(logs, "paimon input stopped") != 1 || !strings.Contains(logs, "nodb") {
		t.Fatalf("logs:\n%s", logs)
	}
}
