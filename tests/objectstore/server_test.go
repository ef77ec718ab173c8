package objectstore_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

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
	bin := os.Getenv("VERSITYGW_BIN")
	if bin == "" {
		bin, _ = exec.LookPath("versitygw")
	}
	if home, err := os.UserHomeDir(); bin == "" && err == nil {
		// Where scripts/test-all installs it.
		b := filepath.Join(home, ".cache", "connect-paimon", "bin", "versitygw")
		if _, err := os.Stat(b); err == nil {
			bin = b
		}
	}
	if bin == "" {
		missingTool(t, "versitygw not found (set VERSITYGW_BIN or put it on PATH: GOBIN=<dir> go install github.com/versity/versitygw/cmd/versitygw@v1.8.0); the real-S3 integration tests DID NOT RUN")
	}
	root := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--access", accessKey, "--secret", secretKey, "--port", addr, "--quiet", "posix", root)
	logf, err := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("versitygw did not listen on %s within 20s: %v\n%s", addr, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://" + addr), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket on versitygw: %v", err)
	}
	target, _ := url.Parse("http://" + addr)
	// The proxy keeps the client's Host header, which SigV4 signed.
	s := front(t, "versitygw", httputil.NewSingleHostReverseProxy(target), fc)
	s.direct = "http://" + addr
	return s
}
