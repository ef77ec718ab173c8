// Package types models Paimon's logical data types and fields, parses them
// from the JSON written by Java Paimon and pypaimon, and defines the Go value
// types the reader uses for single values (partition values, statistics,
// predicate literals).
package types

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Root identifies the kind of a data type.
type Root int

// The type roots Paimon defines. Geometry and Geography are parsed so that a
// table using them can be refused by name rather than failing to parse.
const (
	Boolean Root = iota
	TinyInt
	SmallInt
	Int
	BigInt
	Float
	Double
	Decimal
	Char
	VarChar
	Binary
	VarBinary
	Date
	Time
	Timestamp
	TimestampLTZ
	Variant
	Blob
	Array
	Multiset
	Map
	Row
	Vector
	Geometry
	Geography
)

var rootNames = [...]string{
	Boolean: "BOOLEAN", TinyInt: "TINYINT", SmallInt: "SMALLINT", Int: "INT", BigInt: "BIGINT",
	Float: "FLOAT", Double: "DOUBLE", Decimal: "DECIMAL", Char: "CHAR", VarChar: "VARCHAR",
	Binary: "BINARY", VarBinary: "VARBINARY", Date: "DATE", Time: "TIME", Timestamp: "TIMESTAMP",
	TimestampLTZ: "TIMESTAMP_LTZ", Variant: "VARIANT", Blob: "BLOB", Array: "ARRAY",
	Multiset: "MULTISET", Map: "MAP", Row: "ROW", Vector: "VECTOR", Geometry: "GEOMETRY",
	Geography: "GEOGRAPHY",
}

func (r Root) String() string {
	if int(r) >= 0 && int(r) < len(rootNames) {
		return rootNames[r]
	}
	return "Root(" + strconv.Itoa(int(r)) + ")"
}

// MaxLength is the length Paimon uses for STRING (VARCHAR(MaxLength)) and
// BYTES (VARBINARY(MaxLength)).
const MaxLength = 2147483647

// DataType is one Paimon type. Only the fields relevant to Root are set.
type DataType struct {
	Root     Root
	Nullable bool
	// Length of CHAR/VARCHAR/BINARY/VARBINARY, or of a VECTOR.
	Length int
	// Precision of DECIMAL, TIME, TIMESTAMP and TIMESTAMP_LTZ.
	Precision int
	// Scale of DECIMAL.
	Scale int
	// Element of ARRAY, MULTISET and VECTOR.
	Element *DataType
	// Key and Value of MAP.
	Key, Value *DataType
	// Fields of ROW.
	Fields []DataField
	// Extra holds the raw parameter text of GEOMETRY/GEOGRAPHY, kept for
	// messages only.
	Extra string
}

// DataField is a named, id-carrying field of a row type. Field ids are stable
// across renames; schema evolution maps columns by id.
type DataField struct {
	ID          int
	Name        string
	Type        DataType
	Description string
	// DefaultValue is the SQL default literal, if any. A reader does not apply
	// it to old files: missing columns read as NULL, as in Java.
	DefaultValue *string
}

// IsComposite reports whether t holds other types.
func (t DataType) IsComposite() bool {
	switch t.Root {
	case Array, Multiset, Map, Row, Vector:
		return true
	}
	return false
}

// IsString reports whether t is CHAR or VARCHAR.
func (t DataType) IsString() bool { return t.Root == Char || t.Root == VarChar }

// IsBinary reports whether t is BINARY or VARBINARY.
func (t DataType) IsBinary() bool { return t.Root == Binary || t.Root == VarBinary }

// IsTimestamp reports whether t is TIMESTAMP or TIMESTAMP_LTZ.
func (t DataType) IsTimestamp() bool { return t.Root == Timestamp || t.Root == TimestampLTZ }

// IsIntegral reports whether t is one of the integer types.
func (t DataType) IsIntegral() bool {
	switch t.Root {
	case TinyInt, SmallInt, Int, BigInt:
		return true
	}
	return false
}

// IsNumeric reports whether t is an integer, floating point or decimal type.
func (t DataType) IsNumeric() bool {
	return t.IsIntegral() || t.Root == Float || t.Root == Double || t.Root == Decimal
}

// WithNullable returns a copy of t with the given nullability.
func (t DataType) WithNullable(n bool) DataType {
	t.Nullable = n
	return t
}

// Equal reports whether two types are identical, nullability and nested
// field ids included.
func (t DataType) Equal(o DataType) bool { return t.String() == o.String() && fieldIDsEqual(t, o) }

