//go:build !interop_noapi

package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// pkCaseFile is cases-pk.json as written by resources/java JavaPkGen: Java Paimon's batch read
// of every snapshot of every primary-key table, and its streaming reads (one case per
// non-empty plan, keyed by the snapshot the plan consumed).
type pkCaseFile struct {
	Generator     string `json:"generator"`
	WriterVersion string `json:"writer_version"`
	// ReadBy, when set, is the Java release that read tables other releases wrote (the
	// writer-version matrix: VersionPkGen --read-db), whose cases are compared on their own.
	ReadBy  string     `json:"read_by"`
	Streams []pkStream `json:"streams"`
	Cases   []pkCase   `json:"cases"`
}

// pkStream is one streaming read Java ran: the mode, the start snapshot of the from-snapshot
// modes, and the last snapshot it consumed (the table's latest).
type pkStream struct {
	Table string `json:"table"`
	Mode  string `json:"mode"`
	Start *int64 `json:"start"`
	End   int64  `json:"end"`
	// writer is the WriterVersion of the file the stream came from.
	writer string
}

// pkCase is one expected row set: a batch read at Snapshot (Mode "stored": a batch read told
// nothing, which the read position stored in the table's options starts at Snapshot), or the
// rows (with _row_kind) of the streaming plan in Mode that consumed Snapshot.
type pkCase struct {
	Table     string `json:"table"`
	Kind      string `json:"kind"`
	Mode      string `json:"mode"`
	Snapshot  int64  `json:"snapshot"`
	FirstPlan bool   `json:"first_plan"`
	Expected  string `json:"expected"`
	Rows      int    `json:"rows"`
	// writer is the WriterVersion of the file the case came from.
	writer string
}

func pkFixturesDir() string { return fixturesSubdir("PAIMON_INTEROP_PK_DIR", "pk") }

// fixturesSubdir is the committed fixture set resources/fixtures/<name>, or the directory the
// environment variable env names (a regenerated set).
func fixturesSubdir(env, name string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	return filepath.Join("..", "..", "resources", "fixtures", name)
}

// TestPKFixtures compares the Go reader with Java Paimon on the committed primary-key tables.
func TestPKFixtures(t *testing.T) {
	runPKCases(t, pkFixturesDir())
}

// TestPKLive regenerates the primary-key tables with Java Paimon (Maven) and compares.
// Opt-in with PAIMON_INTEROP=1, like TestLive.
func TestPKLive(t *testing.T) {
	runPKCases(t, livePKGen(t, "JavaPkGen"))
}

// TestPKExternalPathsLive: tables whose data, changelog and deletion-vector files Java writes
// outside the table directory (data-file.external-paths, two directories, round-robin), so
// every file is read through the absolute path its manifest entry holds. Live only: those
// paths are absolute, so such tables cannot be committed as fixtures.
func TestPKExternalPathsLive(t *testing.T) {
	dir := livePKGen(t, "JavaPkGen", "--set", "external")
	files, err := filepath.Glob(filepath.Join(dir, "warehouse", "javapk.db", "*.ext-?", "*", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no file in the external paths under %s (%v): the tables do not test what they are for", dir, err)
	}
	runPKCases(t, dir)
}

// livePKGen runs one primary-key generator of resources/java (org.connectpaimon.gen.<class>)
// into a temporary directory laid out like resources/fixtures/pk and returns it. Opt-in with
// PAIMON_INTEROP=1; without Maven it is testenv.Unavailable.
func livePKGen(t *testing.T, class string, args ...string) string {
	javaDir := livePKJava(t)
	out := t.TempDir()
	cmd := exec.Command("mvn", "-q", "-B", "-o", "compile", "exec:java",
		"-Dexec.mainClass=org.connectpaimon.gen."+class,
		"-Dexec.args=--warehouse "+filepath.Join(out, "warehouse")+" --expected "+filepath.Join(out, "expected")+
			" --cases "+filepath.Join(out, "cases-pk.json")+" "+strings.Join(args, " "))
	cmd.Dir = javaDir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", class, err, b)
	}
	return out
}

