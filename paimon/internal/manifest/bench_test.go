package manifest

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/avro/ocf"
)

// synthManifests builds files manifests of perFile entries each, by cloning a
// real Java-written entry (zstandard, Java's full schema) with distinct file
// names, into an in-memory FileIO.
func synthManifests(b *testing.B, files, perFile int) (memFS, []string) {
	b.Helper()
	src := fixture(b, "java/pk_dv32", "manifest-", 1)
	tmpl := readRecords(b, src)[0]
	s := schemaOf(b, src)
	fs := memFS{}
	var paths []string
	for f := 0; f < files; f++ {
		recs := make([]map[string]any, perFile)
		for i := range recs {
			r := make(map[string]any, len(tmpl))
			for k, v := range tmpl {
				r[k] = v
			}
			file := make(map[string]any)
			for k, v := range tmpl["_FILE"].(map[string]any) {
				file[k] = v
			}
			file["_FILE_NAME"] = fmt.Sprintf("data-%d-%d.parquet", f, i)
			r["_FILE"] = file
			recs[i] = r
		}
		codec, err := ocf.ZstdCodec(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		p := fmt.Sprintf("/t/manifest/manifest-%d", f)
		fs[p] = writeOCF(b, s, codec, recs)
		paths = append(paths, p)
	}
	return fs, paths
}

// BenchmarkPlan10kFiles1kManifests reads 1,000 manifests of 10 entries (the
// shape of 1,000 unmerged delta manifests) and merges the 10,000 entries:
// the manifest side of planning a table with 10,000 files over 1,000 snapshots.
func BenchmarkPlan10kFiles1kManifests(b *testing.B) {
	fs, paths := synthManifests(b, 1000, 10)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var all []Entry
		for _, p := range paths {
			es, err := ReadManifest(ctx, fs, p)
			if err != nil {
				b.Fatal(err)
			}
			all = append(all, es...)
		}
		live, err := MergeEntries(all)
		if err != nil || len(live) != 10000 {
			b.Fatalf("%d live, %v", len(live), err)
		}
	}
}

// BenchmarkReadManifest10k decodes one manifest of 10,000 entries.
func BenchmarkReadManifest10k(b *testing.B) {
	fs, paths := synthManifests(b, 1, 10000)
	ctx := context.Background()
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		es, err := ReadManifest(ctx, fs, paths[0])
		if err != nil || len(es) != 10000 {
			b.Fatalf("%d entries, %v", len(es), err)
		}
	}
}
