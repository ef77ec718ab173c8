package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseSnapshot checks that no input panics the snapshot and tag
// parsers and that an accepted snapshot satisfies the invariants Parse
// promises (known commit kind, non-empty manifest lists).
func FuzzParseSnapshot(f *testing.F) {
	for _, p := range []string{"java/snapshot-8", "java/snapshot-3-v0.9", "java/snapshot-1-v0.2", "java/tag-daily",
		"pypaimon/snapshot-1", "pypaimon/snapshot-2", "pypaimon/tag-v2ttl"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := Parse(b); err == nil {
			switch s.CommitKind {
			case CommitAppend, CommitCompact, CommitOverwrite, CommitAnalyze:
			default:
				t.Fatalf("accepted commit kind %q", s.CommitKind)
			}
			if s.BaseManifestList == "" || s.DeltaManifestList == "" {
				t.Fatalf("accepted empty manifest list names")
			}
		}
		if tag, err := ParseTag(b); err == nil && tag.TagTimeRetained != nil && tag.TagCreateTime != nil {
			_ = tag.TagCreateTime.Add(*tag.TagTimeRetained)
		}
	})
}
