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
		Description: `The flags are the paimon input's fields, one to one (scan_mode is
--scan-mode, end.snapshot_id is --end-snapshot-id, ...), with the same values
and defaults (poll interval 1s here):
  --scan-mode latest-full (default)   the latest snapshot in full, then changes
  --scan-mode latest                  only snapshots committed from now on
  --scan-mode from-snapshot --snapshot-id N       the changes of snapshot N and later
  --scan-mode from-snapshot-full --snapshot-id N  snapshot N in full, then changes
  --scan-mode from-timestamp --timestamp RFC3339  changes committed at or after the time
  --scan-mode compacted-full          the newest compacted snapshot in full, then changes
Underscores are accepted for the hyphens, as in the input. --end-snapshot-id N
or --end-at-latest stops after that snapshot; without them tail follows the
table until interrupted. With --consumer-id the position is resumed from and
committed to consumer/consumer-<id> after each snapshot's rows are written.
--include-row-kind puts the row kind the input sets as paimon_row_kind (+I,
-U, +U, -D) first in each line, as "_row_kind".
Older spellings still work: --from latest-full|latest|earliest|compacted-full|
snapshot:N|snapshot-full:N|timestamp:T, --end snapshot:N|latest, --row-kind.`,
		Flags: append(tableFlags(),
			&cli.StringFlag{Name: "scan-mode", Value: "latest-full", Usage: "where reading starts without a consumer position (input field scan_mode)"},
			&cli.Int64Flag{Name: "snapshot-id", Usage: "first snapshot of from-snapshot and from-snapshot-full (snapshot_id)"},
			&cli.StringFlag{Name: "timestamp", Usage: "start time of from-timestamp, RFC 3339 (timestamp)"},
			&cli.Int64Flag{Name: "end-snapshot-id", Usage: "stop after this snapshot (end.snapshot_id)"},
			&cli.BoolFlag{Name: "end-at-latest", Usage: "stop after the snapshot that is the latest at start (end.at_latest)"},
			&cli.StringFlag{Name: "filter", Usage: "row filter, e.g. \"region = 'eu' AND amount >= 0\" (filter)"},
			&cli.StringFlag{Name: "columns", Usage: "comma-separated columns to print, default all (columns)"},
			&cli.StringFlag{Name: "consumer-id", Usage: "resume from and commit to this consumer (consumer_id)"},
			&cli.BoolFlag{Name: "include-row-kind", Aliases: []string{"row-kind"}, Usage: "put the row kind (+I, -U, +U, -D) first in each line as \"_row_kind\" (include_row_kind; metadata paimon_row_kind)"},
			&cli.StringFlag{Name: "on-expired", Value: "fail", Usage: "fail, earliest or latest-full when the consumer's next snapshot has expired (on_expired)"},
			&cli.BoolFlag{Name: "streaming-read-overwrite", Usage: "deliver the rows of OVERWRITE snapshots (streaming_read_overwrite)"},
			&cli.DurationFlag{Name: "poll-interval", Value: time.Second, Usage: "wait between looks for a new snapshot (poll_interval)"},
			&cli.StringFlag{Name: "from", Usage: "older spelling of the start: latest-full, latest, earliest, compacted-full, snapshot:N, snapshot-full:N, timestamp:RFC3339", Category: "older spellings"},
			&cli.StringFlag{Name: "end", Usage: "older spelling of the end: `snapshot:N` or latest", Category: "older spellings"},
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

// startFlags reads the start position: --scan-mode with --snapshot-id or
// --timestamp (the input's fields), or the older --from.
func startFlags(c *cli.Context) (startSpec, error) {
	if c.IsSet("from") {
		if c.IsSet("scan-mode") || c.IsSet("snapshot-id") || c.IsSet("timestamp") {
			return startSpec{}, errors.New("--from is the older spelling of --scan-mode with --snapshot-id/--timestamp: give one or the other")
		}
		return parseFrom(c.String("from"))
	}
	mode, err := paimon.ParseStartMode(strings.ReplaceAll(strings.ToLower(c.String("scan-mode")), "_", "-"))
	if err != nil {
		return startSpec{}, fmt.Errorf("--scan-mode: %w", err)
	}
	st := startSpec{mode: mode}
	if c.IsSet("snapshot-id") {
		if st.snap = c.Int64("snapshot-id"); st.snap < 1 {
			return startSpec{}, fmt.Errorf("--snapshot-id must be at least 1, got %d", st.snap)
		}
	}
	if c.IsSet("timestamp") {
		if st.at, err = time.Parse(time.RFC3339Nano, c.String("timestamp")); err != nil {
			return startSpec{}, fmt.Errorf("--timestamp %q is not RFC 3339: %w", c.String("timestamp"), err)
		}
	}
	return st, nil
}

// endFlags reads the end bound: --end-snapshot-id / --end-at-latest, or the
// older --end.
func endFlags(c *cli.Context) (int64, bool, error) {
	if c.IsSet("end") {
		if c.IsSet("end-snapshot-id") || c.IsSet("end-at-latest") {
			return 0, false, errors.New("--end is the older spelling of --end-snapshot-id/--end-at-latest: give one or the other")
		}
		return parseEnd(c.String("end"))
	}
	var n int64
	if c.IsSet("end-snapshot-id") {
		if n = c.Int64("end-snapshot-id"); n < 1 {
			return 0, false, fmt.Errorf("--end-snapshot-id must be at least 1, got %d", n)
		}
	}
	return n, c.Bool("end-at-latest"), nil
}

func tailRun(c *cli.Context, sio stdio) error {
	if _, err := exactArgs(c, 0, ""); err != nil {
		return err
	}
	from, err := startFlags(c)
	if err != nil {
		return err
	}
	end, endLatest, err := endFlags(c)
	if err != nil {
		return err
	}
	onExpired, err := paimon.ParseExpiredPolicy(strings.ReplaceAll(strings.ToLower(c.String("on-expired")), "_", "-"))
	if err != nil {
		return fmt.Errorf("--on-expired: %w", err)
	}
	// Unset, the table's own streaming-read-overwrite option applies.
	var overwrite *bool
	if c.IsSet("streaming-read-overwrite") {
		v := c.Bool("streaming-read-overwrite")
		overwrite = &v
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
		PollInterval: c.Duration("poll-interval"), IncludeRowKind: c.Bool("include-row-kind"),
		OnExpired: onExpired, StreamingReadOverwrite: overwrite,
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
	"StartMode": "--scan-mode", "StartSnapshot": "--snapshot-id", "StartTime": "--timestamp",
	"EndSnapshot": "--end-snapshot-id", "EndAtLatest": "--end-at-latest", "Filter": "--filter",
	"Columns": "--columns", "ConsumerID": "--consumer-id", "PollInterval": "--poll-interval",
	"OnExpired": "--on-expired",
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
