package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"fmt"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
	"github.com/connect-paimon/connect-paimon/paimon/internal/fileutil"
)

// fakeS3 is an in-process S3 server (gofakes3) behind a fault handler that
// counts requests independently of the code under test.
type fakeS3 struct {
	srv    *httptest.Server
	faults *fileiotest.FaultHandler
	opts   objstore.Options
	// metric counts Metrics hook calls per operation.
	metric map[string]*atomic.Int64
}

func newFakeS3(t *testing.T, fc fileiotest.FaultConfig) *fakeS3 {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("warehouse"); err != nil {
		t.Fatal(err)
	}
	fh := fileiotest.NewFaultHandler(gofakes3.New(backend).Server(), fc)
	srv := httptest.NewServer(fh)
	t.Cleanup(srv.Close)
	f := &fakeS3{srv: srv, faults: fh, metric: map[string]*atomic.Int64{}}
	for _, op := range []string{"head", "get", "list", "put", "delete"} {
		f.metric[op] = new(atomic.Int64)
	}
	f.opts = objstore.Options{
		Endpoint: srv.URL, ForcePathStyle: true, Region: "us-east-1",
		AccessKeyID: "AKIATEST", SecretAccessKey: "secret",
		RetryBaseDelay: time.Millisecond, RetryMaxDelay: 20 * time.Millisecond,
		RequestTimeout: 2 * time.Second,
		Metrics: func(op string, _ error, _ time.Duration) {
			if c, ok := f.metric[op]; ok {
				c.Add(1)
			}
		},
	}
	return f
}

func (f *fakeS3) open(t *testing.T, uri string) fileio.FileIO {
	t.Helper()
	fio, err := objstore.Open(context.Background(), uri, f.opts)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := fio.(*objstore.Blob); !ok {
		t.Fatalf("Open(%s) returned %T, want *objstore.Blob", uri, fio)
	} else {
		t.Cleanup(func() { b.Close() })
	}
	return fio
}

func TestLocalConformance(t *testing.T) {
	fileiotest.Run(t, fileio.NewLocal(), t.TempDir(), fileiotest.Config{ManyKeys: 50, Writers: 2})
}

func TestLocalConformanceFileURI(t *testing.T) {
	fileiotest.Run(t, fileio.NewLocal(), "file://"+t.TempDir(), fileiotest.Config{})
}

func TestS3FakeConformance(t *testing.T) {
	f := newFakeS3(t, fileiotest.FaultConfig{})
	fileiotest.Run(t, f.open(t, "s3://warehouse/wh"), "s3://warehouse/wh", fileiotest.Config{ManyKeys: 1003, Writers: 4})
}

func TestS3FakeConformanceWithFaults(t *testing.T) {
	fc := fileiotest.FaultConfig{Rate: 0.2, Seed: 7, Delay: 5 * time.Millisecond, Stall: 3 * time.Second}
	f := newFakeS3(t, fc)
	f.opts.RequestTimeout = 500 * time.Millisecond
	f.opts.MaxRetries = 8
	fileiotest.Run(t, f.open(t, "s3a://warehouse/wh"), "s3a://warehouse/wh", fileiotest.Config{ManyKeys: 150, Writers: 4})
	n, byMethod, faults := f.faults.Stats()
	t.Logf("requests %d by method %v, faults %v", n, byMethod, faults)
	for k := fileiotest.Fault500; k <= fileiotest.FaultShortBody; k++ {
		if faults[k] == 0 {
			t.Errorf("fault %v was never injected; the test does not cover it", k)
		}
	}
}

// countRequests runs fn and returns the HTTP requests the server saw.
func (f *fakeS3) countRequests(fn func()) (int, map[string]int) {
	f.faults.Reset()
	fn()
	n, m, _ := f.faults.Stats()
	return n, m
}