// livePKJava opts a live PK test in (PAIMON_INTEROP=1) and returns resources/java, where Maven
// runs the generators; without Maven it is testenv.Unavailable.
func livePKJava(t *testing.T) string {
	t.Helper()
	testenv.OptIn(t, "PAIMON_INTEROP", "live PK interop suite (Java Paimon regenerates the tables)")
	if _, err := exec.LookPath("mvn"); err != nil {
		testenv.Unavailable(t, "LIVE PK INTEROP SUITE NOT RUN: no Maven: "+err.Error())
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "resources", "java"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// loadPKCases reads cases-pk.json and every cases-pk-<group>.json beside it: a group of tables
// regenerated on its own (resources/regen-fixtures.sh PK_GROUP=...) keeps its cases in its own
// file, so regenerating it leaves the other tables' committed files alone.
func loadPKCases(dir string) (*pkCaseFile, error) {
	own, _, err := loadPKCaseFiles(dir)
	return own, err
}

// loadPKCaseFiles is loadPKCases that also returns, apart, each file of reads by another
// release (read_by) than the one that wrote the tables.
func loadPKCaseFiles(dir string) (*pkCaseFile, []*pkCaseFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "cases-pk*.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("load PK interop cases: %w", err)
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("load PK interop cases: no cases-pk*.json in %s", dir)
	}
	var all pkCaseFile
	var readBy []*pkCaseFile
	tables := map[string]string{}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("load PK interop cases: %w", err)
		}
		var cf pkCaseFile
		if err := json.Unmarshal(b, &cf); err != nil {
			return nil, nil, fmt.Errorf("load PK interop cases %s: %w", path, err)
		}
		if len(cf.Cases) == 0 || len(cf.Streams) == 0 {
			return nil, nil, fmt.Errorf("load PK interop cases %s: %d cases, %d streams; an empty set would pass vacuously", path, len(cf.Cases), len(cf.Streams))
		}
		if cf.ReadBy != "" {
			readBy = append(readBy, &cf)
			continue
		}
		for i, c := range cf.Cases {
			if c.Table == "" || c.Expected == "" || c.Snapshot <= 0 || (c.Kind != "batch" && c.Kind != "stream") {
				return nil, nil, fmt.Errorf("load PK interop cases %s: case %d is incomplete: %+v", path, i, c)
			}
			if other, ok := tables[c.Table]; ok && other != path {
				return nil, nil, fmt.Errorf("load PK interop cases: table %s is in both %s and %s", c.Table, other, path)
			}
		}
		for i := range cf.Cases {
			tables[cf.Cases[i].Table] = path
			cf.Cases[i].writer = cf.WriterVersion
		}
		for i := range cf.Streams {
			cf.Streams[i].writer = cf.WriterVersion
		}
		all.Generator, all.WriterVersion = cf.Generator, cf.WriterVersion
		all.Streams = append(all.Streams, cf.Streams...)
		all.Cases = append(all.Cases, cf.Cases...)
	}
	if len(all.Cases) == 0 {
		return nil, nil, fmt.Errorf("load PK interop cases: %s holds only reads by another release", dir)
	}
	return &all, readBy, nil
}

func runPKCases(t *testing.T, dir string) {
	cf, readBy, err := loadPKCaseFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatalf("open catalog %s: %v", dir, err)
	}
	runPKCasesWith(t, dir, cf, cat)
	for _, rb := range readBy {
		t.Run("read by "+rb.ReadBy, func(t *testing.T) { runPKCasesWith(t, dir, rb, cat) })
	}
}

