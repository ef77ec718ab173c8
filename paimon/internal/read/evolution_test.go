package read

import (
	"errors"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func evoFile(name string, first *int64, rows, maxSeq int64) split.DataFile {
	return split.DataFile{Path: name, Meta: manifest.DataFileMeta{FileName: name, FirstRowID: first, RowCount: rows, MaxSequenceNumber: maxSeq}}
}

func id(v int64) *int64 { return &v }

// TestEvolutionGroups: Java's order (files without a first row id first, then by first row id,
// the newest first within one) and grouping; overlapping row ids and a group whose files hold
// different row counts are corrupt, never read as some rows.
func TestEvolutionGroups(t *testing.T) {
	files := []split.DataFile{
		evoFile("b-old", id(10), 5, 3),
		evoFile("a", id(0), 10, 1),
		evoFile("b-new", id(10), 5, 9),
		evoFile("lone", nil, 2, 4),
		evoFile("a-cols", id(0), 10, 2),
	}
	groups, err := evolutionGroups(files)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		var names []string
		for _, f := range g {
			names = append(names, f.Path)
		}
		got = append(got, strings.Join(names, "+"))
	}
	if want := "lone a-cols+a b-new+b-old"; strings.Join(got, " ") != want {
		t.Fatalf("groups %q, want %q", got, want)
	}
	for _, bad := range [][]split.DataFile{
		{evoFile("a", id(0), 10, 1), evoFile("b", id(5), 10, 2)},
		{evoFile("a", id(0), 10, 1), evoFile("a-cols", id(0), 9, 2)},
	} {
		if _, err := evolutionGroups(bad); !errors.Is(err, types.ErrCorrupt) {
			t.Errorf("files %v: err = %v, want ErrCorrupt", bad, err)
		}
	}
}
