// Package restcatalog is the client of Paimon's REST catalog API
// (paimon-open-api/rest-catalog-open-api.yaml), the calls a reader needs:
// the catalog configuration, database and table listings, a table's
// metadata, its latest snapshot and its data token. It follows Java Paimon
// 1.3's RESTApi: option names, the config merge, resource paths, the bearer
// auth header and the error codes. The facade (package paimon) turns its
// answers into tables.
package restcatalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/internal/strictjson"
)

// Catalog option keys (Java's RESTCatalogOptions, CatalogOptions and
// RESTCatalogInternalOptions).
const (
	OptMetastore        = "metastore"
	OptURI              = "uri"
	OptWarehouse        = "warehouse"
	OptTokenProvider    = "token.provider"
	OptToken            = "token"
	OptPrefix           = "prefix"
	OptDataTokenEnabled = "data-token.enabled"
	// HeaderPrefix marks options sent as HTTP headers ("header.X-Y": "v").
	HeaderPrefix = "header."
)

// Token providers (Java's AuthProviderEnum).
const (
	ProviderBear = "bear"
	ProviderDLF  = "dlf"
)

// maxBody bounds what a response may hold; a catalog answer is metadata.
const maxBody = 64 << 20

// Config opens a Client.
type Config struct {
	// Options are the catalog options as a Java or pypaimon user writes
	// them: uri, warehouse, token.provider, token, header.*, dlf.*, and any
	// other key, which is merged with the server's configuration and kept
	// (Options returns it).
	Options map[string]string
	// Retry is the retry policy of every request (the object stores').
	Retry func(ctx context.Context, op string, fn func(ctx context.Context, attempt int) error) error
	// HTTP is the client requests go through; nil uses http.DefaultClient.
	HTTP *http.Client
}

// Client talks to one REST catalog. It is safe for concurrent use.
type Client struct {
	base    string
	opts    map[string]string
	headers map[string]string
	prefix  string
	retry   func(ctx context.Context, op string, fn func(ctx context.Context, attempt int) error) error
	http    *http.Client
}

// New validates the options, fetches GET /v1/config?warehouse=… and merges
// it as Java's ConfigResponse.merge does: the server's defaults, then the
// client's options, then the server's overrides.
func New(ctx context.Context, cfg Config) (*Client, error) {
	opts := map[string]string{}
	for k, v := range cfg.Options {
		opts[k] = v
	}
	uri := strings.TrimSpace(opts[OptURI])
	if uri == "" {
		return nil, cfgErr("rest catalog: option %s is required", OptURI)
	}
	uri = strings.TrimSuffix(uri, "/")
	if !strings.HasPrefix(uri, "http://") && !strings.HasPrefix(uri, "https://") {
		uri = "http://" + uri // as Java's HttpClient.normalizeUri
	}
	if _, err := url.Parse(uri); err != nil {
		return nil, cfgErr("rest catalog: option %s=%q: %w", OptURI, opts[OptURI], err)
	}
	auth, err := authHeader(opts)
	if err != nil {
		return nil, err
	}
	c := &Client{base: uri, retry: cfg.Retry, http: cfg.HTTP, headers: map[string]string{}}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	for k, v := range auth {
		c.headers[k] = v
	}
	var q url.Values
	if wh := opts[OptWarehouse]; wh != "" {
		q = url.Values{OptWarehouse: {wh}}
	}
	var conf struct {
		Defaults  map[string]*string `json:"defaults"`
		Overrides map[string]*string `json:"overrides"`
	}
	if err := c.get(ctx, "load catalog config", "/v1/config", q, &conf); err != nil {
		return nil, err
	}
	merged := map[string]string{}
	for k, v := range conf.Defaults {
		if v != nil {
			merged[k] = *v
		}
	}
	for k, v := range opts {
		merged[k] = v
	}
	for k, v := range conf.Overrides {
		if v != nil {
			merged[k] = *v
		}
	}
	c.opts = merged
	c.prefix = merged[OptPrefix]
	for k, v := range merged {
		if strings.HasPrefix(k, HeaderPrefix) && len(k) > len(HeaderPrefix) {
			c.headers[k[len(HeaderPrefix):]] = v
		}
	}
	for k, v := range auth { // the auth header is never a configurable one
		c.headers[k] = v
	}
	return c, nil
}

// authHeader is the Authorization header of token.provider.
func authHeader(opts map[string]string) (map[string]string, error) {
	provider := strings.ToLower(strings.TrimSpace(opts[OptTokenProvider]))
	switch provider {
	case ProviderBear:
		tok := opts[OptToken]
		if tok == "" {
			return nil, cfgErr("rest catalog: %s=bear needs option %s", OptTokenProvider, OptToken)
		}
		return map[string]string{"Authorization": "Bearer " + tok}, nil
	case ProviderDLF:
		// DLF signs every request with Aliyun's algorithm and keys from
		// dlf.* options, the ECS metadata service or a token file; none of
		// it can be verified here without the cloud.
		return nil, cfgErr("rest catalog: %s=dlf (Aliyun DLF request signing) is not supported yet; use a bearer token (%s=bear): %w",
			OptTokenProvider, OptTokenProvider, ErrUnsupported)
	case "":
		if opts[OptToken] != "" {
			return nil, cfgErr("rest catalog: option %s is set but %s is not (want %s)", OptToken, OptTokenProvider, ProviderBear)
		}
		return nil, cfgErr("rest catalog: option %s is required (%s or %s)", OptTokenProvider, ProviderBear, ProviderDLF)
	default:
		return nil, cfgErr("rest catalog: %s=%q: unknown provider (want %s or %s)", OptTokenProvider, opts[OptTokenProvider], ProviderBear, ProviderDLF)
	}
}

