package snapshot

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

func readTestdata(t *testing.T, path string) []byte {
	t.Helper()
	return testenv.ReadFile(t, filepath.Join("testdata", path))
}

func mustParse(t *testing.T, path string) *Snapshot {
	t.Helper()
	s, err := Parse(readTestdata(t, path))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return s
}

// i64 renders an optional count for comparisons ("nil" when absent).
func i64(p *int64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatInt(*p, 10)
}

func jsonMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseJavaVerified parses the Java-written snapshot of
// paimon-format.md §3.1 (golden test_pk_full_text_golden snapshot-8),
// pretty-printed the way Jackson writes it.
func TestParseJavaVerified(t *testing.T) {
	s := mustParse(t, "java/snapshot-8")
	if s.Version != 3 || s.ID != 8 || s.SchemaID != 0 || s.CommitKind != CommitCompact ||
		s.CommitIdentifier != BatchCommitIdentifier || s.TimeMillis != 1784213609344 ||
		s.CommitUser != "21deff88-3c5e-4a1b-9d2f-6e7a8b9c0d1e" {
		t.Errorf("header = %+v", s)
	}
	if s.BaseManifestList != "manifest-list-5f1a7a55-cf5a-4d39-9c5e-2a9d8c1b2e01-2" ||
		s.DeltaManifestList != "manifest-list-5f1a7a55-cf5a-4d39-9c5e-2a9d8c1b2e01-3" {
		t.Errorf("manifest lists = %q, %q", s.BaseManifestList, s.DeltaManifestList)
	}
	if i64(s.BaseManifestListSize) != "1222" || i64(s.DeltaManifestListSize) != "1108" ||
		i64(s.TotalRecordCount) != "4" || i64(s.DeltaRecordCount) != "0" || i64(s.NextRowID) != "0" {
		t.Errorf("counts = base %s delta %s total %s deltaRec %s next %s", i64(s.BaseManifestListSize),
			i64(s.DeltaManifestListSize), i64(s.TotalRecordCount), i64(s.DeltaRecordCount), i64(s.NextRowID))
	}
	if !s.HasIndexManifest() || *s.IndexManifest != "index-manifest-0a4c1b7e-2f3d-4e8a-9b1c-7d6e5f4a3b2c-0" {
		t.Errorf("indexManifest = %v", s.IndexManifest)
	}
	if s.HasChangelog() || s.ChangelogManifestListSize != nil || s.Watermark != nil || s.Statistics != nil ||
		s.ChangelogRecordCount != nil || s.Properties != nil || s.UUID != "" || s.WriterVersion != "" || s.Operation != "" {
		t.Errorf("absent optional keys not nil/empty: %+v", s)
	}
}

// TestParseExplicitNulls: Java ≤1.3 wrote "changelogManifestList" : null
// and "logOffsets" : { }; null optional keys must read like absent ones.
func TestParseExplicitNulls(t *testing.T) {
	s := mustParse(t, "java/snapshot-3-v0.9")
	if s.ChangelogManifestList != nil || s.IndexManifest != nil || s.ChangelogRecordCount != nil || s.Statistics != nil {
		t.Errorf("explicit nulls read as values: %+v", s)
	}
	if s.HasChangelog() || s.HasIndexManifest() {
		t.Errorf("HasChangelog/HasIndexManifest true on nulls")
	}
	if s.CommitKind != CommitOverwrite || s.CommitIdentifier != 42 || i64(s.DeltaRecordCount) != "-2" {
		t.Errorf("values = %+v", s)
	}
	if s.Watermark == nil || *s.Watermark != -9223372036854775808 {
		t.Errorf("watermark = %v, want Long.MIN_VALUE", s.Watermark)
	}
}

