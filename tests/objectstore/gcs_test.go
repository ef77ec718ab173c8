package objectstore_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// gcsServer is fake-gcs-server (in memory, in process) behind a loopback
// HTTP server with a FaultHandler in front, which also counts requests
// independently of the code under test.
type gcsServer struct {
	faults *fileiotest.FaultHandler
	url    string
}

func startGCS(t testing.TB, fc fileiotest.FaultConfig) *gcsServer {
	t.Helper()
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, Scheme: "http"})
	if err != nil {
		t.Fatalf("start fake-gcs-server: %v", err)
	}
	t.Cleanup(fake.Stop)
	fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	fh := fileiotest.NewFaultHandler(fake.HTTPHandler(), fc)
	srv := httptest.NewServer(fh)
	t.Cleanup(srv.Close)
	return &gcsServer{faults: fh, url: srv.URL}
}

func (s *gcsServer) options() objstore.Options {
	return objstore.Options{
		Endpoint:       s.url,
		RetryBaseDelay: 2 * time.Millisecond, RetryMaxDelay: 50 * time.Millisecond,
	}
}

func openGCS(t testing.TB, uri string, opts objstore.Options) *objstore.Blob {
	t.Helper()
	fio, err := objstore.Open(context.Background(), uri, opts)
	if err != nil {
		t.Fatalf("open %s: %v", uri, err)
	}
	b := fio.(*objstore.Blob)
	t.Cleanup(func() { b.Close() })
	return b
}

// TestGCSConformance runs the FileIO suite on gs:// against fake-gcs-server,
// with more than 1000 keys in one directory to cross a listing page.
func TestGCSConformance(t *testing.T) {
	s := startGCS(t, fileiotest.FaultConfig{})
	fileiotest.Run(t, openGCS(t, "gs://"+bucket+"/wh", s.options()), "gs://"+bucket+"/wh", fileiotest.Config{ManyKeys: 1002, Writers: 8})
	n, byMethod, _ := s.faults.Stats()
	t.Logf("fake-gcs-server: %d requests %v", n, byMethod)
}

// TestGCSConformanceUnderFaults proves the GCS opener hands 5xx, resets
// and cut bodies to this package's retry policy (the SDK's own retries are
// off): the suite must pass with 15 % of the requests failing, and retries
// stay bounded. Stalls are left out (each costs an attempt timeout).
func TestGCSConformanceUnderFaults(t *testing.T) {
	fc := cloudFaults(7)
	s := startGCS(t, fc)
	opts := s.options()
	opts.MaxRetries = 8
	opts.RequestTimeout = 5 * time.Second
	conformanceUnderFaults(t, s.faults, fc.Rate, openGCS(t, "gs://"+bucket+"/wh", opts), "gs")
}

// TestGCSInteropCases reads every committed interop table (pypaimon- and
// Java-written) from gs:// and compares with the writers' own reads.
func TestGCSInteropCases(t *testing.T) {
	s := startGCS(t, fileiotest.FaultConfig{})
	n := runInteropCases(t, "gs://"+bucket+"/fixtures", s.options())
	total, byMethod, _ := s.faults.Stats()
	t.Logf("%d cases over gs://: %d requests at the server %v", n, total, byMethod)
}

// TestGCSErrors pins what a caller sees from a misbehaving GCS: a 403 is an
// error naming the path (gcsblob alone maps it to NotFound, which would make
// an idle poll report "no snapshot" forever), a 503 is retried exactly
// MaxRetries times, and a missing bucket is ErrNotExist on read.
func TestGCSErrors(t *testing.T) {
	ctx := context.Background()
	status := http.StatusForbidden
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.WriteHeader(status)
		w.Write([]byte(`{"error":{"code":403,"message":"caller does not have storage.objects.get access"}}`))
	}))
	defer srv.Close()
	opts := objstore.Options{Endpoint: srv.URL, MaxRetries: 3, RetryBaseDelay: time.Millisecond, RetryMaxDelay: 2 * time.Millisecond}
	fio := openGCS(t, "gs://b/wh", opts)

	ok, err := fio.Exists(ctx, "gs://b/wh/snapshot/snapshot-1")
	if ok || err == nil || errors.Is(err, fileio.ErrNotExist) {
		t.Fatalf("Exists on 403 = %v, %v; want an error that is not ErrNotExist", ok, err)
	}
	for _, want := range []string{"gs://b/wh/snapshot/snapshot-1", "403", "permission denied", "storage.objects.get"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("403 error %q does not mention %q", err, want)
		}
	}
	if hits != 1 {
		t.Errorf("403 sent %d requests, want 1 (not retried)", hits)
	}

	status, hits = http.StatusServiceUnavailable, 0
	if _, err := fio.ReadFile(ctx, "gs://b/wh/snapshot/snapshot-1"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("ReadFile on 503 = %v, want an error naming 503", err)
	}
	if hits != 4 {
		t.Errorf("503 sent %d requests, want 4 (1 + MaxRetries 3)", hits)
	}

	s := startGCS(t, fileiotest.FaultConfig{})
	missing := openGCS(t, "gs://no-such-bucket/wh", s.options())
	if _, err := missing.ReadFile(ctx, "gs://no-such-bucket/wh/x"); !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("read from a missing bucket = %v, want ErrNotExist", err)
	}
}

// TestGCSEndpointForms checks the spellings Options.Endpoint accepts for
// GCS, against the live fake: host:port with http:// and with an explicit
// JSON API path; a malformed endpoint fails at open, naming it.
func TestGCSEndpointForms(t *testing.T) {
	ctx := context.Background()
	s := startGCS(t, fileiotest.FaultConfig{})
	for _, ep := range []string{s.url, s.url + "/", s.url + "/storage/v1"} {
		opts := s.options()
		opts.Endpoint = ep
		fio := openGCS(t, "gs://"+bucket+"/forms", opts)
		p := "gs://" + bucket + "/forms/" + strings.NewReplacer(":", "_", "/", "_").Replace(ep)
		if err := fio.WriteFileAtomic(ctx, p, []byte("x"), true); err != nil {
			t.Fatalf("endpoint %q: write: %v", ep, err)
		}
		if b, err := fio.ReadFile(ctx, p); err != nil || string(b) != "x" {
			t.Fatalf("endpoint %q: read = %q, %v", ep, b, err)
		}
	}
	if _, err := objstore.Open(ctx, "gs://"+bucket+"/x", objstore.Options{Endpoint: "ftp://h:1"}); err == nil || !strings.Contains(err.Error(), "ftp://h:1") {
		t.Errorf("ftp endpoint: err = %v, want an error naming it", err)
	}
}