func TestS3RequestEconomy(t *testing.T) {
	ctx := context.Background()
	f := newFakeS3(t, fileiotest.FaultConfig{})
	fio := f.open(t, "s3://warehouse/wh")
	snap := "s3://warehouse/wh/db.db/t/snapshot/snapshot-2"
	if err := fio.WriteFileAtomic(ctx, "s3://warehouse/wh/db.db/t/snapshot/snapshot-1", []byte("{}"), false); err != nil {
		t.Fatal(err)
	}

	check := func(name string, want map[string]int, fn func() error) {
		t.Helper()
		var err error
		n, m := f.countRequests(func() { err = fn() })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		total := 0
		for _, v := range want {
			total += v
		}
		if n != total || len(m) != len(want) {
			t.Fatalf("%s: %d requests %v, want %v", name, n, m, want)
		}
		for k, v := range want {
			if m[k] != v {
				t.Fatalf("%s: %d requests %v, want %v", name, n, m, want)
			}
		}
	}
	check("idle poll Exists", map[string]int{"HEAD": 1}, func() error {
		ok, err := fio.Exists(ctx, snap)
		if ok {
			return errors.New("exists")
		}
		return err
	})
	check("ReadFile", map[string]int{"GET": 1}, func() error {
		_, err := fio.ReadFile(ctx, "s3://warehouse/wh/db.db/t/snapshot/snapshot-1")
		return err
	})
	check("WriteFileAtomic", map[string]int{"PUT": 1}, func() error {
		return fio.WriteFileAtomic(ctx, snap, []byte("{}"), false)
	})
	check("Delete", map[string]int{"DELETE": 1}, func() error { return fio.Delete(ctx, snap) })
	check("List", map[string]int{"LIST": 1}, func() error {
		_, err := fio.List(ctx, "s3://warehouse/wh/db.db/t/snapshot")
		return err
	})
	if got := f.metric["head"].Load(); got != 1 {
		t.Errorf("Metrics hook saw %d head requests, want 1", got)
	}

	// Small reads near each other and in the footer cost one GET each block.
	data := pseudoBytes(3, 2<<20)
	p := "s3://warehouse/wh/db.db/t/bucket-0/data-1.parquet"
	if err := fio.WriteFileAtomic(ctx, p, data, true); err != nil {
		t.Fatal(err)
	}
	check("footer reads", map[string]int{"GET": 1}, func() error {
		file, err := fileutil.OpenSized(ctx, fio, p, int64(len(data)))
		if err != nil {
			return err
		}
		buf := make([]byte, 8)
		if _, err := file.ReadAt(buf, int64(len(data))-8); err != nil {
			return err
		}
		meta := make([]byte, 30000)
		if _, err := file.ReadAt(meta, int64(len(data))-8-30000); err != nil {
			return err
		}
		if !bytes.Equal(meta, data[len(data)-30008:len(data)-8]) {
			return errors.New("footer bytes differ")
		}
		return nil
	})
	check("read-ahead", map[string]int{"GET": 1}, func() error {
		file, err := fileutil.OpenSized(ctx, fio, p, int64(len(data)))
		if err != nil {
			return err
		}
		for off := 1000; off < 200_000; off += 10_000 {
			buf := make([]byte, 100)
			if _, err := file.ReadAt(buf, int64(off)); err != nil {
				return err
			}
			if !bytes.Equal(buf, data[off:off+100]) {
				return errors.New("read-ahead bytes differ")
			}
		}
		return nil
	})
	check("Open costs one HEAD", map[string]int{"HEAD": 1}, func() error {
		_, err := fio.Open(ctx, p)
		return err
	})
}

func TestS3Errors(t *testing.T) {
	ctx := context.Background()
	f := newFakeS3(t, fileiotest.FaultConfig{})
	fio := f.open(t, "s3://warehouse/wh")

	// Another bucket's URI is refused, not read from this bucket.
	_, err := fio.ReadFile(ctx, "s3://other/wh/x")
	if err == nil || !strings.Contains(err.Error(), "outside the bucket") {
		t.Fatalf("ReadFile(other bucket) = %v", err)
	}
	// A manifest-recorded size that does not match is caught on read.
	p := "s3://warehouse/wh/f"
	if err := fio.WriteFileAtomic(ctx, p, []byte("0123456789"), true); err != nil {
		t.Fatal(err)
	}
	file, err := fileutil.OpenSized(ctx, fio, p, 20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := file.ReadAt(make([]byte, 5), 0); err == nil || !strings.Contains(err.Error(), "object size is 10, expected 20") || !strings.Contains(err.Error(), p) {
		t.Fatalf("ReadAt with wrong size = %v", err)
	}
	// A missing bucket is a clear not-exist error naming the URI.
	fio2 := f.open(t, "s3://nobucket/wh")
	_, err = fio2.ReadFile(ctx, "s3://nobucket/wh/snapshot/LATEST")
	if !fileio.IsNotExist(err) || !strings.Contains(err.Error(), "s3://nobucket/wh/snapshot/LATEST") {
		t.Fatalf("ReadFile(missing bucket) = %v", err)
	}
}

func TestS3PermanentErrorsAreNotRetried(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		if r.Method != http.MethodHead {
			w.Write([]byte(`<Error><Code>AccessDenied</Code><Message>no</Message></Error>`))
		}
	}))
	defer srv.Close()
	fio, err := objstore.Open(ctx, "s3://b/wh", objstore.Options{Endpoint: srv.URL, ForcePathStyle: true, AccessKeyID: "a", SecretAccessKey: "b", RetryBaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fio.ReadFile(ctx, "s3://b/wh/snapshot/snapshot-1")
	if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "s3://b/wh/snapshot/snapshot-1") {
		t.Fatalf("ReadFile(403) = %v", err)
	}
	if _, err := fio.Exists(ctx, "s3://b/wh/x"); err == nil {
		t.Fatal("Exists on 403 reported no error")
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("server saw %d requests for two 403s, want 2 (no retries)", n)
	}
}

