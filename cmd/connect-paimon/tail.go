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

	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/paimon"
)

func tailCommand(sio stdio) *cli.Command {
	return &cli.Command{
		Name:  "tail",
		Usage: "Stream the table's rows as JSON lines: a full read, then every new snapshot's changes",
		Description: `--from picks the start when the consumer (if any) has no position:
  latest-full (default)  the latest snapshot in full, then changes
  latest                 only snapshots committed from now on
  earliest               the earliest snapshot in full, then changes
  snapshot:N             the changes of snapshot N and later
  snapshot-full:N        snapshot N in full, then changes
  timestamp:RFC3339      the changes of snapshots committed at or after the time
  compacted-full         the newest compacted snapshot in full, then changes
--end snapshot:N or --end latest stops after that snapshot; without it tail
follows the table until interrupted. With --consumer-id the position is
resumed from and committed to consumer/consumer-<id> after each snapshot's
rows are written.`,
		Flags: append(tableFlags(),
			&cli.StringFlag{Name: "from", Value: "latest-full", Usage: "start position (see above)"},
			&cli.StringFlag{Name: "end", Usage: "stop after `snapshot:N` or `latest` (the latest snapshot at start)"},
			&cli.StringFlag{Name: "filter", Usage: "row filter, e.g. \"region = 'eu' AND amount >= 0\""},
			&cli.StringFlag{Name: "columns", Usage: "comma-separated columns to print (default all)"},
			&cli.StringFlag{Name: "consumer-id", Usage: "resume from and commit to this consumer"},
			&cli.BoolFlag{Name: "row-kind", Usage: "add \"_row_kind\" (+I, -U, +U, -D) to each row"},
			&cli.DurationFlag{Name: "poll-interval", Value: time.Second, Usage: "wait between looks for a new snapshot"},
		),
		Action: func(c *cli.Context) error { return helpShown(tailRun(c, sio)) },
	}
}

// startSpec is a parsed --from.
type startSpec struct {
	mode paimon.StartMode
	snap int64
	at   time.Time
}

func parseFrom(s string) (startSpec, error) {
	kind, arg, hasArg := strings.Cut(s, ":")
	switch {
	case !hasArg && (s == "latest-full" || s == "latest" || s == "compacted-full"):
		m, err := paimon.ParseStartMode(s)
		return startSpec{mode: m}, err
	case !hasArg && s == "earliest":
		// from-snapshot-full clamps its start up to the earliest snapshot,
		// so 1 means "whatever is earliest when the table is first read".
		return startSpec{mode: paimon.StartFromSnapshotFull, snap: 1}, nil
	case hasArg && (kind == "snapshot" || kind == "snapshot-full"):
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || n < 1 {
			return startSpec{}, fmt.Errorf("--from %q: snapshot id must be a positive integer", s)
		}
		if kind == "snapshot" {
			return startSpec{mode: paimon.StartFromSnapshot, snap: n}, nil
		}
		return startSpec{mode: paimon.StartFromSnapshotFull, snap: n}, nil
	case hasArg && kind == "timestamp":
		t, err := time.Parse(time.RFC3339Nano, arg)
		if err != nil {
			return startSpec{}, fmt.Errorf("--from %q: not RFC 3339 (e.g. timestamp:2024-06-01T00:00:00Z): %w", s, err)
		}
		return startSpec{mode: paimon.StartFromTimestamp, at: t}, nil
	}
	return startSpec{}, fmt.Errorf("--from %q: want latest-full, latest, earliest, compacted-full, snapshot:N, snapshot-full:N or timestamp:RFC3339", s)
}

// parseEnd returns the end snapshot (0 for none) and whether it is "latest".
func parseEnd(s string) (int64, bool, error) {
	switch {
	case s == "":
		return 0, false, nil
	case s == "latest":
		return 0, true, nil
	case strings.HasPrefix(s, "snapshot:"):
		n, err := strconv.ParseInt(strings.TrimPrefix(s, "snapshot:"), 10, 64)
		if err != nil || n < 1 {
			return 0, false, fmt.Errorf("--end %q: snapshot id must be a positive integer", s)
		}
		return n, false, nil
	}
	return 0, false, fmt.Errorf("--end %q: want snapshot:N or latest", s)
}

// parseColumns splits --columns; the library's StreamConfig.Validate
// refuses empty and repeated names.
func parseColumns(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	out := strings.Split(s, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

func tailRun(c *cli.Context, sio stdio) error {
	if _, err := exactArgs(c, 0, ""); err != nil {
		return err
	}
	from, err := parseFrom(c.String("from"))
	if err != nil {
		return err
	}
	end, endLatest, err := parseEnd(c.String("end"))
	if err != nil {
		return err
	}
	cols := parseColumns(c.String("columns"))
	cid := c.String("consumer-id")
	if c.IsSet("consumer-id") && cid == "" {
		return errors.New("--consumer-id: invalid consumer id: empty")
	}
	cfg := paimon.StreamConfig{
		StartMode: from.mode, StartSnapshot: from.snap, StartTime: from.at,
		EndSnapshot: end, EndAtLatest: endLatest,
		Filter: c.String("filter"), Columns: cols, ConsumerID: cid,
		PollInterval: c.Duration("poll-interval"), IncludeRowKind: c.Bool("row-kind"),
		// Plans without rows still advance the consumer past skipped
		// snapshots (COMPACT, filtered away).
		EmitEmptyPlans: cid != "",
	}
	if cfg.PollInterval <= 0 {
		return fmt.Errorf("--poll-interval must be positive, got %s", cfg.PollInterval)
	}
	if err := cfg.Validate(); err != nil {
		return flagError(err)
	}

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
		return flagError(err)
	}
	w := bufio.NewWriterSize(sio.out, 64<<10)
	t := &tailer{w: w}
	for {
		p, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			return w.Flush()
		}
		if err != nil {
			if ctx.Err() != nil && c.Context.Err() == nil {
				return w.Flush() // interrupted: a clean stop
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

// tailFlags names the flag behind each StreamConfig field tail sets.
var tailFlags = map[string]string{
	"StartMode": "--from", "StartSnapshot": "--from", "StartTime": "--from",
	"EndSnapshot": "--end", "EndAtLatest": "--end", "Filter": "--filter",
	"Columns": "--columns", "ConsumerID": "--consumer-id", "PollInterval": "--poll-interval",
}

// flagError names the flags of StreamConfig validation errors (the library
// reports each problem as a FieldError); the table name the library put in
// front stays.
func flagError(err error) error {
	msg := err.Error()
	var walk func(e error)
	walk = func(e error) {
		if fe, ok := e.(*paimon.FieldError); ok {
			if flag, ok := tailFlags[fe.Field]; ok {
				msg = strings.Replace(msg, fe.Error(), flag+": "+fe.Err.Error(), 1)
			}
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			if x := u.Unwrap(); x != nil {
				walk(x)
			}
		}
	}
	walk(err)
	if msg == err.Error() {
		return err
	}
	return &flagErr{msg: msg, err: err}
}

type flagErr struct {
	msg string
	err error
}

func (e *flagErr) Error() string { return e.msg }
func (e *flagErr) Unwrap() error { return e.err }
