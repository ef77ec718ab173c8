package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// TestRunPaimonToKafkaFranz runs the binary's CLI (`run`) with the paimon
// input and the bundled kafka_franz output against an in-process Kafka
// (kfake) and reads the topic back: every row of the fixture table is there
// exactly once, keyed as configured.
func TestRunPaimonToKafkaFranz(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	root := testenv.RepoRoot(t)
	cfg := filepath.Join(t.TempDir(), "run.yaml")
	must(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`
logger: {level: warn}
http: {enabled: false}
input:
  paimon:
    warehouse: %s
    table: demo.orders
    end: {at_latest: true}
output:
  kafka_franz:
    seed_brokers: [ %q ]
    topic: orders
    key: ${! json("id") }
    metadata:
      include_prefixes: [ paimon_snapshot_id ]
`, filepath.Join(root, "resources", "fixtures", "warehouse"), c.ListenAddrs()[0])), 0o644))
	if code, err := service.RunCLIToCode(context.Background(), cliOptions([]string{"connect-paimon", "run", cfg}, stdio{out: io.Discard, err: io.Discard})...); code != 0 {
		t.Fatalf("run exited %d: %v", code, err)
	}

	want := testenv.ReadSortedLines(t, filepath.Join(root, "resources", "fixtures", "expected", "demo.orders", "full.jsonl"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ids := map[int64]int{}
	for n := 0; n < len(want); {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records", n, len(want))
		}
		for _, r := range fs.Records() {
			n++
			var row struct {
				ID int64 `json:"id"`
			}
			if err := json.Unmarshal(r.Value, &row); err != nil {
				t.Fatalf("value %q: %v", r.Value, err)
			}
			if string(r.Key) != fmt.Sprint(row.ID) {
				t.Errorf("record of id %d has key %q", row.ID, r.Key)
			}
			if len(r.Headers) != 1 || r.Headers[0].Key != "paimon_snapshot_id" {
				t.Errorf("headers %v, want paimon_snapshot_id only", r.Headers)
			}
			ids[row.ID]++
		}
	}
	var wantIDs []int64
	for _, l := range want {
		var row struct {
			ID int64 `json:"id"`
		}
		must(t, json.Unmarshal([]byte(l), &row))
		wantIDs = append(wantIDs, row.ID)
	}
	sort.Slice(wantIDs, func(i, j int) bool { return wantIDs[i] < wantIDs[j] })
	if len(ids) != len(wantIDs) {
		t.Fatalf("%d distinct ids in the topic, want %d", len(ids), len(wantIDs))
	}
	for _, id := range wantIDs {
		if ids[id] != 1 {
			t.Errorf("id %d is in the topic %d times", id, ids[id])
		}
	}
}

// TestRunPaimonToAWSS3 runs the binary's CLI with the paimon input and the
// bundled aws_s3 output against versitygw, one object per batch (archive
// lines): every row of the fixture table is in exactly one object.
func TestRunPaimonToAWSS3(t *testing.T) {
	const access, secret = "AKIACMDTEST", "cmd-test-secret"
	ep := testenv.StartVersitygw(t, access, secret, "lake-out")
	root := testenv.RepoRoot(t)
	cfg := filepath.Join(t.TempDir(), "run.yaml")
	must(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`
logger: {level: warn}
http: {enabled: false}
input:
  paimon:
    warehouse: %s
    table: demo.orders
    end: {at_latest: true}
output:
  aws_s3:
    bucket: lake-out
    endpoint: %s
    force_path_style_urls: true
    credentials: {id: %s, secret: %s}
    path: orders/${! @paimon_snapshot_id }/${! uuid_v4() }.jsonl
    batching:
      count: 64
      period: 200ms
      processors:
        - archive: { format: lines }
`, filepath.Join(root, "resources", "fixtures", "warehouse"), ep, access, secret)), 0o644))
	if code, err := service.RunCLIToCode(context.Background(), cliOptions([]string{"connect-paimon", "run", cfg}, stdio{out: io.Discard, err: io.Discard})...); code != 0 {
		t.Fatalf("run exited %d: %v", code, err)
	}
	cl, err := objstore.NewS3Client(context.Background(), objstore.Options{Endpoint: ep, ForcePathStyle: true, AccessKeyID: access, SecretAccessKey: secret})
	must(t, err)
	var got []string
	objs := 0
	p := s3.NewListObjectsV2Paginator(cl, &s3.ListObjectsV2Input{Bucket: aws.String("lake-out")})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		must(t, err)
		for _, o := range page.Contents {
			objs++
			g, err := cl.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("lake-out"), Key: o.Key})
			must(t, err)
			b, err := io.ReadAll(g.Body)
			g.Body.Close()
			must(t, err)
			for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				got = append(got, l)
			}
		}
	}
	want := testenv.ReadLines(t, filepath.Join(root, "resources", "fixtures", "expected", "demo.orders", "full.jsonl"))
	if len(got) != len(want) {
		t.Fatalf("%d rows in %d objects, want %d", len(got), objs, len(want))
	}
	t.Logf("%d rows in %d objects", len(got), objs)
	ids := map[int64]bool{}
	for _, l := range got {
		var row struct {
			ID int64 `json:"id"`
		}
		must(t, json.Unmarshal([]byte(l), &row))
		ids[row.ID] = true
	}
	if len(ids) != len(want) {
		t.Errorf("%d distinct ids, want %d", len(ids), len(want))
	}
}
