package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/internal/suggest"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// Discovery: `paimon databases`, `tables [DB]`, `describe DB.T` and
// `files DB.T`, each printing a table for people or JSON (--format json) for
// scripts. The table may be the positional argument or --table.

const flagFormat = "format"

// catalogFlags are the warehouse and storage flags, without the table.
func catalogFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range tableFlags() {
		if n := f.Names()[0]; n != flagTable && n != flagBranch {
			out = append(out, f)
		}
	}
	return out
}

// withFormatFlag adds the output format flags every subcommand has:
// --format table|json, and --json, short for --format json (hidden: one
// spelling is documented).
func withFormatFlag(flags []cli.Flag) []cli.Flag {
	return append(flags,
		&cli.StringFlag{Name: flagFormat, Value: "table", Usage: "output format: `table` (for people) or json (for scripts)"},
		&cli.BoolFlag{Name: flagJSON, Hidden: true, Usage: "same as --format json"})
}

// outputFormat reads --format and --json.
func outputFormat(c *cli.Context) (jsonOut bool, err error) {
	f := c.String(flagFormat)
	if c.Bool(flagJSON) {
		if c.IsSet(flagFormat) && f != "json" {
			return false, fmt.Errorf("--%s is short for --%s json, not --%s %s: give one of them", flagJSON, flagFormat, flagFormat, f)
		}
		return true, nil
	}
	switch f {
	case "table", "":
		return false, nil
	case "json":
		return true, nil
	default:
		return false, fmt.Errorf("--%s %q: want table or json", flagFormat, f)
	}
}

// wantJSON is outputFormat once interspersed has checked it.
func wantJSON(c *cli.Context) bool {
	j, _ := outputFormat(c)
	return j
}

func discoveryCommands(sio stdio) []*cli.Command {
	return []*cli.Command{
		{
			Name:   "databases",
			Usage:  "List the warehouse's databases (a warehouse without any is an error saying where databases are, most likely a wrong --warehouse)",
			Flags:  withFormatFlag(catalogFlags()),
			Action: action(sio, databasesRun),
		},
		{
			Name:      "tables",
			Usage:     "List the tables of one database, or of every database",
			ArgsUsage: "[DATABASE]",
			Flags:     withFormatFlag(catalogFlags()),
			Action:    action(sio, tablesRun),
		},
		{
			Name:      "describe",
			Usage:     "Show a table: columns with field ids and types, primary and partition keys, bucket mode, file format, options, latest snapshot, branches, tags, consumers",
			ArgsUsage: "[DATABASE.TABLE]",
			Flags:     withFormatFlag(tableFlags()),
			Action:    tableAction(sio, describeRun),
		},
		{
			Name:      "files",
			Usage:     "List the live data files of a snapshot (default the latest): partition, bucket, level, rows, size",
			ArgsUsage: "[DATABASE.TABLE]",
			Flags: withFormatFlag(append(tableFlags(),
				&cli.Int64Flag{Name: "snapshot-id", Usage: "the snapshot whose files to list (default the latest)"})),
			Action: tableAction(sio, filesRun),
		},
	}
}

func databasesRun(c *cli.Context, sio stdio) error {
	if _, err := exactArgs(c, 0, ""); err != nil {
		return err
	}
	asJSON, cat, err := openCatalogCommand(c)
	if err != nil {
		return err
	}
	defer cat.Close()
	dbs, err := cat.ListDatabases(c.Context)
	if err != nil {
		return err
	}
	if len(dbs) == 0 {
		// Most likely a wrong path: say so, and where the databases are.
		if err := cat.CheckWarehouse(c.Context); err != nil {
			return fmt.Errorf("--%s: %w", flagWarehouse, err)
		}
	}
	if asJSON {
		return writeJSON(sio.out, nonNil(dbs))
	}
	for _, db := range dbs {
		fmt.Fprintln(sio.out, db)
	}
	return nil
}

// tableRow is one table of `tables`.
type tableRow struct {
	Database string `json:"database"`
	Table    string `json:"table"`
}

