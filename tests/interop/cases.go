// Package interop compares this library's reads with the oracle: tables written by pypaimon
// and Java Paimon (resources/), whose own reads were dumped as canonical JSON lines
// (internal/testenv/canon). The committed fixtures run with every `go test ./...`; the live
// suite regenerates them (PAIMON_INTEROP=1).
package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Case is one oracle comparison: read Table (optionally at Snapshot, projected, filtered) and
// expect exactly the canonical lines in Expected (relative to the cases file's directory).
type Case struct {
	Table      string   `json:"table"`
	Case       string   `json:"case"`
	Snapshot   *int64   `json:"snapshot"`
	Projection []string `json:"projection"`
	Filter     *string  `json:"filter"`
	Expected   string   `json:"expected"`
	Rows       int      `json:"rows"`
	Writer     string   `json:"writer"`
	// Branch, when set, reads that branch of the table (Java-written cases).
	Branch string `json:"branch,omitempty"`
	// StreamDiffers: a stream bounded to Snapshot does not read what the batch read does (a
	// primary-key table with deletion vectors at a snapshot with level-0 files: Java's batch
	// read hides them, its streaming first plan reads them), so only the batch read is compared.
	StreamDiffers bool `json:"stream_differs,omitempty"`
	// Facade: the read is the table's, above the plan of one branch (a fallback branch, a read
	// position stored in the table's options), so tests of the readers of one plan leave it out.
	Facade bool `json:"facade,omitempty"`
}

// CaseFile is one generator's output: cases.json (pypaimon) or cases-java.json (Java).
type CaseFile struct {
	Generator     string `json:"generator"`
	WriterVersion string `json:"writer_version"`
	Cases         []Case `json:"cases"`
}

// LoadCases reads every cases*.json in dir (the directory that also holds warehouse/ and
// expected/). A missing directory or an empty set is an error: silently comparing nothing
// would make the suite pass vacuously.
func LoadCases(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "cases*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("load interop cases: no cases*.json in %s", dir)
	}
	var all []Case
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("load interop cases: %w", err)
		}
		var cf CaseFile
		if err := json.Unmarshal(b, &cf); err != nil {
			return nil, fmt.Errorf("load interop cases %s: %w", f, err)
		}
		for i, c := range cf.Cases {
			if c.Table == "" || c.Case == "" || c.Expected == "" {
				return nil, fmt.Errorf("load interop cases %s: case %d lacks table, case or expected", f, i)
			}
		}
		all = append(all, cf.Cases...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("load interop cases: %s hold no cases", dir)
	}
	return all, nil
}

func sortLines(l []string) { sort.Strings(l) }
