package schema

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func readTestdata(t *testing.T, path string) []byte {
	t.Helper()
	return testenv.ReadFile(t, filepath.Join("testdata", path))
}

func mustParse(t *testing.T, path string) *TableSchema {
	t.Helper()
	s, err := Parse(readTestdata(t, path))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return s
}

// TestParsePypaimon reads a schema-0 written by pypaimon 2.1.0 for a
// partitioned primary-key table using every type pyarrow can express.
func TestParsePypaimon(t *testing.T) {
	s := mustParse(t, "pypaimon/schema-0")
	if s.Version != 3 || s.ID != 0 || s.HighestFieldID != 22 || s.Comment != "every type" || s.TimeMillis != 1795980281642 {
		t.Errorf("header = v%d id %d highest %d comment %q time %d", s.Version, s.ID, s.HighestFieldID, s.Comment, s.TimeMillis)
	}
	if len(s.Fields) != 21 {
		t.Fatalf("%d fields, want 21", len(s.Fields))
	}
	if !reflect.DeepEqual(s.PartitionKeys, []string{"p"}) || !reflect.DeepEqual(s.PrimaryKeys, []string{"id", "p"}) {
		t.Errorf("keys = %v / %v", s.PartitionKeys, s.PrimaryKeys)
	}
	if got := s.TrimmedPrimaryKeys(); !reflect.DeepEqual(got, []string{"id"}) {
		t.Errorf("TrimmedPrimaryKeys = %v, want [id]", got)
	}
	if got := s.BucketKeys(); !reflect.DeepEqual(got, []string{"id"}) {
		t.Errorf("BucketKeys = %v, want [id]", got)
	}
	if s.NumBuckets() != 2 || s.FileFormat() != "parquet" {
		t.Errorf("NumBuckets %d FileFormat %q", s.NumBuckets(), s.FileFormat())
	}
	pf := s.PartitionFields()
	if len(pf) != 1 || pf[0].ID != 22 || pf[0].Type.String() != "STRING NOT NULL" {
		t.Errorf("PartitionFields = %+v", pf)
	}
	f, ok := s.Field("tsltz")
	if !ok || f.ID != 16 || f.Type.Root != types.TimestampLTZ || f.Type.Precision != 6 {
		t.Errorf("Field(tsltz) = %+v, %v", f, ok)
	}
	if _, ok := s.Field("nope"); ok {
		t.Errorf("Field(nope) found")
	}
	rt := s.RowType()
	if rt.Root != types.Row || len(rt.Fields) != 21 || rt.Fields[19].Type.Fields[1].ID != 21 {
		t.Errorf("RowType = %s", rt)
	}
	// Defaults of unset options.
	if s.PartitionDefaultName() != "__DEFAULT_PARTITION__" || !s.PartitionLegacyName() ||
		s.DeletionVectorsEnabled() || s.ChangelogProducer() != "none" || s.MergeEngine() != "deduplicate" ||
		s.TableType() != "table" || s.DataEvolutionEnabled() || s.RowTrackingEnabled() ||
		s.IndexFileInDataFileDir() || s.DataFilePathDirectory() != "" || s.ScanFallbackBranch() != "" ||
		s.ScanPrimaryBranch() != "" || s.ChainTableEnabled() || s.StreamingReadOverwrite() {
		t.Errorf("option defaults wrong: %+v", s.Options)
	}
	if _, ok := s.ConsumerExpirationTime(); ok {
		t.Errorf("ConsumerExpirationTime set on a table without the option")
	}
}

