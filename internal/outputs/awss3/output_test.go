package awss3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/redpanda-data/benthos/v4/public/service"

	_ "github.com/redpanda-data/benthos/v4/public/components/pure"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

const (
	access = "AKIAOUTPUTTEST"
	secret = "output-test-secret"
	bucket = "out"
)

func client(t *testing.T, endpoint string) *s3.Client {
	t.Helper()
	cl, err := objstore.NewS3Client(context.Background(), objstore.Options{
		Endpoint: endpoint, ForcePathStyle: true, AccessKeyID: access, SecretAccessKey: secret,
	})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// objects returns key -> body of every object in the bucket.
func objects(t *testing.T, cl *s3.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	p := s3.NewListObjectsV2Paginator(cl, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			g, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: o.Key})
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(g.Body)
			g.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			out[*o.Key] = string(b)
		}
	}
	return out
}

func run(t *testing.T, yaml string) {
	t.Helper()
	sb := service.NewStreamBuilder()
	if err := sb.SetYAML(yaml); err != nil {
		t.Fatal(err)
	}
	st, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := st.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestBatchesBecomeObjects writes 95 messages in batches of 10 archived as
// lines: 10 objects at the interpolated paths, every message in exactly
// one, with the content type, metadata and tags asked for.
func TestBatchesBecomeObjects(t *testing.T) {
	ep := testenv.StartVersitygw(t, access, secret, bucket)
	run(t, fmt.Sprintf(`
logger: {level: warn}
input:
  generate:
    count: 95
    interval: ""
    mapping: |
      root = {"id": count("gen")}
      meta paimon_table = "db.t"
      meta secret_thing = "x"
output:
  aws_s3:
    bucket: %s
    endpoint: %s
    force_path_style_urls: true
    region: us-east-1
    credentials: {id: %s, secret: %s}
    path: ${! @paimon_table }/${! count("objects") }.jsonl
    content_type: application/x-ndjson
    tags:
      table: ${! @paimon_table }
    metadata:
      exclude_prefixes: [ secret_ ]
    batching:
      count: 10
      period: 100ms
      processors:
        - archive: { format: lines }
`, bucket, ep, access, secret))
	cl := client(t, ep)
	objs := objects(t, cl)
	// 95 messages in batches of at most 10: 10 objects, more when the period flushed a batch
	// early (a loaded machine), never more lines than the count in one object.
	if len(objs) < 10 || len(objs) > 95 {
		t.Fatalf("%d objects, want at least 10 (95 messages in batches of 10): %v", len(objs), keys(objs))
	}
	seen := map[string]int{}
	for k, body := range objs {
		if !strings.HasPrefix(k, "db.t/") || !strings.HasSuffix(k, ".jsonl") {
			t.Errorf("key %q does not follow the path", k)
		}
		lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		if len(lines) > 10 {
			t.Errorf("object %s holds %d lines, more than the batch count 10", k, len(lines))
		}
		for _, l := range lines {
			seen[l]++
		}
	}
	for i := 1; i <= 95; i++ {
		if n := seen[fmt.Sprintf(`{"id":%d}`, i)]; n != 1 {
			t.Errorf("id %d is in %d objects", i, n)
		}
	}
	k := keys(objs)[0]
	h, err := cl.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)})
	if err != nil {
		t.Fatal(err)
	}
	if ct := aws.ToString(h.ContentType); ct != "application/x-ndjson" {
		t.Errorf("content type %q", ct)
	}
	if h.Metadata["paimon_table"] != "db.t" {
		t.Errorf("metadata %v lacks paimon_table", h.Metadata)
	}
	if _, ok := h.Metadata["secret_thing"]; ok {
		t.Errorf("metadata %v has the excluded secret_thing", h.Metadata)
	}
	tg, err := cl.GetObjectTagging(context.Background(), &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(k)})
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.TagSet) != 1 || aws.ToString(tg.TagSet[0].Key) != "table" || aws.ToString(tg.TagSet[0].Value) != "db.t" {
		t.Errorf("tags %+v, want table=db.t", tg.TagSet)
	}
}

// TestFailedPutIsNamed: a bucket that does not exist rejects every message
// of the batch, each named.
func TestFailedPutIsNamed(t *testing.T) {
	ep := testenv.StartVersitygw(t, access, secret, bucket)
	conf, err := Spec().ParseYAML(fmt.Sprintf("bucket: missing\nendpoint: %s\nforce_path_style_urls: true\ncredentials: {id: %s, secret: %s}\n", ep, access, secret), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := newOutput(conf)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	err = o.WriteBatch(context.Background(), service.MessageBatch{service.NewMessage([]byte("a")), service.NewMessage([]byte("b"))})
	var berr *service.BatchError
	if !errors.As(err, &berr) || berr.IndexedErrors() != 2 {
		t.Fatalf("WriteBatch to a missing bucket: %v, want both messages rejected", err)
	}
	if !strings.Contains(err.Error(), "s3://missing/") {
		t.Errorf("error %q does not name the object", err)
	}
}

func TestLintCredentialsPair(t *testing.T) {
	err := service.NewEnvironment().NewStreamBuilder().SetYAML("input: {generate: {mapping: 'root = 1'}}\noutput:\n  aws_s3:\n    bucket: b\n    credentials: {id: x}\n")
	if err == nil || !strings.Contains(err.Error(), "id and secret must be set together") {
		t.Errorf("lint: %v", err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestExactlyOnceNeedsPositionKeysAndNoBatching: objects keyed by anything
// but the first row's position would not be overwritten by a replay, and
// an output batching policy would cut the rows differently after a restart;
// both are refused when the output is built, and by lint.
func TestExactlyOnceNeedsPositionKeysAndNoBatching(t *testing.T) {
	for _, tc := range []struct{ conf, want string }{
		{"path: ${! uuid_v4() }.jsonl\nexactly_once: {enabled: true}\n", "paimon_position"},
		{"path: ${! @paimon_position }.jsonl\nexactly_once: {enabled: true}\nbatching: {count: 10, period: 1s}\n", "batching"},
	} {
		conf, err := Spec().ParseYAML("bucket: b\n"+tc.conf, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := newOutput(conf); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: built with %v, want an error naming %s", tc.conf, err, tc.want)
		}
		yaml := "input: {generate: {mapping: 'root = 1'}}\noutput:\n  aws_s3:\n    bucket: b\n    " + strings.ReplaceAll(strings.TrimSpace(tc.conf), "\n", "\n    ") + "\n"
		if err := service.NewEnvironment().NewStreamBuilder().SetYAML(yaml); err == nil || !strings.Contains(err.Error(), "exactly_once") {
			t.Errorf("%s: lint %v, want an exactly_once rule", tc.conf, err)
		}
	}
	conf, err := Spec().ParseYAML("bucket: b\npath: t/${! @paimon_consumer }/${! @paimon_position }.jsonl\nexactly_once: {enabled: true}\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := newOutput(conf); err != nil || o.eo == nil {
		t.Fatalf("a valid exactly_once config: %v", err)
	}
}
