package manifest

import (
	"reflect"
	"strings"
	"testing"
)

func ent(kind FileKind, name string, level int32) Entry {
	return Entry{Kind: kind, Partition: []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, Bucket: 0,
		File: DataFileMeta{FileName: name, Level: level, ExtraFiles: []string{}}}
}

func names(es []Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.File.FileName)
	}
	return out
}

func TestMergeEntries(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []Entry
		want []string
	}{
		{"adds keep first-add order", []Entry{ent(Add, "b", 0), ent(Add, "a", 0), ent(Add, "c", 0)}, []string{"b", "a", "c"}},
		{"delete cancels add", []Entry{ent(Add, "a", 0), ent(Add, "b", 0), ent(Delete, "a", 0)}, []string{"b"}},
		{"delete before add cancels (pypaimon rule)", []Entry{ent(Delete, "a", 0), ent(Add, "b", 0), ent(Add, "a", 0)}, []string{"b"}},
		{"level upgrade keeps the file at its new level", []Entry{ent(Add, "a", 0), ent(Delete, "a", 0), ent(Add, "a", 5)}, []string{"a"}},
		{"delete at another level does not cancel", []Entry{ent(Add, "a", 0), ent(Delete, "a", 3)}, []string{"a"}},
		{"re-add after delete is live (Java)", []Entry{ent(Add, "a", 0), ent(Delete, "a", 0), ent(Add, "a", 0)}, []string{"a"}},
		{"only deletes", []Entry{ent(Delete, "a", 0)}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MergeEntries(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(names(got), tc.want) {
				t.Fatalf("got %v, want %v", names(got), tc.want)
			}
			for _, e := range got {
				if e.Kind != Add {
					t.Fatalf("merged entry %s has kind %v", e.File.FileName, e.Kind)
				}
			}
		})
	}
	t.Run("level upgrade result carries the new level", func(t *testing.T) {
		got, _ := MergeEntries([]Entry{ent(Add, "a", 0), ent(Delete, "a", 0), ent(Add, "a", 5)})
		if got[0].File.Level != 5 {
			t.Fatalf("level %d", got[0].File.Level)
		}
	})
}

func TestMergeEntriesDuplicateAdd(t *testing.T) {
	_, err := MergeEntries([]Entry{ent(Add, "a", 0), ent(Add, "a", 0)})
	if err == nil || !strings.Contains(err.Error(), "added twice") || !strings.Contains(err.Error(), "a") {
		t.Fatalf("got %v", err)
	}
}

func TestIdentifierDistinguishes(t *testing.T) {
	base := ent(Add, "f", 1)
	ext := "s3://b/f"
	empty := ""
	variants := map[string]Entry{}
	variants["base"] = base
	e := base
	e.Partition = []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
	variants["partition"] = e
	e = base
	e.Bucket = 1
	variants["bucket"] = e
	e = base
	e.File.Level = 2
	variants["level"] = e
	e = base
	e.File.ExtraFiles = []string{"a,b"}
	variants["extra a,b"] = e
	e = base
	e.File.ExtraFiles = []string{"a", "b"}
	variants["extra a / b"] = e
	e = base
	e.File.EmbeddedIndex = []byte{}
	variants["embedded empty"] = e
	e = base
	e.File.EmbeddedIndex = []byte{1}
	variants["embedded 1"] = e
	e = base
	e.File.ExternalPath = &ext
	variants["external"] = e
	e = base
	e.File.ExternalPath = &empty
	variants["external empty"] = e
	seen := map[Identifier]string{}
	for name, v := range variants {
		id := EntryIdentifier(v)
		if other, dup := seen[id]; dup {
			t.Fatalf("%s and %s have the same identifier", name, other)
		}
		seen[id] = name
	}
	// Fields outside the identity do not matter.
	e = base
	e.File.RowCount = 99
	e.TotalBuckets = 8
	if EntryIdentifier(e) != EntryIdentifier(base) {
		t.Fatal("row count or total buckets changed the identifier")
	}
}
