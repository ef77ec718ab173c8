package manifest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/avro"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

const crafted = "/t/manifest/crafted"

func wantErr(t *testing.T, err error, substrs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error containing %q", substrs)
	}
	for _, s := range substrs {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not contain %q", err, s)
		}
	}
}

func TestVersionChecks(t *testing.T) {
	ctx := context.Background()
	man := fixture(t, "java/pk_dv32", "manifest-", 1)
	list := fixture(t, "java/pk_dv32", "manifest-list-", 1)
	idx := fixture(t, "java/pk_dv32", "index-manifest-", 1)
	setVersion := func(v int32) func(m map[string]any) {
		return func(m map[string]any) { m["_VERSION"] = v }
	}

	_, err := ReadManifest(ctx, memFS{crafted: rewrite(t, man, setVersion(1))}, crafted)
	wantErr(t, err, crafted, "manifest format version 1 is not supported, recreate the table")
	_, err = ReadManifestList(ctx, memFS{crafted: rewrite(t, list, setVersion(1))}, crafted)
	wantErr(t, err, crafted, "manifest format version 1 is not supported, recreate the table")

	_, err = ReadManifest(ctx, memFS{crafted: rewrite(t, man, setVersion(3))}, crafted)
	wantErr(t, err, crafted, "version 3")
	if !errors.Is(err, types.ErrUnsupported) {
		t.Fatalf("version 3: %v is not ErrUnsupported", err)
	}
	_, err = ReadIndexManifest(ctx, memFS{crafted: rewrite(t, idx, setVersion(2))}, crafted)
	wantErr(t, err, crafted, "version 2")
	if !errors.Is(err, types.ErrUnsupported) {
		t.Fatalf("index version 2: %v is not ErrUnsupported", err)
	}
}

func TestInvalidKind(t *testing.T) {
	man := fixture(t, "java/pk_dv32", "manifest-", 1)
	data := rewrite(t, man, func(m map[string]any) { m["_KIND"] = int32(7) })
	_, err := ReadManifest(context.Background(), memFS{crafted: data}, crafted)
	wantErr(t, err, crafted, "invalid _KIND 7")
}

func TestMagicSniffing(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		data        []byte
		unsupported bool
		msg         string
	}{
		"parquet": {[]byte("PAR1\x15\x04\x15"), false, "parquet manifest"},
		"orc":     {[]byte("ORC\x0a\x0b"), true, "ORC"},
		"json":    {[]byte(`{"id": 1}`), false, "not an Avro container"},
		"short":   {[]byte("Ob"), false, "too short"},
		"empty":   {nil, false, "too short"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadManifest(ctx, memFS{crafted: tc.data}, crafted)
			wantErr(t, err, crafted, tc.msg)
			if errors.Is(err, types.ErrUnsupported) != tc.unsupported {
				t.Fatalf("ErrUnsupported = %v, want %v (%v)", !tc.unsupported, tc.unsupported, err)
			}
			_, err = ReadManifestList(ctx, memFS{crafted: tc.data}, crafted)
			wantErr(t, err, crafted, tc.msg)
		})
	}
}