// allTables lists db.table for every table of the warehouse (or of one
// database).
func allTables(ctx context.Context, cat *paimon.Catalog, only string) ([]tableRow, error) {
	dbs := []string{only}
	if only == "" {
		var err error
		if dbs, err = cat.ListDatabases(ctx); err != nil {
			return nil, err
		}
	}
	if only != "" {
		known, err := cat.ListDatabases(ctx)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(known, only) {
			if len(known) == 0 {
				return nil, cat.CheckWarehouse(ctx)
			}
			return nil, fmt.Errorf("database %s does not exist in warehouse %s%s", only, cat.Warehouse(), suggest.Hint(only, known, "databases"))
		}
	}
	var out []tableRow
	for _, db := range dbs {
		ts, err := cat.ListTables(ctx, db)
		if err != nil {
			if only != "" && fileio.IsNotExist(err) {
				return nil, fmt.Errorf("database %s does not exist in warehouse %s", db, cat.Warehouse())
			}
			return nil, err
		}
		for _, t := range ts {
			out = append(out, tableRow{Database: db, Table: t})
		}
	}
	return out, nil
}

func tablesRun(c *cli.Context, sio stdio) error {
	pos, err := interspersed(c)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("%s takes at most one database, got %q", commandPath(c), pos)
	}
	asJSON, cat, err := openCatalogCommand(c)
	if err != nil {
		return err
	}
	defer cat.Close()
	db := ""
	if len(pos) == 1 {
		db = pos[0]
	}
	if db == "" {
		if err := cat.CheckWarehouse(c.Context); err != nil {
			return fmt.Errorf("--%s: %w", flagWarehouse, err)
		}
	}
	rows, err := allTables(c.Context, cat, db)
	if err != nil {
		return err
	}
	if asJSON {
		if rows == nil {
			rows = []tableRow{}
		}
		return writeJSON(sio.out, rows)
	}
	for _, r := range rows {
		fmt.Fprintln(sio.out, r.Database+"."+r.Table)
	}
	return nil
}

// openNamedTable opens the table of describe/files (after tableArg); a
// table that does not exist gets the nearest existing names in the error
// (openTable).
func openNamedTable(c *cli.Context) (*openedTable, error) { return openTable(c.Context, c) }

// openCatalogCommand is the start of a warehouse-wide command: the
// --format asked for, the catalog opened (the caller closes it).
func openCatalogCommand(c *cli.Context) (asJSON bool, cat *paimon.Catalog, err error) {
	if asJSON, err = outputFormat(c); err != nil {
		return false, nil, err
	}
	cat, err = openCatalog(c.Context, c)
	return asJSON, cat, err
}

// tableAction is the action of a command on one table: the table argument
// checked, the --format asked for and the table opened before run, and
// closed after it.
func tableAction(sio stdio, run func(c *cli.Context, sio stdio, asJSON bool, ot *openedTable) error) cli.ActionFunc {
	return action(sio, func(c *cli.Context, sio stdio) error {
		if _, err := tableArgs(c, 0, ""); err != nil {
			return err
		}
		asJSON, err := outputFormat(c)
		if err != nil {
			return err
		}
		ot, err := openNamedTable(c)
		if err != nil {
			return err
		}
		defer ot.Close()
		return run(c, sio, asJSON, ot)
	})
}

// --- describe -------------------------------------------------------------------

type columnJSON struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
	Comment  string `json:"comment,omitempty"`
}

type snapshotBrief struct {
	ID         int64  `json:"id"`
	SchemaID   int64  `json:"schema_id"`
	CommitKind string `json:"commit_kind"`
	CommitTime string `json:"commit_time"`
	TotalRows  *int64 `json:"total_record_count,omitempty"`
}

type describeJSON struct {
	Table          string            `json:"table"`
	Branch         string            `json:"branch"`
	Path           string            `json:"path"`
	SchemaID       int64             `json:"schema_id"`
	Columns        []columnJSON      `json:"columns"`
	PrimaryKeys    []string          `json:"primary_keys"`
	PartitionKeys  []string          `json:"partition_keys"`
	Buckets        int               `json:"bucket"`
	BucketMode     string            `json:"bucket_mode"`
	BucketKeys     []string          `json:"bucket_keys,omitempty"`
	FileFormat     string            `json:"file_format"`
	MergeEngine    string            `json:"merge_engine,omitempty"`
	Changelog      string            `json:"changelog_producer,omitempty"`
	Comment        string            `json:"comment,omitempty"`
	Options        map[string]string `json:"options"`
	LatestSnapshot *snapshotBrief    `json:"latest_snapshot"`
	Branches       []string          `json:"branches"`
	Tags           []tagJSON         `json:"tags"`
	Consumers      []consumerJSON    `json:"consumers"`
}

// tagJSON is a tag and the snapshot it points at.
type tagJSON struct {
	Name       string `json:"name"`
	SnapshotID int64  `json:"snapshot_id"`
}

