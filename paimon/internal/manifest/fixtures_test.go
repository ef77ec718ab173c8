package manifest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// expectedFile is what fastavro read from one fixture file (gen_pypaimon.py).
type expectedFile struct {
	Codec   string           `json:"codec"`
	Records []map[string]any `json:"records"`
}

type expectedSnapshot struct {
	ID                int64    `json:"id"`
	BaseManifestList  string   `json:"baseManifestList"`
	DeltaManifestList string   `json:"deltaManifestList"`
	IndexManifest     *string  `json:"indexManifest"`
	LiveFiles         []string `json:"liveFiles"`
}

type expectedTable struct {
	Files     map[string]expectedFile `json:"files"`
	Snapshots []expectedSnapshot      `json:"snapshots"`
}

func fixtureTables(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, w := range []string{"pypaimon", "java"} {
		ents, err := os.ReadDir(filepath.Join("testdata", w))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join("testdata", w, e.Name()))
			}
		}
	}
	if len(dirs) < 8 {
		t.Fatalf("expected at least 8 fixture tables, found %v", dirs)
	}
	return dirs
}

func loadExpected(t *testing.T, dir string) expectedTable {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var e expectedTable
	if err := dec.Decode(&e); err != nil {
		t.Fatal(err)
	}
	return e
}

// The helpers below spell out, field by field, how the Go structs correspond
// to the Avro records fastavro read, so a test failure names the Avro field.

func hexOf(b []byte) any {
	if b == nil {
		return nil
	}
	return map[string]any{"hex": hex.EncodeToString(b)}
}

func ptr[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func statsJSON(s SimpleStats) map[string]any {
	var nc any
	if s.NullCounts != nil {
		l := make([]any, len(s.NullCounts))
		for i, c := range s.NullCounts {
			l[i] = ptr(c)
		}
		nc = l
	}
	return map[string]any{"_MIN_VALUES": hexOf(s.MinValues), "_MAX_VALUES": hexOf(s.MaxValues), "_NULL_COUNTS": nc}
}

func strs(s []string) any {
	if s == nil {
		return nil
	}
	return s
}

func fileMetaJSON(m FileMeta) map[string]any {
	return map[string]any{
		"_VERSION": 2, "_FILE_NAME": m.FileName, "_FILE_SIZE": m.FileSize,
		"_NUM_ADDED_FILES": m.NumAddedFiles, "_NUM_DELETED_FILES": m.NumDeletedFiles,
		"_PARTITION_STATS": statsJSON(m.PartitionStats), "_SCHEMA_ID": m.SchemaID,
		"_MIN_BUCKET": ptr(m.MinBucket), "_MAX_BUCKET": ptr(m.MaxBucket),
		"_MIN_LEVEL": ptr(m.MinLevel), "_MAX_LEVEL": ptr(m.MaxLevel),
		"_MIN_ROW_ID": ptr(m.MinRowID), "_MAX_ROW_ID": ptr(m.MaxRowID),
		"_TOTAL_BUCKETS": ptr(m.TotalBuckets), "_EXTRA_FILES": strs(m.ExtraFiles),
	}
}

func entryJSON(e Entry) map[string]any {
	f := e.File
	var created any
	if f.CreationTime != nil {
		created = map[string]any{"millis": *f.CreationTime}
	}
	var seqs any
	if f.WriteColsSequences != nil {
		seqs = f.WriteColsSequences
	}
	return map[string]any{
		"_VERSION": 2, "_KIND": int(e.Kind), "_PARTITION": hexOf(e.Partition),
		"_BUCKET": e.Bucket, "_TOTAL_BUCKETS": e.TotalBuckets,
		"_FILE": map[string]any{
			"_FILE_NAME": f.FileName, "_FILE_SIZE": f.FileSize, "_ROW_COUNT": f.RowCount,
			"_MIN_KEY": hexOf(f.MinKey), "_MAX_KEY": hexOf(f.MaxKey),
			"_KEY_STATS": statsJSON(f.KeyStats), "_VALUE_STATS": statsJSON(f.ValueStats),
			"_MIN_SEQUENCE_NUMBER": f.MinSequenceNumber, "_MAX_SEQUENCE_NUMBER": f.MaxSequenceNumber,
			"_SCHEMA_ID": f.SchemaID, "_LEVEL": f.Level, "_EXTRA_FILES": strs(f.ExtraFiles),
			"_CREATION_TIME": created, "_DELETE_ROW_COUNT": ptr(f.DeleteRowCount),
			"_EMBEDDED_FILE_INDEX": hexOf(f.EmbeddedIndex), "_FILE_SOURCE": ptr(f.FileSource),
			"_VALUE_STATS_COLS": strs(f.ValueStatsCols), "_EXTERNAL_PATH": ptr(f.ExternalPath),
			"_FIRST_ROW_ID": ptr(f.FirstRowID), "_WRITE_COLS": strs(f.WriteCols),
			"_WRITE_COLS_SEQUENCES": seqs,
		},
	}
}

func indexEntryJSON(e IndexEntry) map[string]any {
	var ranges any
	if e.DeletionVectorRanges != nil {
		l := make([]any, len(e.DeletionVectorRanges))
		for i, r := range e.DeletionVectorRanges {
			l[i] = map[string]any{"f0": r.DataFile, "f1": r.Offset, "f2": r.Length, "_CARDINALITY": ptr(r.Cardinality)}
		}
		ranges = l
	}
	var gi any
	if g := e.GlobalIndex; g != nil {
		gi = map[string]any{"_ROW_RANGE_START": g.RowRangeStart, "_ROW_RANGE_END": g.RowRangeEnd,
			"_INDEX_FIELD_ID": g.IndexFieldID, "_EXTRA_FIELD_IDS": g.ExtraFieldIDs,
			"_INDEX_META": hexOf(g.IndexMeta), "_SOURCE_META": hexOf(g.SourceMeta)}
	}
	return map[string]any{
		"_VERSION": 1, "_KIND": int(e.Kind), "_PARTITION": hexOf(e.Partition), "_BUCKET": e.Bucket,
		"_INDEX_TYPE": e.IndexType, "_FILE_NAME": e.FileName, "_FILE_SIZE": e.FileSize,
		"_ROW_COUNT": e.RowCount, "_DELETIONS_VECTORS_RANGES": ranges,
		"_EXTERNAL_PATH": ptr(e.ExternalPath), "_GLOBAL_INDEX": gi,
	}
}

// normalize round-trips v through JSON with UseNumber so Go values and the
// fastavro dump compare with the same number representation.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareRecord checks every field fastavro saw, and that every field the
// writer schema lacks (absent from the dump) is nil on the Go side.
func compareRecord(t *testing.T, where string, got map[string]any, want map[string]any) {
	t.Helper()
	g := normalize(t, got).(map[string]any)
	for k, gv := range g {
		wv, ok := want[k]
		if !ok {
			if gv != nil {
				t.Errorf("%s: field %s is absent from the writer schema but decoded as %v", where, k, gv)
			}
			continue
		}
		if gm, isMap := gv.(map[string]any); isMap && k != "_PARTITION_STATS" && k != "_KEY_STATS" && k != "_VALUE_STATS" {
			if wm, ok := wv.(map[string]any); ok && gm["hex"] == nil && gm["millis"] == nil {
				compareRecord(t, where+"."+k, gm, wm)
				continue
			}
		}
		if !reflect.DeepEqual(gv, wv) {
			t.Errorf("%s: field %s = %v, fastavro read %v", where, k, gv, wv)
		}
	}
	for k := range want {
		if _, ok := g[k]; !ok {
			t.Errorf("%s: fastavro field %s has no Go counterpart", where, k)
		}
	}
}

func TestFixturesMatchFastavro(t *testing.T) {
	ctx := context.Background()
	fio := fileio.NewLocal()
	kinds := map[string]int{}
	for _, dir := range fixtureTables(t) {
		exp := loadExpected(t, dir)
		names := make([]string, 0, len(exp.Files))
		for n := range exp.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			ef := exp.Files[name]
			path := filepath.Join(dir, name)
			var got []map[string]any
			switch {
			case strings.HasPrefix(name, "manifest-list-"):
				l, err := ReadManifestList(ctx, fio, path)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range l {
					got = append(got, fileMetaJSON(m))
				}
			case strings.HasPrefix(name, "index-manifest-"):
				l, err := ReadIndexManifest(ctx, fio, path)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range l {
					got = append(got, indexEntryJSON(e))
				}
			case strings.HasPrefix(name, "manifest-"):
				l, err := ReadManifest(ctx, fio, path)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range l {
					got = append(got, entryJSON(e))
					kinds[e.Kind.String()]++
				}
			default:
				t.Fatalf("unexpected fixture %s", path)
			}
			if len(got) != len(ef.Records) {
				t.Fatalf("%s: %d records, fastavro read %d", path, len(got), len(ef.Records))
			}
			for i := range got {
				compareRecord(t, path+"#"+strconv.Itoa(i), got[i], ef.Records[i])
			}
		}
	}
	if kinds["ADD"] == 0 || kinds["DELETE"] == 0 {
		t.Fatalf("fixtures should contain ADD and DELETE entries, got %v", kinds)
	}
}

