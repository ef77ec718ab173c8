package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// StartVersitygw starts versitygw (the S3 server, posix backend in a temp
// dir) on a free loopback port with the given static credentials, creates
// the buckets, and returns its endpoint URL (http://127.0.0.1:port). The
// binary is $VERSITYGW_BIN or versitygw on PATH (.ci/run builds it);
// missing, the test is skipped loudly, or failed in CI. It is killed at the
// end of the test.
func StartVersitygw(t testing.TB, accessKey, secretKey string, buckets ...string) string {
	t.Helper()
	bin := os.Getenv("VERSITYGW_BIN")
	if bin == "" {
		bin, _ = exec.LookPath("versitygw")
	}
	if bin == "" {
		Unavailable(t, "versitygw not found (set VERSITYGW_BIN or put it on PATH: GOBIN=<dir> go install github.com/versity/versitygw/cmd/versitygw@v1.8.0); the real-S3 integration tests DID NOT RUN")
	}
	root := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
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
	endpoint := "http://" + addr
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, b := range buckets {
		if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatalf("create bucket %s on versitygw: %v", b, err)
		}
	}
	return endpoint
}
