package config_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	// The binary's bundled outputs, so TestConfigsLint lints their fields too.
	_ "github.com/connect-paimon/connect-paimon/internal/outputs/awss3"
	_ "github.com/connect-paimon/connect-paimon/internal/outputs/kafka"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// runBounded runs a shipped config with its environment variables set,
// made bounded (end at the latest snapshot) so the run ends.
func runBounded(t *testing.T, file string, env map[string]string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.Replace(string(b), "    scan_mode: latest-full\n", "    scan_mode: latest-full\n    end: {at_latest: true}\n", 1)
	if yaml == string(b) {
		t.Fatalf("%s: no scan_mode line to make the run bounded", file)
	}
	sb := service.NewEnvironment().NewStreamBuilder()
	if err := sb.SetYAML(yaml); err != nil {
		t.Fatal(err)
	}
	_ = sb.SetLoggerYAML("level: warn")
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := strm.Run(ctx); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// readTopic reads n records of topic from the start.
func readTopic(t *testing.T, addr, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records of %s", len(out), n, topic)
		}
		out = append(out, fs.Records()...)
	}
	return out
}

const pkTablePy = `
import sys
import pyarrow as pa
from pypaimon import CatalogFactory, Schema
cat = CatalogFactory.create({"warehouse": sys.argv[1]})
cat.create_database("sales", True)
schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("name", pa.string()), ("rk", pa.string())])
cat.create_table("sales.orders", Schema.from_pyarrow_schema(schema, primary_keys=["id"], options={"bucket": "1", "rowkind.field": "rk"}), False)
for rows in ([(1, "a", "+I"), (2, "b", "+I"), (3, "c", "+I")], [(2, "b", "-D"), (3, "c2", "+U")]):
    t = cat.get_table("sales.orders")
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.Table.from_pylist([{"id": i, "name": n, "rk": k} for i, n, k in rows], schema=schema))
    c.commit(w.prepare_commit())
    w.close()
    c.close()
`

// TestKafkaConfigsRun runs config/paimon-to-kafka.yaml and
// config/pk-to-compacted-topic.yaml against a real Kafka broker.
func TestKafkaConfigsRun(t *testing.T) {
	broker := testenv.StartKafka(t)

	t.Run("paimon-to-kafka", func(t *testing.T) {
		runBounded(t, "paimon-to-kafka.yaml", map[string]string{
			"WAREHOUSE": demoWarehouse(t), "TABLE": "demo.orders",
			"CONSUMER_ID": "", "KAFKA_BROKERS": broker.Addr, "TOPIC": "orders",
		})
		recs := readTopic(t, broker.Addr, "orders", 300)
		ids := map[int64]bool{}
		for _, r := range recs {
			var row struct{ ID int64 }
			if err := json.Unmarshal(r.Value, &row); err != nil {
				t.Fatalf("value %q: %v", r.Value, err)
			}
			ids[row.ID] = true
			if r.Key != nil {
				t.Errorf("append table record has key %q", r.Key)
			}
			hdr := map[string]string{}
			for _, h := range r.Headers {
				hdr[h.Key] = string(h.Value)
			}
			if hdr["operation"] != "read" || hdr["paimon_snapshot_id"] != "3" {
				t.Errorf("headers %v, want operation read and snapshot 3", hdr)
			}
		}
		if len(recs) != 300 || len(ids) != 300 {
			t.Errorf("%d records with %d distinct ids, want 300", len(recs), len(ids))
		}
	})

	t.Run("pk-to-compacted-topic", func(t *testing.T) {
		wh := filepath.Join(t.TempDir(), "wh")
		testenv.RunPypaimon(t, pkTablePy, wh)
		// From snapshot 1 in full, then snapshot 2's changes: +I 1 a, +I 2 b,
		// +I 3 c (read), then -D 2, +U 3 c2 (the -U dropped by upsert_mode).
		b, err := os.ReadFile("pk-to-compacted-topic.yaml")
		if err != nil {
			t.Fatal(err)
		}
		runBoundedFrom(t, string(b), map[string]string{
			"WAREHOUSE": wh, "TABLE": "sales.orders", "KAFKA_BROKERS": broker.Addr, "TOPIC": "orders-compacted",
		})
		recs := readTopic(t, broker.Addr, "orders-compacted", 5)
		last := map[string]*kgo.Record{}
		for _, r := range recs {
			last[string(r.Key)] = r
		}
		if len(recs) != 5 || len(last) != 3 {
			t.Fatalf("%d records over %d keys, want 5 over 3", len(recs), len(last))
		}
		if r := last[`{"id":1}`]; r == nil || !strings.Contains(string(r.Value), `"name":"a"`) {
			t.Errorf("key 1: %v", r)
		}
		if r := last[`{"id":2}`]; r == nil || r.Value != nil {
			t.Errorf("key 2 was deleted: its last record must be a tombstone, got %v", r)
		}
		if r := last[`{"id":3}`]; r == nil || !strings.Contains(string(r.Value), `"name":"c2"`) {
			t.Errorf("key 3: %v", r)
		}
	})
}

