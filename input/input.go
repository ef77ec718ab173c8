package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/input/checkpoint"
	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// Metadata keys set on every message.
const (
	MetaRowKind    = "paimon_row_kind"
	MetaSnapshotID = "paimon_snapshot_id"
	MetaCommitKind = "paimon_commit_kind"
	MetaCommitTime = "paimon_commit_time"
	MetaSchemaID   = "paimon_schema_id"
	MetaPartition  = "paimon_partition"
	MetaBucket     = "paimon_bucket"
	MetaTable      = "paimon_table"
	MetaFile       = "paimon_file"
)

// finalCommitTimeout bounds the commit in Close: the engine calls Close with
// a context that has no deadline.
const finalCommitTimeout = 10 * time.Second

// Register adds the paimon input to env, reading tables through open.
func Register(env *service.Environment, open Opener) error {
	return env.RegisterBatchInput("paimon", Spec(), NewConstructor(open))
}

// NewConstructor returns the Benthos constructor of the paimon input. It only
// parses configuration: the table is opened in Connect.
func NewConstructor(open Opener) service.BatchInputConstructor {
	return func(pc *service.ParsedConfig, mgr *service.Resources) (service.BatchInput, error) {
		cfg, err := parseConfig(pc)
		if err != nil {
			return nil, err
		}
		// Not wrapped in service.AutoRetryNacksBatched: the input replays
		// rejected batches itself (replay.go says why).
		return newInput(cfg, open, mgr), nil
	}
}

type inputMetrics struct {
	lag       *service.MetricGauge
	rows      *service.MetricCounter
	files     *service.MetricCounter
	bytes     *service.MetricCounter
	plan      *service.MetricTimer
	committed *service.MetricGauge
	dropped   *service.MetricCounter
	replayed  *service.MetricCounter
}

// paimonInput is the service.BatchInput. ReadBatch runs on one goroutine
// and the reading it starts on another (replay.go);
// acks, the committer and Close run on others. Locks: mu guards the
// connection state, readSem serialises ReadBatch against Close's teardown,
// commitMu orders consumer writes so the file never moves backwards.
type paimonInput struct {
	cfg  Config
	open Opener
	log  *service.Logger
	m    inputMetrics

	mu        sync.Mutex
	src       Source
	tracker   *checkpoint.Tracker
	closed    bool
	stopCtx   context.Context
	stop      context.CancelFunc
	committer sync.WaitGroup

	readSem chan struct{}

	// Delivery state, touched only by ReadBatch (never called concurrently
	// with itself): the background read in flight, if any, and whether the
	// source has ended.
	reading   chan readResult
	readEnded bool
	replays   *replayQueue

	// Read state, touched only while holding readSem.
	plan      *Plan
	splitIdx  int
	pf        *prefetcher  // the current split's reader and encoder, nil between splits
	chunk     *encodedRows // rows of the current split decoded and encoded, not yet taken
	chunkRow  int
	splitDone int64 // rows of the current split already delivered (or dropped by upsert_mode)
	skip      int64 // rows to skip after reopening a split
	enc       *rowjson.Encoder
	tmpls     *splitTemplates // metadata templates of the current split
	ended     bool
	limiter   *throttle

	// Progress of the current plan, for the progress log line of long
	// plans (a first full plan of a big table can take minutes).
	planStart     time.Time
	planFiles     int
	planFilesDone int
	planRows      int64
	lastProgress  time.Time
	progressEvery time.Duration

	// Last counters seen from a readCounter source, to turn its totals into
	// metric increments.
	seenFiles, seenBytes int64

	commitMu  sync.Mutex
	committed int64
	lastWrite time.Time
}

// readCounter is implemented by sources that count what their reads really
// fetched. Files pruned by the filter, or read twice after a reconnect, then
// show up in the metrics as they happened; without it the input counts the
// files and bytes of each split it opens.
type readCounter interface {
	// ReadCounts returns running totals of data files opened and their bytes.
	ReadCounts() (files, bytes int64)
}

