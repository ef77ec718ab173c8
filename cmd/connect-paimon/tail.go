package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/connect-paimon/connect-paimon/internal/readspec"
	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/paimon"
)

func tailCommand(sio stdio) *cli.Command {
	return &cli.Command{
		Name:      "tail",
		Usage:     "Stream the table's rows as JSON lines: a full read, then every new snapshot's changes",
		ArgsUsage: "[DATABASE.TABLE]",
		Description: `The read flags are the paimon input's fields, generated from the same
table, with the same values and defaults (scan_mode is --scan-mode,
end.snapshot_id is --end-snapshot-id, ...):
  --scan-mode default (default)       where the table's options say (scan.snapshot-id,
                                      scan.timestamp-millis, scan.mode), else latest-full
  --scan-mode latest-full             the latest snapshot in full, then changes
  --scan-mode latest                  only snapshots committed from now on
  --scan-mode from-snapshot --snapshot-id N       the changes of snapshot N and later
  --scan-mode from-snapshot-full --snapshot-id N  snapshot N in full, then changes
  --scan-mode from-timestamp --timestamp T       changes committed at or after T (RFC 3339, or a date: midnight UTC)
  --scan-mode compacted-full          the newest compacted snapshot in full, then changes
  --scan-mode from-tag --tag NAME     the tag's snapshot in full, then end (as Java reads a tag)
Underscores are accepted for the hyphens, as in the input. --end-snapshot-id N
or --end-at-latest stops after that snapshot; without them tail follows the
table until interrupted. With --consumer-id the position is resumed from and
committed to consumer/consumer-<id> after each snapshot's rows are written.
Each line starts with the row kind the input sets as paimon_row_kind (+I, -U,
+U, -D), as "_row_kind"; --include-row-kind=false leaves it out.
Older spellings still work: --from latest-full|latest|earliest|compacted-full|
snapshot:N|snapshot-full:N|timestamp:T, --end snapshot:N|latest, --row-kind.`,
		Flags: append(append(tableFlags(), readFlags()...),
			&cli.StringFlag{Name: "from", Usage: "older spelling of the start: latest-full, latest, earliest, compacted-full, snapshot:N, snapshot-full:N, timestamp:RFC3339", Category: "older spellings"},
			&cli.StringFlag{Name: "end", Usage: "older spelling of the end: `snapshot:N` or latest", Category: "older spellings"},
			&cli.StringFlag{Name: flagFormat, Value: "json", Usage: "output format: `json`, one JSON line per row (tail's only format)"},
			&cli.BoolFlag{Name: flagJSON, Hidden: true, Usage: "same as --format json"},
		),
		Action: func(c *cli.Context) error { return helpShown(tailRun(c, sio)) },
	}
}

// readFlags are the streaming read's flags, one per field of the input
// (internal/readspec), with the input's defaults.
func readFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range readspec.Fields() {
		name := readspec.Flag(f.Path)
		usage := f.Usage + " (input field " + f.Path + ")"
		switch f.Kind {
		case readspec.Int:
			fl := &cli.IntFlag{Name: name, Usage: usage}
			if f.Default != nil {
				fl.Value = f.Default.(int)
			}
			out = append(out, fl)
		case readspec.Bool:
			fl := &cli.BoolFlag{Name: name, Usage: usage}
			if f.Default != nil {
				fl.Value = f.Default.(bool)
			}
			if f.Path == "include_row_kind" {
				fl.Aliases = []string{"row-kind"}
			}
			out = append(out, fl)
		case readspec.Duration:
			fl := &cli.DurationFlag{Name: name, Usage: usage}
			if f.Default != nil {
				fl.Value, _ = time.ParseDuration(f.Default.(string))
			}
			out = append(out, fl)
		case readspec.StringList:
			out = append(out, &cli.StringSliceFlag{Name: name, Usage: usage})
		case readspec.IntList:
			out = append(out, &cli.IntSliceFlag{Name: name, Usage: usage})
		default:
			fl := &cli.StringFlag{Name: name, Usage: usage}
			if f.Default != nil {
				fl.Value = f.Default.(string)
			}
			out = append(out, fl)
		}
	}
	return out
}

