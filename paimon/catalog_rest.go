package paimon

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
	"github.com/connect-paimon/connect-paimon/paimon/internal/restcatalog"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
)

// WithREST makes OpenCatalog open Paimon's REST catalog (Java's and
// pypaimon's metastore=rest) instead of a warehouse directory. options are
// the catalog options as Java names them: "uri" (the server's base URI; a
// bare host:port gets http:// as in Java), "token.provider" ("bear", a
// static bearer token, the default when "token" is set; "dlf" is refused:
// it cannot be tested without the cloud), "token", "header.*",
// "data-token.enabled", s3.* storage settings...; empty values are left
// out. OpenCatalog's warehouse argument is "warehouse" (the catalog's name
// on the server, not a path). The server's /v1/config answer is merged with
// them (its defaults under, its overrides over). The storage options
// (WithStorageOptions) configure the object store clients of the tables,
// under the catalog's s3.* options and the data tokens the server vends.
func WithREST(options map[string]string) CatalogOption {
	return func(c *catalogConfig) {
		c.rest = map[string]string{}
		for k, v := range options {
			if v != "" {
				c.rest[k] = v
			}
		}
	}
}

// restCatalog is the REST side of a Catalog.
type restCatalog struct {
	client  *restcatalog.Client
	storage objstore.Options

	mu     sync.Mutex
	owned  []io.Closer // storage clients the tables opened
	closed bool
}

func openREST(ctx context.Context, warehouse string, cfg catalogConfig) (*Catalog, error) {
	if cfg.fio != nil {
		return nil, &FieldError{Field: "FileIO", Err: fmt.Errorf("a REST catalog's tables choose their storage; WithFileIO does not apply")}
	}
	opts := map[string]string{}
	for k, v := range cfg.rest {
		opts[k] = v
	}
	opts[restcatalog.OptMetastore] = "rest"
	if warehouse != "" {
		opts[restcatalog.OptWarehouse] = warehouse
	}
	if opts[restcatalog.OptTokenProvider] == "" && opts[restcatalog.OptToken] != "" {
		opts[restcatalog.OptTokenProvider] = restcatalog.ProviderBear
	}
	// The catalog's requests retry as storage does; they are not storage
	// requests, so the storage metrics hook does not count them.
	ro := cfg.storage
	ro.Metrics = nil
	client, err := restcatalog.New(ctx, restcatalog.Config{Options: opts, Retry: ro.Retry()})
	if err != nil {
		return nil, fmt.Errorf("open REST catalog %s: %w", opts[restcatalog.OptURI], err)
	}
	return &Catalog{
		warehouse: client.Warehouse(),
		rest:      &restCatalog{client: client, storage: cfg.storage},
		warn:      cfg.warn,
		alloc:     cfg.alloc,
		scratch:   newScratchPool(),
		meta:      cfg.meta,
	}, nil
}

func (r *restCatalog) own(c io.Closer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		_ = c.Close()
		return fmt.Errorf("catalog is closed")
	}
	r.owned = append(r.owned, c)
	return nil
}

func (r *restCatalog) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	var first error
	for _, c := range r.owned {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	r.owned = nil
	return first
}

// storageFor opens the object store client of a table path, configured by
// the storage options, then the catalog options, then (data tokens) the
// token's properties — Java's precedence (RESTTokenFileIO merges the
// token over the catalog options).
func (r *restCatalog) storageFor(ctx context.Context, path string, token map[string]string) (fileio.FileIO, error) {
	props := r.client.Options()
	for k, v := range token {
		props[k] = v
	}
	o, err := r.storage.WithProperties(props)
	if err != nil {
		return nil, err
	}
	return objstore.Open(ctx, path, o)
}

// getTable opens a table as Java's RESTCatalog.getTable: the server's
// metadata gives the schema (its options plus "path") and where the table
// lives; the latest snapshot comes from the server, everything else
// (older schemas, snapshots by id, manifests, data, consumers) from the
// table path, through storage opened with the table's data token when the
// catalog vends them and the table is not external.
func (r *restCatalog) getTable(ctx context.Context, db, tbl, branch string, warn func(string)) (*Table, error) {
	if branch == "main" {
		branch = ""
	}
	name := db + "." + tbl
	meta, err := r.client.GetTable(ctx, db, tbl, branch)
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", name, err)
	}
	data, err := meta.SchemaFile()
	if err == nil {
		var s *schema.TableSchema
		if s, err = schema.Parse(data); err == nil {
			return r.assemble(ctx, db, tbl, branch, meta, s, warn)
		}
	}
	return nil, fmt.Errorf("open table %s: schema from the REST catalog: %w", name, &restcatalog.Error{
		Op: "get table " + name, Endpoint: "GET table", Status: 200, Message: err.Error(), Malformed: true,
	})
}

func (r *restCatalog) assemble(ctx context.Context, db, tbl, branch string, meta *restcatalog.Table, s *schema.TableSchema, warn func(string)) (*Table, error) {
	name := db + "." + tbl
	root := strings.TrimRight(meta.Path, "/")
	var fio fileio.FileIO
	if r.client.DataTokenEnabled() && !meta.IsExternal {
		tf := restcatalog.NewTokenFileIO(name,
			func(ctx context.Context) (*restcatalog.Token, error) {
				return r.client.TableToken(ctx, db, tbl, branch)
			},
			func(ctx context.Context, props map[string]string) (fileio.FileIO, error) {
				return r.storageFor(ctx, root, props)
			}, warn)
		if err := r.own(tf); err != nil {
			return nil, fmt.Errorf("open table %s: %w", name, err)
		}
		fio = tf
	} else {
		f, err := r.storageFor(ctx, root, nil)
		if err != nil {
			return nil, fmt.Errorf("open table %s at %s: %w", name, root, err)
		}
		if c, ok := f.(io.Closer); ok {
			if err := r.own(c); err != nil {
				return nil, fmt.Errorf("open table %s: %w", name, err)
			}
		}
		fio = f
	}
	client := r.client
	snaps := snapshot.NewManager(fio, root, branch).WithWarnings(warn).WithLatestLoader(
		func(ctx context.Context) (*snapshot.Snapshot, bool, error) {
			raw, ok, err := client.LatestSnapshot(ctx, db, tbl, branch)
			if err != nil || !ok {
				return nil, false, err
			}
			sn, err := snapshot.Parse(raw)
			if err != nil {
				return nil, false, fmt.Errorf("latest snapshot of %s from the REST catalog: %w", name, err)
			}
			return sn, true, nil
		})
	return newTable(fio, root, name, branch, s, schema.NewManager(fio, root, branch), snaps, warn)
}
