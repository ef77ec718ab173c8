package paimon_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
	"github.com/connect-paimon/connect-paimon/paimon/internal/restcatalog/resttest"
	"github.com/connect-paimon/connect-paimon/paimon/types"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// restDemo serves a copy of the demo warehouse through the in-process fake
// REST catalog.
func restDemo(t *testing.T) (*resttest.Server, string) {
	t.Helper()
	wh, tableDir := demoCopy(t)
	srv := resttest.New(wh)
	t.Cleanup(srv.Close)
	return srv, tableDir
}

func openREST(t *testing.T, srv *resttest.Server, extra ...paimon.CatalogOption) (*paimon.Catalog, error) {
	t.Helper()
	opts := append([]paimon.CatalogOption{
		paimon.WithREST(map[string]string{"uri": srv.URL, "token": srv.Token}),
		paimon.WithStorageOptions(objstore.Options{MaxRetries: 3, RetryBaseDelay: time.Millisecond, RetryMaxDelay: 5 * time.Millisecond}),
	}, extra...)
	cat, err := paimon.OpenCatalog(context.Background(), srv.WarehouseName, append(opts, interop.CheckedAlloc(t))...)
	if err == nil {
		t.Cleanup(func() { _ = cat.Close() })
	}
	return cat, err
}

// A table opened through the REST catalog reads the same rows as the same
// directory opened through the filesystem catalog, from the path the server
// returned; listings come from the server (two pages of tables).
func TestRESTCatalogReadsLikeFilesystem(t *testing.T) {
	ctx := context.Background()
	srv, tableDir := restDemo(t)
	cat, err := openREST(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Warehouse() != srv.WarehouseName {
		t.Errorf("warehouse %q", cat.Warehouse())
	}
	dbs, err := cat.ListDatabases(ctx)
	if err != nil || !slices.Equal(dbs, []string{"demo"}) {
		t.Fatalf("databases %v, %v", dbs, err)
	}
	tbls, err := cat.ListTables(ctx, "demo")
	if err != nil || !slices.Contains(tbls, "orders") {
		t.Fatalf("tables %v, %v", tbls, err)
	}
	tbl, err := cat.GetTable(ctx, "demo.orders")
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Path() != tableDir {
		t.Errorf("path %q, want the server's %q", tbl.Path(), tableDir)
	}
	if got := tbl.Schema().Options["path"]; got != tableDir {
		t.Errorf("schema option path %q (Java adds the server's path)", got)
	}
	got := readAll(t, ctx, tbl.NewReadBuilder())
	_, fsTbl := openDemoAt(t, strings.TrimSuffix(tableDir, "/demo.db/orders"))
	want := readAll(t, ctx, fsTbl.NewReadBuilder())
	if len(want) != 300 || !slices.Equal(got, want) {
		t.Fatalf("REST read %d rows, filesystem %d; differ: %v", len(got), len(want), !slices.Equal(got, want))
	}
}

// The server, not the directory, says which snapshot is the latest (Java's
// SnapshotLoader): a batch read and a streaming start at "latest" use it.
func TestRESTCatalogLatestSnapshotFromServer(t *testing.T) {
	ctx := context.Background()
	srv, _ := restDemo(t)
	srv.SetLatest("demo.orders", 2)
	cat, err := openREST(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, "demo.orders")
	if err != nil {
		t.Fatal(err)
	}
	s, ok, err := tbl.Snapshots().Latest(ctx)
	if err != nil || !ok || s.ID != 2 {
		t.Fatalf("latest %+v %v %v, want the server's 2", s, ok, err)
	}
	plan, err := tbl.NewReadBuilder().Plan(ctx)
	if err != nil || plan.SnapshotID != 2 {
		t.Fatalf("plan at %d (%v), want 2", plan.SnapshotID, err)
	}
	// Snapshots by id still come from the table path.
	if s3, err := tbl.Snapshots().Snapshot(ctx, 3); err != nil || s3.ID != 3 {
		t.Fatalf("snapshot 3: %v", err)
	}
	sc, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{EndAtLatest: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := sc.Next(ctx)
	if err != nil || p.SnapshotID != 2 {
		t.Fatalf("first streaming plan at %d (%v), want 2", p.SnapshotID, err)
	}
	if _, err := sc.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("end at latest: %v", err)
	}
}

// Server errors become errors naming the endpoint and the table; refusals
// and malformed answers are permanent, 5xx are retried with the storage
// back-off and transient when they persist.
func TestRESTCatalogErrors(t *testing.T) {
	ctx := context.Background()
	srv, _ := restDemo(t)

	_, err := paimon.OpenCatalog(ctx, srv.WarehouseName, paimon.WithREST(map[string]string{"uri": srv.URL, "token": "wrong"}))
	if err == nil || !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "GET /v1/config") {
		t.Fatalf("wrong token: %v (permanent %v)", err, paimon.IsPermanent(err))
	}

	cat, err := openREST(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cat.GetTable(ctx, "demo.nope")
	if !paimon.IsPermanent(err) || !fileio.IsNotExist(err) || !strings.Contains(err.Error(), "demo.nope") ||
		!strings.Contains(err.Error(), "/v1/paimon/databases/demo/tables/nope") {
		t.Fatalf("missing table: %v", err)
	}

	for _, code := range []int{403, 409, 400} {
		srv.FailNext("/tables/orders", code)
		_, err = cat.GetTable(ctx, "demo.orders")
		if !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "demo.orders") {
			t.Fatalf("%d: %v (permanent %v)", code, err, paimon.IsPermanent(err))
		}
	}

	srv.FailNext("/tables/orders", 500, 503)
	if _, err := cat.GetTable(ctx, "demo.orders"); err != nil {
		t.Fatalf("two 5xx then success: %v", err)
	}
	srv.FailNext("/tables/orders", 500, 500, 500, 500, 500, 500)
	_, err = cat.GetTable(ctx, "demo.orders")
	if err == nil || paimon.IsPermanent(err) || !strings.Contains(err.Error(), "giving up after 4 attempts") {
		t.Fatalf("persistent 500: %v (permanent %v), want transient after 4 attempts", err, paimon.IsPermanent(err))
	}
	srv.FailNext("/tables/orders", 0) // drain the leftover
	_, _ = cat.GetTable(ctx, "demo.orders")

	srv.Body("/tables/orders", `{"id": "x", "path": `)
	_, err = cat.GetTable(ctx, "demo.orders")
	if !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "malformed JSON") {
		t.Fatalf("malformed body: %v", err)
	}
}