// runPKCasesWith compares the cases of cf with what cat (a filesystem or a REST catalog
// over dir's warehouse) reads.
func runPKCasesWith(t *testing.T, dir string, cf *pkCaseFile, cat *paimon.Catalog) {
	ctx := context.Background()
	expect := func(t *testing.T, c pkCase) []string { return Expected(t, dir, c.Expected, c.Rows) }
	// verdict fails t with problem, except for a reported reader bug (pkKnownBug): that is
	// skipped with the actual failure shown, and flagged as an error once it passes, so the
	// entry cannot outlive the fix.
	verdict := func(t *testing.T, problem string) {
		if problem != "" {
			t.Fatal(problem)
		}
	}
	t.Run("batch", func(t *testing.T) {
		for _, c := range cf.Cases {
			if c.Kind != "batch" {
				continue
			}
			name := fmt.Sprintf("%s/s%d", c.Table, c.Snapshot)
			if c.Mode != "" {
				name += "/" + c.Mode
			}
			t.Run(name, func(t *testing.T) {
				want := expect(t, c)
				got, err := readPKBatch(ctx, cat, c.Table, c.Snapshot, c.Mode == "stored")
				if err != nil {
					verdict(t, fmt.Sprintf("read %s at snapshot %d: %v", c.Table, c.Snapshot, err))
					return
				}
				problem := ""
				if d := DiffLines(want, got); d != "" {
					problem = fmt.Sprintf("%s at snapshot %d differs from Java's batch read:\n%s", c.Table, c.Snapshot, d)
				}
				verdict(t, problem)
			})
		}
	})
	t.Run("stream", func(t *testing.T) {
		for _, st := range cf.Streams {
			t.Run(st.Table+"/"+st.Mode, func(t *testing.T) {
				plans, err := readPKStream(ctx, cat, st)
				if err != nil {
					verdict(t, fmt.Sprintf("stream %s mode %s: %v", st.Table, st.Mode, err))
					return
				}
				verdict(t, "")
				javaSnaps := map[int64]bool{}
				for _, c := range cf.Cases {
					if c.Kind != "stream" || c.Table != st.Table || c.Mode != st.Mode {
						continue
					}
					javaSnaps[c.Snapshot] = true
					t.Run(fmt.Sprintf("s%d", c.Snapshot), func(t *testing.T) {
						want := expect(t, c)
						p, ok := plans[c.Snapshot]
						var problem string
						switch {
						case !ok:
							problem = fmt.Sprintf("Java's %s plan for snapshot %d has %d rows; Go returned no plan for that snapshot", st.Mode, c.Snapshot, len(want))
						case p.first != c.FirstPlan:
							problem = fmt.Sprintf("snapshot %d: Go's plan has FirstPlan=%v, Java's first=%v", c.Snapshot, p.first, c.FirstPlan)
						default:
							if d := DiffLines(want, p.lines); d != "" {
								problem = fmt.Sprintf("%s %s plan of snapshot %d (first=%v) differs from Java's streaming read:\n%s", st.Table, st.Mode, c.Snapshot, p.first, d)
								if why := pkReaderChange(c.writer, st.Table, p.first, want, p.lines); why != "" {
									t.Logf("%s\nfollowing Java 1.3.1: %s", problem, why)
									problem = ""
								}
							}
						}
						verdict(t, problem)
					})
				}
				// Java skips empty plans, so any Go plan with rows must have a Java twin.
				var ids []int64
				for id := range plans {
					ids = append(ids, id)
				}
				sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
				for _, id := range ids {
					if p := plans[id]; !javaSnaps[id] && len(p.lines) > 0 {
						t.Run(fmt.Sprintf("s%d", id), func(t *testing.T) {
							problem := fmt.Sprintf("Go's %s plan for snapshot %d (first=%v) has %d rows, Java's stream emitted none; first: %s",
								st.Mode, id, p.first, len(p.lines), clip(p.lines[0]))
							if why := pkReaderChange(st.writer, st.Table, p.first, nil, p.lines); why != "" {
								t.Logf("%s\nfollowing Java 1.3.1: %s", problem, why)
								problem = ""
							}
							verdict(t, problem)
						})
					}
				}
			})
		}
	})
}

// pkReaderChanges are the reads that changed between Java releases: a release of the
// writer-version matrix reads the tables it wrote differently from Java 1.3.1, which this reader
// follows — the read_by cases hold 1.3.1's reads of the same tables and are compared in full.
// Each entry says what the older releases did; any other difference from a release's own read
// fails (docs/interop.md, "Writer versions").
var pkReaderChanges = []struct {
	table     string // the table's name in its database
	firstPlan bool   // only a stream's first (full) plan
	before    [2]int // releases before this major.minor read it the old way
	why       string
}{{
	table: "pk_first_row", firstPlan: true, before: [2]int{1, 3},
	why: "before 1.3, Java planned the first plan of a first-row table's stream like its batch read, " +
		"without level-0 files, so rows only in level 0 at the start snapshot were never delivered; 1.3.1 delivers them",
}}

