package types

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/connect-paimon/connect-paimon/paimon/internal/sqltext"
)

// ParseType parses a type string such as "DECIMAL(10, 2) NOT NULL",
// "TIMESTAMP(3) WITH LOCAL TIME ZONE" or "MAP<INT, STRING>", in every
// spelling Java Paimon's DataTypeJsonParser and pypaimon accept.
func ParseType(s string) (DataType, error) {
	p := &typeParser{src: s}
	if err := p.tokenize(); err != nil {
		return DataType{}, err
	}
	t, err := p.parseType()
	if err != nil {
		return DataType{}, err
	}
	if p.pos != len(p.toks) {
		return DataType{}, p.errf("unexpected %q after type", p.toks[p.pos].text)
	}
	return t, nil
}

type tokKind int

const (
	tokIdent tokKind = iota
	tokNumber
	tokSymbol
	tokQuoted // `name`
	tokString // 'literal'
)

type token struct {
	kind tokKind
	text string
}

type typeParser struct {
	src  string
	toks []token
	pos  int
}

// maxTypeNesting bounds recursion so a hostile type string cannot exhaust
// the stack.
const maxTypeNesting = 64

func (p *typeParser) errf(format string, args ...any) error {
	return fmt.Errorf("parse type %q: %s", p.src, fmt.Sprintf(format, args...))
}

func (p *typeParser) tokenize() error {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == '<' || c == '>' || c == ',':
			p.toks = append(p.toks, token{tokSymbol, string(c)})
			i++
		case c == '`' || c == '\'':
			text, next, closed := sqltext.Quoted(s, i)
			if !closed {
				return p.errf("unterminated quote at offset %d", i)
			}
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			p.toks = append(p.toks, token{kind, text})
			i = next
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			p.toks = append(p.toks, token{tokNumber, s[i:j]})
			i = j
		case c == '_' || c == '$' || c == '.' || c == ':' || c == '-' || unicode.IsLetter(rune(c)) || c >= 0x80:
			j := i
			for j < len(s) {
				d := s[j]
				if d == '_' || d == '$' || d == '.' || d == ':' || d == '-' || (d >= '0' && d <= '9') || unicode.IsLetter(rune(d)) || d >= 0x80 {
					j++
					continue
				}
				break
			}
			p.toks = append(p.toks, token{tokIdent, s[i:j]})
			i = j
		default:
			return p.errf("unexpected character %q at offset %d", c, i)
		}
	}
	if len(p.toks) == 0 {
		return p.errf("empty type")
	}
	return nil
}

func (p *typeParser) peek() (token, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return token{}, false
}