func TestS3TransientErrorsAreBounded(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	fio, err := objstore.Open(ctx, "s3://b/wh", objstore.Options{Endpoint: srv.URL, ForcePathStyle: true, AccessKeyID: "a", SecretAccessKey: "b",
		MaxRetries: 3, RetryBaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fio.Exists(ctx, "s3://b/wh/snapshot/snapshot-1")
	if err == nil || !strings.Contains(err.Error(), "giving up after 4 attempts") {
		t.Fatalf("Exists(503 forever) = %v", err)
	}
	if n := calls.Load(); n != 4 {
		t.Fatalf("server saw %d requests, want 4 (1 + 3 retries)", n)
	}
	// A cancelled context stops the retries at once.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	calls.Store(0)
	if _, err := fio.Exists(cctx, "s3://b/wh/x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Exists(cancelled) = %v", err)
	}
	if n := calls.Load(); n > 1 {
		t.Fatalf("cancelled Exists made %d requests", n)
	}
}

func TestOpenSchemes(t *testing.T) {
	ctx := context.Background()
	for _, uri := range []string{"/tmp/wh", "file:///tmp/wh", "file:/tmp/wh", "relative/wh"} {
		fio, err := objstore.Open(ctx, uri, objstore.Options{})
		if err != nil {
			t.Fatalf("Open(%s): %v", uri, err)
		}
		if got, want := fmt.Sprintf("%T", fio), fmt.Sprintf("%T", fileio.NewLocal()); got != want {
			t.Fatalf("Open(%s) = %s, want the local FileIO %s", uri, got, want)
		}
	}
	for uri, want := range map[string]string{
		"hdfs://nn/wh":          `unsupported scheme "hdfs"`,
		"oss://b/wh":            `unsupported scheme "oss"`,
		"s3://":                 "missing bucket",
		"s3:/b/wh":              "expected s3://bucket/path",
		"s3://b/wh?region=x":    "query and fragment are not supported",
		"abfs://nocontainer/wh": "container@account",
	} {
		_, err := objstore.Open(ctx, uri, objstore.Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want error containing %q", uri, err, want)
		}
	}
	if _, err := objstore.Open(ctx, "s3://b/wh", objstore.Options{AccessKeyID: "x"}); err == nil {
		t.Error("Open with an access key but no secret succeeded")
	}
}

func TestParseLocation(t *testing.T) {
	for uri, want := range map[string]objstore.Location{
		"s3://bucket/wh/db.db/t":                 {Scheme: "s3", Bucket: "bucket", Key: "wh/db.db/t", Root: "s3://bucket"},
		"S3A://bucket//wh/":                      {Scheme: "s3a", Bucket: "bucket", Key: "wh", Root: "s3a://bucket"},
		"gs://b":                                 {Scheme: "gs", Bucket: "b", Key: "", Root: "gs://b"},
		"abfss://c@acct.dfs.core.windows.net/wh": {Scheme: "abfss", Bucket: "c", Account: "acct", Key: "wh", Root: "abfss://c@acct.dfs.core.windows.net"},
		"/data/wh":                               {Key: "/data/wh"},
		"file:///data/wh":                        {Scheme: "file", Key: "/data/wh"},
		"/data/a:b/wh":                           {Key: "/data/a:b/wh"},
	} {
		got, err := objstore.ParseLocation(uri)
		if err != nil || got != want {
			t.Errorf("ParseLocation(%q) = %+v, %v; want %+v", uri, got, err, want)
		}
	}
}