// pkReaderChange returns why Go's plan (got) may differ from the writer release's own streaming
// read (want) of table, or "" when no reader change explains it. An older release may only
// have read fewer of the rows: what it read must be among Go's.
func pkReaderChange(writer, table string, first bool, want, got []string) string {
	var major, minor int
	if _, err := fmt.Sscanf(writer, "java paimon %d.%d", &major, &minor); err != nil {
		return ""
	}
	name := table[strings.LastIndexByte(table, '.')+1:]
	have := map[string]int{}
	for _, l := range got {
		have[l]++
	}
	for _, l := range want {
		if have[l] == 0 {
			return ""
		}
		have[l]--
	}
	for _, c := range pkReaderChanges {
		if c.table == name && (!c.firstPlan || first) && (major < c.before[0] || (major == c.before[0] && minor < c.before[1])) {
			return c.why
		}
	}
	return ""
}

// readPKBatch reads table at snapshot, or, stored, where the read position stored in the table's
// options starts a batch read (and checks that it is snapshot).
func readPKBatch(ctx context.Context, cat *paimon.Catalog, table string, snapshot int64, stored bool) ([]string, error) {
	tbl, err := cat.GetTable(ctx, table)
	if err != nil {
		return nil, err
	}
	rb := tbl.NewReadBuilder()
	if stored {
		// Java's read of a stored position is dumped with row kinds: an
		// incremental read returns every change unmerged.
		rb = rb.WithIncludeRowKind(true)
	} else {
		rb = rb.WithSnapshot(snapshot)
	}
	plan, err := rb.Plan(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	if plan.SnapshotID != snapshot {
		return nil, fmt.Errorf("planned snapshot %d, Java's read planned %d", plan.SnapshotID, snapshot)
	}
	return ReadSplits(ctx, rb.NewRead(), plan.Splits)
}

type pkPlan struct {
	first bool
	lines []string
}

// readPKStream runs Go's streaming scan the way Java's was run (same mode and start, ending at
// Java's last snapshot) and returns every plan's rows keyed by the snapshot it consumed.
func readPKStream(ctx context.Context, cat *paimon.Catalog, st pkStream) (map[int64]*pkPlan, error) {
	tbl, err := cat.GetTable(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	var mode paimon.StartMode
	err = mode.UnmarshalText([]byte(st.Mode))
	if err != nil {
		return nil, err
	}
	b := tbl.NewStreamReadBuilder().WithStartMode(mode).WithIncludeRowKind(true).WithEmitEmptyPlans(true).
		WithEndSnapshot(st.End).WithPollInterval(10 * time.Millisecond)
	if st.Start != nil {
		b = b.WithStartSnapshot(*st.Start)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	sc, err := b.NewStreamingScan(ctx)
	if err != nil {
		return nil, err
	}
	rd := b.NewRead()
	plans := map[int64]*pkPlan{}
	for {
		p, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			return plans, nil
		}
		if err != nil {
			return nil, fmt.Errorf("next plan after snapshot %d: %w", sc.NextSnapshotID()-1, err)
		}
		if _, dup := plans[p.SnapshotID]; dup {
			return nil, fmt.Errorf("two plans for snapshot %d", p.SnapshotID)
		}
		lines, err := ReadSplits(ctx, rd, p.Splits)
		if err != nil {
			return nil, fmt.Errorf("plan of snapshot %d: %w", p.SnapshotID, err)
		}
		plans[p.SnapshotID] = &pkPlan{first: p.FirstPlan, lines: lines}
		if p.NextSnapshotID > st.End {
			return plans, nil
		}
	}
}

// TestPKFixturesCoverage checks that the committed Java tables contain what the oracle is
// meant to exercise, so a generator change cannot quietly drop a feature: COMPACT snapshots
// everywhere, changelog manifests for the changelog producers, deletion-vector index files in
// the 32-bit and the 64-bit layout (magic numbers from the format notes: 0x5E43F2D0 big-endian
// after the version byte and length; 64-bit: bytes D1 D3 39 64), a hash index for bucket=-1,
// a second schema for the evolution table, and several partitions.
func TestPKFixturesCoverage(t *testing.T) {
	db := filepath.Join(pkFixturesDir(), "warehouse", "javapk.db")
	snapshots := func(t *testing.T, table string) []map[string]any {
		files, err := filepath.Glob(filepath.Join(db, table, "snapshot", "snapshot-*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no snapshots (%v)", table, err)
		}
		var out []map[string]any
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, m)
		}
		return out
	}
	count := func(snaps []map[string]any, pred func(map[string]any) bool) int {
		n := 0
		for _, s := range snaps {
			if pred(s) {
				n++
			}
		}
		return n
	}
	tables := []string{"pk_dedup", "pk_dedup_dv", "pk_dedup_dv64", "pk_first_row", "pk_partial", "pk_agg", "pk_seq",
		"pk_input", "pk_lookup", "pk_fullcomp", "pk_dynamic", "pk_part", "pk_evolve", "pk_cross", "pk_postpone"}
	for _, table := range tables {
		snaps := snapshots(t, table)
		if n := count(snaps, func(s map[string]any) bool { return s["commitKind"] == "COMPACT" }); n == 0 {
			t.Errorf("%s: no COMPACT snapshot", table)
		}
		changelogs := count(snaps, func(s map[string]any) bool { v, _ := s["changelogManifestList"].(string); return v != "" })
		wantChangelog := table == "pk_input" || table == "pk_lookup" || table == "pk_fullcomp"
		if (changelogs > 0) != wantChangelog {
			t.Errorf("%s: %d snapshots with a changelog manifest list, want changelog=%v", table, changelogs, wantChangelog)
		}
	}
	magic := func(table string) [][]byte {
		files, _ := filepath.Glob(filepath.Join(db, table, "index", "index-*"))
		var out [][]byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) >= 9 && b[0] == 1 {
				out = append(out, b[5:9])
			}
		}
		return out
	}
	for table, want := range map[string][]byte{"pk_dedup_dv": {0x5E, 0x43, 0xF2, 0xD0}, "pk_dedup_dv64": {0xD1, 0xD3, 0x39, 0x64}} {
		ms := magic(table)
		if len(ms) == 0 {
			t.Errorf("%s: no deletion-vector index file", table)
		}
		for _, m := range ms {
			if string(m) != string(want) {
				t.Errorf("%s: deletion vector magic % x, want % x", table, m, want)
			}
		}
	}
	if files, _ := filepath.Glob(filepath.Join(db, "pk_dynamic", "index", "index-*")); len(files) == 0 {
		t.Errorf("pk_dynamic: no hash index file")
	}
	if _, err := os.Stat(filepath.Join(db, "pk_evolve", "schema", "schema-1")); err != nil {
		t.Errorf("pk_evolve: no second schema: %v", err)
	}
	if parts, _ := filepath.Glob(filepath.Join(db, "pk_part", "dt=*")); len(parts) != 3 {
		t.Errorf("pk_part: %d partitions, want 3", len(parts))
	}
	// pk_cross: cross-partition update (bucket -1, key without the partition): a key that
	// moved between partitions leaves data files in several partitions, and Java keeps no hash
	// index for it (the index is rebuilt from data by the writer).
	if parts, _ := filepath.Glob(filepath.Join(db, "pk_cross", "dt=*", "bucket-*")); len(parts) < 5 {
		t.Errorf("pk_cross: %d partition buckets, want at least 5", len(parts))
	}
	if files, _ := filepath.Glob(filepath.Join(db, "pk_cross", "index", "*")); len(files) != 0 {
		t.Errorf("pk_cross: %d index files, want none (KEY_DYNAMIC)", len(files))
	}
	// pk_postpone: Avro files in bucket-postpone (data-u-<user>-s-… names) and real buckets made
	// by postpone compactions (COMPACT snapshots of the compactor's own commit user).
	if files, _ := filepath.Glob(filepath.Join(db, "pk_postpone", "dt=*", "bucket-postpone", "data-*-u-*.avro")); len(files) == 0 {
		t.Errorf("pk_postpone: no Avro file in bucket-postpone")
	}
	if n := count(snapshots(t, "pk_postpone"), func(s map[string]any) bool {
		return s["commitKind"] == "COMPACT" && s["commitUser"] == "javapkgen-postpone-compact"
	}); n != 2 {
		t.Errorf("pk_postpone: %d postpone compactions, want 2", n)
	}
}