// Options returns the catalog options merged with the server's
// configuration (what Java's RESTCatalog.options() returns).
func (c *Client) Options() map[string]string {
	out := make(map[string]string, len(c.opts))
	for k, v := range c.opts {
		out[k] = v
	}
	return out
}

// Warehouse is the warehouse option after the merge.
func (c *Client) Warehouse() string { return c.opts[OptWarehouse] }

// DataTokenEnabled reports data-token.enabled after the merge: the server
// vends storage credentials per table (Java then reads through
// RESTTokenFileIO).
func (c *Client) DataTokenEnabled() bool {
	return strings.EqualFold(strings.TrimSpace(c.opts[OptDataTokenEnabled]), "true")
}

// path joins /v1, the prefix and escaped segments as Java's ResourcePaths
// (URLEncoder: "+" for a space).
func (c *Client) path(segments ...string) string {
	var b strings.Builder
	b.WriteString("/v1")
	if c.prefix != "" {
		b.WriteString("/" + url.QueryEscape(c.prefix))
	}
	for _, s := range segments {
		b.WriteString("/" + s)
	}
	return b.String()
}

func esc(s string) string { return url.QueryEscape(s) }

// get runs one GET with retries and decodes a 2xx body into out.
func (c *Client) get(ctx context.Context, op, path string, q url.Values, out any) error {
	endpoint := "GET " + path
	full := c.base + path
	if len(q) > 0 {
		full += "?" + q.Encode()
	}
	return c.retry(ctx, "rest", func(ctx context.Context, _ int) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, full, nil)
		if err != nil {
			return &Error{Op: op, Endpoint: endpoint, Message: err.Error(), Malformed: true}
		}
		keys := make([]string, 0, len(c.headers))
		for k := range c.headers {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			req.Header.Set(k, c.headers[k])
		}
		req.Header.Set("Accept", "application/json")
		resp, err := c.http.Do(req)
		if err != nil {
			return fmt.Errorf("%s (%s): %w", op, endpoint, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
		if err != nil {
			// A body cut short in transit: transient (the classifier
			// knows io.ErrUnexpectedEOF and connection resets).
			return fmt.Errorf("%s (%s): read response: %w", op, endpoint, err)
		}
		if len(body) > maxBody {
			return &Error{Op: op, Endpoint: endpoint, Status: resp.StatusCode, Message: fmt.Sprintf("response larger than %d bytes", maxBody), Malformed: true}
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return errorOf(op, endpoint, resp, body)
		}
		if out == nil {
			return nil
		}
		// An empty or trailing-data body is a truncated or garbled answer, never
		// an empty one.
		if err := strictjson.Decode(body, out, errors.New("empty body"), "JSON value"); err != nil {
			return &Error{Op: op, Endpoint: endpoint, Status: resp.StatusCode, Message: "malformed JSON response: " + err.Error(), Malformed: true}
		}
		return nil
	})
}

func errorOf(op, endpoint string, resp *http.Response, body []byte) error {
	e := &Error{Op: op, Endpoint: endpoint, Status: resp.StatusCode, RequestID: resp.Header.Get("x-request-id")}
	var er struct {
		Message      *string `json:"message"`
		ResourceType *string `json:"resourceType"`
		ResourceName *string `json:"resourceName"`
		Code         *int    `json:"code"`
	}
	if json.Unmarshal(body, &er) == nil && er.Message != nil {
		e.Message = *er.Message
		if er.ResourceType != nil {
			e.ResourceType = *er.ResourceType
		}
		if er.ResourceName != nil {
			e.ResourceName = *er.ResourceName
		}
	} else {
		e.Message = strings.TrimSpace(string(body))
		if len(e.Message) > 512 {
			e.Message = e.Message[:512] + "…"
		}
	}
	return e
}

// listPaged follows nextPageToken as Java's listDataFromPageApi.
func (c *Client) listPaged(ctx context.Context, op, path, field string) ([]string, error) {
	var out []string
	token := ""
	for page := 0; ; page++ {
		if page > 100000 {
			return nil, &Error{Op: op, Endpoint: "GET " + path, Message: "server never ends the page sequence", Malformed: true}
		}
		q := url.Values{}
		if token != "" {
			q.Set("pageToken", token)
		}
		var raw map[string]json.RawMessage
		if err := c.get(ctx, op, path, q, &raw); err != nil {
			return nil, err
		}
		var names []string
		if b, ok := raw[field]; ok && string(b) != "null" {
			if err := json.Unmarshal(b, &names); err != nil {
				return nil, &Error{Op: op, Endpoint: "GET " + path, Status: 200, Message: fmt.Sprintf("malformed JSON response: field %s: %v", field, err), Malformed: true}
			}
		}
		out = append(out, names...)
		var next *string
		if b, ok := raw["nextPageToken"]; ok {
			if err := json.Unmarshal(b, &next); err != nil {
				return nil, &Error{Op: op, Endpoint: "GET " + path, Status: 200, Message: "malformed JSON response: field nextPageToken: " + err.Error(), Malformed: true}
			}
		}
		if next == nil || *next == "" || len(names) == 0 {
			sort.Strings(out)
			return out, nil
		}
		token = *next
	}
}

// ListDatabases lists the catalog's databases, sorted.
func (c *Client) ListDatabases(ctx context.Context) ([]string, error) {
	return c.listPaged(ctx, "list databases", c.path("databases"), "databases")
}

// ListTables lists a database's tables, sorted.
func (c *Client) ListTables(ctx context.Context, db string) ([]string, error) {
	return c.listPaged(ctx, "list tables of database "+db, c.path("databases", esc(db), "tables"), "tables")
}

func cfgErr(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}
