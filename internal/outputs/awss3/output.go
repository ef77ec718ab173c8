// Package awss3 is the binary's `aws_s3` output: one object per message on
// aws-sdk-go-v2, with Redpanda Connect's field names. The client comes from
// objstore.NewS3Client, the same code that builds the paimon reader's S3
// client, so credentials, region, endpoint and path style mean the same in
// the input and the output. As in Connect, a batch whose messages were
// combined by an `archive` batching processor becomes one object.
package awss3

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
	"github.com/connect-paimon/connect-paimon/internal/outputs/batchout"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// Name is the output's registered name (Connect's).
const Name = "aws_s3"

const (
	fBucket          = "bucket"
	fPath            = "path"
	fTags            = "tags"
	fContentType     = "content_type"
	fContentEncoding = "content_encoding"
	fCacheControl    = "cache_control"
	fMetadata        = "metadata"
	fStorageClass    = "storage_class"
	fKMSKeyID        = "kms_key_id"
	fSSE             = "server_side_encryption"
	fChecksum        = "checksum_algorithm"
	fPathStyle       = "force_path_style_urls"
	fRegion          = "region"
	fEndpoint        = "endpoint"
	fCredentials     = "credentials"
	fTimeout         = "timeout"
	fBatching        = "batching"

	fCredProfile    = "profile"
	fCredID         = "id"
	fCredSecret     = "secret"
	fCredToken      = "token"
	fCredEC2        = "from_ec2_role"
	fCredRole       = "role"
	fCredExternalID = "role_external_id"
)

// Spec is the output's configuration spec.
func Spec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Stable().
		Categories("Services").
		Summary("Writes each message as an object to an S3 bucket (AWS or S3-compatible); a batch is acknowledged once every object of it was stored.").
		Description(`
Field names are Redpanda Connect's `+"`aws_s3`"+` output's. Each message becomes one object at the
interpolated `+"`path`"+`; to write one object per batch, combine the batch in the batching
policy's processors, as in Connect:

`+"```yaml"+`
batching:
  count: 1000
  period: 5s
  processors:
    - archive: { format: lines }
`+"```"+`

The S3 client is built by the same code as the paimon input's (region, endpoint, path style,
static/profile/EC2/assumed-role credentials). A message is acknowledged only after S3 answered
its PUT, so a paimon consumer never moves past rows no object holds.`).
		Fields(
			service.NewStringField(fBucket).Description("The bucket to write to."),
			service.NewInterpolatedStringField(fPath).
				Description("The object key of each message, interpolated.").
				Example(`${!count("files")}-${!timestamp_unix_nano()}.txt`).
				Example(`${!@paimon_table}/snapshot-${!@paimon_snapshot_id}/${!uuid_v4()}.jsonl`).
				Default(`${!counter()}-${!timestamp_unix_nano()}.txt`),
			service.NewInterpolatedStringMapField(fTags).
				Description("Object tags, values interpolated.").
				Default(map[string]any{}).
				Advanced(),
			service.NewInterpolatedStringField(fContentType).
				Description("The object's content type, interpolated.").
				Default("application/octet-stream"),
			service.NewInterpolatedStringField(fContentEncoding).
				Description("The object's content encoding, interpolated; empty sets none.").
				Default("").
				Advanced(),
			service.NewInterpolatedStringField(fCacheControl).
				Description("The object's cache control, interpolated; empty sets none.").
				Default("").
				Advanced(),
			service.NewMetadataExcludeFilterField(fMetadata).
				Description("Which message metadata is not stored as object metadata (all other keys are).").
				Advanced(),
			service.NewInterpolatedStringEnumField(fStorageClass,
				"STANDARD", "REDUCED_REDUNDANCY", "GLACIER", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING", "DEEP_ARCHIVE", "GLACIER_IR", "EXPRESS_ONEZONE").
				Description("The storage class of the objects.").
				Default("STANDARD").
				Advanced(),
			service.NewStringField(fKMSKeyID).
				Description("A KMS key id for server-side encryption (with `server_side_encryption: aws:kms`).").
				Default("").
				Advanced(),
			service.NewStringField(fSSE).
				Description("Server-side encryption algorithm: `AES256`, `aws:kms`, `aws:kms:dsse`; empty: the bucket's default.").
				Default("").
				Advanced(),
			service.NewStringEnumField(fChecksum, "", "CRC32", "CRC32C", "SHA1", "SHA256", "CRC64NVME").
				Description("A checksum S3 verifies on upload; empty: none beyond what the store requires.").
				Default("").
				Advanced(),
			service.NewBoolField(fPathStyle).
				Description("Address the bucket as endpoint/bucket/key (most S3-compatible servers) instead of bucket.endpoint/key.").
				Default(false).
				Advanced(),
			service.NewStringField(fRegion).
				Description("The bucket's region; empty: the SDK's chain, falling back to us-east-1.").
				Default("").
				Advanced(),
			service.NewStringField(fEndpoint).
				Description("An S3-compatible endpoint URL (MinIO, versitygw...).").
				Default("").
				Advanced(),
			service.NewObjectField(fCredentials,
				service.NewStringField(fCredProfile).Description("A shared-config profile.").Default(""),
				service.NewStringField(fCredID).Description("Static access key id.").Default(""),
				service.NewStringField(fCredSecret).Description("Static secret access key.").Default("").Secret(),
				service.NewStringField(fCredToken).Description("Session token of temporary static credentials.").Default("").Secret(),
				service.NewBoolField(fCredEC2).Description("Use the EC2 instance role's credentials.").Default(false),
				service.NewStringField(fCredRole).Description("A role ARN to assume on top of the credentials above.").Default(""),
				service.NewStringField(fCredExternalID).Description("The external id for assuming the role.").Default(""),
			).
				Description("Credentials; all empty: the SDK's default chain (environment, shared config, SSO, web identity, ECS, IMDS).").
				Advanced(),
			service.NewOutputMaxInFlightField().Default(64),
			service.NewDurationField(fTimeout).
				Description("The longest one object's upload may take; a timed-out upload is rejected and replayed.").
				Default("5s").
				Advanced(),
			service.NewBatchPolicyField(fBatching),
			service.NewObjectField(fExactlyOnce,
				service.NewBoolField(fEOEnabled).
					Description("Write the rows of each `paimon` consumer exactly once across the bucket's objects, through crashes and restarts.").
					Default(false),
				service.NewStringField(fEOProgressPrefix).
					Description("Where in the bucket the committed read position of each consumer is kept: `<progress_prefix><db.table>/<consumer id>.json`.").
					Default("_paimon_progress/"),
			).
				Description("Idempotent objects from the `paimon` input: each batch of the input becomes one object (its rows as lines) whose key, `path`, must contain the position of its first row, `${! @paimon_position }`. The input commits its read position into a progress object once every object before it is stored, and after a crash resumes from there: rows read again are cut into the same batches and overwrite the objects already written, so the objects hold every row exactly once. Needs a `consumer_id` on the input and no `batching` here; one pipeline per consumer (a `group` gives each slot its own).").
				Optional(),
		).
		LintRule(`root = match {
  this.credentials.id.or("") == "" && this.credentials.secret.or("") != "" || this.credentials.id.or("") != "" && this.credentials.secret.or("") == "" => [ "credentials: id and secret must be set together" ],
  this.exactly_once.enabled.or(false) && !this.path.or("").contains("paimon_position") => [ "exactly_once needs the position of each object's first row in path: ${! @paimon_position }" ],
  this.exactly_once.enabled.or(false) && (this.batching.count.or(0) > 0 || this.batching.byte_size.or(0) > 0 || this.batching.period.or("") != "" || this.batching.processors.or([]).length() > 0) => [ "exactly_once writes each batch of the input as one object and takes no batching" ],
}`)
}

