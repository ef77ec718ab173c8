package manifest

import (
	"context"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/twmb/avro"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/codec"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// maxBlockBytes caps one decompressed Avro block (see codec.MaxBlockBytes).
const maxBlockBytes = codec.MaxBlockBytes

// ctxCheckEvery is how many records are decoded between context checks: a
// check per record would cost more than decoding a small record.
const ctxCheckEvery = 256

// sniff tells an Avro container from the other manifest formats Paimon up to
// 2.0 could write (manifest.format = parquet / orc), so such tables fail with
// a clear error instead of an Avro parse error.
func sniff(data []byte) error {
	switch {
	case len(data) >= 4 && string(data[:4]) == "Obj\x01":
		return nil
	case len(data) >= 3 && string(data[:3]) == "ORC":
		return fmt.Errorf("manifest file is ORC (manifest.format=orc): %w", types.ErrUnsupported)
	case len(data) < 4:
		return fmt.Errorf("file of %d bytes is too short to be an Avro container", len(data))
	}
	return fmt.Errorf("not an Avro container: magic %x, want 4f626a01 (\"Obj\\x01\")", data[:4])
}

// decodeFile reads path and decodes every record of the Avro container into a
// fresh T, after checking that the writer schema has the required fields.
// Fields absent from the writer schema stay at their zero value (nil for the
// pointer and slice fields of later versions); fields the struct does not
// know are skipped. d caches writer schemas; nil parses each file's. A
// positive size is the file's size as its parent records it: any other
// length is a truncated or replaced file.
func decodeFile[T any](ctx context.Context, d *Decoder, fio fileio.FileIO, path string, size int64, req *schemaReq, fn func(*T) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := fio.ReadFile(ctx, path)
	if err != nil {
		return err
	}
	if size > 0 && int64(len(data)) != size {
		return fmt.Errorf("file is %d bytes, its parent records %d (truncated or replaced): %w", len(data), size, types.ErrCorrupt)
	}
	if len(data) >= 4 && string(data[:4]) == "PAR1" {
		return decodeParquet(ctx, data, req, fn)
	}
	if err := sniff(data); err != nil {
		return err
	}
	c, err := parseContainer(data)
	if err != nil {
		return err
	}
	ws, err := d.schema(c.schema)
	if err != nil {
		return fmt.Errorf("parse writer schema: %w", err)
	}
	if err := ws.check(req); err != nil {
		return err
	}
	n := 0
	return c.blocks(func(count int64, raw []byte) error {
		for i := int64(0); i < count; i++ {
			if n%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var rec T
			rest, err := ws.s.Decode(raw, &rec, avro.SkipUnknown())
			if err != nil {
				return fmt.Errorf("record %d: %w", n, err)
			}
			if len(rest) == len(raw) {
				return fmt.Errorf("record %d: decodes from zero bytes (corrupt record count)", n)
			}
			raw = rest
			if err := fn(&rec); err != nil {
				return fmt.Errorf("record %d: %w", n, err)
			}
			n++
		}
		if len(raw) != 0 {
			return fmt.Errorf("%d trailing bytes after record %d", len(raw), n)
		}
		return nil
	})
}

// schemaReq lists the fields a record must have in the writer schema, and
// the requirements on nested records. Decoding into a struct silently leaves
// a missing field at zero, which for a file name or a sequence number would
// be silent corruption, so presence is checked once per file.
type schemaReq struct {
	fields []string
	nested map[string]*schemaReq
	// arrayItems are requirements on the record items of (nullable) array
	// fields.
	arrayItems map[string]*schemaReq
}

func (r *schemaReq) check(n *avro.SchemaNode) error {
	if r == nil {
		return nil
	}
	rec := unwrapNullable(n)
	if rec == nil || rec.Type != "record" {
		if rec != nil && isNamedReference(rec) {
			return errNamedReference
		}
		return fmt.Errorf("expected a record, got %q", n.Type)
	}
	byName := make(map[string]*avro.SchemaNode, len(rec.Fields))
	for i := range rec.Fields {
		byName[rec.Fields[i].Name] = &rec.Fields[i].Type
	}
	for _, f := range r.fields {
		if _, ok := byName[f]; !ok {
			return fmt.Errorf("record %s lacks required field %s", rec.Name, f)
		}
	}
	for name, sub := range r.nested {
		fn, ok := byName[name]
		if !ok {
			continue // optional nested record; required ones are also listed in fields
		}
		if err := sub.check(fn); err != nil {
			return fmt.Errorf("field %s: %w", name, err)
		}
	}
	for name, sub := range r.arrayItems {
		fn, ok := byName[name]
		if !ok {
			continue
		}
		arr := unwrapNullable(fn)
		if arr != nil && isNamedReference(arr) {
			return errNamedReference
		}
		if arr == nil || arr.Type != "array" || arr.Items == nil {
			return fmt.Errorf("field %s: expected an array, got %q", name, fn.Type)
		}
		if err := sub.check(arr.Items); err != nil {
			return fmt.Errorf("field %s items: %w", name, err)
		}
	}
	return nil
}

// errNamedReference reports that a required nested record is given as a
// reference to a type defined elsewhere in the schema.
var errNamedReference = errors.New("named type reference")

// isNamedReference tells a reference to a named type from a primitive or an
// inline complex type: anything else Avro spells with a bare name.
func isNamedReference(n *avro.SchemaNode) bool {
	switch n.Type {
	case "null", "boolean", "int", "long", "float", "double", "bytes", "string",
		"record", "enum", "array", "map", "fixed", "union":
		return false
	}
	return true
}

// unwrapNullable returns the non-null branch of a ["null", T] union, or n.
func unwrapNullable(n *avro.SchemaNode) *avro.SchemaNode {
	if n.Type != "union" {
		return n
	}
	var out *avro.SchemaNode
	for i := range n.Branches {
		if n.Branches[i].Type == "null" {
			continue
		}
		if out != nil {
			return nil // a real union, not a nullable T
		}
		out = &n.Branches[i]
	}
	return out
}

// zstdDecodeCodec decodes "zstandard" blocks without building the zstd
// encoder the built-in codec creates eagerly; a planner opens hundreds of
// manifests and never writes one.
type zstdDecodeCodec struct {
	dec *zstd.Decoder
}

func (*zstdDecodeCodec) Name() string { return "zstandard" }

func (*zstdDecodeCodec) Compress([]byte) ([]byte, error) {
	return nil, errors.New("zstandard: this codec only decodes")
}

func (c *zstdDecodeCodec) Decompress(src []byte) ([]byte, error) {
	return c.DecompressBounded(src, maxBlockBytes)
}

// DecompressBounded implements ocf.BoundedDecompressor so that a corrupt
// frame header cannot make the decoder allocate more than max bytes.
func (c *zstdDecodeCodec) DecompressBounded(src []byte, max int64) ([]byte, error) {
	if c.dec == nil {
		if max <= 0 || max > maxBlockBytes {
			max = maxBlockBytes
		}
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(max)), zstd.WithDecoderMaxWindow(uint64(max)))
		if err != nil {
			return nil, fmt.Errorf("zstandard: %w", err)
		}
		c.dec = d
	}
	out, err := c.dec.DecodeAll(src, nil)
	if err != nil {
		return nil, fmt.Errorf("zstandard: %w", err)
	}
	return out, nil
}

func (c *zstdDecodeCodec) Close() error {
	if c.dec != nil {
		c.dec.Close()
		c.dec = nil
	}
	return nil
}
