package crash

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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
	py := testenv.Python(t)
	const access, secret, bucket = "crashkey", "crashsecret", "crash"
	endpoint := testenv.StartVersitygw(t, access, secret, bucket)
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	bin := testenv.Binary(t)
	script := filepath.Join(dir, "writer.py")
	if err := os.WriteFile(script, []byte(writerPy), 0o644); err != nil {
		t.Fatal(err)
	}
	snapLog := filepath.Join(dir, "snapshots.txt")

	rng := crashRand(t)
	writerDone := startWriter(t, py, script, wh, dir, batches, batchSize, "0.5", snapLog)
	tableDir := filepath.Join(wh, "db.db", "c")
	waitFor(t, 60*time.Second, func() bool { return exists(filepath.Join(tableDir, "schema", "schema-0")) })

	cfg := func(bounded bool) string {
		end := ""
		if bounded {
			end = "    end: {at_latest: true}\n"
		}
		return fmt.Sprintf(`logger: {level: warn}
http: {enabled: false}
input:
  paimon:
    warehouse: %s
    table: db.c
    consumer_id: crash
    commit_period: 100ms
    poll_interval: 100ms
    batch_size: 20
    checkpoint_limit: 100
%soutput:
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
`, wh, end, bucket, endpoint, access, secret)
	}
	streamCfg, boundedCfg := filepath.Join(dir, "stream.yaml"), filepath.Join(dir, "bounded.yaml")
	if err := os.WriteFile(streamCfg, []byte(cfg(false)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(boundedCfg, []byte(cfg(true)), 0o644); err != nil {
		t.Fatal(err)
	}
	binLog, err := os.Create(filepath.Join(dir, "binary.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer binLog.Close()

	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(access, secret, ""),
	})
	const kills = 12
	var recs []killRecord
	for k := 0; k < kills; k++ {
		cmd := exec.Command(bin, "run", streamCfg)
		cmd.Stdout, cmd.Stderr = binLog, binLog
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(500+rng.IntN(3000)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		_ = cmd.Wait()
		rec := killRecord{next: consumerNext(t, tableDir), seen: bucketIDs(t, client, bucket).set()}
		t.Logf("kill %d: consumer nextSnapshot %d, %d distinct ids in the bucket", k, rec.next, len(rec.seen))
		recs = append(recs, rec)
	}
	select {
	case err := <-writerDone:
		if err != nil {
			t.Fatalf("writer: %v (see %s)", err, filepath.Join(dir, "writer.log"))
		}
	case <-time.After(120 * time.Second):
		t.Fatal("writer did not finish")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	final := exec.CommandContext(ctx, bin, "run", boundedCfg)
	final.Stdout, final.Stderr = binLog, binLog
	if err := final.Run(); err != nil {
		t.Fatalf("bounded run: %v (log %s)", err, binLog.Name())
	}

	snaps := readSnapshots(t, snapLog)
	if len(snaps) != batches {
		t.Fatalf("writer logged %d snapshots, want %d", len(snaps), batches)
	}
	got := bucketIDs(t, client, bucket)
	for id := int64(0); id < batches*batchSize; id++ {
		if got[id] == 0 {
			t.Fatalf("id %d was committed but is in no object", id)
		}
	}
	if n := consumerNext(t, tableDir); n != snaps[len(snaps)-1].id+1 {
		t.Errorf("final consumer nextSnapshot %d, want %d", n, snaps[len(snaps)-1].id+1)
	}
	progressed, dups := 0, 0
	for k, rec := range recs {
		if rec.next > 1 {
			progressed++
		}
		for _, s := range snaps {
			if s.id >= rec.next {
				continue
			}
			for id := s.first; id < s.first+s.count; id++ {
				if !rec.seen[id] {
					t.Fatalf("kill %d: consumer at nextSnapshot %d, but id %d of snapshot %d was in no object", k, rec.next, id, s.id)
				}
			}
		}
	}
	// A duplicate is a row delivered again after a restart: its snapshot
	// must have been unacknowledged (at or above the consumer position) at
	// some kill.
	for _, s := range snaps {
		unacked := false
		for _, rec := range recs {
			if s.id >= rec.next {
				unacked = true
			}
		}
		for id := s.first; id < s.first+s.count; id++ {
			if got[id] > 1 {
				dups++
				if !unacked {
					t.Errorf("id %d of snapshot %d is in %d objects, but its snapshot was acknowledged before every kill", id, s.id, got[id])
				}
			}
		}
	}
	t.Logf("%d rows, %d of them delivered more than once", batches*batchSize, dups)
	if progressed < 2 {
		t.Fatalf("the consumer advanced before only %d kills: the test checked too little", progressed)
	}
}

// idCounts is how many times each id is in the bucket.
type idCounts map[int64]int

func (c idCounts) set() map[int64]bool {
	s := make(map[int64]bool, len(c))
	for id := range c {
		s[id] = true
	}
	return s
}

// bucketIDs reads every object of the bucket (an object is written whole
// or not at all, so a kill leaves no partial one) and counts the rows' ids,
// checking each row's name against its id.
func bucketIDs(t *testing.T, client *s3.Client, bucket string) idCounts {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	counts := idCounts{}
	p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
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