// progressLogEvery is how often a plan that takes long to read logs its
// progress, so an operator can tell a big first plan from a hung one.
const progressLogEvery = 5 * time.Second

func newInput(cfg Config, open Opener, mgr *service.Resources) *paimonInput {
	mt := mgr.Metrics()
	stopCtx, stop := context.WithCancel(context.Background())
	// Every storage request (each attempt, retries included) is counted by
	// operation, and failed ones separately, so an operator sees what an
	// idle poll or a plan costs on an object store.
	requests := mt.NewCounter("paimon_storage_requests", "operation")
	failures := mt.NewCounter("paimon_storage_request_errors", "operation")
	userHook := cfg.Storage.Metrics
	cfg.Storage.Metrics = func(op string, err error, d time.Duration) {
		requests.Incr(1, op)
		if err != nil {
			failures.Incr(1, op)
		}
		if userHook != nil {
			userHook(op, err, d)
		}
	}
	return &paimonInput{
		cfg:  cfg,
		open: open,
		log:  mgr.Logger(),
		m: inputMetrics{
			lag:       mt.NewGauge("paimon_snapshot_lag"),
			rows:      mt.NewCounter("paimon_rows_read"),
			files:     mt.NewCounter("paimon_files_read"),
			bytes:     mt.NewCounter("paimon_bytes_read"),
			plan:      mt.NewTimer("paimon_plan_latency"),
			committed: mt.NewGauge("paimon_committed_snapshot"),
			dropped:   mt.NewCounter("paimon_rejected_batches"),
			replayed:  mt.NewCounter("paimon_replayed_rows"),
		},
		replays:       newReplayQueue(),
		stopCtx:       stopCtx,
		stop:          stop,
		readSem:       make(chan struct{}, 1),
		limiter:       newThrottle(cfg),
		progressEvery: progressLogEvery,
	}
}

// Connect opens the table. It is cheap to call again once connected.
func (p *paimonInput) Connect(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return service.ErrEndOfInput
	}
	if p.src != nil {
		return nil
	}
	src, err := p.open(ctx, p.cfg)
	if err != nil {
		return p.about("open paimon table", "", true, err)
	}
	if p.cfg.UpsertMode != UpsertOff && len(src.PrimaryKeys()) == 0 {
		_ = src.Close()
		return fmt.Errorf("paimon table %s: upsert_mode %s needs a primary-key table, and this table has no primary key", p.cfg.FullName(), p.cfg.UpsertMode)
	}
	p.src = src
	if p.cfg.ConsumerID != "" {
		p.committer.Add(1)
		go p.commitLoop()
	} else {
		p.log.Warnf("paimon input on %s has no consumer_id: progress is not stored and a restart applies scan_mode %s again", p.cfg.FullName(), p.cfg.ScanMode)
	}
	return nil
}

