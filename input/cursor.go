package input

import (
	"context"
	"fmt"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/redpanda-data/benthos/v4/public/service"
	"go.opentelemetry.io/otel/trace"

	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// splitCursor is the input's read position: the plan being read, which of
// its splits, that split's reader pipeline (prefetch.go), the encoded rows
// not yet cut into batches, how many rows of the split were already
// delivered (so a split reopened after an error skips them) and the split's
// metadata templates. It is touched only by the reading goroutine, under
// the input's readSem.
type splitCursor struct {
	table     string     // db.table, for metadata and errors
	batchSize int        // rows per batch
	perMsg    int        // rows per message (rows_per_message)
	upsert    upsertMode // row kinds dropped before delivery
	// consumer is set in exactly-once reads: every message names the
	// consumer whose transaction it belongs to.
	consumer string

	plan      *snapshotPlan
	splitIdx  int
	pf        *prefetcher  // the current split's reader and encoder, nil between splits
	chunk     *encodedRows // rows of the current split decoded and encoded, not yet taken
	chunkRow  int
	splitDone int64 // rows of the current split already delivered (or dropped by upsert_mode)
	skip      int64 // rows to skip after reopening a split
	enc       *rowjson.Encoder
	keyEnc    *keyEncoder          // primary key JSON of each row (MetaKey), nil without a key
	keyed     bool                 // the table has a primary key
	schema    service.ImmutableAny // MetaSchema of enc's record schema
	tmpls     *splitTemplates      // metadata templates of the current split
	meta      splitMeta            // metadata of the current split
	// batcher, when the batching field is set, decides where a batch ends
	// within batch_size: it sees each message as it would be delivered and
	// is emptied at every batch end (the batch itself is kept as rows).
	batcher *service.Batcher
	span    trace.Span // the current split's paimon.read_split, ended by release
	// token, while a split is open in a group's slot reader, is the
	// replica's split semaphore it holds (splitReaders).
	token chan struct{}
}

// dropToken gives the replica's split semaphore back, if held.
func (c *splitCursor) dropToken() {
	if c.token != nil {
		<-c.token
		c.token = nil
	}
}

func newSplitCursor(cfg config) splitCursor {
	return splitCursor{table: cfg.FullName(), batchSize: cfg.BatchSize, perMsg: max(1, cfg.RowsPerMessage), upsert: cfg.UpsertMode}
}

// setPlan moves the cursor to the first split of plan (nil: between plans).
func (c *splitCursor) setPlan(plan *snapshotPlan) { c.plan, c.splitIdx = plan, 0 }

// split is the current split.
func (c *splitCursor) split() planSplit { return c.plan.Splits[c.splitIdx] }

// planDone reports whether every split of the plan was read.
func (c *splitCursor) planDone() bool { return c.splitIdx >= len(c.plan.Splits) }

// open reports whether the current split has a running reader.
func (c *splitCursor) open() bool { return c.pf != nil }

// start makes pf the current split's reader, skipping the rows already
// delivered; parts is the Arrow schema of the partition columns.
func (c *splitCursor) start(pf *prefetcher, sp planSplit, parts *arrow.Schema) {
	c.pf = pf
	c.chunk, c.chunkRow, c.skip = nil, 0, c.splitDone
	c.tmpls = &splitTemplates{}
	c.meta = splitMeta{bucket: int64(sp.Bucket()), partition: service.ImmutableAny{V: rowjson.Partition(sp.PartitionKeys(), sp.Partition(), parts)}}
	if files := sp.Files(); len(files) > 0 {
		c.meta.file = files[0]
	}
}

// splitMeta is the metadata every message of the current split shares.
type splitMeta struct {
	bucket    int64
	file      string // the split's first data file
	partition service.ImmutableAny
}

// release stops the current split's reader; the position stays, so the
// split can be reopened.
func (c *splitCursor) release() {
	c.releaseErr(nil)
}

// releaseErr is release after a read failed with err (nil: it did not),
// which the split's span records.
func (c *splitCursor) releaseErr(err error) {
	if c.pf != nil {
		c.pf.stop()
	}
	c.dropToken()
	if c.span != nil {
		endSpan(c.span, err)
		c.span = nil
	}
	c.pf, c.chunk, c.chunkRow = nil, nil, 0
}

// openSplit opens the cursor's current split and starts its prefetcher,
// resuming after the rows already delivered when it is reopened after an
// error. The encoder is kept while the record schema stays the same.
func (p *paimonInput) openSplit(ctx context.Context, src source) (err error) {
	sp := p.cur.split()
	if p.cur.splitDone == 0 {
		if err := p.limiter.takeFiles(ctx, sp.FileCount()); err != nil {
			return err
		}
	}
	if sem := p.cfg.splitReaders; sem != nil {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		p.cur.token = sem
		defer func() {
			if err != nil {
				p.cur.dropToken()
			}
		}()
	}
	// The reader outlives this ReadBatch call (a split spans many batches),
	// so it must not hold the call's context: that is cancelled when the
	// call returns, and the next batch would fail and re-read the split from
	// the start. stopCtx lives until Close.
	_, span := p.tr.Start(ctx, spanReadSplit, trace.WithAttributes(attrTable.String(p.cfg.FullName()),
		attrSnapshot.Int64(p.cur.plan.SnapshotID), attrBucket.Int(int(sp.Bucket())), attrFiles.Int(sp.FileCount()), attrSkip.Int64(p.cur.splitDone)))
	rr, err := src.Read(p.stopCtx, sp)
	if err != nil {
		endSpan(span, err)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("read split bucket %d of snapshot %d of %s (%d files): %w", sp.Bucket(), p.cur.plan.SnapshotID, p.cfg.FullName(), sp.FileCount(), err)
	}
	if p.cur.enc == nil || !p.cur.enc.Schema().Equal(rr.Schema()) {
		enc, err := rowjson.NewEncoder(rr.Schema())
		if err != nil {
			rr.Release()
			endSpan(span, err)
			return fmt.Errorf("table %s: %w", p.cfg.FullName(), err)
		}
		meta, err := schemaMeta(rr.Schema())
		if err != nil {
			rr.Release()
			endSpan(span, err)
			return fmt.Errorf("table %s: %w", p.cfg.FullName(), err)
		}
		p.cur.schema = meta
		if p.cur.enc != nil {
			p.log.Infof("paimon input: table %s schema changed at snapshot %d (schema id %d): %s", p.cfg.FullName(), p.cur.plan.SnapshotID, p.cur.plan.SchemaID, describeSchemaChange(p.cur.enc.Schema(), rr.Schema()))
		}
		p.cur.enc = enc
		keys := src.PrimaryKeys()
		p.cur.keyed = len(keys) > 0
		if p.cfg.OmitKey || p.cfg.RowsPerMessage > 1 {
			// Nothing would carry the key: do not encode it.
			keys = nil
		}
		if p.cur.keyEnc, err = newKeyEncoder(rr.Schema(), keys); err != nil {
			rr.Release()
			endSpan(span, err)
			return fmt.Errorf("table %s: primary key: %w", p.cfg.FullName(), err)
		}
	}
	if _, counted := src.(readCounter); p.cur.splitDone == 0 && !counted {
		p.m.files.Incr(int64(sp.FileCount()))
		p.m.bytes.Incr(sp.Bytes())
	}
	p.cur.start(startPrefetch(p.stopCtx, rr, p.cur.enc, p.cur.keyEnc, p.cfg.UpsertMode.drops), sp, src.PartitionSchema())
	p.cur.span = span
	return nil
}

// fill reads up to batch_size rows of the current split. At the end of
// the split it moves on to the next one. On a reader error the split is
// reopened by the next call, skipping the rows already delivered.
//
// The rows arrive decoded and JSON-encoded from the split's prefetch
// goroutines (prefetch.go), so that decoding and encoding the next record
// batches overlap with cutting and delivering this one. Batch boundaries,
// skipping and error positions are decided here exactly as if the rows were
// read inline. The batch is kept as row positions (deliver.go). filesDone
// is the file count of a split that ended, for the plan's progress.
func (c *splitCursor) fill() (batch *sentBatch, n int, filesDone int, err error) {
	sp := c.split()
	batch = &sentBatch{tmpls: c.tmpls, perMsg: c.perMsg}
	// n counts the rows that become messages.
	taken := int64(0)
	for n < c.batchSize {
		if c.chunk == nil || c.chunkRow >= c.chunk.n {
			rows, encodeErr, err := c.pf.next()
			if rows == nil {
				if err == nil && c.span != nil {
					c.span.SetAttributes(attrRows.Int64(c.splitDone + taken))
				}
				c.releaseErr(err)
				if err != nil {
					// Rows of this partial batch are not delivered.
					if encodeErr {
						return nil, 0, 0, fmt.Errorf("split bucket %d of snapshot %d of %s: %w", c.meta.bucket, c.plan.SnapshotID, c.table, err)
					}
					return nil, 0, 0, fmt.Errorf("read split bucket %d of snapshot %d of %s (file %s): %w", c.meta.bucket, c.plan.SnapshotID, c.table, c.meta.file, err)
				}
				c.splitDone += taken
				if c.skip > 0 {
					return nil, 0, 0, fmt.Errorf("split bucket %d of snapshot %d of %s (file %s) has fewer rows on re-read than already delivered", c.meta.bucket, c.plan.SnapshotID, c.table, c.meta.file)
				}
				c.splitIdx++
				c.splitDone = 0
				c.resetBatcher()
				return batch, n, sp.FileCount(), nil
			}
			// Rows of the split before this chunk: those delivered
			// before, plus this batch's, less those still to skip.
			rows.base = c.splitDone + taken - c.skip
			c.chunk, c.chunkRow = rows, 0
			continue
		}
		if c.skip > 0 {
			k := min(c.skip, int64(c.chunk.n-c.chunkRow))
			c.chunkRow += int(k)
			c.skip -= k
			continue
		}
		i := c.chunkRow
		c.chunkRow++
		taken++
		kind := c.chunk.kind(i)
		if c.upsert.drops(kind) {
			continue
		}
		// Every row of a split has the same metadata but its kind, so each
		// message will be a shallow copy of a per-kind template: Benthos
		// shares the template's metadata map copy-on-write instead of
		// building one map per row (that was a third of the input's CPU
		// time). The template is made now, while the plan it describes is
		// current; the batch may be built again much later (replays).
		c.template(kind)
		batch.add(c.chunk, i)
		n++
		if c.batcher != nil {
			msg := c.tmpls.get(kind).Copy()
			msg.SetBytes(c.chunk.row(i))
			if c.batcher.Add(msg) {
				break
			}
		}
	}
	c.splitDone += taken
	c.resetBatcher()
	return batch, n, 0, nil
}

// resetBatcher empties the batching policy's view at a batch end. Without
// processors (refused by the config) Flush only hands back its messages.
func (c *splitCursor) resetBatcher() {
	if c.batcher != nil {
		_, _ = c.batcher.Flush(context.Background())
	}
}

// template makes sure the current split has the metadata template of kind.
// Templates are per split: start begins a new set.
func (c *splitCursor) template(kind types.RowKind) {
	if c.tmpls.get(kind) != nil {
		return
	}
	msg := service.NewMessage(nil)
	c.setMeta(msg, kind)
	c.tmpls.put(kind, msg)
}

// noKind is the kind of rows read without row kinds (include_row_kind
// false).
const noKind types.RowKind = -1

// drops reports whether the mode drops rows of this kind.
func (m upsertMode) drops(kind types.RowKind) bool {
	switch m {
	case upsertDropUpdateBefore:
		return kind == types.UpdateBefore
	case upsertDropUpdateBeforeAndDelete:
		return kind.IsRetract()
	}
	return false
}

func (c *splitCursor) setMeta(msg *service.Message, kind types.RowKind) {
	if kind != noKind {
		msg.MetaSetMut(MetaRowKind, kind.String())
	}
	if op := operation(kind, c.plan.FirstPlan, c.keyed); op != "" {
		msg.MetaSetMut(MetaOperation, op)
	}
	msg.MetaSetMut(MetaSnapshotID, c.plan.SnapshotID)
	msg.MetaSetMut(MetaCommitKind, c.plan.CommitKind)
	if !c.plan.CommitTime.IsZero() {
		msg.MetaSetMut(MetaCommitTime, c.plan.CommitTime)
	}
	msg.MetaSetMut(MetaSchemaID, c.plan.SchemaID)
	msg.MetaSetImmut(MetaPartition, c.meta.partition)
	msg.MetaSetMut(MetaBucket, c.meta.bucket)
	msg.MetaSetMut(MetaTable, c.table)
	if c.consumer != "" {
		msg.MetaSetMut(exactlyonce.MetaConsumer, c.consumer)
	}
	msg.MetaSetImmut(MetaSchema, c.schema)
	if c.meta.file != "" {
		msg.MetaSetMut(MetaFile, c.meta.file)
	}
}