func fieldIDsEqual(a, b DataType) bool {
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].ID != b.Fields[i].ID || !fieldIDsEqual(a.Fields[i].Type, b.Fields[i].Type) {
			return false
		}
	}
	if a.Element != nil && b.Element != nil && !fieldIDsEqual(*a.Element, *b.Element) {
		return false
	}
	if a.Key != nil && b.Key != nil && !fieldIDsEqual(*a.Key, *b.Key) {
		return false
	}
	if a.Value != nil && b.Value != nil && !fieldIDsEqual(*a.Value, *b.Value) {
		return false
	}
	return true
}

// String renders the type in Paimon's SQL spelling (asSQLString), e.g.
// "DECIMAL(10, 2) NOT NULL" or "MAP<INT, STRING>".
func (t DataType) String() string {
	var b strings.Builder
	t.writeSQL(&b)
	return b.String()
}

func (t DataType) writeSQL(b *strings.Builder) {
	switch t.Root {
	case Decimal:
		fmt.Fprintf(b, "DECIMAL(%d, %d)", t.Precision, t.Scale)
	case Char, Binary:
		fmt.Fprintf(b, "%s(%d)", t.Root, t.Length)
	case VarChar, VarBinary:
		switch {
		case t.Length != MaxLength:
			fmt.Fprintf(b, "%s(%d)", t.Root, t.Length)
		case t.Root == VarChar:
			b.WriteString("STRING")
		default:
			b.WriteString("BYTES")
		}
	case Time, Timestamp:
		fmt.Fprintf(b, "%s(%d)", t.Root, t.Precision)
	case TimestampLTZ:
		fmt.Fprintf(b, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case Array, Multiset:
		b.WriteString(t.Root.String())
		b.WriteByte('<')
		t.Element.writeSQL(b)
		b.WriteByte('>')
	case Vector:
		b.WriteString("VECTOR<")
		t.Element.writeSQL(b)
		fmt.Fprintf(b, ", %d>", t.Length)
	case Map:
		b.WriteString("MAP<")
		t.Key.writeSQL(b)
		b.WriteString(", ")
		t.Value.writeSQL(b)
		b.WriteByte('>')
	case Row:
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "`%s` ", strings.ReplaceAll(f.Name, "`", "``"))
			f.Type.writeSQL(b)
		}
		b.WriteByte('>')
	case Geometry, Geography:
		b.WriteString(t.Root.String())
		if t.Extra != "" {
			b.WriteString("(" + t.Extra + ")")
		}
	default:
		b.WriteString(t.Root.String())
	}
	if !t.Nullable {
		b.WriteString(" NOT NULL")
	}
}

// ErrCorrupt marks metadata or data that contradicts what its parent
// records (a manifest shorter than its manifest list says, entry counts that
// differ, an empty snapshot file): reading on would silently return fewer
// rows, so the read stops. It is permanent: retrying reads the same bytes.
var ErrCorrupt = errors.New("corrupt table metadata")

// ErrUnsupported marks a table, file or type that uses a Paimon feature this
// reader does not implement yet. It is always wrapped with the feature and
// the table or file it was found in; callers test with errors.Is. Refusing
// is the rule: reading such data without the feature would return wrong rows.
var ErrUnsupported = errors.New("not supported by this reader yet")

// RowKind is the change kind of a row (Java's RowKind): the header byte of
// a BinaryRow and the _VALUE_KIND column of primary-key files.
type RowKind int8

// The four row kinds with their stored byte values.
const (
	Insert       RowKind = 0 // +I
	UpdateBefore RowKind = 1 // -U
	UpdateAfter  RowKind = 2 // +U
	Delete       RowKind = 3 // -D
)

// RowKindColumn is the name of the string column holding each row's kind
// (RowKind.String) when a read includes row kinds (pypaimon's name).
const RowKindColumn = "_row_kind"

// rowKinds are Java's short strings, by stored byte: the one spelling of
// the kinds, which String prints and ParseRowKind reads.
var rowKinds = [...]string{"+I", "-U", "+U", "-D"}

// String is Java's short string (+I, -U, +U, -D).
func (k RowKind) String() string {
	if k >= 0 && int(k) < len(rowKinds) {
		return rowKinds[k]
	}
	return fmt.Sprintf("RowKind(%d)", int8(k))
}

// ParseRowKind reads String's spelling; ok is false for anything else.
func ParseRowKind(s string) (k RowKind, ok bool) {
	for i, name := range rowKinds {
		if s == name {
			return RowKind(i), true
		}
	}
	return 0, false
}

// IsRetract reports -U and -D: records that withdraw a key's previous
// version rather than carry a row to return.
func (k RowKind) IsRetract() bool { return k == UpdateBefore || k == Delete }