// about wraps err with what failed and, unless the error already names
// them (the library's errors do), the table and (withWarehouse) the
// warehouse: each layer names the table once.
func (p *paimonInput) about(what, of string, withWarehouse bool, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, p.cfg.FullName()) {
		what += " " + of + p.cfg.FullName()
	}
	if withWarehouse && !strings.Contains(msg, p.cfg.Warehouse) {
		what += " in " + p.cfg.Warehouse
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (p *paimonInput) source() Source {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.src
}

func (p *paimonInput) currentTracker() *checkpoint.Tracker {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tracker
}

// maxInFlightBatches turns checkpoint_limit (rows) into the tracker's unit
// (batches); a full batch is the most rows one Add can stand for.
func (p *paimonInput) maxInFlightBatches() int {
	return max(1, p.cfg.CheckpointLimit/p.cfg.BatchSize)
}

// readBatch reads the next non-empty batch of rows of one split, blocking
// while the table has nothing new. It runs on ReadBatch's background read
// goroutine and waits under the input's stop context only: a caller giving
// up on ReadBatch does not abandon the read, Close does.
func (p *paimonInput) readBatch() (*sentBatch, error) {
	ctx := p.stopCtx
	select {
	case p.readSem <- struct{}{}:
	case <-ctx.Done():
		return nil, service.ErrEndOfInput
	}
	defer func() { <-p.readSem }()

	src := p.source()
	if src == nil {
		if ctx.Err() != nil {
			return nil, service.ErrEndOfInput
		}
		return nil, service.ErrNotConnected
	}
	for {
		if ctx.Err() != nil {
			return nil, service.ErrEndOfInput
		}
		if p.plan == nil {
			if p.ended {
				return nil, service.ErrEndOfInput
			}
			if err := p.nextPlan(ctx, src); err != nil {
				if errors.Is(err, io.EOF) {
					p.ended = true
					return nil, service.ErrEndOfInput
				}
				return nil, err
			}
			continue
		}
		if p.pf == nil {
			if p.splitIdx >= len(p.plan.Splits) {
				p.syncReadCounts(src)
				if !p.lastProgress.IsZero() {
					p.log.Infof("paimon input: snapshot %d of %s read: %d/%d files, %d rows in %s", p.plan.SnapshotID, p.cfg.FullName(), p.planFiles, p.planFiles, p.planRows, time.Since(p.planStart).Round(time.Millisecond))
				}
				if err := p.tracker.End(p.plan.SnapshotID); err != nil {
					return nil, fmt.Errorf("snapshot %d: %w", p.plan.SnapshotID, err)
				}
				p.plan = nil
				continue
			}
			if err := p.openSplit(ctx, src); err != nil {
				return nil, err
			}
		}
		// Back-pressure before reading, so no built batch is ever abandoned.
		if err := p.tracker.Wait(ctx, p.maxInFlightBatches()); err != nil {
			return nil, err
		}
		if err := p.limiter.waitRows(ctx); err != nil {
			return nil, err
		}
		batch, n, err := p.fillBatch()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		p.limiter.addRows(n)
		p.syncReadCounts(src)
		p.planRows += int64(n)
		p.logProgress()
		if batch.ack, err = p.tracker.Add(p.plan.SnapshotID); err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", p.plan.SnapshotID, err)
		}
		p.m.rows.Incr(int64(n))
		return batch, nil
	}
}

func (p *paimonInput) nextPlan(ctx context.Context, src Source) error {
	if err := p.limiter.takeSnapshot(ctx); err != nil {
		return err
	}
	start := time.Now()
	plan, err := src.Next(ctx)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return p.about("plan next snapshot", "of ", false, err)
	}
	if plan.PlanLatency > 0 {
		p.m.plan.Timing(plan.PlanLatency.Nanoseconds())
	} else {
		p.m.plan.Timing(time.Since(start).Nanoseconds())
	}
	if plan.LatestSnapshotID > 0 {
		p.m.lag.Set(max(0, plan.LatestSnapshotID-plan.SnapshotID))
	}
	p.mu.Lock()
	if p.tracker == nil {
		p.tracker = checkpoint.New(plan.SnapshotID)
	}
	tr := p.tracker
	p.mu.Unlock()
	if err := tr.Begin(plan.SnapshotID); err != nil {
		return fmt.Errorf("snapshot %d of %s: %w", plan.SnapshotID, p.cfg.FullName(), err)
	}
	// Sharding is pushed down by the adapter too; filtering again here keeps
	// the input's contract independent of the source.
	kept := plan.Splits[:0:0]
	for _, sp := range plan.Splits {
		if p.cfg.ReadsBucket(sp.Bucket) {
			kept = append(kept, sp)
		}
	}
	plan.Splits = kept
	p.plan, p.splitIdx = plan, 0
	p.planStart, p.lastProgress = time.Now(), time.Time{}
	p.planFiles, p.planFilesDone, p.planRows = 0, 0, 0
	for _, sp := range kept {
		p.planFiles += sp.FileCount
	}
	return nil
}

