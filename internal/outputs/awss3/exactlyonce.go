package awss3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
)

// Exactly once into S3: objects cannot join a transaction, so they are made
// idempotent instead. Every write of the output is one object holding a run
// of rows of one paimon consumer, keyed (through `path`) by the position of
// its first row; the input commits its read position into a progress
// object only once every object before it was stored, and after a crash
// resumes from there. Rows read again after the last commit are cut into
// the same runs as before and so overwrite the objects the first attempt
// wrote: whatever the crashes, the objects hold every row exactly once.

// Fields of exactly_once.
const (
	fExactlyOnce      = "exactly_once"
	fEOEnabled        = "enabled"
	fEOProgressPrefix = "progress_prefix"
)

// committer is the output's exactlyonce.Committer: positions are objects
// <progress_prefix><db.table>/<consumer>.json in the output's bucket.
type committer struct {
	o      *output
	prefix string

	ready     chan struct{} // closed once the output has a client
	readyOnce sync.Once
}

// KeysByPosition implements exactlyonce.Keyed.
func (c *committer) KeysByPosition() bool { return true }

func (c *committer) progressKey(k exactlyonce.Key) string {
	return c.prefix + k.Table + "/" + k.Consumer + ".json"
}

func (c *committer) wait(ctx context.Context) error {
	select {
	case <-c.ready:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("exactly_once: waiting for the aws_s3 output to connect: %w", ctx.Err())
	}
}

// Resume implements exactlyonce.Committer. S3 has no fencing: only one
// writer per consumer may run (a group's fence ensures it per slot).
func (c *committer) Resume(ctx context.Context, k exactlyonce.Key) (exactlyonce.Position, bool, error) {
	var none exactlyonce.Position
	if err := c.wait(ctx); err != nil {
		return none, false, err
	}
	key := c.progressKey(k)
	out, err := c.o.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(c.o.bucket), Key: aws.String(key)})
	if err != nil {
		var nsk *types.NoSuchKey
		if errors.As(err, &nsk) {
			return none, false, nil
		}
		return none, false, fmt.Errorf("exactly_once: read progress object s3://%s/%s: %w", c.o.bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return none, false, fmt.Errorf("exactly_once: read progress object s3://%s/%s: %w", c.o.bucket, key, err)
	}
	pos, err := exactlyonce.ParseRecord(k, b)
	if err != nil {
		return none, false, fmt.Errorf("exactly_once: progress object s3://%s/%s: %w", c.o.bucket, key, err)
	}
	return pos, true, nil
}

// Commit implements exactlyonce.Committer: every object before pos is
// stored (the input waited for their acknowledgements), so the position
// may move there.
func (c *committer) Commit(ctx context.Context, k exactlyonce.Key, pos exactlyonce.Position) error {
	body, err := exactlyonce.EncodeRecord(k, pos)
	if err != nil {
		return err
	}
	key := c.progressKey(k)
	_, err = c.o.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(c.o.bucket), Key: aws.String(key),
		Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String("application/json")})
	if err != nil {
		return fmt.Errorf("exactly_once: write progress object s3://%s/%s: %w", c.o.bucket, key, err)
	}
	return nil
}

// Abort implements exactlyonce.Committer: objects written since the last
// commit stay, to be overwritten by the same rows read again.
func (c *committer) Abort(context.Context, exactlyonce.Key) error { return nil }

// Release implements exactlyonce.Committer.
func (c *committer) Release(context.Context, exactlyonce.Key) error { return nil }

// parseExactlyOnce reads the exactly_once field: nil unless enabled. The
// path must name the position, or objects of different runs would share a
// key; and the output must not batch, since re-cut batches would not
// repeat the first attempt's runs.
func parseExactlyOnce(conf *service.ParsedConfig, o *output) (*committer, error) {
	eo, err := exactlyonce.Enabled(conf, fExactlyOnce)
	if eo == nil || err != nil {
		return nil, err
	}
	prefix, err := eo.FieldString(fEOProgressPrefix)
	if err != nil {
		return nil, err
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	raw, err := conf.FieldString(fPath)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(raw, exactlyonce.MetaPosition) {
		return nil, fmt.Errorf("%s: with %s the object key must contain the position of its first row, ${! @%s } (and, for several tables or consumers in one bucket, @%s and @%s)",
			fPath, fExactlyOnce, exactlyonce.MetaPosition, exactlyonce.MetaTable, exactlyonce.MetaConsumer)
	}
	pol, err := conf.FieldBatchPolicy(fBatching)
	if err != nil {
		return nil, err
	}
	if !pol.IsNoop() {
		return nil, fmt.Errorf("%s: with %s every batch of the input is one object; a batching policy would cut the rows differently after a restart", fBatching, fExactlyOnce)
	}
	return &committer{o: o, prefix: prefix, ready: make(chan struct{})}, nil
}

// writeRuns stores the batch as one object per consumer's run of rows,
// bodies joined by newlines, keyed by `path` on the run's first message.
func (o *output) writeRuns(ctx context.Context, b service.MessageBatch) error {
	type run struct {
		first int
		body  bytes.Buffer
	}
	var runs []*run
	byKey := map[string]*run{}
	for i, msg := range b {
		if _, ok := msg.MetaGet(exactlyonce.MetaPosition); !ok {
			return fmt.Errorf("%w: message %d has no %s: only rows of a paimon input with a consumer_id can be written exactly once", exactlyonce.ErrConfig, i, exactlyonce.MetaPosition)
		}
		table, _ := msg.MetaGet(exactlyonce.MetaTable)
		consumer, _ := msg.MetaGet(exactlyonce.MetaConsumer)
		id := table + "/" + consumer
		r := byKey[id]
		if r == nil {
			r = &run{first: i}
			byKey[id] = r
			runs = append(runs, r)
		} else {
			r.body.WriteByte('\n')
		}
		body, err := msg.AsBytes()
		if err != nil {
			return err
		}
		r.body.Write(body)
	}
	for _, r := range runs {
		msg := b[r.first].Copy()
		msg.SetBytes(r.body.Bytes())
		if err := o.put(ctx, service.MessageBatch{msg}, 0); err != nil {
			return err
		}
	}
	return nil
}