// TestFixtureCodecs makes sure the fixtures really cover every codec, so the
// decode test above exercises each one.
func TestFixtureCodecs(t *testing.T) {
	want := map[string]string{"append_null": "null", "append_deflate": "deflate", "append_snappy": "snappy",
		"append_zstd": "zstandard", "append_bzip2": "bzip2", "append_xz": "xz"}
	for table, codec := range want {
		exp := loadExpected(t, filepath.Join("testdata", "pypaimon", table))
		for name, f := range exp.Files {
			if f.Codec != codec {
				t.Errorf("%s/%s: codec %q, want %q", table, name, f.Codec, codec)
			}
		}
	}
}

// TestMergeMatchesWriterPlan merges the latest snapshot's manifests and
// compares the live files with the plan the writer itself (pypaimon or Java)
// produced for that snapshot.
func TestMergeMatchesWriterPlan(t *testing.T) {
	ctx := context.Background()
	fio := fileio.NewLocal()
	for _, dir := range fixtureTables(t) {
		exp := loadExpected(t, dir)
		last := exp.Snapshots[len(exp.Snapshots)-1]
		if last.LiveFiles == nil {
			t.Fatalf("%s: no live files recorded", dir)
		}
		var entries []Entry
		for _, list := range []string{last.BaseManifestList, last.DeltaManifestList} {
			metas, err := ReadManifestList(ctx, fio, filepath.Join(dir, list))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range metas {
				es, err := ReadManifest(ctx, fio, filepath.Join(dir, m.FileName))
				if err != nil {
					t.Fatal(err)
				}
				entries = append(entries, es...)
			}
		}
		live, err := MergeEntries(entries)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var names []string
		for _, e := range live {
			if e.Kind != Add {
				t.Errorf("%s: merged entry %s has kind %v", dir, e.File.FileName, e.Kind)
			}
			names = append(names, e.File.FileName)
		}
		sort.Strings(names)
		if !reflect.DeepEqual(names, last.LiveFiles) {
			t.Errorf("%s snapshot %d: live files\n got %v\nwant %v", dir, last.ID, names, last.LiveFiles)
		}
	}
}