// logProgress logs how far the current plan is, at most every
// progressEvery and only once the plan has run that long: short plans stay
// quiet, a long one (the first full read of a big table) reports files
// done/total and rows so far.
func (p *paimonInput) logProgress() {
	now := time.Now()
	if now.Sub(p.planStart) < p.progressEvery || now.Sub(p.lastProgress) < p.progressEvery {
		return
	}
	p.lastProgress = now
	p.log.Infof("paimon input: reading snapshot %d of %s: %d/%d files, %d rows so far, %s elapsed", p.plan.SnapshotID, p.cfg.FullName(), p.planFilesDone, p.planFiles, p.planRows, now.Sub(p.planStart).Round(time.Second))
}

// syncReadCounts moves the source's read counters into the metrics.
func (p *paimonInput) syncReadCounts(src Source) {
	rc, ok := src.(readCounter)
	if !ok {
		return
	}
	files, bytes := rc.ReadCounts()
	if d := files - p.seenFiles; d > 0 {
		p.m.files.Incr(d)
	}
	if d := bytes - p.seenBytes; d > 0 {
		p.m.bytes.Incr(d)
	}
	p.seenFiles, p.seenBytes = files, bytes
}

func (p *paimonInput) openSplit(ctx context.Context, src Source) error {
	sp := p.plan.Splits[p.splitIdx]
	if p.splitDone == 0 {
		if err := p.limiter.takeFiles(ctx, sp.FileCount); err != nil {
			return err
		}
	}
	// The reader outlives this ReadBatch call (a split spans many batches),
	// so it must not hold the call's context: that is cancelled when the
	// call returns, and the next batch would fail and re-read the split from
	// the start. stopCtx lives until Close.
	rr, err := src.Read(p.stopCtx, sp)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("read split bucket %d of snapshot %d of %s (file %s): %w", sp.Bucket, p.plan.SnapshotID, p.cfg.FullName(), sp.File, err)
	}
	if p.enc == nil || !p.enc.Schema().Equal(rr.Schema()) {
		enc, err := rowjson.NewEncoder(rr.Schema())
		if err != nil {
			rr.Release()
			return fmt.Errorf("table %s: %w", p.cfg.FullName(), err)
		}
		if p.enc != nil {
			p.log.Infof("paimon input: table %s schema changed at snapshot %d (schema id %d): %s", p.cfg.FullName(), p.plan.SnapshotID, p.plan.SchemaID, describeSchemaChange(p.enc.Schema(), rr.Schema()))
		}
		p.enc = enc
	}
	if _, counted := src.(readCounter); p.splitDone == 0 && !counted {
		p.m.files.Incr(int64(sp.FileCount))
		p.m.bytes.Incr(sp.Bytes)
	}
	p.pf = startPrefetch(p.stopCtx, rr, p.enc, p.dropKind)
	p.chunk, p.chunkRow, p.skip = nil, 0, p.splitDone
	p.tmpls = &splitTemplates{}
	return nil
}

func (p *paimonInput) releaseReader() {
	if p.pf != nil {
		p.pf.stop()
	}
	p.pf, p.chunk, p.chunkRow = nil, nil, 0
}