// writeItems writes a list of describe's text form: the label on its first
// line only, or "none".
func writeItems(w io.Writer, label string, items []string) {
	if len(items) == 0 {
		fmt.Fprintf(w, "%s\tnone\n", label)
	}
	for i, it := range items {
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "%s\t%s\n", label, it)
	}
}

func describeRun(c *cli.Context, sio stdio, asJSON bool, ot *openedTable) error {
	ctx, tbl := c.Context, ot.tbl
	s := tbl.Schema()
	d := describeJSON{
		Table: tbl.Name(), Branch: branchName(tbl.Branch()), Path: tbl.Path(), SchemaID: s.ID,
		PrimaryKeys: nonNil(s.PrimaryKeys), PartitionKeys: nonNil(s.PartitionKeys),
		Buckets: s.NumBuckets(), BucketMode: s.BucketMode(), FileFormat: s.FileFormat(),
		Comment: s.Comment, Options: s.Options,
	}
	if d.Buckets > 0 {
		d.BucketKeys = s.BucketKeys()
	}
	if len(s.PrimaryKeys) > 0 {
		d.MergeEngine, d.Changelog = s.MergeEngine(), s.ChangelogProducer()
	}
	for _, f := range s.Fields {
		d.Columns = append(d.Columns, columnJSON{ID: f.ID, Name: f.Name, Type: f.Type.String(), Nullable: f.Type.Nullable, Comment: f.Description})
	}
	snap, ok, err := tbl.Snapshots().Latest(ctx)
	if err != nil {
		return fmt.Errorf("table %s: %w", tbl.Name(), err)
	}
	if ok {
		d.LatestSnapshot = &snapshotBrief{ID: snap.ID, SchemaID: snap.SchemaID, CommitKind: string(snap.CommitKind),
			CommitTime: time.UnixMilli(snap.TimeMillis).UTC().Format(time.RFC3339Nano), TotalRows: snap.TotalRecordCount}
	}
	if d.Branches, err = tbl.Branches(ctx); err != nil {
		return err
	}
	tags, err := tbl.Tags(ctx)
	if err != nil {
		return err
	}
	d.Tags = []tagJSON{}
	for _, name := range tags {
		id, err := tbl.TagSnapshotID(ctx, name)
		if err != nil {
			return err
		}
		d.Tags = append(d.Tags, tagJSON{Name: name, SnapshotID: id})
	}
	cons, err := ot.consumers().Consumers(ctx)
	if err != nil {
		return fmt.Errorf("table %s: %w", tbl.Name(), err)
	}
	d.Consumers = []consumerJSON{}
	for id, next := range cons {
		d.Consumers = append(d.Consumers, consumerJSON{ConsumerID: id, NextSnapshotID: next})
	}
	sort.Slice(d.Consumers, func(i, j int) bool { return d.Consumers[i].ConsumerID < d.Consumers[j].ConsumerID })
	if asJSON {
		return writeJSON(sio.out, d)
	}
	return writeDescribe(sio.out, d)
}

func branchName(b string) string {
	if b == "" {
		return "main"
	}
	return b
}