// TestParseOldVersion: table store 0.2 snapshots have no version key and
// may have null record counts.
func TestParseOldVersion(t *testing.T) {
	s := mustParse(t, "java/snapshot-1-v0.2")
	if s.Version != 1 || s.TotalRecordCount != nil || s.DeltaRecordCount != nil {
		t.Errorf("old snapshot = version %d total %s delta %s", s.Version, i64(s.TotalRecordCount), i64(s.DeltaRecordCount))
	}
	if !s.HasChangelog() || *s.ChangelogManifestList != "manifest-list-b-2" {
		t.Errorf("changelog list = %v", s.ChangelogManifestList)
	}
}

// TestParsePypaimon reads snapshots written by pypaimon 2.1.0.
func TestParsePypaimon(t *testing.T) {
	s := mustParse(t, "pypaimon/snapshot-2")
	if s.ID != 2 || s.Version != 3 || s.CommitKind != CommitAppend || s.CommitIdentifier != BatchCommitIdentifier ||
		s.TimeMillis != 1795980281699 || s.UUID != "749e80dd-ed64-46ad-a11d-8e2052620618" ||
		!strings.HasPrefix(s.WriterVersion, "python-2.1.0") || i64(s.TotalRecordCount) != "2" ||
		i64(s.DeltaRecordCount) != "1" || i64(s.BaseManifestListSize) != "1347" {
		t.Errorf("snapshot-2 = %+v", s)
	}
	if s.BaseManifestList != "manifest-list-b38feb03-fe02-4aed-825e-fb795b73f417-0" {
		t.Errorf("base = %q", s.BaseManifestList)
	}
	s1 := mustParse(t, "pypaimon/snapshot-1")
	if s1.ID != 1 || s1.TimeMillis >= s.TimeMillis {
		t.Errorf("snapshot-1 = %+v", s1)
	}
}

func TestParseErrors(t *testing.T) {
	valid := `{"version":3,"id":1,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":5}`
	if _, err := Parse([]byte(valid)); err != nil {
		t.Fatalf("valid snapshot rejected: %v", err)
	}
	for _, key := range []string{"id", "schemaId", "baseManifestList", "deltaManifestList", "commitUser", "commitIdentifier", "commitKind", "timeMillis"} {
		// Absent and explicit null are both missing.
		var obj map[string]any
		if err := json.Unmarshal([]byte(valid), &obj); err != nil {
			t.Fatal(err)
		}
		delete(obj, key)
		_, err := Parse(jsonMarshal(t, obj))
		if err == nil || !strings.Contains(err.Error(), `"`+key+`"`) {
			t.Errorf("without %s: error %v, want it to name the key", key, err)
		}
		obj[key] = nil
		_, err = Parse(jsonMarshal(t, obj))
		if err == nil || !strings.Contains(err.Error(), `"`+key+`"`) {
			t.Errorf("%s null: error %v, want it to name the key", key, err)
		}
	}
	cases := []struct{ name, js, wantSub string }{
		{"empty", ``, "decode snapshot"},
		{"truncated", valid[:40], "decode snapshot"},
		{"array", `[]`, "decode snapshot"},
		{"trailing", valid + `x`, "trailing data"},
		{"id as string", strings.Replace(valid, `"id":1`, `"id":"1"`, 1), "decode snapshot"},
		{"id overflow", strings.Replace(valid, `"id":1`, `"id":99999999999999999999`, 1), "decode snapshot"},
		{"unknown kind", strings.Replace(valid, `"APPEND"`, `"MERGE"`, 1), `unknown commitKind "MERGE"`},
		{"negative id", strings.Replace(valid, `"id":1`, `"id":-1`, 1), "negative"},
		{"empty base list", strings.Replace(valid, `"baseManifestList":"a"`, `"baseManifestList":""`, 1), "empty manifest list"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.js))
		if err == nil || !strings.Contains(err.Error(), c.wantSub) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.wantSub)
		}
	}
}