// fillBatch reads up to batch_size rows of the current split. At the end of
// the split it moves on to the next one. On a reader error the split is
// reopened by the next call, skipping the rows already delivered.
//
// The rows arrive decoded and JSON-encoded from the split's prefetch
// goroutines (prefetch.go), so that decoding and encoding the next record
// batches overlap with cutting and delivering this one. Batch boundaries,
// skipping and error positions are decided here exactly as if the rows were
// read inline. The batch is kept as row positions (replay.go).
func (p *paimonInput) fillBatch() (*sentBatch, int, error) {
	sp := p.plan.Splits[p.splitIdx]
	batch := &sentBatch{tmpls: p.tmpls}
	n := 0 // rows that become messages
	var partition service.ImmutableAny
	if sp.Partition != nil {
		partition = service.ImmutableAny{V: sp.Partition}
	} else {
		partition = service.ImmutableAny{V: map[string]any{}}
	}
	taken := int64(0)
	for n < p.cfg.BatchSize {
		if p.chunk == nil || p.chunkRow >= p.chunk.n {
			c, encodeErr, err := p.pf.next()
			if c == nil {
				p.releaseReader()
				if err != nil {
					// Rows of this partial batch are not delivered.
					if encodeErr {
						return nil, 0, fmt.Errorf("split bucket %d of snapshot %d of %s: %w", sp.Bucket, p.plan.SnapshotID, p.cfg.FullName(), err)
					}
					return nil, 0, fmt.Errorf("read split bucket %d of snapshot %d of %s (file %s): %w", sp.Bucket, p.plan.SnapshotID, p.cfg.FullName(), sp.File, err)
				}
				p.splitDone += taken
				if p.skip > 0 {
					return nil, 0, fmt.Errorf("split bucket %d of snapshot %d of %s (file %s) has fewer rows on re-read than already delivered", sp.Bucket, p.plan.SnapshotID, p.cfg.FullName(), sp.File)
				}
				p.planFilesDone += sp.FileCount
				p.splitIdx++
				p.splitDone = 0
				return batch, n, nil
			}
			p.chunk, p.chunkRow = c, 0
			continue
		}
		if p.skip > 0 {
			k := min(p.skip, int64(p.chunk.n-p.chunkRow))
			p.chunkRow += int(k)
			p.skip -= k
			continue
		}
		i := p.chunkRow
		p.chunkRow++
		taken++
		kind := p.chunk.kind(i)
		if p.dropKind(kind) {
			continue
		}
		// Every row of a split has the same metadata but its kind, so each
		// message will be a shallow copy of a per-kind template: Benthos
		// shares the template's metadata map copy-on-write instead of
		// building one map per row (that was a third of the input's CPU
		// time). The template is made now, while the plan it describes is
		// current; the batch may be built again much later (replays).
		p.template(kind, sp, partition)
		batch.add(p.chunk, i)
		n++
	}
	p.splitDone += taken
	return batch, n, nil
}

// template makes sure the current split has the metadata template of kind.
// Templates are per split: openSplit starts a new set.
func (p *paimonInput) template(kind string, sp *Split, partition service.ImmutableAny) {
	if p.tmpls.get(kind) != nil {
		return
	}
	msg := service.NewMessage(nil)
	p.setMeta(msg, kind, sp, partition)
	p.tmpls.put(kind, msg)
}

// kindIndex maps the row kinds to template slots, -1 for a kind that is
// not cached.
func kindIndex(kind string) int {
	switch kind {
	case "":
		return 0
	case "+I":
		return 1
	case "-U":
		return 2
	case "+U":
		return 3
	case "-D":
		return 4
	}
	return -1
}

func (p *paimonInput) dropKind(kind string) bool {
	switch p.cfg.UpsertMode {
	case UpsertDropUpdateBefore:
		return kind == "-U"
	case UpsertDropUpdateBeforeAndDelete:
		return kind == "-U" || kind == "-D"
	}
	return false
}

func (p *paimonInput) setMeta(msg *service.Message, kind string, sp *Split, partition service.ImmutableAny) {
	if kind != "" {
		msg.MetaSetMut(MetaRowKind, kind)
	}
	msg.MetaSetMut(MetaSnapshotID, p.plan.SnapshotID)
	msg.MetaSetMut(MetaCommitKind, p.plan.CommitKind)
	if !p.plan.CommitTime.IsZero() {
		msg.MetaSetMut(MetaCommitTime, p.plan.CommitTime)
	}
	msg.MetaSetMut(MetaSchemaID, p.plan.SchemaID)
	msg.MetaSetImmut(MetaPartition, partition)
	msg.MetaSetMut(MetaBucket, int64(sp.Bucket))
	msg.MetaSetMut(MetaTable, p.cfg.FullName())
	if sp.File != "" {
		msg.MetaSetMut(MetaFile, sp.File)
	}
}

