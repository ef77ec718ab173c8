package input

import (
	"fmt"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// The catalog field selects where tables are found: the warehouse
// directory (filesystem, the default) or Paimon's REST catalog. Kept in its
// own block (spec, parsing, validation) beside the storage field's.
const (
	fieldCatalog              = "catalog"
	fieldCatalogType          = "type"
	fieldCatalogURI           = "uri"
	fieldCatalogTokenProvider = "token_provider"
	fieldCatalogToken         = "token"
	fieldCatalogOptions       = "options"

	catalogFilesystem = "filesystem"
	catalogREST       = "rest"
)

// catalogConfig is the catalog field.
type catalogConfig struct {
	// Type is "filesystem" or "rest".
	Type string
	// URI, TokenProvider, Token and Options are the REST catalog's (Java's
	// uri, token.provider, token and further catalog options).
	URI, TokenProvider, Token string
	Options                   map[string]string
}

// REST reports whether the catalog is a REST catalog.
func (c catalogConfig) REST() bool { return c.Type == catalogREST }

// CatalogOptions returns the library options of the catalog field.
func (c catalogConfig) CatalogOptions() []paimon.CatalogOption {
	if !c.REST() {
		return nil
	}
	opts := map[string]string{}
	for k, v := range c.Options {
		opts[k] = v
	}
	// The typed fields win over the same keys in options.
	for k, v := range map[string]string{"uri": c.URI, "token.provider": c.TokenProvider, "token": c.Token} {
		if v != "" {
			opts[k] = v
		}
	}
	return []paimon.CatalogOption{paimon.WithREST(opts)}
}

func catalogSpec() *service.ConfigField {
	return service.NewObjectField(fieldCatalog,
		service.NewStringAnnotatedEnumField(fieldCatalogType, map[string]string{
			catalogFilesystem: "Tables are directories under `warehouse` (`<warehouse>/<db>.db/<table>`).",
			catalogREST:       "Paimon's REST catalog (Java/pypaimon `metastore: rest`): the server at `uri` says which tables exist, where each lives, and may vend short-lived storage credentials; `warehouse` is the warehouse name the server knows.",
		}).Default(catalogFilesystem),
		service.NewStringField(fieldCatalogURI).
			Description("The REST catalog's base URI (Java's `uri`). A bare `host:port` gets `http://`.").
			Default("").
			Example("http://paimon-rest:8080"),
		service.NewStringField(fieldCatalogTokenProvider).
			Description("How requests authenticate (Java's `token.provider`): `bear` sends `token` as a bearer token. `dlf` (Aliyun DLF request signing) is refused: it cannot be tested without the cloud. Empty means `bear` when `token` is set.").
			Default("").
			Example("bear"),
		service.NewStringField(fieldCatalogToken).
			Description("The bearer token (Java's `token`).").
			Default("").
			Secret(),
		service.NewStringMapField(fieldCatalogOptions).
			Description("Further catalog options as Java names them (`header.X-Name`, `s3.endpoint`, `dlf.region`…), merged with the server's `/v1/config` answer: its defaults under them, its overrides over them.").
			Default(map[string]any{}).
			Advanced(),
	).Description("Where tables are found. The default is the filesystem catalog at `warehouse`.").
		Advanced()
}

func readCatalog(pc *service.ParsedConfig) (catalogConfig, error) {
	var c catalogConfig
	var err error
	if err = readTyped(pc.FieldString, into(fieldCatalogType, &c.Type), into(fieldCatalogURI, &c.URI),
		into(fieldCatalogTokenProvider, &c.TokenProvider), into(fieldCatalogToken, &c.Token)); err != nil {
		return c, err
	}
	if c.Options, err = pc.FieldStringMap(fieldCatalogOptions); err != nil {
		return c, err
	}
	return c, nil
}

// validateCatalog checks the catalog field alone (the server is asked at
// start, not at lint).
func validateCatalog(c catalogConfig) []error {
	var errs []error
	f := func(name string) string { return fieldCatalog + "." + name }
	switch c.Type {
	case catalogFilesystem:
		for name, v := range map[string]string{fieldCatalogURI: c.URI, fieldCatalogTokenProvider: c.TokenProvider, fieldCatalogToken: c.Token} {
			if v != "" {
				errs = append(errs, fieldError(f(name), "only applies to type: rest"))
			}
		}
	case catalogREST:
		if strings.TrimSpace(c.URI) == "" {
			errs = append(errs, fieldError(f(fieldCatalogURI), "must be set for type: rest"))
		}
		switch strings.ToLower(c.TokenProvider) {
		case "", "bear":
			if c.Token == "" {
				errs = append(errs, fieldError(f(fieldCatalogToken), "must be set for token_provider bear"))
			}
		case "dlf":
			errs = append(errs, fieldError(f(fieldCatalogTokenProvider), "dlf (Aliyun DLF request signing, Java's token.provider=dlf) is not supported yet: %v", types.ErrUnsupported))
		default:
			errs = append(errs, fieldError(f(fieldCatalogTokenProvider), "unknown provider %q (want bear)", c.TokenProvider))
		}
	default:
		errs = append(errs, fieldError(f(fieldCatalogType), "unknown type %q", c.Type))
	}
	return errs
}

// warehouseDoc is what the warehouse field means for a catalog type, for
// error messages.
func (c catalogConfig) warehouseDoc() string {
	if c.REST() {
		return fmt.Sprintf("REST catalog %s, warehouse", c.URI)
	}
	return "warehouse"
}
