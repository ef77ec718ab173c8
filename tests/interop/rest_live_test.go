package interop

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// TestRESTLive re-runs the Java append and primary-key matrices through the REST catalog:
// Java Paimon's own REST server (RESTCatalogServer, paimon-core 1.3.1 test-jar) is started
// over a fresh warehouse, JavaGen (append) or JavaPkGen (primary key) writes every table
// through Java's RESTCatalog client, and Go opens the same tables through the same server
// (schema, path and latest snapshot from it) and compares with Java's reads. Opt-in with PAIMON_INTEROP=1 like
// TestLive; under CI=true a missing Java/Maven fails.
func TestRESTLive(t *testing.T) {
	if os.Getenv("PAIMON_INTEROP") != "1" {
		t.Skip("live REST interop suite: set PAIMON_INTEROP=1 to write the tables with Java through its REST server")
	}
	open := func(t *testing.T, srv *testenv.JavaREST) *paimon.Catalog {
		cat, err := paimon.OpenCatalog(context.Background(), srv.Warehouse,
			paimon.WithREST(map[string]string{"uri": srv.URI, "token": srv.Token}), CheckedAlloc(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cat.Close() })
		return cat
	}
	t.Run("append", func(t *testing.T) {
		out := t.TempDir()
		srv := testenv.StartJavaREST(t, out, testenv.JavaRESTOptions{
			Gen: "javagen", Expected: filepath.Join(out, "expected"), Cases: filepath.Join(out, "cases-java.json"),
		})
		cases, err := LoadCases(out)
		if err != nil {
			t.Fatal(err)
		}
		RunCases(t, context.Background(), open(t, srv), out, cases, "")
	})
	// The primary-key matrix: JavaPkGen writes its tables through the REST catalog (all, or
	// the comma-separated javapk tables of PAIMON_REST_PK_TABLES), Go reads every batch and
	// stream case through the same server. The generator writes 24 tables before the server
	// answers READY: 6.5 minutes on a loaded 2-core machine, hence the longer start budget.
	t.Run("pk", func(t *testing.T) {
		out := t.TempDir()
		srv := testenv.StartJavaREST(t, out, testenv.JavaRESTOptions{
			Gen: "javapk", Expected: filepath.Join(out, "expected"), Cases: filepath.Join(out, "cases-pk.json"),
			Tables: os.Getenv("PAIMON_REST_PK_TABLES"), StartTimeout: 30 * time.Minute,
		})
		cf, err := loadPKCases(out)
		if err != nil {
			t.Fatal(err)
		}
		runPKCasesWith(t, out, cf, open(t, srv))
	})
}
