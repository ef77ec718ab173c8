package objectstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

const (
	accessKey = "AKIAPAIMONTEST"
	secretKey = "paimon-test-secret-key"
	bucket    = "warehouse"
)

// server is an S3 endpoint on loopback with a FaultHandler in front of it;
// the handler also counts requests, independently of the code under test.
type server struct {
	name   string
	faults *fileiotest.FaultHandler
	url    string
	// backend is the server without the fault handler, so a test can put
	// more fronts (different fault rates, byte meters) before the same data.
	backend http.Handler
	// direct is versitygw's own URL (empty for gofakes3), for clients that
	// must not see injected faults, such as the pypaimon writer.
	direct string
}

func (s *server) options() objstore.Options {
	return objstore.Options{
		Endpoint: s.url, ForcePathStyle: true, Region: "us-east-1",
		AccessKeyID: accessKey, SecretAccessKey: secretKey,
		RetryBaseDelay: 2 * time.Millisecond, RetryMaxDelay: 50 * time.Millisecond,
	}
}

func (s *server) open(t testing.TB, opts objstore.Options) *objstore.Blob {
	t.Helper()
	fio, err := objstore.Open(context.Background(), "s3://"+bucket+"/wh", opts)
	if err != nil {
		t.Fatal(err)
	}
	b := fio.(*objstore.Blob)
	t.Cleanup(func() { b.Close() })
	return b
}

func front(t testing.TB, name string, next http.Handler, fc fileiotest.FaultConfig) *server {
	fh := fileiotest.NewFaultHandler(next, fc)
	srv := httptest.NewServer(fh)
	t.Cleanup(srv.Close)
	return &server{name: name, faults: fh, url: srv.URL, backend: next}
}

// fake starts gofakes3 in-process: no signature checks, but fast.
func fake(t testing.TB, fc fileiotest.FaultConfig) *server {
	be := s3mem.New()
	if err := be.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	return front(t, "gofakes3", gofakes3.New(be).Server(), fc)
}

// versity starts versitygw (posix backend) on a free loopback port in a
// temp dir and puts a fault-injecting reverse proxy in front of it. It skips
// loudly when the binary is missing, and fails under CI=true.
func versity(t testing.TB, fc fileiotest.FaultConfig) *server {
	t.Helper()
	direct := testenv.StartVersitygw(t, accessKey, secretKey, bucket)
	target, _ := url.Parse(direct)
	// The proxy keeps the client's Host header, which SigV4 signed.
	s := front(t, "versitygw", httputil.NewSingleHostReverseProxy(target), fc)
	s.direct = direct
	return s
}