// TestParseJavaPretty reads a schema in Java's Jackson pretty-printed form
// (" : " separators, composite types as objects, description and
// defaultValue keys) after renames and added columns.
func TestParseJavaPretty(t *testing.T) {
	s := mustParse(t, "java/schema-3")
	if s.Version != 3 || s.ID != 3 || s.HighestFieldID != 8 || s.Comment != "java pretty printed" {
		t.Errorf("header = %+v", s)
	}
	wantTypes := []string{"BIGINT NOT NULL", "STRING NOT NULL", "MAP<STRING NOT NULL, ARRAY<INT>> NOT NULL",
		"ROW<`x` DOUBLE, `y` DOUBLE>", "DECIMAL(20, 4)"}
	for i, w := range wantTypes {
		if got := s.Fields[i].Type.String(); got != w {
			t.Errorf("field %d type %q, want %q", i, got, w)
		}
	}
	if s.Fields[2].Description != "added in schema 2" {
		t.Errorf("description = %q", s.Fields[2].Description)
	}
	if dv := s.Fields[4].DefaultValue; dv == nil || *dv != "0" {
		t.Errorf("defaultValue = %v", dv)
	}
	if s.NumBuckets() != 4 || !s.DeletionVectorsEnabled() || s.ChangelogProducer() != "lookup" ||
		s.MergeEngine() != "partial-update" || s.PartitionLegacyName() {
		t.Errorf("options read wrong: %+v", s.Options)
	}
	if d, ok := s.ConsumerExpirationTime(); !ok || d != 24*time.Hour {
		t.Errorf("ConsumerExpirationTime = %v, %v, want 24h", d, ok)
	}
	if got := s.TrimmedPrimaryKeys(); !reflect.DeepEqual(got, []string{"id"}) {
		t.Errorf("TrimmedPrimaryKeys = %v", got)
	}
	kf := s.TrimmedPrimaryKeyFields()
	if len(kf) != 1 || kf[0].ID != 0 {
		t.Errorf("TrimmedPrimaryKeyFields = %+v", kf)
	}
	if got := s.FieldNames(); !reflect.DeepEqual(got, []string{"id", "dt", "tags", "point", "amount_renamed"}) {
		t.Errorf("FieldNames = %v", got)
	}
}

