// Package resttest is an in-process fake of Paimon's REST catalog over a
// local filesystem warehouse, for unit tests of the client and the facade:
// it answers the reader's calls as Java's RESTCatalogServer does (same
// paths, JSON shapes and error bodies) and can inject failures, count
// requests and vend short-lived data tokens. The live tests use Java's own
// server (resources/java RestServer).
package resttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is the fake catalog.
type Server struct {
	*httptest.Server
	// Dir is the warehouse directory (<db>.db/<table> inside).
	Dir string
	// Token is the bearer token requests must carry.
	Token string
	// Prefix is the URI prefix the config answer announces.
	Prefix string
	// WarehouseName is the warehouse query parameter /v1/config expects.
	WarehouseName string

	mu sync.Mutex
	// dataTokens enables data-token.enabled in the config answer.
	dataTokens bool
	tokenTTL   time.Duration
	tokenCount int
	failures   map[string][]int
	bodies     map[string]string
	latest     map[string]int64
	requests   []string
	now        func() time.Time
}

// New starts a fake over dir.
func New(dir string) *Server {
	s := &Server{Dir: dir, Token: "test-token", Prefix: "paimon", WarehouseName: "wh",
		failures: map[string][]int{}, bodies: map[string]string{}, latest: map[string]int64{}, tokenTTL: 2 * time.Hour, now: time.Now}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// EnableDataTokens makes the config announce data-token.enabled=true and
// tokens live ttl.
func (s *Server) EnableDataTokens(ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dataTokens, s.tokenTTL = true, ttl
}

// SetClock sets the clock token expiry is computed from.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// FailNext makes the next requests whose path contains substr answer the
// given statuses in order (an ErrorResponse body, or Body's raw text).
func (s *Server) FailNext(substr string, statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[substr] = append(s.failures[substr], statuses...)
}

// Body makes requests whose path contains substr answer 200 with body.
func (s *Server) Body(substr, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies[substr] = body
}

// SetLatest makes the server name snapshot id as db.table's latest,
// whatever the directory holds (a catalog that manages snapshots).
func (s *Server) SetLatest(table string, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latest[table] = id
}

// TokenRequests counts data token requests.
func (s *Server) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenCount
}

// Requests returns the request paths received, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status int, typ, name, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "resourceType": typ, "resourceName": name, "code": status})
}

var numbered = regexp.MustCompile(`^(schema|snapshot)-(\d+)$`)