func (p *typeParser) peekKeyword(kw string) bool {
	t, ok := p.peek()
	return ok && t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

func (p *typeParser) peekSymbol(sym string) bool {
	t, ok := p.peek()
	return ok && t.kind == tokSymbol && t.text == sym
}

func (p *typeParser) expectSymbol(sym string) error {
	if !p.peekSymbol(sym) {
		return p.errf("expected %q", sym)
	}
	p.pos++
	return nil
}

func (p *typeParser) expectKeyword(kw string) error {
	if !p.peekKeyword(kw) {
		return p.errf("expected %s", kw)
	}
	p.pos++
	return nil
}

func (p *typeParser) number() (int, error) {
	t, ok := p.peek()
	if !ok || t.kind != tokNumber {
		return 0, p.errf("expected a number")
	}
	p.pos++
	n, err := strconv.Atoi(t.text)
	if err != nil || n < 0 {
		return 0, p.errf("bad number %q", t.text)
	}
	return n, nil
}

// optParams parses an optional "(a[, b])" list of numbers.
func (p *typeParser) optParams(max int) ([]int, error) {
	if !p.peekSymbol("(") {
		return nil, nil
	}
	p.pos++
	var out []int
	for {
		n, err := p.number()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.peekSymbol(",") {
			p.pos++
			continue
		}
		break
	}
	if err := p.expectSymbol(")"); err != nil {
		return nil, err
	}
	if len(out) > max {
		return nil, p.errf("too many parameters")
	}
	return out, nil
}

func (p *typeParser) parseType() (DataType, error) { return p.parseTypeDepth(0) }

func (p *typeParser) parseTypeDepth(depth int) (DataType, error) {
	if depth > maxTypeNesting {
		return DataType{}, p.errf("type nested deeper than %d levels", maxTypeNesting)
	}
	t, err := p.parseBase(depth)
	if err != nil {
		return t, err
	}
	t.Nullable = true
	// Legacy suffix notation "<type> ARRAY" / "<type> MULTISET".
	for p.peekKeyword("ARRAY") || p.peekKeyword("MULTISET") {
		kw := strings.ToUpper(p.toks[p.pos].text)
		p.pos++
		elem := t
		t = DataType{Root: Array, Nullable: true, Element: &elem}
		if kw == "MULTISET" {
			t.Root = Multiset
		}
		// "INT ARRAY NOT NULL" is a non-null array of nullable ints: the
		// nullability after the keyword belongs to the collection.
		if err := p.nullability(&t); err != nil {
			return t, err
		}
	}
	if err := p.nullability(&t); err != nil {
		return t, err
	}
	return t, nil
}

func (p *typeParser) nullability(t *DataType) error {
	switch {
	case p.peekKeyword("NOT"):
		p.pos++
		if err := p.expectKeyword("NULL"); err != nil {
			return err
		}
		t.Nullable = false
	case p.peekKeyword("NULL"):
		p.pos++
		t.Nullable = true
	}
	return nil
}

// angled parses the arguments of a parameterised type, "<" item {"," item}
// ">", reading item i with items[i].
func (p *typeParser) angled(items ...func() error) error {
	if err := p.expectSymbol("<"); err != nil {
		return err
	}
	for i, item := range items {
		if i > 0 {
			if err := p.expectSymbol(","); err != nil {
				return err
			}
		}
		if err := item(); err != nil {
			return err
		}
	}
	return p.expectSymbol(">")
}

// typeArg is an angled item reading a nested type into t.
func (p *typeParser) typeArg(depth int, t *DataType) func() error {
	return func() (err error) {
		*t, err = p.parseTypeDepth(depth + 1)
		return err
	}
}

func (p *typeParser) parseBase(depth int) (DataType, error) {
	tok, ok := p.peek()
	if !ok {
		return DataType{}, p.errf("missing type")
	}
	if tok.kind != tokIdent {
		return DataType{}, p.errf("unexpected %q", tok.text)
	}
	p.pos++
	name := strings.ToUpper(tok.text)
	switch name {
	case "BOOLEAN":
		return DataType{Root: Boolean}, nil
	case "TINYINT":
		return DataType{Root: TinyInt}, nil
	case "SMALLINT":
		return DataType{Root: SmallInt}, nil
	case "INT", "INTEGER":
		return DataType{Root: Int}, nil
	case "BIGINT":
		return DataType{Root: BigInt}, nil
	case "FLOAT":
		return DataType{Root: Float}, nil
	case "DOUBLE":
		if p.peekKeyword("PRECISION") {
			p.pos++
		}
		return DataType{Root: Double}, nil
	case "DECIMAL", "NUMERIC", "DEC":
		ps, err := p.optParams(2)
		if err != nil {
			return DataType{}, err
		}
		t := DataType{Root: Decimal, Precision: 10, Scale: 0}
		if len(ps) > 0 {
			t.Precision = ps[0]
		}
		if len(ps) > 1 {
			t.Scale = ps[1]
		}
		if t.Precision < 1 || t.Precision > 38 || t.Scale > t.Precision {
			return DataType{}, p.errf("invalid DECIMAL(%d, %d)", t.Precision, t.Scale)
		}
		return t, nil
	case "CHAR", "VARCHAR", "BINARY", "VARBINARY":
		ps, err := p.optParams(1)
		if err != nil {
			return DataType{}, err
		}
		t := DataType{Length: 1}
		for _, r := range []Root{Char, VarChar, Binary, VarBinary} {
			if r.String() == name {
				t.Root = r
			}
		}
		if len(ps) == 1 {
			t.Length = ps[0]
		}
		if t.Length < 1 {
			return DataType{}, p.errf("invalid length %d", t.Length)
		}
		return t, nil
	case "STRING":
		return DataType{Root: VarChar, Length: MaxLength}, nil
	case "BYTES":
		return DataType{Root: VarBinary, Length: MaxLength}, nil
	case "DATE":
		return DataType{Root: Date}, nil
	case "TIME":
		ps, err := p.optParams(1)
		if err != nil {
			return DataType{}, err
		}
		t := DataType{Root: Time}
		if len(ps) == 1 {
			t.Precision = ps[0]
		}
		if t.Precision > 9 {
			return DataType{}, p.errf("invalid TIME precision %d", t.Precision)
		}
		if p.peekKeyword("WITHOUT") {
			p.pos++
			if err := p.keywords("TIME", "ZONE"); err != nil {
				return DataType{}, err
			}
		}
		return t, nil
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		ps, err := p.optParams(1)
		if err != nil {
			return DataType{}, err
		}
		t := DataType{Root: Timestamp, Precision: 6}
		if name == "TIMESTAMP_LTZ" {
			t.Root = TimestampLTZ
		}
		if len(ps) == 1 {
			t.Precision = ps[0]
		}
		if t.Precision > 9 {
			return DataType{}, p.errf("invalid TIMESTAMP precision %d", t.Precision)
		}
		if name == "TIMESTAMP" {
			switch {
			case p.peekKeyword("WITHOUT"):
				p.pos++
				if err := p.keywords("TIME", "ZONE"); err != nil {
					return DataType{}, err
				}
			case p.peekKeyword("WITH"):
				p.pos++
				if err := p.keywords("LOCAL", "TIME", "ZONE"); err != nil {
					return DataType{}, err
				}
				t.Root = TimestampLTZ
			}
		}
		return t, nil
	case "VARIANT":
		return DataType{Root: Variant}, nil
	case "BLOB":
		return DataType{Root: Blob}, nil
	case "GEOMETRY", "GEOGRAPHY":
		t := DataType{Root: Geometry}
		if name == "GEOGRAPHY" {
			t.Root = Geography
		}
		if p.peekSymbol("(") {
			p.pos++
			// Re-render the tokens with their quotes so that String() spells
			// a type that parses back to the same parameters.
			var b strings.Builder
			for prev := ""; !p.peekSymbol(")"); {
				tk, ok := p.peek()
				if !ok {
					return DataType{}, p.errf("unterminated %s parameters", name)
				}
				p.pos++
				text := tk.text
				switch tk.kind {
				case tokString:
					text = "'" + strings.ReplaceAll(text, "'", "''") + "'"
				case tokQuoted:
					text = "`" + strings.ReplaceAll(text, "`", "``") + "`"
				}
				if prev != "" && text != "," {
					b.WriteByte(' ')
				}
				b.WriteString(text)
				prev = text
			}
			p.pos++
			t.Extra = b.String()
		}
		return t, nil
	case "ARRAY", "MULTISET":
		var e DataType
		if err := p.angled(p.typeArg(depth, &e)); err != nil {
			return DataType{}, err
		}
		t := DataType{Root: Array, Element: &e}
		if name == "MULTISET" {
			t.Root = Multiset
		}
		return t, nil
	case "VECTOR":
		var e DataType
		var n int
		if err := p.angled(p.typeArg(depth, &e), func() (err error) { n, err = p.number(); return err }); err != nil {
			return DataType{}, err
		}
		return DataType{Root: Vector, Element: &e, Length: n}, nil
	case "MAP":
		var k, v DataType
		if err := p.angled(p.typeArg(depth, &k), p.typeArg(depth, &v)); err != nil {
			return DataType{}, err
		}
		return DataType{Root: Map, Key: &k, Value: &v}, nil
	case "ROW":
		// ROW<`a` INT, `b` STRING 'comment'> (string form carries no ids;
		// ids come from the JSON object form in schema files).
		if err := p.expectSymbol("<"); err != nil {
			return DataType{}, err
		}
		t := DataType{Root: Row}
		for i := 0; !p.peekSymbol(">"); i++ {
			if i > 0 {
				if err := p.expectSymbol(","); err != nil {
					return DataType{}, err
				}
			}
			nt, ok := p.peek()
			if !ok || (nt.kind != tokIdent && nt.kind != tokQuoted) {
				return DataType{}, p.errf("expected a field name in ROW")
			}
			p.pos++
			ft, err := p.parseTypeDepth(depth + 1)
			if err != nil {
				return DataType{}, err
			}
			f := DataField{ID: i, Name: nt.text, Type: ft}
			if d, ok := p.peek(); ok && d.kind == tokString {
				f.Description = d.text
				p.pos++
			}
			t.Fields = append(t.Fields, f)
		}
		p.pos++
		return t, nil
	}
	return DataType{}, p.errf("unknown type %s", tok.text)
}

func (p *typeParser) keywords(kws ...string) error {
	for _, kw := range kws {
		if err := p.expectKeyword(kw); err != nil {
			return err
		}
	}
	return nil
}

// UnmarshalJSON decodes a type in either of Paimon's JSON forms: a string
// for atomic types, an object for ARRAY/MULTISET/MAP/ROW/VECTOR. It accepts
// Java's objects ({"type":"MAP NOT NULL","key":..,"value":..}) and
// pypaimon's ({"type":"MAP<INT, STRING>","key":..,"value":..,"nullable":false}).
func (t *DataType) UnmarshalJSON(b []byte) error { return t.unmarshalDepth(b, 0) }

func (t *DataType) unmarshalDepth(b []byte, depth int) error {
	if depth > maxTypeNesting {
		return fmt.Errorf("type nested deeper than %d levels", maxTypeNesting)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return errors.New("empty type")
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		parsed, err := ParseType(s)
		if err != nil {
			return err
		}
		*t = parsed
		return nil
	}
	var obj struct {
		Type     *string           `json:"type"`
		Element  json.RawMessage   `json:"element"`
		Key      json.RawMessage   `json:"key"`
		Value    json.RawMessage   `json:"value"`
		Fields   []json.RawMessage `json:"fields"`
		Length   *int              `json:"length"`
		Nullable *bool             `json:"nullable"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("type: %w", err)
	}
	if obj.Type == nil {
		return errors.New(`type object without "type"`)
	}
	ts := strings.TrimSpace(*obj.Type)
	// Dispatch on the keyword before '<' or a space; the rest of the string
	// may be pypaimon's full SQL text.
	head := ts
	if i := strings.IndexAny(head, "< "); i >= 0 {
		head = head[:i]
	}
	head = strings.ToUpper(head)
	// Nullability: pypaimon's explicit key wins; otherwise only a trailing
	// NOT NULL counts (Java's contains() misreads "MAP<INT, STRING NOT NULL>").
	nullable := !strings.HasSuffix(strings.ToUpper(ts), " NOT NULL")
	if obj.Nullable != nil {
		nullable = *obj.Nullable
	}
	sub := func(raw json.RawMessage, what string) (*DataType, error) {
		if len(raw) == 0 || string(raw) == "null" {
			return nil, fmt.Errorf("%s type without %q", head, what)
		}
		var d DataType
		if err := d.unmarshalDepth(raw, depth+1); err != nil {
			return nil, fmt.Errorf("%s %s: %w", head, what, err)
		}
		return &d, nil
	}
	var err error
	out := DataType{Nullable: nullable}
	switch head {
	case "ARRAY", "MULTISET":
		out.Root = Array
		if head == "MULTISET" {
			out.Root = Multiset
		}
		if out.Element, err = sub(obj.Element, "element"); err != nil {
			return err
		}
	case "VECTOR":
		out.Root = Vector
		if out.Element, err = sub(obj.Element, "element"); err != nil {
			return err
		}
		if obj.Length == nil {
			return errors.New(`VECTOR type without "length"`)
		}
		out.Length = *obj.Length
	case "MAP":
		out.Root = Map
		if out.Key, err = sub(obj.Key, "key"); err != nil {
			return err
		}
		if out.Value, err = sub(obj.Value, "value"); err != nil {
			return err
		}
	case "ROW":
		out.Root = Row
		for i, raw := range obj.Fields {
			var f DataField
			if err := f.unmarshalDepth(raw, depth+1); err != nil {
				return fmt.Errorf("ROW field %d: %w", i, err)
			}
			out.Fields = append(out.Fields, f)
		}
	default:
		// An atomic type written as an object is unusual but harmless.
		parsed, err := ParseType(ts)
		if err != nil {
			return err
		}
		if obj.Nullable != nil {
			parsed.Nullable = *obj.Nullable
		}
		out = parsed
	}
	*t = out
	return nil
}

// UnmarshalJSON decodes a DataField object {"id","name","type",...}.
func (f *DataField) UnmarshalJSON(b []byte) error { return f.unmarshalDepth(b, 0) }

func (f *DataField) unmarshalDepth(b []byte, depth int) error {
	var obj struct {
		ID           *int            `json:"id"`
		Name         *string         `json:"name"`
		Type         json.RawMessage `json:"type"`
		Description  *string         `json:"description"`
		DefaultValue *string         `json:"defaultValue"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("field: %w", err)
	}
	if obj.ID == nil || obj.Name == nil || len(obj.Type) == 0 {
		return errors.New(`field needs "id", "name" and "type"`)
	}
	var t DataType
	if err := t.unmarshalDepth(obj.Type, depth); err != nil {
		return fmt.Errorf("field %q: %w", *obj.Name, err)
	}
	*f = DataField{ID: *obj.ID, Name: *obj.Name, Type: t, DefaultValue: obj.DefaultValue}
	if obj.Description != nil {
		f.Description = *obj.Description
	}
	return nil
}

// MarshalJSON writes the type in Java Paimon's form.
func (t DataType) MarshalJSON() ([]byte, error) {
	nn := ""
	if !t.Nullable {
		nn = " NOT NULL"
	}
	switch t.Root {
	case Array, Multiset:
		return json.Marshal(struct {
			Type    string   `json:"type"`
			Element DataType `json:"element"`
		}{t.Root.String() + nn, *t.Element})
	case Vector:
		return json.Marshal(struct {
			Type    string   `json:"type"`
			Element DataType `json:"element"`
			Length  int      `json:"length"`
		}{"VECTOR" + nn, *t.Element, t.Length})
	case Map:
		return json.Marshal(struct {
			Type  string   `json:"type"`
			Key   DataType `json:"key"`
			Value DataType `json:"value"`
		}{"MAP" + nn, *t.Key, *t.Value})
	case Row:
		return json.Marshal(struct {
			Type   string      `json:"type"`
			Fields []DataField `json:"fields"`
		}{"ROW" + nn, t.Fields})
	}
	return json.Marshal(t.String())
}

// MarshalJSON writes the field in Java Paimon's form.
func (f DataField) MarshalJSON() ([]byte, error) {
	type out struct {
		ID           int      `json:"id"`
		Name         string   `json:"name"`
		Type         DataType `json:"type"`
		Description  string   `json:"description,omitempty"`
		DefaultValue *string  `json:"defaultValue,omitempty"`
	}
	return json.Marshal(out{f.ID, f.Name, f.Type, f.Description, f.DefaultValue})
}
