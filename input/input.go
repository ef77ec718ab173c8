package input

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/service"
	"go.opentelemetry.io/otel/trace"

	"github.com/connect-paimon/connect-paimon/input/internal/checkpoint"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
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

// Register adds the paimon input to env, for a binary that runs its own
// service.Environment (importing the package registers it in Benthos'
// global one).
func Register(env *service.Environment) error { return register(env, openTable) }

// register adds the paimon input to env, reading tables through open (the
// tests' fakes, or openTable).
func register(env *service.Environment, open opener) error {
	return env.RegisterBatchInput("paimon", inputSpec(), newConstructor(open))
}

// newConstructor returns the Benthos constructor of the paimon input. It only
// parses configuration: the table is opened in Connect.
func newConstructor(open opener) service.BatchInputConstructor {
	return func(pc *service.ParsedConfig, mgr *service.Resources) (service.BatchInput, error) {
		cfg, err := parseConfig(pc)
		if err != nil {
			return nil, err
		}
		if cfg.Group != nil {
			return newGroupInput(cfg, open, mgr), nil
		}
		// Not wrapped in service.AutoRetryNacksBatched: the input replays
		// rejected batches itself (deliver.go says why).
		in := newInput(cfg, open, mgr)
		if !cfg.Batching.IsNoop() {
			if in.cur.batcher, err = cfg.Batching.NewBatcher(mgr); err != nil {
				return nil, fieldError(fieldBatching, "%v", err)
			}
		}
		return in, nil
	}
}

type inputMetrics struct {
	lag       tableGauge
	rows      tableCounter
	files     tableCounter
	bytes     tableCounter
	plan      tableTimer
	committed tableGauge
	dropped   tableCounter
	replayed  tableCounter
	progress  progressMetrics
	// exactlyonce.go
	txnCommit  tableTimer
	txnRewinds tableCounter
	// lag.go
	lagSnapshots, lagSeconds, rowsPending, headroom tableGauge
}

// Every metric of the input carries a table label (Connect's habit: one
// label per resource a component works on), so two inputs on different
// tables of one pipeline are told apart without relying on component paths.
const labelTable = "table"

type tableCounter struct {
	c     *service.MetricCounter
	table string
}

func (c tableCounter) Incr(n int64) { c.c.Incr(n, c.table) }

type tableGauge struct {
	g     *service.MetricGauge
	table string
}

// Set sets the gauge; a zero tableGauge sets nothing (the per-position
// gauges of a group's slot readers, which would overwrite each other).
func (g tableGauge) Set(n int64) {
	if g.g != nil {
		g.g.Set(n, g.table)
	}
}

type tableTimer struct {
	t     *service.MetricTimer
	table string
}

func (t tableTimer) Timing(ns int64) { t.t.Timing(ns, t.table) }

// newInputMetrics registers the input's metrics and reports every counter
// at 0 at once: an exporter such as Prometheus shows a labelled
// series only once it has been touched, and a dashboard or an alert on
// rate(paimon_rows_read) must see the series from start, not from the first
// row.
func newInputMetrics(mt *service.Metrics, table string) inputMetrics {
	c := func(name string) tableCounter {
		tc := tableCounter{mt.NewCounter(name, labelTable), table}
		tc.Incr(0)
		return tc
	}
	// Gauges are not: a lag or committed snapshot of 0 before the first
	// plan or commit would be a value the input never had.
	g := func(name string) tableGauge { return tableGauge{mt.NewGauge(name, labelTable), table} }
	return inputMetrics{
		lag:       g("paimon_snapshot_lag"),
		rows:      c("paimon_rows_read"),
		files:     c("paimon_files_read"),
		bytes:     c("paimon_bytes_read"),
		plan:      tableTimer{mt.NewTimer("paimon_plan_latency_ns", labelTable), table},
		committed: g("paimon_committed_snapshot"),
		dropped:   c("paimon_rejected_batches"),
		replayed:  c("paimon_replayed_rows"),
		progress:  newProgressMetrics(g),

		txnCommit:  tableTimer{mt.NewTimer("paimon_transaction_commit_ns", labelTable), table},
		txnRewinds: c("paimon_transaction_rewinds"),

		lagSnapshots: g("paimon_lag_snapshots"),
		lagSeconds:   g("paimon_lag_seconds"),
		rowsPending:  g("paimon_rows_pending"),
		headroom:     g("paimon_expiry_headroom_snapshots"),
	}
}