// TestVersionDefaults: schemas written by Paimon 0.7 (no version key) and
// 0.8 (version 2) relied on the then-defaults bucket=1 and file.format=orc.
func TestVersionDefaults(t *testing.T) {
	cases := []struct {
		file          string
		version       int
		bucket        int
		format        string
		comment       string
		timeMillis    int64
		formatPresent bool
	}{
		{"v1/schema-0", 1, 1, "orc", "", 0, true},
		{"v1/schema-1", 2, -1, "orc", "", 1690000000000, true},
		{"v1/schema-2", 3, 2, "parquet", "", 1700000000001, false},
	}
	for _, c := range cases {
		s := mustParse(t, c.file)
		_, present := s.Options[OptFileFormat]
		if s.Version != c.version || s.NumBuckets() != c.bucket || s.FileFormat() != c.format ||
			s.Comment != c.comment || s.TimeMillis != c.timeMillis || present != c.formatPresent {
			t.Errorf("%s: version %d bucket %d format %q (in options: %v) comment %q time %d", c.file,
				s.Version, s.NumBuckets(), s.FileFormat(), present, s.Comment, s.TimeMillis)
		}
	}
	// An explicit option wins over the version default.
	s, err := Parse([]byte(`{"id":0,"fields":[],"highestFieldId":-1,"partitionKeys":[],"primaryKeys":[],"options":{"bucket":"-1","file.format":"avro"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.NumBuckets() != -1 || s.FileFormat() != "avro" {
		t.Errorf("explicit options overridden: %v", s.Options)
	}
}

func TestParseErrors(t *testing.T) {
	valid := `{"version":3,"id":1,"fields":[{"id":0,"name":"a","type":"INT"},{"id":1,"name":"b","type":"STRING"}],"highestFieldId":1,"partitionKeys":["b"],"primaryKeys":["a","b"],"options":{}}`
	if _, err := Parse([]byte(valid)); err != nil {
		t.Fatalf("valid schema rejected: %v", err)
	}
	cases := []struct{ name, js, wantSub string }{
		{"empty", ``, "decode schema"},
		{"truncated", valid[:len(valid)/2], "decode schema"},
		{"not an object", `[1,2]`, "decode schema"},
		{"trailing garbage", valid + `{}`, "trailing data"},
		{"no id", strings.Replace(valid, `"id":1,"fields"`, `"fields"`, 1), `"id"`},
		{"no fields", `{"id":1,"highestFieldId":1,"partitionKeys":[],"primaryKeys":[],"options":{}}`, `"fields"`},
		{"no highestFieldId", strings.Replace(valid, `"highestFieldId":1,`, ``, 1), `"highestFieldId"`},
		{"no partitionKeys", strings.Replace(valid, `"partitionKeys":["b"],`, ``, 1), `"partitionKeys"`},
		{"no primaryKeys", strings.Replace(valid, `"primaryKeys":["a","b"],`, ``, 1), `"primaryKeys"`},
		{"bad type", strings.Replace(valid, `"INT"`, `"INTT"`, 1), "unknown type INTT"},
		{"field without name", strings.Replace(valid, `"name":"a",`, ``, 1), `"name"`},
		{"unknown partition key", strings.Replace(valid, `["b"]`, `["zz"]`, 1), `partition key "zz"`},
		{"unknown primary key", strings.Replace(valid, `["a","b"]`, `["a","q"]`, 1), `primary key "q"`},
		{"duplicate name", strings.Replace(valid, `"name":"b"`, `"name":"a"`, 1), `duplicate column name "a"`},
		{"duplicate id", strings.Replace(valid, `"id":1,"name":"b"`, `"id":0,"name":"b"`, 1), "duplicate field id 0"},
		{"bad bucket", strings.Replace(valid, `"options":{}`, `"options":{"bucket":"four"}`, 1), "option bucket"},
		{"bad bool", strings.Replace(valid, `"options":{}`, `"options":{"deletion-vectors.enabled":"yes"}`, 1), "option deletion-vectors.enabled"},
		{"bad duration", strings.Replace(valid, `"options":{}`, `"options":{"consumer.expiration-time":"1 fortnight"}`, 1), "option consumer.expiration-time"},
		{"unknown bucket key", strings.Replace(valid, `"options":{}`, `"options":{"bucket-key":"a,nope"}`, 1), `bucket key "nope"`},
		{"wrong type for id", strings.Replace(valid, `"id":1,"fields"`, `"id":"1","fields"`, 1), "decode schema"},
		{"options not strings", strings.Replace(valid, `"options":{}`, `"options":{"bucket":4}`, 1), "decode schema"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.js))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.wantSub) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, err, c.wantSub)
		}
	}
}

func TestBucketKeysOption(t *testing.T) {
	s, err := Parse([]byte(`{"id":0,"fields":[{"id":0,"name":"a","type":"INT"},{"id":1,"name":"b","type":"INT"}],"highestFieldId":1,"partitionKeys":[],"primaryKeys":[],"options":{"bucket":"3","bucket-key":" b , a "}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.BucketKeys(); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("BucketKeys = %v, want [b a]", got)
	}
	if s.TrimmedPrimaryKeys() != nil {
		t.Errorf("append table has trimmed keys %v", s.TrimmedPrimaryKeys())
	}
}

func TestParseDuration(t *testing.T) {
	cases := map[string]time.Duration{
		"500": 500 * time.Millisecond, "10 s": 10 * time.Second, "3min": 3 * time.Minute, "2 h": 2 * time.Hour,
		"1d": 24 * time.Hour, "7 days": 7 * 24 * time.Hour, "5ns": 5, "8 µs": 8 * time.Microsecond, " 1 MIN ": time.Minute,
	}
	for in, want := range cases {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "-1 s", "1 fortnight", "99999999999999999999", "9999999999 d"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}

func fields(spec ...any) []types.DataField {
	var out []types.DataField
	for i := 0; i < len(spec); i += 2 {
		out = append(out, types.DataField{ID: spec[i].(int), Name: spec[i+1].(string), Type: types.DataType{Root: types.Int, Nullable: true}})
	}
	return out
}

func TestIndexMapping(t *testing.T) {
	// File written when the table was (0:a, 1:b, 2:c); since then b was
	// renamed to bb, c dropped, d added, and the columns reordered.
	file := fields(0, "a", 1, "b", 2, "c")
	target := fields(3, "d", 1, "bb", 0, "a")
	if got, want := IndexMapping(target, file), []int{-1, 1, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("IndexMapping = %v, want %v", got, want)
	}
	if got := IndexMapping(nil, file); len(got) != 0 {
		t.Errorf("IndexMapping(nil) = %v", got)
	}
	if got, want := IndexMapping(file, nil), []int{-1, -1, -1}; !reflect.DeepEqual(got, want) {
		t.Errorf("IndexMapping(_, nil) = %v, want %v", got, want)
	}
}

func names(fs []types.DataField) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func TestStatsFields(t *testing.T) {
	s := &TableSchema{ID: 4, Fields: fields(0, "a", 1, "b", 2, "c", 3, "d")}
	cases := []struct {
		name            string
		stats, write    []string
		want            []string
		wantErrContains string
	}{
		{"pre-1.0: all columns", nil, nil, []string{"a", "b", "c", "d"}, ""},
		{"stats disabled", []string{}, nil, []string{}, ""},
		{"dense subset in stats order", []string{"c", "a"}, nil, []string{"c", "a"}, ""},
		{"write cols, all stats", nil, []string{"d", "_ROW_ID", "b", "_SEQUENCE_NUMBER"}, []string{"d", "b"}, ""},
		{"write cols and dense stats", []string{"b"}, []string{"d", "b"}, []string{"b"}, ""},
		{"stats col outside write cols", []string{"a"}, []string{"d", "b"}, nil, `stats column "a" is not a column of schema 4`},
		{"unknown stats col", []string{"zz"}, nil, nil, `stats column "zz"`},
	}
	for _, c := range cases {
		got, err := StatsFields(s, c.stats, c.write)
		if c.wantErrContains != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrContains) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.wantErrContains)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(names(got), c.want) {
			t.Errorf("%s: %v, want %v", c.name, names(got), c.want)
		}
	}
}

func TestManager(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for _, n := range []string{"schema-0", "schema-1", "schema-2"} {
		testenv.WriteFile(t, root, "schema/"+n, string(readTestdata(t, "v1/"+n)))
	}
	// Names a lister must ignore: temp files of Java and pypaimon, other
	// prefixes, non-numeric and oversized ids, directories.
	testenv.WriteFile(t, root, "schema/.schema-3.8f1c.tmp", "{")
	testenv.WriteFile(t, root, "schema/schema-3e2b1c.tmp", "{")
	testenv.WriteFile(t, root, "schema/schema-x", "{")
	testenv.WriteFile(t, root, "schema/schema-99999999999999999999", "{")
	testenv.WriteFile(t, root, "schema/schema-7/inner", "{")
	testenv.WriteFile(t, root, "schema/xschema-9", "{")
	testenv.WriteFile(t, root, "branch/branch-dev/schema/schema-3", string(readTestdata(t, "java/schema-3")))

	fio := fileio.NewLocal()
	m := NewManager(fio, root, "")
	ids, err := m.ListIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int64{0, 1, 2}) {
		t.Errorf("ListIDs = %v, want [0 1 2]", ids)
	}
	latest, err := m.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.ID != 2 || latest.NumBuckets() != 2 {
		t.Errorf("Latest = schema %d", latest.ID)
	}
	s0, err := m.Schema(ctx, 0)
	if err != nil || s0.ID != 0 || s0.NumBuckets() != 1 {
		t.Fatalf("Schema(0) = %+v, %v", s0, err)
	}
	// Cached: the same instance, even after the file is gone.
	os.Remove(filepath.Join(root, "schema/schema-0"))
	again, err := m.Schema(ctx, 0)
	if err != nil || again != s0 {
		t.Errorf("Schema(0) not served from cache: %v", err)
	}

	_, err = m.Schema(ctx, 42)
	if !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(root, "schema", "schema-42")) {
		t.Errorf("Schema(42) error = %v, want ErrNotExist naming the path", err)
	}

	// Branches: "main" is the root, others live under branch/branch-<b>.
	mainM := NewManager(fio, root, "main")
	if mainM.Dir() != m.Dir() {
		t.Errorf("main branch dir %q != %q", mainM.Dir(), m.Dir())
	}
	dev := NewManager(fio, root, "dev")
	if want := filepath.Join(root, "branch/branch-dev/schema"); dev.Dir() != want {
		t.Errorf("dev dir = %q, want %q", dev.Dir(), want)
	}
	ds, err := dev.Latest(ctx)
	if err != nil || ds.ID != 3 {
		t.Errorf("dev Latest = %v, %v", ds, err)
	}
	_, err = NewManager(fio, root, "nobranch").Latest(ctx)
	if !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), "branch-nobranch") {
		t.Errorf("Latest of missing branch: %v", err)
	}
}

