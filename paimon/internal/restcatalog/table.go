package restcatalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Table is GET .../databases/{db}/tables/{table}: Java's GetTableResponse.
type Table struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Path       string `json:"path"`
	IsExternal bool   `json:"isExternal"`
	SchemaID   *int64 `json:"schemaId"`
	Schema     *struct {
		Fields        json.RawMessage   `json:"fields"`
		PartitionKeys []string          `json:"partitionKeys"`
		PrimaryKeys   []string          `json:"primaryKeys"`
		Options       map[string]string `json:"options"`
		Comment       *string           `json:"comment"`
	} `json:"schema"`
}

// SchemaFile renders the answer as a schema file (schema-N JSON) the
// schema package parses, as Java's TableSchema.create(schemaId, schema):
// the current schema version (no old-version defaults), the highest
// top-level field id, and the options of the answer plus "path", as
// Java's RESTCatalog.toTableMetadata adds it.
func (t *Table) SchemaFile() ([]byte, error) {
	var ids []struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal(t.Schema.Fields, &ids); err != nil {
		return nil, fmt.Errorf("schema fields: %w", err)
	}
	highest := -1
	for _, f := range ids {
		highest = max(highest, f.ID)
	}
	opts := map[string]string{}
	for k, v := range t.Schema.Options {
		opts[k] = v
	}
	opts["path"] = t.Path
	pk, part := t.Schema.PrimaryKeys, t.Schema.PartitionKeys
	if pk == nil {
		pk = []string{}
	}
	if part == nil {
		part = []string{}
	}
	return json.Marshal(map[string]any{
		"version": 3, "id": *t.SchemaID, "fields": t.Schema.Fields, "highestFieldId": highest,
		"partitionKeys": part, "primaryKeys": pk, "options": opts, "comment": t.Schema.Comment,
		"timeMillis": 0,
	})
}

// objectName is Java's Identifier object name: "table" or
// "table$branch_b".
func objectName(table, branch string) string {
	if branch == "" || branch == "main" {
		return table
	}
	return table + "$branch_" + branch
}

// GetTable loads a table's metadata.
func (c *Client) GetTable(ctx context.Context, db, table, branch string) (*Table, error) {
	obj := objectName(table, branch)
	op := "get table " + db + "." + obj
	path := c.path("databases", esc(db), "tables", esc(obj))
	var t Table
	if err := c.get(ctx, op, path, nil, &t); err != nil {
		return nil, err
	}
	bad := func(what string) error {
		return &Error{Op: op, Endpoint: "GET " + path, Status: http.StatusOK, Message: "malformed JSON response: " + what, Malformed: true}
	}
	switch {
	case t.Path == "":
		return nil, bad("no path")
	case t.SchemaID == nil:
		return nil, bad("no schemaId")
	case t.Schema == nil || len(t.Schema.Fields) == 0 || string(t.Schema.Fields) == "null":
		return nil, bad("no schema fields")
	}
	return &t, nil
}

// LatestSnapshot is GET .../tables/{table}/snapshot: the snapshot JSON the
// catalog holds as the table's newest ({"snapshot": {"snapshot": {…},
// "recordCount": …}}: a TableSnapshot inside the response). ok is false when the server answers
// 404 for the SNAPSHOT resource (a table without snapshots), as Java's
// RESTCatalog.loadSnapshot; a 404 for the table is an error.
func (c *Client) LatestSnapshot(ctx context.Context, db, table, branch string) (json.RawMessage, bool, error) {
	obj := objectName(table, branch)
	op := "load latest snapshot of " + db + "." + obj
	path := c.path("databases", esc(db), "tables", esc(obj), "snapshot")
	// GetTableSnapshotResponse holds a TableSnapshot, which holds the
	// Snapshot next to the table's statistics.
	var resp struct {
		Snapshot *struct {
			Snapshot json.RawMessage `json:"snapshot"`
		} `json:"snapshot"`
	}
	err := c.get(ctx, op, path, nil, &resp)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound && e.ResourceType == "SNAPSHOT" {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if resp.Snapshot == nil || len(resp.Snapshot.Snapshot) == 0 || string(resp.Snapshot.Snapshot) == "null" {
		return nil, false, &Error{Op: op, Endpoint: "GET " + path, Status: http.StatusOK, Message: "malformed JSON response: no snapshot.snapshot", Malformed: true}
	}
	return resp.Snapshot.Snapshot, true, nil
}

// Token is a data token: file-system properties (credentials) valid until
// ExpiresAt.
type Token struct {
	Props     map[string]string
	ExpiresAt time.Time
}

// TableToken is GET .../tables/{table}/token (Java's loadTableToken).
func (c *Client) TableToken(ctx context.Context, db, table, branch string) (*Token, error) {
	obj := objectName(table, branch)
	op := "load data token of " + db + "." + obj
	path := c.path("databases", esc(db), "tables", esc(obj), "token")
	var resp struct {
		Token     map[string]*string `json:"token"`
		ExpiresAt *int64             `json:"expiresAtMillis"`
	}
	if err := c.get(ctx, op, path, nil, &resp); err != nil {
		return nil, err
	}
	if resp.ExpiresAt == nil {
		return nil, &Error{Op: op, Endpoint: "GET " + path, Status: http.StatusOK, Message: "malformed JSON response: no expiresAtMillis", Malformed: true}
	}
	t := &Token{Props: map[string]string{}, ExpiresAt: time.UnixMilli(*resp.ExpiresAt)}
	for k, v := range resp.Token {
		if v != nil {
			t.Props[k] = *v
		}
	}
	return t, nil
}