func writeDescribe(out io.Writer, d describeJSON) error {
	w := newTable(out)
	fmt.Fprintf(w, "table\t%s (branch %s)\n", d.Table, d.Branch)
	fmt.Fprintf(w, "path\t%s\n", d.Path)
	if d.Comment != "" {
		fmt.Fprintf(w, "comment\t%s\n", d.Comment)
	}
	fmt.Fprintf(w, "schema\t%d\n", d.SchemaID)
	fmt.Fprintf(w, "primary keys\t%s\n", orNone(d.PrimaryKeys))
	fmt.Fprintf(w, "partition keys\t%s\n", orNone(d.PartitionKeys))
	bucket := fmt.Sprintf("%s (bucket %d)", d.BucketMode, d.Buckets)
	if len(d.BucketKeys) > 0 {
		bucket += ", bucket keys " + strings.Join(d.BucketKeys, ", ")
	}
	fmt.Fprintf(w, "buckets\t%s\n", bucket)
	fmt.Fprintf(w, "file format\t%s\n", d.FileFormat)
	if d.MergeEngine != "" {
		fmt.Fprintf(w, "merge engine\t%s, changelog producer %s\n", d.MergeEngine, d.Changelog)
	}
	if s := d.LatestSnapshot; s != nil {
		rows := ""
		if s.TotalRows != nil {
			rows = fmt.Sprintf(", %d rows", *s.TotalRows)
		}
		fmt.Fprintf(w, "latest snapshot\t%d (%s at %s, schema %d%s)\n", s.ID, s.CommitKind, s.CommitTime, s.SchemaID, rows)
	} else {
		fmt.Fprintf(w, "latest snapshot\tnone\n")
	}
	fmt.Fprintf(w, "branches\t%s\n", strings.Join(d.Branches, ", "))
	tags := make([]string, len(d.Tags))
	for i, tg := range d.Tags {
		tags[i] = fmt.Sprintf("%s: snapshot %d", tg.Name, tg.SnapshotID)
	}
	writeItems(w, "tags", tags)
	cons := make([]string, len(d.Consumers))
	for i, cj := range d.Consumers {
		cons[i] = fmt.Sprintf("%s: next snapshot %d", cj.ConsumerID, cj.NextSnapshotID)
	}
	writeItems(w, "consumers", cons)
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out, "\ncolumns:")
	w = newTable(out)
	fmt.Fprintln(w, "ID\tNAME\tTYPE\tCOMMENT")
	for _, col := range d.Columns {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", col.ID, col.Name, col.Type, col.Comment)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(d.Options) == 0 {
		_, err := fmt.Fprintln(out, "\noptions: none")
		return err
	}
	fmt.Fprintln(out, "\noptions:")
	keys := make([]string, 0, len(d.Options))
	for k := range d.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w = newTable(out)
	for _, k := range keys {
		fmt.Fprintf(w, "%s\t%s\n", k, d.Options[k])
	}
	return w.Flush()
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// --- files ----------------------------------------------------------------------

type fileJSON struct {
	Partition map[string]any `json:"partition"`
	Bucket    int32          `json:"bucket"`
	Level     int32          `json:"level"`
	RowCount  int64          `json:"row_count"`
	Size      int64          `json:"file_size_in_bytes"`
	SchemaID  int64          `json:"schema_id"`
	Path      string         `json:"file_path"`
}

type filesJSON struct {
	Table      string     `json:"table"`
	SnapshotID int64      `json:"snapshot_id"`
	Files      []fileJSON `json:"files"`
	TotalRows  int64      `json:"total_row_count"`
	TotalBytes int64      `json:"total_file_size_in_bytes"`
}

func filesRun(c *cli.Context, sio stdio, asJSON bool, ot *openedTable) error {
	tbl := ot.tbl
	rb := tbl.NewReadBuilder()
	if c.IsSet("snapshot-id") {
		id := c.Int64("snapshot-id")
		if id < 1 {
			return fmt.Errorf("--snapshot-id must be at least 1, got %d", id)
		}
		rb = rb.WithSnapshot(id)
	}
	plan, err := rb.Plan(c.Context)
	if err != nil {
		if c.IsSet("snapshot-id") && fileio.IsNotExist(err) {
			return fmt.Errorf("--snapshot-id: %w", err)
		}
		return err
	}
	out := filesJSON{Table: tbl.Name(), SnapshotID: plan.SnapshotID, Files: []fileJSON{}}
	// A type the reader refuses would fail a read of the column; the files
	// still list, their timestamps without an Arrow unit.
	parts, _ := paimon.ArrowSchema(tbl.Schema().PartitionFields())
	for _, sp := range plan.Splits {
		part := rowjson.Partition(sp.PartitionKeys(), sp.Partition(), parts)
		for _, f := range sp.DataFiles() {
			out.Files = append(out.Files, fileJSON{Partition: part, Bucket: sp.Bucket(), Level: f.Level, RowCount: f.RowCount, Size: f.Size, SchemaID: f.SchemaID, Path: f.Path})
			out.TotalRows += f.RowCount
			out.TotalBytes += f.Size
		}
	}
	if asJSON {
		return writeJSON(sio.out, out)
	}
	fmt.Fprintf(sio.out, "snapshot %d of %s: %d files, %d rows, %d bytes\n", out.SnapshotID, out.Table, len(out.Files), out.TotalRows, out.TotalBytes)
	w := newTable(sio.out)
	fmt.Fprintln(w, "PARTITION\tBUCKET\tLEVEL\tROWS\tBYTES\tSCHEMA\tFILE")
	for _, f := range out.Files {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%s\n", partitionText(f.Partition), f.Bucket, f.Level, f.RowCount, f.Size, f.SchemaID, f.Path)
	}
	return w.Flush()
}

func partitionText(p map[string]any) string {
	if len(p) == 0 {
		return "-"
	}
	keys := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + fmt.Sprint(p[k])
	}
	return strings.Join(parts, "/")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