func TestManagerCorruptAndMismatched(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testenv.WriteFile(t, root, "schema/schema-0", `{"version":3,"id":0,"fields":[`)
	testenv.WriteFile(t, root, "schema/schema-1", string(readTestdata(t, "v1/schema-2"))) // holds id 2
	m := NewManager(fileio.NewLocal(), root, "")
	_, err := m.Schema(ctx, 0)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "schema/schema-0")) {
		t.Errorf("corrupt schema error %v does not name the file", err)
	}
	_, err = m.Schema(ctx, 1)
	if err == nil || !strings.Contains(err.Error(), "holds schema id 2") {
		t.Errorf("mismatched id error = %v", err)
	}
	// A failed read is not cached.
	testenv.WriteFile(t, root, "schema/schema-0", string(readTestdata(t, "v1/schema-0")))
	if s, err := m.Schema(ctx, 0); err != nil || s.ID != 0 {
		t.Errorf("Schema(0) after repair = %v, %v", s, err)
	}
}

func TestManagerConcurrent(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testenv.WriteFile(t, root, "schema/schema-0", string(readTestdata(t, "v1/schema-0")))
	m := NewManager(fileio.NewLocal(), root, "")
	var wg sync.WaitGroup
	got := make([]*TableSchema, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := m.Schema(ctx, 0)
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		}()
	}
	wg.Wait()
	for _, s := range got[1:] {
		if s != got[0] {
			t.Errorf("concurrent readers got different instances")
		}
	}
}

