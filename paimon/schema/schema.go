// Package schema names the table schema a Table reads with: its columns
// with their field ids, partition and primary keys, and options (the
// schema/schema-N JSON files), and the manager that lists a table's
// schemas. The reader's implementation lives in paimon/internal/schema.
package schema

import ischema "github.com/connect-paimon/connect-paimon/paimon/internal/schema"

// TableSchema is one version of a table's schema (Table.Schema).
type TableSchema = ischema.TableSchema

// Manager lists and reads a table's schema versions (Table.Schemas).
type Manager = ischema.Manager