func init() {
	if err := service.RegisterBatchOutput(Name, Spec(), batchout.Constructor(fBatching, func(conf *service.ParsedConfig, mgr *service.Resources) (*output, error) {
		o, err := newOutput(conf)
		if err != nil {
			return nil, err
		}
		if o.eo != nil {
			if err := exactlyonce.Register(mgr, o.eo); err != nil {
				return nil, err
			}
		}
		return o, nil
	})); err != nil {
		panic(err)
	}
}

type output struct {
	bucket      string
	path        *service.InterpolatedString
	tags        map[string]*service.InterpolatedString
	contentType *service.InterpolatedString
	encoding    *service.InterpolatedString
	cache       *service.InterpolatedString
	storage     *service.InterpolatedString
	meta        *service.MetadataExcludeFilter
	kmsKey      string
	sse         string
	checksum    string
	timeout     time.Duration
	opts        objstore.Options
	// eo is the exactly_once mode's committer (exactlyonce.go), nil when off.
	eo *committer

	client *s3.Client
}

func newOutput(conf *service.ParsedConfig) (*output, error) {
	o := &output{}
	var err error
	if o.bucket, err = conf.FieldString(fBucket); err != nil {
		return nil, err
	}
	if o.bucket == "" {
		return nil, fmt.Errorf("%s: required", fBucket)
	}
	if err := readFields(conf.FieldInterpolatedString, []field[*service.InterpolatedString]{
		{fPath, &o.path}, {fContentType, &o.contentType}, {fContentEncoding, &o.encoding},
		{fCacheControl, &o.cache}, {fStorageClass, &o.storage}}); err != nil {
		return nil, err
	}
	if o.tags, err = conf.FieldInterpolatedStringMap(fTags); err != nil {
		return nil, err
	}
	if o.meta, err = conf.FieldMetadataExcludeFilter(fMetadata); err != nil {
		return nil, err
	}
	if err := readFields(conf.FieldString, []field[string]{
		{fKMSKeyID, &o.kmsKey}, {fSSE, &o.sse}, {fChecksum, &o.checksum}, {fRegion, &o.opts.Region}, {fEndpoint, &o.opts.Endpoint}}); err != nil {
		return nil, err
	}
	if o.opts.ForcePathStyle, err = conf.FieldBool(fPathStyle); err != nil {
		return nil, err
	}
	if o.timeout, err = conf.FieldDuration(fTimeout); err != nil {
		return nil, err
	}
	cc := conf.Namespace(fCredentials)
	if err := readFields(cc.FieldString, []field[string]{
		{fCredProfile, &o.opts.Profile}, {fCredID, &o.opts.AccessKeyID}, {fCredSecret, &o.opts.SecretAccessKey},
		{fCredToken, &o.opts.SessionToken}, {fCredRole, &o.opts.RoleARN}, {fCredExternalID, &o.opts.RoleExternalID}}); err != nil {
		return nil, err
	}
	if o.opts.FromEC2Role, err = cc.FieldBool(fCredEC2); err != nil {
		return nil, err
	}
	if o.eo, err = parseExactlyOnce(conf, o); err != nil {
		return nil, err
	}
	return o, nil
}

