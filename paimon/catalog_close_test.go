package paimon_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// Catalog.Close closes the object-store client the catalog opened: after
// it, the catalog's storage refuses requests instead of leaking a client.
// The S3 endpoint is a stub that lists one database directory.
func TestCatalogCloseClosesObjectStore(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>wh/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>false</IsTruncated><CommonPrefixes><Prefix>wh/db.db/</Prefix></CommonPrefixes></ListBucketResult>`))
	}))
	defer srv.Close()
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, "s3://b/wh", paimon.WithStorageOptions(objstore.Options{
		Endpoint: srv.URL, ForcePathStyle: true, Region: "us-east-1",
		AccessKeyID: "AK", SecretAccessKey: "SK", MaxRetries: -1,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if dbs, err := cat.ListDatabases(ctx); err != nil || len(dbs) != 1 || dbs[0] != "db" {
		t.Fatalf("databases %v, %v", dbs, err)
	}
	if err := cat.Close(); err != nil {
		t.Fatal(err)
	}
	before := requests.Load()
	_, err = cat.ListDatabases(ctx)
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("list after Close: %v, want an error saying the store is closed", err)
	}
	if n := requests.Load() - before; n != 0 {
		t.Fatalf("a closed catalog sent %d requests", n)
	}
	if err := cat.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
