package main

import (
	"strings"
	"testing"
)

// tail bounded to its start snapshot reads that snapshot in its own schema,
// and resolves the filter there too: in javagen.rename_reuse, snapshot 2's
// s2 is the column later renamed back to s, and the current s2 is a new
// column. Java's time-travel read returns 11 rows (the cases file's
// s2_like_at2); a filter resolved in the current schema would return none.
// A stream that goes on past its start reads in the current schema, where
// s2 is the new column, null in those rows.
func TestTailFilterInSnapshotSchema(t *testing.T) {
	tf := []string{"--warehouse", fixtureWarehouse, "--table", "javagen.rename_reuse", "--filter", "s2 LIKE 's2%'"}
	out := mustRun(t, append([]string{"paimon", "tail", "--from", "snapshot-full:2", "--end", "snapshot:2"}, tf...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 11 || !strings.Contains(lines[0], `"s2":"s2`) {
		t.Fatalf("snapshot 2 with s2 LIKE 's2%%': %d rows, Java reads 11:\n%s", len(lines), out)
	}
	out = mustRun(t, append([]string{"paimon", "tail", "--from", "snapshot-full:2", "--end", "snapshot:3"}, tf...)...)
	if strings.TrimSpace(out) != "" {
		t.Fatalf("past its start the stream is in the current schema, where s2 is null in these rows:\n%s", out)
	}
	// A column the snapshot's schema lacks is an error naming it and the schema.
	r := run(t, "paimon", "tail", "--warehouse", fixtureWarehouse, "--table", "javagen.rename_reuse",
		"--from", "snapshot-full:1", "--end", "snapshot:1", "--filter", "s2 IS NULL")
	if r.code == 0 || r.err == nil || !strings.Contains(r.err.Error(), `"s2"`) || !strings.Contains(r.err.Error(), "schema 0") {
		t.Fatalf("filter on a column snapshot 1's schema lacks: exit %d: %v\n%s", r.code, r.err, r.out)
	}
}