func highest(dir, kind string) (int64, bool) {
	ents, _ := os.ReadDir(dir)
	best, ok := int64(-1), false
	for _, e := range ents {
		if m := numbered.FindStringSubmatch(e.Name()); m != nil && m[1] == kind {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			if n > best {
				best, ok = n, true
			}
		}
	}
	return best, ok
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.Path)
	for sub, codes := range s.failures {
		if strings.Contains(r.URL.Path, sub) && len(codes) > 0 {
			code := codes[0]
			s.failures[sub] = codes[1:]
			s.mu.Unlock()
			writeErr(w, code, "", "", fmt.Sprintf("injected %d", code))
			return
		}
	}
	for sub, body := range s.bodies {
		if strings.Contains(r.URL.Path, sub) {
			s.mu.Unlock()
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(body))
			return
		}
	}
	s.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if r.URL.Path == "/v1/config" {
		if r.URL.Query().Get("warehouse") != s.WarehouseName {
			writeErr(w, http.StatusNotFound, "WAREHOUSE", r.URL.Query().Get("warehouse"), "no such warehouse")
			return
		}
		s.mu.Lock()
		dt := s.dataTokens
		s.mu.Unlock()
		writeJSON(w, 200, map[string]any{
			"defaults":  map[string]string{"prefix": s.Prefix, "data-token.enabled": strconv.FormatBool(dt), "warehouse": s.WarehouseName},
			"overrides": map[string]string{},
		})
		return
	}
	base := "/v1/" + url.PathEscape(s.Prefix) + "/databases"
	if !strings.HasPrefix(r.URL.Path, base) {
		writeErr(w, http.StatusNotFound, "", "", "no route "+r.URL.Path)
		return
	}
	rest := strings.Trim(strings.TrimPrefix(r.URL.Path, base), "/")
	var parts []string
	if rest != "" {
		for _, p := range strings.Split(rest, "/") {
			u, _ := url.QueryUnescape(p)
			parts = append(parts, u)
		}
	}
	switch {
	case len(parts) == 0:
		var dbs []string
		ents, _ := os.ReadDir(s.Dir)
		for _, e := range ents {
			if e.IsDir() && strings.HasSuffix(e.Name(), ".db") {
				dbs = append(dbs, strings.TrimSuffix(e.Name(), ".db"))
			}
		}
		writeJSON(w, 200, map[string]any{"databases": dbs})
		return
	}
	db := parts[0]
	dbDir := filepath.Join(s.Dir, db+".db")
	if st, err := os.Stat(dbDir); err != nil || !st.IsDir() {
		writeErr(w, http.StatusNotFound, "DATABASE", db, "database does not exist")
		return
	}
	if len(parts) == 2 && parts[1] == "tables" {
		var tbls []string
		ents, _ := os.ReadDir(dbDir)
		for _, e := range ents {
			if _, ok := highest(filepath.Join(dbDir, e.Name(), "schema"), "schema"); ok {
				tbls = append(tbls, e.Name())
			}
		}
		sort.Strings(tbls)
		// Two pages, to exercise nextPageToken.
		if len(tbls) > 1 && r.URL.Query().Get("pageToken") == "" {
			writeJSON(w, 200, map[string]any{"tables": tbls[:1], "nextPageToken": "p2"})
			return
		}
		if r.URL.Query().Get("pageToken") == "p2" {
			tbls = tbls[1:]
		}
		writeJSON(w, 200, map[string]any{"tables": tbls, "nextPageToken": nil})
		return
	}
	if len(parts) < 3 || parts[1] != "tables" {
		writeErr(w, http.StatusNotFound, "", "", "no route "+r.URL.Path)
		return
	}
	tbl := parts[2]
	tblDir := filepath.Join(dbDir, tbl)
	sid, ok := highest(filepath.Join(tblDir, "schema"), "schema")
	if !ok {
		writeErr(w, http.StatusNotFound, "TABLE", db+"."+tbl, "table does not exist")
		return
	}
	switch {
	case len(parts) == 3:
		raw, err := os.ReadFile(filepath.Join(tblDir, "schema", fmt.Sprintf("schema-%d", sid)))
		if err != nil {
			writeErr(w, 500, "", "", err.Error())
			return
		}
		var sf map[string]json.RawMessage
		_ = json.Unmarshal(raw, &sf)
		schema := map[string]json.RawMessage{}
		for _, k := range []string{"fields", "partitionKeys", "primaryKeys", "options", "comment"} {
			if v, ok := sf[k]; ok {
				schema[k] = v
			}
		}
		writeJSON(w, 200, map[string]any{
			"id": "uuid-" + db + "-" + tbl, "name": tbl, "path": tblDir, "isExternal": false,
			"schemaId": sid, "schema": schema, "owner": "o", "createdAt": 1, "createdBy": "c", "updatedAt": 1, "updatedBy": "u",
		})
	case len(parts) == 4 && parts[3] == "snapshot":
		s.mu.Lock()
		id, set := s.latest[db+"."+tbl]
		s.mu.Unlock()
		if !set {
			if id, ok = highest(filepath.Join(tblDir, "snapshot"), "snapshot"); !ok {
				writeErr(w, http.StatusNotFound, "SNAPSHOT", db, "No Snapshot")
				return
			}
		}
		raw, err := os.ReadFile(filepath.Join(tblDir, "snapshot", fmt.Sprintf("snapshot-%d", id)))
		if err != nil {
			writeErr(w, 500, "", "", err.Error())
			return
		}
		writeJSON(w, 200, map[string]any{"snapshot": map[string]any{"snapshot": json.RawMessage(raw), "recordCount": 0, "fileSizeInBytes": 0, "fileCount": 0, "lastFileCreationTime": 0}})
	case len(parts) == 4 && parts[3] == "token":
		s.mu.Lock()
		s.tokenCount++
		n, exp := s.tokenCount, s.now().Add(s.tokenTTL)
		s.mu.Unlock()
		writeJSON(w, 200, map[string]any{
			"token":           map[string]string{"fs.s3a.access.key": fmt.Sprintf("ak%d", n), "fs.s3a.secret.key": fmt.Sprintf("sk%d", n)},
			"expiresAtMillis": exp.UnixMilli(),
		})
	default:
		writeErr(w, http.StatusNotFound, "", "", "no route "+r.URL.Path)
	}
}