func (p *paimonInput) commitLoop() {
	defer p.committer.Done()
	tick := p.cfg.CommitPeriod
	if p.cfg.HeartbeatInterval > 0 && p.cfg.HeartbeatInterval < tick {
		tick = p.cfg.HeartbeatInterval
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-p.stopCtx.Done():
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(p.stopCtx, max(p.cfg.CommitPeriod, finalCommitTimeout))
			p.commit(ctx, false)
			cancel()
		}
	}
}

// commit writes the tracker's committable position when it moved, or when
// the heartbeat is due (forced on close). Failures are logged and retried on
// the next tick: a lagging consumer file only means re-delivery after a
// restart, never loss.
func (p *paimonInput) commit(ctx context.Context, final bool) {
	p.commitMu.Lock()
	defer p.commitMu.Unlock()
	tr, src := p.currentTracker(), p.source()
	if tr == nil || src == nil {
		return
	}
	next := tr.Committable()
	heartbeat := p.cfg.HeartbeatInterval > 0 && p.committed > 0 && time.Since(p.lastWrite) >= p.cfg.HeartbeatInterval
	if next < p.committed || (next == p.committed && (final || !heartbeat)) {
		return
	}
	if err := src.Commit(ctx, next); err != nil {
		p.log.Errorf("paimon input: commit consumer %s of %s at nextSnapshot %d: %v", p.cfg.ConsumerID, p.cfg.FullName(), next, err)
		return
	}
	p.committed, p.lastWrite = next, time.Now()
	p.m.committed.Set(next)
}

// Close stops reading, waits for an in-flight ReadBatch to notice, writes
// the final consumer position and closes the source. Safe to call more than
// once and concurrently with ReadBatch.
func (p *paimonInput) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.stop()
	p.mu.Unlock()
	p.committer.Wait()

	acquired := false
	select {
	case p.readSem <- struct{}{}:
		acquired = true
	case <-ctx.Done():
	}
	if acquired {
		p.releaseReader()
		<-p.readSem
	}
	if p.cfg.ConsumerID != "" {
		cctx, cancel := context.WithTimeout(ctx, finalCommitTimeout)
		p.commit(cctx, true)
		cancel()
	}
	p.mu.Lock()
	src := p.src
	p.src = nil
	p.mu.Unlock()
	if src != nil {
		if err := src.Close(); err != nil {
			return fmt.Errorf("close paimon table %s: %w", p.cfg.FullName(), err)
		}
	}
	if !acquired {
		return ctx.Err()
	}
	return nil
}

// describeSchemaChange names the columns added, dropped and retyped between
// two read schemas, so the log says what downstream consumers will see
// change in the message bodies. The row kind column is not part of the body
// and is left out.
func describeSchemaChange(old, cur *arrow.Schema) string {
	var added, dropped, changed []string
	for _, f := range cur.Fields() {
		if f.Name == paimon.RowKindColumn {
			continue
		}
		idx := old.FieldIndices(f.Name)
		switch {
		case len(idx) == 0:
			added = append(added, fmt.Sprintf("%s %s", f.Name, f.Type))
		case !arrow.TypeEqual(old.Field(idx[0]).Type, f.Type) || old.Field(idx[0]).Nullable != f.Nullable:
			changed = append(changed, fmt.Sprintf("%s %s -> %s", f.Name, old.Field(idx[0]).Type, f.Type))
		}
	}
	for _, f := range old.Fields() {
		if f.Name != paimon.RowKindColumn && len(cur.FieldIndices(f.Name)) == 0 {
			dropped = append(dropped, f.Name)
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added columns ["+strings.Join(added, ", ")+"]")
	}
	if len(dropped) > 0 {
		parts = append(parts, "dropped columns ["+strings.Join(dropped, ", ")+"]")
	}
	if len(changed) > 0 {
		parts = append(parts, "changed columns ["+strings.Join(changed, ", ")+"]")
	}
	if len(parts) == 0 {
		return "columns reordered or field metadata changed"
	}
	return strings.Join(parts, "; ")
}
