package bench

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestObjectStoreDrop times the binary streaming bench.wide (1,048,576 rows)
// to drop from local disk and from versitygw on loopback (the same files,
// uploaded once), interleaved, PAIMON_BENCH_ROUNDS rounds (default 2). It logs
// wall, the binary's CPU-µs per row and the ratio s3 / disk of each; issue 16
// asks for the s3 figure within 1.3× of the disk one, which
// docs/benchmarks.md records. Nothing about speed is asserted; what is
// asserted is that every run read every row: the input's paimon_rows_read
// counter, which the prometheus metrics write to a file on shutdown.
func TestObjectStoreDrop(t *testing.T) {
	dir := testenv.BenchTable(t, "wide")
	wh := filepath.Join(dir, "warehouse")
	const access, secret, bucket = "benchkey", "benchsecret", "bench"
	endpoint := testenv.StartVersitygw(t, access, secret, bucket)
	bin := testenv.Binary(t)
	rounds := benchRounds(t)
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(access, secret, ""),
	})
	uploadDir(t, client, bucket, filepath.Join(wh, "bench.db", "wide"), "wh/bench.db/wide")

	cfg := func(warehouse, storage string) string {
		return fmt.Sprintf(`    warehouse: %s
    table: bench.wide
    end: {at_latest: true}
%s`, warehouse, storage)
	}
	configs := map[string]string{
		"disk": cfg(wh, ""),
		"versitygw": cfg("s3://"+bucket+"/wh", fmt.Sprintf(`    storage:
      endpoint: %s
      region: us-east-1
      force_path_style_urls: true
      credentials: {id: %s, secret: %s}
`, endpoint, access, secret)),
	}
	order := []string{"disk", "versitygw"}
	runs := map[string][]outputRun{}
	loads := []string{loadAvg()}
	for r := 0; r < rounds; r++ {
		for _, name := range order {
			run := dropRun(t, bin, name, configs[name], wideRows)
			t.Logf("round %d %-10s wall %7s  cpu %7s  load %s", r, name, run.wall.Round(time.Millisecond), run.cpu.Round(time.Millisecond), loadAvg())
			runs[name] = append(runs[name], run)
		}
	}
	loads = append(loads, loadAvg())
	t.Logf("bench.wide: %d rows; load average before %s, after %s; medians of %d", wideRows, loads[0], loads[1], rounds)
	t.Logf("| source | rows/s | CPU-µs/row | wall | wall ÷ disk | CPU ÷ disk |")
	dw, dc := medianRun(runs["disk"])
	for _, name := range order {
		w, c := medianRun(runs[name])
		t.Logf("| %s | %.0f | %.2f | %s | %.2f | %.2f |", name, float64(wideRows)/w.Seconds(),
			float64(c.Microseconds())/float64(wideRows), w.Round(time.Millisecond), w.Seconds()/dw.Seconds(), c.Seconds()/dc.Seconds())
	}
}

// parseFloat is strconv.ParseFloat, NaN when s is not a number.
func parseFloat(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// benchRounds is PAIMON_BENCH_ROUNDS, default 2.
func benchRounds(t *testing.T) int {
	t.Helper()
	s := os.Getenv("PAIMON_BENCH_ROUNDS")
	if s == "" {
		return 2
	}
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n < 1 {
		t.Fatalf("PAIMON_BENCH_ROUNDS=%q", s)
	}
	return n
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// medianRun returns the median wall and the median CPU of runs.
func medianRun(rs []outputRun) (wall, cpu time.Duration) {
	ws := make([]time.Duration, len(rs))
	cs := make([]time.Duration, len(rs))
	for i, r := range rs {
		ws[i], cs[i] = r.wall, r.cpu
	}
	return medianDur(ws), medianDur(cs)
}

func medianDur(ds []time.Duration) time.Duration {
	ds = append([]time.Duration(nil), ds...)
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j] < ds[j-1]; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
	return ds[len(ds)/2]
}

// uploadDir puts every regular file under dir into bucket under prefix.
func uploadDir(t *testing.T, client *s3.Client, bucket, dir, prefix string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		key := prefix + "/" + filepath.ToSlash(rel)
		if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)}); err != nil {
			return fmt.Errorf("put %s: %w", key, err)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatalf("upload %s: %v", dir, err)
	}
	if n == 0 {
		t.Fatalf("upload: no files under %s", dir)
	}
}