// runBoundedFrom is runBounded for a config read from snapshot 1 in full,
// so the follow-up changes of later snapshots are part of the run.
func runBoundedFrom(t *testing.T, yaml string, env map[string]string) {
	t.Helper()
	y := strings.Replace(yaml, "    scan_mode: latest-full\n", "    scan_mode: from-snapshot-full\n    snapshot_id: 1\n    end: {at_latest: true}\n", 1)
	if y == yaml {
		t.Fatal("no scan_mode line to replace")
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	sb := service.NewEnvironment().NewStreamBuilder()
	if err := sb.SetYAML(y); err != nil {
		t.Fatal(err)
	}
	_ = sb.SetLoggerYAML("level: warn")
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := strm.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestS3ConfigRuns runs config/paimon-to-s3.yaml against versitygw: every
// row of the table is in exactly one object.
func TestS3ConfigRuns(t *testing.T) {
	const access, secret = "AKIACONFIGTEST", "config-test-secret"
	ep := testenv.StartVersitygw(t, access, secret, "exports")
	runBounded(t, "paimon-to-s3.yaml", map[string]string{
		"WAREHOUSE": demoWarehouse(t), "TABLE": "demo.orders", "CONSUMER_ID": "",
		"BUCKET": "exports", "S3_ENDPOINT": ep, "S3_PATH_STYLE": "true",
		"AWS_ACCESS_KEY_ID": access, "AWS_SECRET_ACCESS_KEY": secret,
	})
	cl, err := objstore.NewS3Client(context.Background(), objstore.Options{Endpoint: ep, ForcePathStyle: true, AccessKeyID: access, SecretAccessKey: secret})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]int{}
	p := s3.NewListObjectsV2Paginator(cl, &s3.ListObjectsV2Input{Bucket: aws.String("exports")})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			if !strings.HasPrefix(*o.Key, "demo.orders/3/") {
				t.Errorf("object %s outside demo.orders/<snapshot>/", *o.Key)
			}
			g, err := cl.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("exports"), Key: o.Key})
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(g.Body)
			g.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
				var row struct{ ID int64 }
				if err := json.Unmarshal([]byte(l), &row); err != nil {
					t.Fatalf("object %s line %q: %v", *o.Key, l, err)
				}
				ids[row.ID]++
			}
		}
	}
	if len(ids) != 300 {
		t.Fatalf("%d distinct ids in the bucket, want 300", len(ids))
	}
	for id, n := range ids {
		if n != 1 {
			t.Errorf("id %d in %d objects", id, n)
		}
	}
}

// demoWarehouse copies the committed demo table to a temporary warehouse: the configs run
// with a consumer id, and their consumer files must not land in the committed fixtures.
func demoWarehouse(t *testing.T) string {
	t.Helper()
	wh := filepath.Join(t.TempDir(), "warehouse")
	testenv.CopyTree(t, filepath.Join("..", "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	return wh
}