// xz manifests (manifest.compression=xz, written by pypaimon) decode: every record the writer
// dumped is read.
func TestXZCodec(t *testing.T) {
	dir := filepath.Join("testdata", "pypaimon", "append_xz")
	exp := loadExpected(t, dir)
	read := 0
	for name, f := range exp.Files {
		if !strings.HasPrefix(name, "manifest-") || strings.HasPrefix(name, "manifest-list-") || len(f.Records) == 0 {
			continue
		}
		es, err := ReadManifest(context.Background(), fileio.NewLocal(), filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != len(f.Records) {
			t.Fatalf("%s: %d entries, the writer wrote %d", name, len(es), len(f.Records))
		}
		read++
	}
	if read == 0 {
		t.Fatal("no xz manifest with records in testdata")
	}
}

func TestMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "manifest-nope-0")
	_, err := ReadManifest(context.Background(), fileio.NewLocal(), path)
	wantErr(t, err, "read manifest", path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%v is not ErrNotExist", err)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := fixture(t, "java/pk_dv32", "manifest-", 1)
	_, err := ReadManifest(ctx, fileio.NewLocal(), path)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestTruncation cuts real files (each codec) at every length. Avro
// containers have no footer, so a cut exactly at a block boundary reads as a
// shorter valid file; every other cut must fail, and no cut may panic or
// produce records that are not a prefix of the real ones.
func TestTruncation(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{"pypaimon/append_null", "pypaimon/append_deflate", "pypaimon/append_snappy", "pypaimon/append_zstd", "java/pk_dv32"} {
		path := fixture(t, dir, "manifest-", 2)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		full, err := ReadManifest(ctx, fileio.NewLocal(), path)
		if err != nil {
			t.Fatal(err)
		}
		failures := 0
		for n := 0; n < len(data); n++ {
			got, err := ReadManifest(ctx, memFS{crafted: data[:n]}, crafted)
			if err != nil {
				failures++
				if !strings.Contains(err.Error(), crafted) {
					t.Fatalf("%s cut at %d: error %q does not name the file", path, n, err)
				}
				continue
			}
			if len(got) >= len(full) {
				t.Fatalf("%s cut at %d of %d: read all %d records", path, n, len(data), len(got))
			}
			for i := range got {
				if got[i].File.FileName != full[i].File.FileName {
					t.Fatalf("%s cut at %d: record %d differs", path, n, i)
				}
			}
		}
		// Only the cut right after the header (and block ends) may succeed.
		if failures < len(data)-3 {
			t.Fatalf("%s: only %d of %d truncations failed", path, failures, len(data))
		}
	}
}

func TestCorruptSnappyBlock(t *testing.T) {
	path := fixture(t, "pypaimon/append_snappy", "manifest-", 1)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The last 16 bytes are the sync marker and the 4 before it the block's
	// CRC32; flip a byte of the CRC.
	bad := append([]byte(nil), data...)
	bad[len(bad)-17] ^= 0xff
	_, err = ReadManifest(context.Background(), memFS{crafted: bad}, crafted)
	wantErr(t, err, crafted)
}

func TestMissingRequiredField(t *testing.T) {
	// A writer schema whose _FILE record lacks _FILE_NAME: decoding would
	// leave the name empty, so the reader must refuse the file.
	s := avro.MustParse(`{"type":"record","name":"r","fields":[
		{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},
		{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},
		{"name":"_TOTAL_BUCKETS","type":"int"},
		{"name":"_FILE","type":{"type":"record","name":"f","fields":[{"name":"_FILE_SIZE","type":"long"}]}}]}`)
	data := writeOCF(t, s, nil, []map[string]any{{"_VERSION": 2, "_KIND": 0, "_PARTITION": []byte{},
		"_BUCKET": 0, "_TOTAL_BUCKETS": 1, "_FILE": map[string]any{"_FILE_SIZE": int64(3)}}})
	_, err := ReadManifest(context.Background(), memFS{crafted: data}, crafted)
	wantErr(t, err, crafted, "_FILE", "_FILE_NAME")
}

func TestWrongFileKind(t *testing.T) {
	// A manifest list handed to ReadManifest must fail, not yield empty entries.
	list := fixture(t, "java/pk_dv32", "manifest-list-", 1)
	_, err := ReadManifest(context.Background(), fileio.NewLocal(), list)
	wantErr(t, err, list, "lacks required field")
	man := fixture(t, "java/pk_dv32", "manifest-", 1)
	_, err = ReadIndexManifest(context.Background(), fileio.NewLocal(), man)
	wantErr(t, err, man, "lacks required field")
}

func TestReadManifestFuncStops(t *testing.T) {
	path := fixture(t, "java/pk_dv32", "manifest-", 2)
	stop := errors.New("enough")
	calls := 0
	err := ReadManifestFunc(context.Background(), fileio.NewLocal(), path, func(*Entry) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("got %v after %d calls", err, calls)
	}
}

// TestNamedReferenceSchema decodes a manifest whose writer schema defines the
// stats record once and refers to it by name afterwards (legal Avro, not what
// Java or pypaimon write today).
func TestNamedReferenceSchema(t *testing.T) {
	s := avro.MustParse(`{"type":"record","name":"e","fields":[
		{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},
		{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},
		{"name":"_TOTAL_BUCKETS","type":"int"},
		{"name":"_FILE","type":{"type":"record","name":"f","fields":[
			{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},
			{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},
			{"name":"_MAX_KEY","type":"bytes"},
			{"name":"_KEY_STATS","type":{"type":"record","name":"stats","fields":[
				{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},
				{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}]}]}},
			{"name":"_VALUE_STATS","type":"stats"},
			{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},
			{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},
			{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}}]}}]}`)
	stats := map[string]any{"_MIN_VALUES": []byte{1}, "_MAX_VALUES": []byte{2}, "_NULL_COUNTS": []any{int64(0)}}
	data := writeOCF(t, s, nil, []map[string]any{{"_VERSION": 2, "_KIND": 0, "_PARTITION": []byte{0},
		"_BUCKET": 3, "_TOTAL_BUCKETS": 4, "_FILE": map[string]any{
			"_FILE_NAME": "data-1.parquet", "_FILE_SIZE": int64(10), "_ROW_COUNT": int64(5),
			"_MIN_KEY": []byte{}, "_MAX_KEY": []byte{}, "_KEY_STATS": stats, "_VALUE_STATS": stats,
			"_MIN_SEQUENCE_NUMBER": int64(1), "_MAX_SEQUENCE_NUMBER": int64(2), "_SCHEMA_ID": int64(0),
			"_LEVEL": 1, "_EXTRA_FILES": []string{}}}})
	es, err := ReadManifest(context.Background(), memFS{crafted: data}, crafted)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].File.FileName != "data-1.parquet" || string(es[0].File.ValueStats.MaxValues) != "\x02" ||
		es[0].Bucket != 3 || es[0].File.Level != 1 {
		t.Fatalf("got %+v", es)
	}
}

