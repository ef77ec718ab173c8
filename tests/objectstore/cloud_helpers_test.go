package objectstore_test

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// runInteropCases uploads the committed interop warehouse under root (a
// gs:// or azblob:// URI) and runs every case of resources/fixtures/
// cases*.json through paimon.OpenCatalog on that URI, comparing with the
// rows the writers' own readers returned. It returns the number of cases.
func runInteropCases(t *testing.T, root string, opts objstore.Options) int {
	t.Helper()
	dir := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures")
	cases, err := interop.LoadCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("no interop cases under %s", dir)
	}
	ctx := context.Background()
	fio, err := objstore.Open(ctx, root, opts)
	if err != nil {
		t.Fatalf("open %s: %v", root, err)
	}
	n := upload(t, fio, filepath.Join(dir, "warehouse"), root)
	fio.(io.Closer).Close()
	t.Logf("uploaded %d files to %s, %d cases", n, root, len(cases))

	cat, err := paimon.OpenCatalog(ctx, root, paimon.WithStorageOptions(opts), interop.CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cat.FileIO().(io.Closer); ok {
		defer c.Close()
	}
	interop.RunCases(t, ctx, cat, dir, cases, "under "+root)
	return len(cases)
}

// freeAddr returns a loopback address nobody listens on right now, for
// servers that take a port on their command line.
func freeAddr(t testing.TB) (host string, port int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a := l.Addr().(*net.TCPAddr)
	return a.IP.String(), a.Port
}

// missingTool skips the test with a loud warning, or fails it under
// CI=true, where every emulator must be installed (.ci/run does it).
func missingTool(t testing.TB, msg string) {
	t.Helper()
	testenv.Unavailable(t, msg)
}

// cloudFaults is the fault mix of the GCS and Azure fault runs: everything
// but stalls (each stall costs an attempt timeout).
func cloudFaults(seed uint64) fileiotest.FaultConfig {
	return fileiotest.FaultConfig{Rate: 0.15, Seed: seed, Delay: 20 * time.Millisecond, Kinds: []fileiotest.Fault{
		fileiotest.Fault500, fileiotest.Fault503SlowDown, fileiotest.FaultDelay,
		fileiotest.FaultResetBefore, fileiotest.FaultResetAfter,
		fileiotest.FaultTruncate, fileiotest.FaultShortBody,
	}}
}

// conformanceUnderFaults runs the FileIO suite on fio twice, clean and
// with faults injected at rate by the handler in front of the emulator:
// both must pass, enough faults must fire, and the faulty run may make at
// most twice the clean run's requests.
func conformanceUnderFaults(t *testing.T, faults *fileiotest.FaultHandler, rate float64, fio fileio.FileIO, scheme string) {
	cfg := fileiotest.Config{ManyKeys: 120, Writers: 4}
	faults.SetRate(0)
	t.Run("clean", func(t *testing.T) { fileiotest.Run(t, fio, scheme+"://"+bucket+"/clean", cfg) })
	base, _, _ := faults.Stats()
	faults.Reset()
	faults.SetRate(rate)
	t.Run("faults", func(t *testing.T) { fileiotest.Run(t, fio, scheme+"://"+bucket+"/faulty", cfg) })
	n, byMethod, fired := faults.Stats()
	t.Logf("clean run %d requests; faulty run %d requests %v, faults %v", base, n, byMethod, fired)
	injected := 0
	for _, c := range fired {
		injected += c
	}
	if injected < 10 {
		t.Errorf("only %d faults injected; the test proves little", injected)
	}
	if n > 2*base {
		t.Errorf("faulty run made %d requests, more than twice the clean run's %d", n, base)
	}
}