func TestParseTagJava(t *testing.T) {
	tag, err := ParseTag(readTestdata(t, "java/tag-daily"))
	if err != nil {
		t.Fatal(err)
	}
	if tag.ID != 8 || tag.CommitKind != CommitCompact || tag.Properties["k"] != "v" || tag.Operation != "WRITE" {
		t.Errorf("embedded snapshot = %+v", tag.Snapshot)
	}
	want := time.Date(2026, 7, 16, 14, 53, 0, 0, time.UTC)
	if tag.TagCreateTime == nil || !tag.TagCreateTime.Equal(want) {
		t.Errorf("tagCreateTime = %v, want %v", tag.TagCreateTime, want)
	}
	if tag.TagTimeRetained == nil || *tag.TagTimeRetained != 24*time.Hour {
		t.Errorf("tagTimeRetained = %v, want 24h", tag.TagTimeRetained)
	}
}

func TestParseTagPypaimon(t *testing.T) {
	tag, err := ParseTag(readTestdata(t, "pypaimon/tag-v2ttl"))
	if err != nil {
		t.Fatal(err)
	}
	// [2026, 11, 29, 19, 24, 41, 702209000] and 86400.0 in the file.
	want := time.Date(2026, 11, 29, 19, 24, 41, 702209000, time.UTC)
	if tag.ID != 2 || tag.TagCreateTime == nil || !tag.TagCreateTime.Equal(want) {
		t.Errorf("tag = id %d create %v, want %v", tag.ID, tag.TagCreateTime, want)
	}
	if tag.TagTimeRetained == nil || *tag.TagTimeRetained != 24*time.Hour {
		t.Errorf("tagTimeRetained = %v", tag.TagTimeRetained)
	}
	plain, err := ParseTag(readTestdata(t, "pypaimon/tag-v1"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.ID != 1 || plain.TagCreateTime != nil || plain.TagTimeRetained != nil {
		t.Errorf("tag without retention = %+v", plain)
	}
}

func TestTagTimeForms(t *testing.T) {
	base := `{"id":1,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":5`
	cases := []struct {
		extra   string
		create  time.Time
		retain  time.Duration
		wantErr string
	}{
		{`,"tagCreateTime":[2024,1,2,3,4,5,6],"tagTimeRetained":1.5`, time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), 1500 * time.Millisecond, ""},
		{`,"tagCreateTime":[2024,2,29,0,0],"tagTimeRetained":0.000000001`, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), 1, ""},
		{`,"tagCreateTime":"2024-03-01T10:20:30.5","tagTimeRetained":3600`, time.Date(2024, 3, 1, 10, 20, 30, 5e8, time.UTC), time.Hour, ""},
		{`,"tagCreateTime":null,"tagTimeRetained":null`, time.Time{}, 0, ""},
		{`,"tagCreateTime":[2023,2,29,0,0]`, time.Time{}, 0, "does not exist"},
		{`,"tagCreateTime":[2024,13,1,0,0]`, time.Time{}, 0, "out of range"},
		{`,"tagCreateTime":[2024]`, time.Time{}, 0, "components"},
		{`,"tagCreateTime":[2024,1,1,0,0,0,0,0]`, time.Time{}, 0, "components"},
		{`,"tagCreateTime":{"y":1}`, time.Time{}, 0, "tagCreateTime"},
		{`,"tagTimeRetained":"PT24H"`, time.Time{}, 0, "tagTimeRetained"},
		{`,"tagTimeRetained":1e300`, time.Time{}, 0, "overflows"},
	}
	for _, c := range cases {
		tag, err := ParseTag([]byte(base + c.extra + "}"))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want %q", c.extra, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.extra, err)
			continue
		}
		if c.create.IsZero() {
			if tag.TagCreateTime != nil || tag.TagTimeRetained != nil {
				t.Errorf("%s: nulls read as values", c.extra)
			}
			continue
		}
		if tag.TagCreateTime == nil || !tag.TagCreateTime.Equal(c.create) {
			t.Errorf("%s: create %v, want %v", c.extra, tag.TagCreateTime, c.create)
		}
		if tag.TagTimeRetained == nil || *tag.TagTimeRetained != c.retain {
			t.Errorf("%s: retain %v, want %v", c.extra, tag.TagTimeRetained, c.retain)
		}
	}
}
