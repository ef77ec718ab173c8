package manifest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"

	"github.com/connect-paimon/connect-paimon/paimon/internal/codec"
)

// Avro object container files are parsed here rather than by ocf.Reader so
// that a writer schema is parsed and checked once per distinct schema text:
// a plan reads hundreds of manifests that all carry the same schema, and
// parsing it again for each file was half of the planning time.

// Decoder decodes Paimon's Avro metadata files (manifest lists, manifests,
// index manifests). It caches parsed writer schemas by their text, so one
// Decoder should live as long as the table it reads; it is safe for
// concurrent use.
type Decoder struct {
	mu      sync.Mutex
	schemas map[string]*writerSchema
	files   *Cache
}

// NewDecoder returns a Decoder with an empty schema cache.
func NewDecoder() *Decoder { return &Decoder{} }

// NewCachingDecoder returns a Decoder that also keeps decoded manifests
// and manifest lists in files, which other Decoders may share.
func NewCachingDecoder(files *Cache) *Decoder { return &Decoder{files: files} }

func (d *Decoder) fileCache() *Cache {
	if d == nil {
		return nil
	}
	return d.files
}

// maxCachedSchemas bounds the cache; tables use a handful of schema texts
// (one per record type and Paimon version), so the bound only matters for
// a hostile stream of distinct schemas.
const maxCachedSchemas = 256

type writerSchema struct {
	s      *avro.Schema
	mu     sync.Mutex
	checks map[*schemaReq]error
}

func (d *Decoder) schema(text []byte) (*writerSchema, error) {
	if d == nil {
		s, err := avro.Parse(string(text))
		if err != nil {
			return nil, err
		}
		return &writerSchema{s: s}, nil
	}
	d.mu.Lock()
	ws := d.schemas[string(text)]
	d.mu.Unlock()
	if ws != nil {
		return ws, nil
	}
	s, err := avro.Parse(string(text))
	if err != nil {
		return nil, err
	}
	ws = &writerSchema{s: s}
	d.mu.Lock()
	if d.schemas == nil || len(d.schemas) >= maxCachedSchemas {
		d.schemas = map[string]*writerSchema{}
	}
	if prev := d.schemas[string(text)]; prev != nil {
		ws = prev
	} else {
		d.schemas[string(text)] = ws
	}
	d.mu.Unlock()
	return ws, nil
}

// check verifies the writer schema has the fields req needs, once per
// (schema, requirement).
func (ws *writerSchema) check(req *schemaReq) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if err, ok := ws.checks[req]; ok {
		return err
	}
	root := ws.s.Root()
	err := req.check(root)
	if errors.Is(err, errNamedReference) {
		err = req.check(root.ExpandReferences())
	}
	if err != nil {
		err = fmt.Errorf("writer schema: %w", err)
	}
	if ws.checks == nil {
		ws.checks = map[*schemaReq]error{}
	}
	ws.checks[req] = err
	return err
}

// container is a parsed object container file.
type container struct {
	schema []byte
	codec  string
	sync   [16]byte
	body   []byte // the blocks
}

var avroMagic = []byte("Obj\x01")

// readLong reads one zig-zag varint.
func readLong(b []byte) (int64, []byte, error) {
	v, n := binary.Varint(b)
	if n <= 0 {
		if n == 0 {
			return 0, nil, errors.New("truncated varint")
		}
		return 0, nil, errors.New("varint overflows 64 bits")
	}
	return v, b[n:], nil
}

func readBytes(b []byte) ([]byte, []byte, error) {
	n, rest, err := readLong(b)
	if err != nil {
		return nil, nil, err
	}
	if n < 0 || n > int64(len(rest)) {
		return nil, nil, fmt.Errorf("length %d exceeds the %d bytes left", n, len(rest))
	}
	return rest[:n], rest[n:], nil
}

// parseContainer reads the header of an object container file.
func parseContainer(data []byte) (*container, error) {
	if !bytes.HasPrefix(data, avroMagic) {
		return nil, errors.New("invalid Avro magic")
	}
	b := data[len(avroMagic):]
	c := &container{codec: "null"}
	for {
		count, rest, err := readLong(b)
		if err != nil {
			return nil, fmt.Errorf("header metadata: %w", err)
		}
		b = rest
		if count == 0 {
			break
		}
		if count < 0 { // a negative count is followed by the block size
			count = -count
			if _, b, err = readLong(b); err != nil {
				return nil, fmt.Errorf("header metadata: %w", err)
			}
		}
		if count > int64(len(b)) {
			return nil, fmt.Errorf("header metadata: %d entries in %d bytes", count, len(b))
		}
		for i := int64(0); i < count; i++ {
			var k, v []byte
			if k, b, err = readBytes(b); err != nil {
				return nil, fmt.Errorf("header metadata key: %w", err)
			}
			if v, b, err = readBytes(b); err != nil {
				return nil, fmt.Errorf("header metadata value: %w", err)
			}
			switch string(k) {
			case "avro.schema":
				c.schema = v
			case "avro.codec":
				if len(v) > 0 {
					c.codec = string(v)
				}
			}
		}
	}
	if c.schema == nil {
		return nil, errors.New("header has no avro.schema")
	}
	if len(b) < 16 {
		return nil, errors.New("truncated header: no sync marker")
	}
	copy(c.sync[:], b[:16])
	c.body = b[16:]
	return c, nil
}

// decompressor returns the block decoder of a codec name.
func decompressor(name string) (ocf.Codec, error) {
	switch name {
	case "null":
		return nil, nil
	case "deflate":
		return ocf.DeflateCodec(0), nil
	case "snappy":
		return ocf.SnappyCodec(), nil
	case "zstandard":
		return &zstdDecodeCodec{}, nil
	case "bzip2":
		return codec.Bzip2{}, nil
	case "xz":
		return codec.XZ{}, nil
	}
	return nil, fmt.Errorf("unknown avro codec %q", name)
}

// blocks calls fn with each decompressed block and its record count.
func (c *container) blocks(fn func(count int64, raw []byte) error) error {
	codec, err := decompressor(c.codec)
	if err != nil {
		return err
	}
	if codec != nil {
		defer codec.Close()
	}
	b := c.body
	for n := 0; len(b) > 0; n++ {
		count, rest, err := readLong(b)
		if err != nil {
			return fmt.Errorf("block %d count: %w", n, err)
		}
		block, rest, err := readBytes(rest)
		if err != nil {
			return fmt.Errorf("block %d: %w", n, err)
		}
		if count < 0 || count > int64(len(block))*8+64 {
			return fmt.Errorf("block %d: implausible record count %d for %d bytes", n, count, len(block))
		}
		if len(rest) < 16 {
			return fmt.Errorf("block %d: truncated, no sync marker", n)
		}
		if !bytes.Equal(rest[:16], c.sync[:]) {
			return fmt.Errorf("block %d: sync marker mismatch (corrupt file)", n)
		}
		b = rest[16:]
		raw := block
		if codec != nil {
			if bd, ok := codec.(ocf.BoundedDecompressor); ok {
				raw, err = bd.DecompressBounded(block, maxBlockBytes)
			} else {
				raw, err = codec.Decompress(block)
			}
			if err != nil {
				return fmt.Errorf("block %d: %w", n, err)
			}
			if len(raw) > maxBlockBytes {
				return fmt.Errorf("block %d decompresses to more than %d bytes", n, maxBlockBytes)
			}
		}
		if err := fn(count, raw); err != nil {
			return err
		}
	}
	return nil
}