// Connect builds the client; it does not check the bucket, so a store
// that is down at start is retried by the first writes.
func (o *output) Connect(ctx context.Context) error {
	if o.client != nil {
		return nil
	}
	cl, err := objstore.NewS3Client(ctx, o.opts, func(so *s3.Options) {
		// The reader retries by itself; here the SDK's standard retries
		// absorb a transient 5xx before the batch goes back to the input.
		so.Retryer = retry.NewStandard()
	})
	if err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	o.client = cl
	if o.eo != nil {
		o.eo.readyOnce.Do(func() { close(o.eo.ready) })
	}
	return nil
}

// WriteBatch stores each message as an object and returns after every PUT
// was answered; the failed ones are named in a service.BatchError.
func (o *output) WriteBatch(ctx context.Context, b service.MessageBatch) error {
	if o.client == nil {
		return service.ErrNotConnected
	}
	if o.eo != nil {
		return o.writeRuns(ctx, b)
	}
	var berr *service.BatchError
	for i := range b {
		if err := o.put(ctx, b, i); err != nil {
			if berr == nil {
				berr = service.NewBatchError(b, err)
			}
			berr.Failed(i, err)
		}
	}
	if berr != nil {
		return berr
	}
	return nil
}

func (o *output) put(ctx context.Context, b service.MessageBatch, i int) error {
	key, err := b.TryInterpolatedString(i, o.path)
	if err != nil {
		return fmt.Errorf("%s: %w", fPath, err)
	}
	key = strings.TrimPrefix(key, "/")
	if key == "" {
		return fmt.Errorf("%s: interpolated to an empty key", fPath)
	}
	body, err := b[i].AsBytes()
	if err != nil {
		return err
	}
	in := &s3.PutObjectInput{
		Bucket:        aws.String(o.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
	}
	if in.ContentType, err = o.optString(b, i, o.contentType); err != nil {
		return fmt.Errorf("%s: %w", fContentType, err)
	}
	if in.ContentEncoding, err = o.optString(b, i, o.encoding); err != nil {
		return fmt.Errorf("%s: %w", fContentEncoding, err)
	}
	if in.CacheControl, err = o.optString(b, i, o.cache); err != nil {
		return fmt.Errorf("%s: %w", fCacheControl, err)
	}
	sc, err := b.TryInterpolatedString(i, o.storage)
	if err != nil {
		return fmt.Errorf("%s: %w", fStorageClass, err)
	}
	if sc != "" && sc != "STANDARD" {
		in.StorageClass = types.StorageClass(sc)
	}
	if len(o.tags) > 0 {
		q := url.Values{}
		for k, v := range o.tags {
			s, err := b.TryInterpolatedString(i, v)
			if err != nil {
				return fmt.Errorf("%s.%s: %w", fTags, k, err)
			}
			q.Set(k, s)
		}
		in.Tagging = aws.String(q.Encode())
	}
	meta := map[string]string{}
	_ = o.meta.WalkMut(b[i], func(k string, v any) error {
		meta[k] = fmt.Sprint(v)
		return nil
	})
	if len(meta) > 0 {
		in.Metadata = meta
	}
	if o.sse != "" {
		in.ServerSideEncryption = types.ServerSideEncryption(o.sse)
	}
	if o.kmsKey != "" {
		in.SSEKMSKeyId = aws.String(o.kmsKey)
	}
	if o.checksum != "" {
		in.ChecksumAlgorithm = types.ChecksumAlgorithm(o.checksum)
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if _, err := o.client.PutObject(ctx, in); err != nil {
		return fmt.Errorf("put s3://%s/%s: %w", o.bucket, key, err)
	}
	return nil
}

func (o *output) optString(b service.MessageBatch, i int, s *service.InterpolatedString) (*string, error) {
	v, err := b.TryInterpolatedString(i, s)
	if err != nil || v == "" {
		return nil, err
	}
	return aws.String(v), nil
}

// Close has nothing to flush: every WriteBatch waited for its PUTs.
func (o *output) Close(context.Context) error { return nil }

// field is a config field and where its value goes.
type field[T any] struct {
	name string
	dst  *T
}

// readFields reads each field with read, the ParsedConfig getter for T.
func readFields[T any](read func(path ...string) (T, error), fields []field[T]) error {
	for _, f := range fields {
		v, err := read(f.name)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	return nil
}
