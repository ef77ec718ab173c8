package objectstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// Azurite's well-known development account (documented by Microsoft,
// accepted by every Azurite install; not a secret).
const (
	azuriteAccount = "devstoreaccount1"
	azuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// azuriteServer is Azurite's blob service on loopback (in-memory) with a
// fault-injecting, request-counting proxy in front.
type azuriteServer struct {
	faults *fileiotest.FaultHandler
	// url is the proxy's root (http://127.0.0.1:port); direct is
	// Azurite's own.
	url, direct string
}

func (s *azuriteServer) options() objstore.Options {
	return objstore.Options{
		Endpoint: s.url, StorageAccount: azuriteAccount, StorageAccessKey: azuriteKey,
		RetryBaseDelay: 2 * time.Millisecond, RetryMaxDelay: 50 * time.Millisecond,
	}
}

// azuriteBin finds azurite-blob: AZURITE_BIN, PATH, or the cache .ci/run
// installs into.
func azuriteBin() string {
	if b := os.Getenv("AZURITE_BIN"); b != "" {
		return b
	}
	if b, err := exec.LookPath("azurite-blob"); err == nil {
		return b
	}
	if home, err := os.UserHomeDir(); err == nil {
		b := filepath.Join(home, ".cache", "connect-paimon", "azurite", "node_modules", ".bin", "azurite-blob")
		if _, err := os.Stat(b); err == nil {
			return b
		}
	}
	return ""
}

// startAzurite runs azurite-blob on a free loopback port and creates the
// container. It skips loudly when Azurite is missing, and fails under
// CI=true.
func startAzurite(t testing.TB, fc fileiotest.FaultConfig) *azuriteServer {
	t.Helper()
	bin := azuriteBin()
	if bin == "" {
		missingTool(t, "azurite-blob not found (set AZURITE_BIN, or: npm install --prefix ~/.cache/connect-paimon/azurite azurite@3.35.0); the Azure integration tests DID NOT RUN")
	}
	host, port := freeAddr(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--blobHost", host, "--blobPort", fmt.Sprint(port),
		"--inMemoryPersistence", "--skipApiVersionCheck", "--silent")
	cmd.Dir = dir
	logf, err := os.Create(filepath.Join(dir, "azurite.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		logf.Close()
	})
	addr := net.JoinHostPort(host, fmt.Sprint(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		select {
		case werr := <-exited:
			exited <- werr // for the cleanup
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("azurite exited before listening on %s: %v\n%s", addr, werr, log)
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("azurite did not listen on %s within 30s: %v\n%s", addr, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	direct := "http://" + addr
	cred, err := container.NewSharedKeyCredential(azuriteAccount, azuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := container.NewClientWithSharedKeyCredential(direct+"/"+azuriteAccount+"/"+bucket, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cc.Create(ctx, nil); err != nil {
		t.Fatalf("create container on azurite: %v", err)
	}
	target, _ := url.Parse(direct)
	fh := fileiotest.NewFaultHandler(httputil.NewSingleHostReverseProxy(target), fc)
	f := front(t, "azurite", fh, fileiotest.FaultConfig{})
	return &azuriteServer{faults: fh, url: f.url, direct: direct}
}

func openAzure(t testing.TB, uri string, opts objstore.Options) *objstore.Blob {
	t.Helper()
	fio, err := objstore.Open(context.Background(), uri, opts)
	if err != nil {
		t.Fatalf("open %s: %v", uri, err)
	}
	b := fio.(*objstore.Blob)
	t.Cleanup(func() { b.Close() })
	return b
}

// TestAzureConformance runs the FileIO suite on azblob:// against Azurite,
// with more than 1000 keys in one directory to cross a listing page.
func TestAzureConformance(t *testing.T) {
	s := startAzurite(t, fileiotest.FaultConfig{})
	root := "azblob://" + bucket + "/wh"
	fileiotest.Run(t, openAzure(t, root, s.options()), root, fileiotest.Config{ManyKeys: 1002, Writers: 8})
	n, byMethod, _ := s.faults.Stats()
	t.Logf("azurite: %d requests %v", n, byMethod)
}

// TestAzureConformanceUnderFaults proves the Azure opener hands 5xx,
// resets and cut bodies to this package's retry policy (the SDK's retries
// are off): the suite passes with 15 % of requests failing, and retries
// stay bounded.
func TestAzureConformanceUnderFaults(t *testing.T) {
	fc := cloudFaults(8)
	s := startAzurite(t, fc)
	opts := s.options()
	opts.MaxRetries = 8
	opts.RequestTimeout = 5 * time.Second
	conformanceUnderFaults(t, s.faults, fc.Rate, openAzure(t, "azblob://"+bucket+"/wh", opts), "azblob")
}

// TestAzureInteropCases reads every committed interop table (pypaimon- and
// Java-written) from azblob:// and compares with the writers' own reads.
func TestAzureInteropCases(t *testing.T) {
	s := startAzurite(t, fileiotest.FaultConfig{})
	n := runInteropCases(t, "azblob://"+bucket+"/fixtures", s.options())
	total, byMethod, _ := s.faults.Stats()
	t.Logf("%d cases over azblob://: %d requests at the server %v", n, total, byMethod)
}

// TestAzureAddressing checks each way Options can reach the same Azurite
// container: a connection string, an endpoint naming the account in its
// path, the account taken from an abfs URI, and an endpoint without the
// account path (loopback gets it appended). Each reads the object the
// first one wrote.
func TestAzureAddressing(t *testing.T) {
	ctx := context.Background()
	s := startAzurite(t, fileiotest.FaultConfig{})
	base := s.options()
	w := openAzure(t, "azblob://"+bucket+"/addr", base)
	if err := w.WriteFileAtomic(ctx, "azblob://"+bucket+"/addr/x", []byte("hello"), false); err != nil {
		t.Fatal(err)
	}
	cs := fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s/%s;", azuriteAccount, azuriteKey, s.url, azuriteAccount)
	for _, c := range []struct {
		name, uri string
		opts      objstore.Options
	}{
		{"connection string", "azblob://" + bucket + "/addr/x", objstore.Options{StorageConnectionString: cs}},
		{"endpoint with account path", "azblob://" + bucket + "/addr/x", objstore.Options{Endpoint: s.url + "/" + azuriteAccount + "/", StorageAccessKey: azuriteKey}},
		{"abfs account", "abfs://" + bucket + "@" + azuriteAccount + ".dfs.core.windows.net/addr/x", objstore.Options{Endpoint: s.url, StorageAccessKey: azuriteKey}},
		{"abfss account", "abfss://" + bucket + "@" + azuriteAccount + ".dfs.core.windows.net/addr/x", objstore.Options{Endpoint: s.url, StorageAccessKey: azuriteKey}},
		{"bare loopback endpoint", "azblob://" + bucket + "/addr/x", base},
	} {
		t.Run(c.name, func(t *testing.T) {
			fio, err := objstore.Open(ctx, c.uri, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer fio.(*objstore.Blob).Close()
			b, err := fio.ReadFile(ctx, c.uri)
			if err != nil || string(b) != "hello" {
				t.Fatalf("read %s = %q, %v", c.uri, b, err)
			}
		})
	}
	// Ambiguous or incomplete settings fail at open, naming the problem.
	for _, c := range []struct {
		uri  string
		opts objstore.Options
		want string
	}{
		{"azblob://" + bucket + "/x", objstore.Options{StorageConnectionString: cs, StorageAccessKey: azuriteKey}, "connection string"},
		{"abfs://" + bucket + "@other.dfs.core.windows.net/x", objstore.Options{StorageAccount: azuriteAccount, StorageAccessKey: azuriteKey, Endpoint: s.url}, `"other"`},
		{"azblob://" + bucket + "/x", objstore.Options{StorageAccount: azuriteAccount, StorageAccessKey: azuriteKey, Endpoint: "ftp://h"}, "ftp://h"},
		{"azblob://" + bucket + "/x", objstore.Options{StorageAccount: azuriteAccount, StorageAccessKey: "not base64!", Endpoint: s.url}, "storage access key"},
	} {
		if _, err := objstore.Open(ctx, c.uri, c.opts); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "open ") {
			t.Errorf("Open(%s, %+v) = %v, want an error mentioning %s", c.uri, c.opts, err, c.want)
		}
		if c.opts.StorageAccessKey != "" {
			// Secrets must not leak into error messages.
			if _, err := objstore.Open(ctx, c.uri, c.opts); err != nil && strings.Contains(err.Error(), azuriteKey) {
				t.Errorf("error leaks the account key: %v", err)
			}
		}
	}
}

// TestAzureErrors pins what callers see: a wrong key is a permission error
// naming the path, sent once (not retried), never "missing"; a missing
// container reads as ErrNotExist.
func TestAzureErrors(t *testing.T) {
	ctx := context.Background()
	s := startAzurite(t, fileiotest.FaultConfig{})
	bad := s.options()
	bad.StorageAccessKey = "d3Jvbmcga2V5IGZvciB0aGUgdGVzdA=="
	fio := openAzure(t, "azblob://"+bucket+"/wh", bad)
	s.faults.Reset()
	ok, err := fio.Exists(ctx, "azblob://"+bucket+"/wh/snapshot/snapshot-1")
	if ok || err == nil || errors.Is(err, fileio.ErrNotExist) {
		t.Fatalf("Exists with a wrong key = %v, %v; want an error that is not ErrNotExist", ok, err)
	}
	for _, want := range []string{"azblob://" + bucket + "/wh/snapshot/snapshot-1", "permission denied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("wrong-key error %q does not mention %q", err, want)
		}
	}
	if n, _, _ := s.faults.Stats(); n != 1 {
		t.Errorf("wrong key sent %d requests, want 1 (not retried)", n)
	}

	missing := openAzure(t, "azblob://no-such-container/wh", s.options())
	if _, err := missing.ReadFile(ctx, "azblob://no-such-container/wh/x"); !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("read from a missing container = %v, want ErrNotExist", err)
	}
}
