// Package predicate builds row filters: Parse reads the SQL-like filter
// text the input, the CLI and StreamConfig accept, and a Builder makes the
// same predicates in code (pypaimon's PredicateBuilder). A filter prunes
// partitions, files and row groups by their statistics (an absent or
// untrusted statistic means "may match") and is then applied exactly to
// rows, with Java Paimon's semantics: a comparison with NULL is false,
// strings compare as unsigned bytes, doubles like Java's Double.compare.
// The implementation lives in paimon/internal/predicate.
package predicate

import (
	ipredicate "github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Predicate is a row filter; nil keeps every row.
type Predicate = ipredicate.Predicate

// Builder makes predicates over a table's fields, checking column names and
// literal types as it goes.
type Builder = ipredicate.Builder

// NewBuilder returns a builder over fields (a table's Schema().Fields).
func NewBuilder(fields []types.DataField) *Builder { return ipredicate.NewBuilder(fields) }

// Parse reads filter text ("region = 'eu' AND amount >= 0") over fields;
// "" is no filter (nil). Its errors wrap ErrInvalid. The input, the CLI and
// StreamConfig.Filter accept exactly this language.
func Parse(expr string, fields []types.DataField) (*Predicate, error) {
	if expr == "" {
		return nil, nil
	}
	return ipredicate.Parse(expr, fields)
}

// ErrInvalid is wrapped by every error of a filter that does not parse or
// names no column: a configuration error, never retried.
var ErrInvalid = ipredicate.ErrInvalid