// paimonInput is the service.BatchInput. ReadBatch runs on one goroutine
// and the reading it starts on another (deliver.go);
// acks, the committer and Close run on others. Locks: mu guards the
// connection state, readSem serialises ReadBatch against Close's teardown,
// commitMu orders consumer writes so the file never moves backwards.
type paimonInput struct {
	cfg  config
	open opener
	res  *service.Resources
	log  *service.Logger
	m    inputMetrics
	// tr makes the input's own spans (plan, split read, consumer commit)
	// on the pipeline's tracer (a no-op one unless `tracer:` is set).
	tr trace.Tracer

	mu      sync.Mutex
	src     source
	tracker *checkpoint.Tracker
	// win is the reader's share of the delivery window (window.go).
	win     *lease
	closed  bool
	stopErr atomic.Pointer[error] // the permanent error the input stopped on (fatal.go)
	// minCommit is the lowest position the consumer may be written with:
	// past a full plan being delivered (set by the read, read by commits).
	minCommit atomic.Int64
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
	cur     splitCursor
	ended   bool
	limiter *throttle

	// Progress of the current plan, for the progress log line of long
	// plans (a first full plan of a big table can take minutes).
	planStart     time.Time
	planFiles     int
	planFilesDone int
	planRows      int64
	planBytes     int64 // data file bytes of the plan's splits
	planBytesDone int64 // of the splits read to their end
	planRowsTotal int64 // rows the manifests record for the plan's files
	lastProgress  time.Time
	lastMetrics   time.Time
	progressEvery time.Duration

	// Last counters seen from a readCounter source, to turn its totals into
	// metric increments.
	seenFiles, seenBytes int64

	commitMu  sync.Mutex
	committed int64
	lastWrite time.Time

	// lagReport, when set (a group's slot reader), receives the lag
	// values instead of the input's own gauges.
	lagReport func(lagValues)

	// eo is the exactly-once state (exactlyonce.go), nil unless the
	// stream's output commits transactionally; set by Connect.
	eo *eoState
	// loops: the committer and lag goroutines run (started by the first
	// Connect; a reconnect after a rewind keeps them).
	loops bool
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

func newInput(cfg config, open opener, mgr *service.Resources) *paimonInput {
	mt := mgr.Metrics()
	log := mgr.Logger()
	cfg.warn = func(msg string) { log.Warnf("paimon input on %s: %s", cfg.FullName(), msg) }
	stopCtx, stop := context.WithCancel(context.Background())
	// Every storage request (each attempt, retries included) is counted by
	// operation, and failed ones separately, so an operator sees what an
	// idle poll or a plan costs on an object store.
	table := cfg.FullName()
	requests := mt.NewCounter("paimon_storage_requests", "operation", labelTable)
	failures := mt.NewCounter("paimon_storage_request_errors", "operation", labelTable)
	userHook := cfg.Storage.Metrics
	cfg.Storage.Metrics = func(op string, err error, d time.Duration) {
		requests.Incr(1, op, table)
		if err != nil {
			failures.Incr(1, op, table)
		}
		if userHook != nil {
			userHook(op, err, d)
		}
	}
	win := cfg.window
	if win == nil {
		win = newWindow(cfg.CheckpointLimit, cfg.CheckpointLimitBytes)
	}
	return &paimonInput{
		cfg:           cfg,
		open:          open,
		res:           mgr,
		log:           mgr.Logger(),
		m:             newInputMetrics(mt, table),
		tr:            mgr.OtelTracer().Tracer(tracerName),
		replays:       newReplayQueue(),
		stopCtx:       stopCtx,
		stop:          stop,
		readSem:       make(chan struct{}, 1),
		limiter:       newThrottle(cfg),
		cur:           newSplitCursor(cfg),
		win:           win.lease(),
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
	if p.stopErr.Load() != nil {
		return service.ErrEndOfInput
	}
	cfg, err := p.eoConnect(ctx)
	if err != nil {
		return p.stopOnPermanent(p.about("connect", "to ", false, err))
	}
	src, err := p.open(ctx, cfg)
	if err != nil {
		return p.stopOnPermanent(p.about("connect", "to ", true, err))
	}
	if p.cfg.UpsertMode != upsertOff && len(src.PrimaryKeys()) == 0 {
		_ = src.Close()
		return p.stopOnPermanent(&paimon.FieldError{Field: fieldUpsertMode,
			Err: fmt.Errorf("upsert_mode %s needs a primary-key table, and %s has no primary key", p.cfg.UpsertMode, p.cfg.FullName())})
	}
	p.src = src
	if p.loops {
		return nil
	}
	p.loops = true
	if ls, ok := src.(lagSource); ok {
		p.committer.Add(1)
		go p.lagLoop(ls)
	}
	if p.cfg.Read.ConsumerID != "" {
		p.committer.Add(1)
		go p.commitLoop()
	} else if r := p.cfg.Read; r.EndSnapshot == 0 && !r.EndAtLatest && r.StartMode != paimon.StartFromTag {
		// A bounded read (an end bound, a tag) is meant to be run again
		// from its start; only a read that follows the table loses its
		// place on a restart.
		p.log.Warnf("paimon input on %s has no consumer_id: progress is not stored and a restart applies scan_mode %s again", p.cfg.FullName(), p.cfg.Read.StartMode)
	}
	return nil
}

// about wraps err with what failed and, unless the error already names
// them (the library's errors do), the table and (withWarehouse) the
// warehouse: each layer names the table once.
func (p *paimonInput) about(what, of string, withWarehouse bool, err error) error {
	msg := err.Error()
	var where []string
	if !strings.Contains(msg, p.cfg.FullName()) {
		where = append(where, of+p.cfg.FullName())
	}
	if withWarehouse && !strings.Contains(msg, p.cfg.Warehouse) {
		where = append(where, "in "+p.cfg.Warehouse)
	}
	if len(where) == 0 {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s %s: %w", what, strings.Join(where, " "), err)
}

func (p *paimonInput) source() source {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.src
}

func (p *paimonInput) currentTracker() *checkpoint.Tracker {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tracker
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
	p.mu.Unlock()
	// Before the stop cancels the split's reader: it can still tell
	// whether the snapshot's last batch was its end (endReadPlan). A read
	// in progress holds readSem; it ends the snapshot itself if it can.
	select {
	case p.readSem <- struct{}{}:
		p.endReadPlan()
		<-p.readSem
	default:
	}
	p.mu.Lock()
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
		p.endReadPlan()
		p.cur.release()
		p.eoFinal(ctx)
		<-p.readSem
	}
	p.finalCommit(ctx)
	p.win.close()
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
		if f.Name == types.RowKindColumn {
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
		if f.Name != types.RowKindColumn && len(cur.FieldIndices(f.Name)) == 0 {
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
