package manifest

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Identifier is the identity of a data file in a table (Java's
// FileEntry.Identifier): an ADD and a DELETE entry cancel out when their
// identifiers are equal. Level is part of it because a level upgrade during
// compaction is written as DELETE of the file at its old level plus ADD of
// the same file name at the new level. Byte and list fields are kept as
// strings so the type is comparable and usable as a map key; the Has flags
// keep Java's distinction between a null and an empty value.
type Identifier struct {
	// Partition is the raw BinaryRow bytes; Java compares BinaryRows by bytes.
	Partition string
	Bucket    int32
	Level     int32
	FileName  string
	// ExtraFiles is the list length-prefixed and concatenated, so that
	// ["a,b"] and ["a", "b"] differ.
	ExtraFiles       string
	EmbeddedIndex    string
	HasEmbeddedIndex bool
	ExternalPath     string
	HasExternalPath  bool
}

// EntryIdentifier returns the identity of the file e adds or deletes.
func EntryIdentifier(e Entry) Identifier {
	id := Identifier{
		Partition: string(e.Partition),
		Bucket:    e.Bucket,
		Level:     e.File.Level,
		FileName:  e.File.FileName,
	}
	if len(e.File.ExtraFiles) > 0 {
		var b strings.Builder
		var n [binary.MaxVarintLen64]byte
		for _, f := range e.File.ExtraFiles {
			b.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
			b.WriteString(f)
		}
		id.ExtraFiles = b.String()
	}
	if e.File.EmbeddedIndex != nil {
		id.EmbeddedIndex = string(e.File.EmbeddedIndex)
		id.HasEmbeddedIndex = true
	}
	if e.File.ExternalPath != nil {
		id.ExternalPath = *e.File.ExternalPath
		id.HasExternalPath = true
	}
	return id
}

// MergeEntries folds the entries of a snapshot's manifests (base list then
// delta list, each in file order) into the live files: the ADD entries not
// cancelled by a DELETE of the same identity. The result is ordered by the
// position of each file's first ADD, which keeps plans deterministic.
//
// Semantics follow Java's FileEntry.mergeEntries (each file is added once and
// deleted at most once; adding a live file again is an error), with one
// deliberate difference taken from pypaimon: a DELETE may come before its ADD
// and still cancels it. Java would report "already added" for that order;
// it does not occur in valid tables, but manifests are shared and re-merged
// between snapshots, and the order-insensitive rule costs nothing. Per
// identity, the file is live when it was added more often than deleted; a
// second ADD of a file that is still live is reported as an error rather than
// producing the file twice, which would duplicate its rows.
func MergeEntries(entries []Entry) ([]Entry, error) {
	type state struct {
		first int // index of the first ADD, -1 while none
		net   int // ADDs minus DELETEs seen so far
	}
	states := make(map[Identifier]*state, len(entries))
	var order []*state // states in first-ADD order
	for i := range entries {
		e := &entries[i]
		id := EntryIdentifier(*e)
		st := states[id]
		if st == nil {
			st = &state{first: -1}
			states[id] = st
		}
		switch e.Kind {
		case Add:
			if st.net >= 1 {
				return nil, fmt.Errorf("merge manifest entries: file %s (partition %x, bucket %d, level %d) is added twice without a delete in between",
					e.File.FileName, e.Partition, e.Bucket, e.File.Level)
			}
			st.net++
			if st.first < 0 {
				st.first = i
				order = append(order, st)
			}
		case Delete:
			st.net--
		default:
			return nil, fmt.Errorf("merge manifest entries: file %s has invalid kind %d", e.File.FileName, e.Kind)
		}
	}
	out := make([]Entry, 0, len(order))
	for _, st := range order {
		if st.net >= 1 {
			out = append(out, entries[st.first])
		}
	}
	return out, nil
}