func TestRESTCatalogRefusesDLFAndBadOptions(t *testing.T) {
	ctx := context.Background()
	_, err := paimon.OpenCatalog(ctx, "wh", paimon.WithREST(map[string]string{"uri": "http://127.0.0.1:1", "token.provider": "dlf"}))
	if !paimon.IsPermanent(err) || !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "token.provider=dlf") {
		t.Fatalf("dlf: %v", err)
	}
	_, err = paimon.OpenCatalog(ctx, "wh", paimon.WithREST(map[string]string{"token": "t"}))
	if !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "uri") {
		t.Fatalf("no uri: %v", err)
	}
	_, err = paimon.OpenCatalog(ctx, "wh", paimon.WithREST(map[string]string{"uri": "http://127.0.0.1:1"}))
	if !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "token.provider") {
		t.Fatalf("no token: %v", err)
	}
}

// With data tokens, the table's storage asks the server for a token first
// and again before it expires; the stream goes on across refreshes and
// consumer files land at the server's table path.
func TestRESTCatalogDataTokenRefreshWhileStreaming(t *testing.T) {
	ctx := context.Background()
	srv, tableDir := restDemo(t)
	srv.EnableDataTokens(300 * time.Millisecond)
	cat, err := openREST(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, "demo.orders")
	if err != nil {
		t.Fatal(err)
	}
	sc, rd, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{
		StartMode: paimon.StartFromSnapshot, StartSnapshot: 1, EndSnapshot: 3, ConsumerID: "c1", IncludeRowKind: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for {
		p, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows += readCounting(t, rd, p.Splits, func(string) {})
		if err := sc.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // past half the token's life
	}
	if rows != 300 {
		t.Fatalf("streamed %d rows, want 300", rows)
	}
	if n := srv.TokenRequests(); n < 3 {
		t.Fatalf("%d token requests over three snapshots of a 300ms token, want a refresh per snapshot", n)
	}
	c, ok, err := tbl.Consumers().Consumer(ctx, "c1")
	if err != nil || !ok || c.NextSnapshot != 4 {
		t.Fatalf("consumer %+v %v %v", c, ok, err)
	}
	if !strings.HasPrefix(tbl.Consumers().Path("c1"), tableDir) {
		t.Fatalf("consumer at %s, want under %s", tbl.Consumers().Path("c1"), tableDir)
	}
}