// flagName spells a field path as tail's errors name it.
func flagName(path string) string { return "--" + readspec.Flag(path) }

// flagValues are the read's fields as tail's flags hold them; legacy holds
// what the older --from and --end set, by field path.
type flagValues struct {
	c      *cli.Context
	legacy map[string]any
}

func (v flagValues) Value(f readspec.Field) (any, bool, error) {
	if x, ok := v.legacy[f.Path]; ok {
		return x, true, nil
	}
	name := readspec.Flag(f.Path)
	if f.Default == nil && !v.c.IsSet(name) {
		return nil, false, nil
	}
	switch f.Kind {
	case readspec.Int:
		return v.c.Int(name), true, nil
	case readspec.Bool:
		return v.c.Bool(name), true, nil
	case readspec.Duration:
		return v.c.Duration(name), true, nil
	case readspec.StringList:
		var out []string
		for _, s := range v.c.StringSlice(name) {
			out = append(out, strings.TrimSpace(s))
		}
		return out, true, nil
	case readspec.IntList:
		return v.c.IntSlice(name), true, nil
	}
	return v.c.String(name), true, nil
}

// legacyFlags reads the older --from and --end into the field values they
// stand for; each excludes the new flags of the same fields.
func legacyFlags(c *cli.Context) (map[string]any, error) {
	out := map[string]any{}
	if c.IsSet("from") {
		if c.IsSet("scan-mode") || c.IsSet("snapshot-id") || c.IsSet("timestamp") {
			return nil, errors.New("--from is the older spelling of --scan-mode with --snapshot-id/--timestamp: give one or the other")
		}
		if err := parseFrom(c.String("from"), out); err != nil {
			return nil, err
		}
	}
	if c.IsSet("end") {
		if c.IsSet("end-snapshot-id") || c.IsSet("end-at-latest") {
			return nil, errors.New("--end is the older spelling of --end-snapshot-id/--end-at-latest: give one or the other")
		}
		if err := parseEnd(c.String("end"), out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseFrom reads --from into scan_mode, snapshot_id and timestamp.
func parseFrom(s string, out map[string]any) error {
	kind, arg, hasArg := strings.Cut(s, ":")
	switch {
	case !hasArg && (s == "latest-full" || s == "latest" || s == "compacted-full"):
		out["scan_mode"] = s
		return nil
	case !hasArg && s == "earliest":
		// from-snapshot-full clamps its start up to the earliest snapshot,
		// so 1 means "whatever is earliest when the table is first read".
		out["scan_mode"], out["snapshot_id"] = paimon.StartFromSnapshotFull.String(), 1
		return nil
	case hasArg && (kind == "snapshot" || kind == "snapshot-full"):
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return fmt.Errorf("--from %q: snapshot id must be a positive integer", s)
		}
		out["scan_mode"], out["snapshot_id"] = paimon.StartFromSnapshot.String(), n
		if kind == "snapshot-full" {
			out["scan_mode"] = paimon.StartFromSnapshotFull.String()
		}
		return nil
	case hasArg && kind == "timestamp":
		if _, err := readspec.ParseTime(arg); err != nil {
			return fmt.Errorf("--from: %w", err)
		}
		out["scan_mode"], out["timestamp"] = paimon.StartFromTimestamp.String(), arg
		return nil
	}
	return fmt.Errorf("--from %q: want latest-full, latest, earliest, compacted-full, snapshot:N, snapshot-full:N or timestamp:RFC3339", s)
}

// parseEnd reads --end into end.snapshot_id or end.at_latest.
func parseEnd(s string, out map[string]any) error {
	switch {
	case s == "latest":
		out["end.at_latest"] = true
		return nil
	case strings.HasPrefix(s, "snapshot:"):
		n, err := strconv.Atoi(strings.TrimPrefix(s, "snapshot:"))
		if err != nil || n < 1 {
			return fmt.Errorf("--end %q: snapshot id must be a positive integer", s)
		}
		out["end.snapshot_id"] = n
		return nil
	}
	return fmt.Errorf("--end %q: want snapshot:N or latest", s)
}

func tailRun(c *cli.Context, sio stdio) error {
	if _, err := tableArgs(c, 0, ""); err != nil {
		return err
	}
	if f := c.String(flagFormat); f != "json" {
		return fmt.Errorf("--%s %q: tail prints rows as JSON lines, want json", flagFormat, f)
	}
	legacy, err := legacyFlags(c)
	if err != nil {
		return err
	}
	cfg, err := readspec.Read(flagValues{c: c, legacy: legacy}, flagName)
	if err != nil {
		return err
	}
	if err := readspec.Validate(cfg, flagName); err != nil {
		return err
	}
	cid := cfg.ConsumerID
	// Plans without rows still advance the consumer past skipped snapshots
	// (COMPACT, filtered away).
	cfg.EmitEmptyPlans = cid != ""
	// Lines are JSON, which has no range limit: TIMESTAMP(7..9) values of
	// years 0001..9999 are printed exactly instead of failing the read
	// beyond 1677..2262.
	cfg.WideTimestamps = true

	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ot, err := openTable(ctx, c)
	if err != nil {
		return err
	}
	defer ot.Close()
	tbl := ot.tbl
	sc, rd, err := tbl.NewStreamingScan(ctx, cfg)
	if err != nil {
		if named := readspec.Named(err, flagName); named != err {
			return fmt.Errorf("table %s: %w", tbl.Name(), named)
		}
		return err
	}
	w := bufio.NewWriterSize(sio.out, 64<<10)
	t := &tailer{w: w}
	for {
		p, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			if err != io.EOF {
				// A normal end, but an empty read: the error says why.
				fmt.Fprintf(sio.err, "INFO %v\n", err)
			}
			return w.Flush()
		}
		if err != nil {
			if ctx.Err() != nil && c.Context.Err() == nil {
				return w.Flush() // interrupted: a clean stop
			}
			if named := readspec.Named(err, flagName); named != err {
				// A start past the latest snapshot, and a filter resolved
				// in the schema of the first plan, fail in Next.
				return fmt.Errorf("table %s: %w", tbl.Name(), named)
			}
			return err
		}
		for _, sp := range p.Splits {
			if err := t.split(ctx, rd, sp); err != nil {
				if ctx.Err() != nil && c.Context.Err() == nil {
					return w.Flush()
				}
				return fmt.Errorf("table %s: snapshot %d: %w", tbl.Name(), p.SnapshotID, err)
			}
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write rows: %w", err)
		}
		// Commit only after the snapshot's rows reached the writer, so a
		// crash re-prints at most one snapshot (at-least-once).
		if cid != "" {
			if err := sc.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
				return fmt.Errorf("table %s: %w", tbl.Name(), err)
			}
		}
	}
}

// tailer writes the rows of splits as JSON lines, reusing one encoder while
// the record schema stays the same (it changes with schema evolution).
type tailer struct {
	w   *bufio.Writer
	enc *rowjson.Encoder
	buf []byte
}

func (t *tailer) split(ctx context.Context, rd *paimon.Read, sp *paimon.Split) error {
	rr, err := rd.Read(ctx, sp)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		if t.enc == nil || !t.enc.Schema().Equal(rec.Schema()) {
			if t.enc, err = rowjson.NewEncoder(rec.Schema()); err != nil {
				return err
			}
		}
		if err := t.enc.Reset(rec); err != nil {
			return err
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			// The row kind, when read, is the line's first key.
			t.buf = t.enc.AppendRowWithKind(t.buf[:0], i)
			t.buf = append(t.buf, '\n')
			if _, err := t.w.Write(t.buf); err != nil {
				return fmt.Errorf("write rows: %w", err)
			}
		}
	}
	return rr.Err()
}