// A string maximum may be rounded up (so a trailing '?' may be Java's lone
// surrogate) whenever the mode of any level the column's files come from
// truncates: a column's own mode wins, then the table's, then the levels'.
func TestStatsMayRoundUpMax(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want bool
	}{
		{map[string]string{}, true}, // Java's default truncate(16)
		{map[string]string{"metadata.stats-mode": "full"}, false},
		{map[string]string{"metadata.stats-mode": "full", "metadata.stats-mode.per.level": "0:truncate(8)"}, true},
		{map[string]string{"metadata.stats-mode": "full", "metadata.stats-mode.per.level": "0:none,1:counts"}, false},
		{map[string]string{"metadata.stats-mode": "full", "metadata.stats-mode.per.level": "0:truncate(8)", "fields.s.stats-mode": "full"}, false},
		{map[string]string{"metadata.stats-mode": "full", "fields.s.stats-mode": "Truncate(4)"}, true},
	} {
		s := &TableSchema{Options: c.opts}
		if got := s.StatsMayRoundUpMax("s"); got != c.want {
			t.Errorf("options %v: StatsMayRoundUpMax = %v, want %v", c.opts, got, c.want)
		}
	}
}

// A stored read position resolves to Java's startup mode; malformed or
// conflicting positions are errors naming the options.
func TestReadPosition(t *testing.T) {
	for _, c := range []struct {
		opts      map[string]string
		mode, err string
		stored    string
		other     string
	}{
		{map[string]string{}, "latest-full", "", "", ""},
		{map[string]string{"scan.mode": "full"}, "latest-full", "", "scan.mode=full", ""},
		{map[string]string{"scan.snapshot-id": "4"}, "from-snapshot", "", "scan.snapshot-id=4", ""},
		{map[string]string{"scan.timestamp-millis": "17"}, "from-timestamp", "", "scan.timestamp-millis=17", ""},
		{map[string]string{"scan.watermark": "9"}, "from-snapshot", "", "scan.watermark=9", "scan.watermark"},
		{map[string]string{"incremental-between": "1,3"}, "incremental", "", "incremental-between=1,3", "incremental-between"},
		{map[string]string{"scan.snapshot-id": "x"}, "", "scan.snapshot-id=x", "", ""},
		{map[string]string{"scan.snapshot-id": "2", "scan.tag-name": "t"}, "", "scan.snapshot-id, scan.tag-name", "", ""},
	} {
		p, err := (&TableSchema{Options: c.opts}).ReadPosition()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: err %v, want one naming %q", c.opts, err, c.err)
			}
			continue
		}
		if err != nil || p.Mode != c.mode || p.Stored != c.stored || p.Other != c.other {
			t.Errorf("%v: %+v %v, want mode %s stored %q other %q", c.opts, p, err, c.mode, c.stored, c.other)
		}
	}
}
