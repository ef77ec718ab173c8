package crash

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestCrashRestartS3 is the crash test against a real S3 server
// (versitygw): the binary streams paimon -> aws_s3 (one object per batch,
// lines archive) with a consumer while pypaimon commits, is SIGKILLed at
// random moments (12 times) and restarted. After every kill the bucket
// holds every row of every snapshot below the consumer's nextSnapshot; at
// the end every committed row is in some object, and a row is in more than
// one object only if its snapshot was not yet acknowledged at some kill.
func TestCrashRestartS3(t *testing.T) {
	if testing.Short() {
		t.Skip("s3 crash test takes one to two minutes")
	}
	const access, secret, bucket = "crashkey", "crashsecret", "crash"
	endpoint := testenv.StartVersitygw(t, access, secret, bucket)
	client := versityClient(endpoint, access, secret)
	soak{
		sink: "bucket", kills: 12, pause: "0.5", minProgress: 2, exactDuplicates: true,
		output: fmt.Sprintf(`output:
  aws_s3:
    bucket: %s
    path: rows/${! uuid_v4() }.jsonl
    endpoint: %s
    region: us-east-1
    force_path_style_urls: true
    credentials: {id: %s, secret: %s}
    timeout: 5s
    max_in_flight: 4
    batching:
      count: 20
      period: 200ms
      processors: [ {archive: {format: lines}} ]
`, bucket, endpoint, access, secret),
		observe: func(t *testing.T) idCounts { return bucketIDs(t, client, bucket) },
	}.run(t, crashRand(t))
}

// bucketIDs reads every object of the bucket (an object is written whole
// or not at all, so a kill leaves no partial one) and counts the rows' ids,
// checking each row's name against its id.
func bucketIDs(t *testing.T, client *s3.Client, bucket string) idCounts {
	return prefixIDs(t, client, bucket, "")
}

// prefixIDs is bucketIDs for the objects under prefix.
func prefixIDs(t *testing.T, client *s3.Client, bucket, prefix string) idCounts {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	counts := idCounts{}
	p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("list %s: %v", bucket, err)
		}
		for _, o := range page.Contents {
			out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: o.Key})
			if err != nil {
				t.Fatalf("get %s: %v", aws.ToString(o.Key), err)
			}
			var buf bytes.Buffer
			_, err = buf.ReadFrom(out.Body)
			out.Body.Close()
			if err != nil {
				t.Fatalf("read %s: %v", aws.ToString(o.Key), err)
			}
			sc := bufio.NewScanner(&buf)
			for sc.Scan() {
				var row struct {
					ID   *int64 `json:"id"`
					Name string `json:"name"`
				}
				if err := json.Unmarshal(sc.Bytes(), &row); err != nil || row.ID == nil {
					t.Fatalf("object %s: line %q is not a row", aws.ToString(o.Key), sc.Bytes())
				}
				if row.Name != fmt.Sprintf("n%d", *row.ID) {
					t.Fatalf("object %s: row %s: name does not match id", aws.ToString(o.Key), sc.Bytes())
				}
				counts[*row.ID]++
			}
		}
	}
	return counts
}

// TestExactlyOnceS3 is the S3 crash soak with exactly_once: each batch is
// one object keyed by the position of its first row, so the objects a run
// wrote after its last commit are overwritten by the next run rather than
// added to. After 12 SIGKILLs the objects hold every row exactly once.
func TestExactlyOnceS3(t *testing.T) {
	if testing.Short() {
		t.Skip("s3 crash test takes one to two minutes")
	}
	t.Parallel()
	const access, secret, bucket = "eokey", "eosecret", "exactly-once"
	endpoint := testenv.StartVersitygw(t, access, secret, bucket)
	client := versityClient(endpoint, access, secret)
	soak{
		sink: "objects", kills: 12, pause: "0.5", minProgress: 2, exactlyOnce: true,
		output: fmt.Sprintf(`output:
  aws_s3:
    bucket: %s
    path: rows/${! @paimon_table }/${! @paimon_consumer }/${! @paimon_position }.jsonl
    endpoint: %s
    region: us-east-1
    force_path_style_urls: true
    credentials: {id: %s, secret: %s}
    timeout: 5s
    max_in_flight: 4
    exactly_once: {enabled: true}
`, bucket, endpoint, access, secret),
		observe: func(t *testing.T) idCounts { return prefixIDs(t, client, bucket, "rows/") },
	}.run(t, crashRand(t))
}

// versityClient is an S3 client of the test's versitygw.
func versityClient(endpoint, access, secret string) *s3.Client {
	return s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(access, secret, ""),
	})
}