// A manifest is checked against its manifest list entry: its size, and its
// ADD and DELETE entry counts. Every file of the real pypaimon and Java
// tables passes; one count off, or one byte off, is ErrCorrupt naming the
// file.
func TestManifestCheckedAgainstItsList(t *testing.T) {
	ctx := context.Background()
	lists, err := filepath.Glob(filepath.Join("testdata", "*", "*", "manifest-list-*"))
	if err != nil || len(lists) == 0 {
		t.Fatalf("no manifest lists under testdata: %v", err)
	}
	fio := fileio.NewLocal()
	dec := NewDecoder()
	checked := 0
	for _, l := range lists {
		dir := filepath.Dir(l)
		metas, err := dec.ReadManifestList(ctx, fio, l, Want{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range metas {
			m := &metas[i]
			path := filepath.Join(dir, m.FileName)
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				continue // the fixture keeps only some manifests of this list
			}
			if err := dec.ReadManifestFunc(ctx, fio, path, WantManifest(m), func(*Entry) error { return nil }); err != nil {
				t.Fatalf("intact manifest: %v", err)
			}
			for _, w := range []Want{
				{Size: m.FileSize, Counted: true, Added: m.NumAddedFiles + 1, Deleted: m.NumDeletedFiles},
				{Size: m.FileSize, Counted: true, Added: m.NumAddedFiles, Deleted: m.NumDeletedFiles + 1},
				{Size: m.FileSize + 1},
			} {
				err := dec.ReadManifestFunc(ctx, fio, path, w, func(*Entry) error { return nil })
				if !errors.Is(err, types.ErrCorrupt) || !strings.Contains(err.Error(), m.FileName) {
					t.Fatalf("want %+v: want ErrCorrupt naming %s, got %v", w, m.FileName, err)
				}
			}
			checked++
		}
		info, err := os.Stat(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dec.ReadManifestList(ctx, fio, l, Want{Size: info.Size() - 1}); !errors.Is(err, types.ErrCorrupt) {
			t.Fatalf("manifest list with the wrong size: want ErrCorrupt, got %v", err)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d manifests checked", checked)
	}
	t.Logf("%d manifests of %d lists checked", checked, len(lists))
}
