// Package codec holds the decompressors the Parquet and Avro libraries lack
// but Paimon writers use: Parquet's deprecated LZ4 codec in the Hadoop
// framing Java writes, and Avro's bzip2 and xz block codecs (data files and
// manifests). They only decode; every one bounds what it allocates, so a
// corrupt length cannot take gigabytes.
package codec

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pierrec/lz4/v4"
	"github.com/ulikunitz/xz"
)

// MaxBlockBytes caps one decompressed Avro block. Paimon writers flush blocks
// of at most a few MB (Java's Avro sync interval is 64 KB, fastavro's 16 KB);
// the cap only stops a corrupt length from allocating gigabytes.
const MaxBlockBytes = 256 << 20

// errDecodeOnly is what the Compress side of a decode-only codec returns.
var errDecodeOnly = errors.New("this codec only decodes")

// Bzip2 is Avro's "bzip2" block codec (an ocf.Codec).
type Bzip2 struct{}

// Name is the codec's avro.codec name.
func (Bzip2) Name() string { return "bzip2" }

// Compress is not supported.
func (Bzip2) Compress([]byte) ([]byte, error) { return nil, fmt.Errorf("bzip2: %w", errDecodeOnly) }

// Decompress decodes one block.
func (c Bzip2) Decompress(src []byte) ([]byte, error) { return c.DecompressBounded(src, MaxBlockBytes) }

// DecompressBounded decodes one block of at most max bytes.
func (Bzip2) DecompressBounded(src []byte, max int64) ([]byte, error) {
	return readBounded("bzip2", bzip2.NewReader(bytes.NewReader(src)), max)
}

// Close releases nothing.
func (Bzip2) Close() error { return nil }

// minXZStream is the size of an empty xz stream.
const minXZStream = 32

// XZ is Avro's "xz" block codec (an ocf.Codec): each block is one xz
// stream, as Avro's Java XZCodec writes it.
type XZ struct{}

// Name is the codec's avro.codec name.
func (XZ) Name() string { return "xz" }

// Compress is not supported.
func (XZ) Compress([]byte) ([]byte, error) { return nil, fmt.Errorf("xz: %w", errDecodeOnly) }

// Decompress decodes one block.
func (c XZ) Decompress(src []byte) ([]byte, error) { return c.DecompressBounded(src, MaxBlockBytes) }

// DecompressBounded decodes one block of at most max bytes.
func (XZ) DecompressBounded(src []byte, max int64) ([]byte, error) {
	// An xz stream is at least a 12-byte header, an index and a 12-byte
	// footer; the decoder reads a stream cut inside its first block header
	// as empty, without an error.
	if len(src) < minXZStream {
		return nil, fmt.Errorf("xz: block of %d bytes is shorter than any xz stream (truncated)", len(src))
	}
	// One stream per block: SingleStream makes a cut stream an error
	// rather than the end of a sequence of streams.
	r, err := xz.ReaderConfig{SingleStream: true}.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("xz: %w", err)
	}
	return readBounded("xz", r, max)
}

// Close releases nothing.
func (XZ) Close() error { return nil }

func readBounded(name string, r io.Reader, max int64) ([]byte, error) {
	if max <= 0 || max > MaxBlockBytes {
		max = MaxBlockBytes
	}
	out, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(out)) > max {
		return nil, fmt.Errorf("%s: block decompresses to more than %d bytes", name, max)
	}
	return out, nil
}

// HadoopLZ4 decodes Parquet pages of the deprecated LZ4 codec (Parquet's
// CompressionCodec LZ4 = 5), which parquet-mr, and so Java Paimon with
// file.compression=lz4, writes through Hadoop's Lz4Codec: a sequence of
// chunks, each a big-endian uncompressed length followed by one or more
// big-endian compressed lengths with their raw LZ4 blocks. Other writers
// put a bare LZ4 block or an LZ4 frame under the same codec id, so, like
// Arrow C++, the Hadoop framing is tried first and those after it.
// It implements arrow-go's compress.Codec for decoding only.
type HadoopLZ4 struct{}

// Decode decodes one page into dst (sized by the page header). It panics on
// corrupt input, as compress.Codec's Decode must; readers call
// DecodeWithError.
func (c HadoopLZ4) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// DecodeWithError decodes one page into dst.
func (HadoopLZ4) DecodeWithError(dst, src []byte) ([]byte, error) {
	if out, ok := decodeHadoop(dst, src); ok {
		return out, nil
	}
	if n, err := lz4.UncompressBlock(src, dst[:cap(dst)]); err == nil && (len(dst) == 0 || n == len(dst)) {
		return dst[:n], nil
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(lz4.NewReader(bytes.NewReader(src)), int64(cap(dst))+1)); err == nil &&
		buf.Len() <= cap(dst) && (len(dst) == 0 || buf.Len() == len(dst)) {
		return append(dst[:0], buf.Bytes()...), nil
	}
	return nil, errors.New("lz4: page is neither Hadoop-framed LZ4, a raw LZ4 block nor an LZ4 frame (corrupt)")
}

// decodeHadoop decodes the Hadoop framing into dst; ok is false when src is
// not exactly a sequence of well-formed chunks filling dst.
func decodeHadoop(dst, src []byte) ([]byte, bool) {
	out := dst[:0]
	for len(src) > 0 {
		if len(src) < 8 {
			return nil, false
		}
		want := int(binary.BigEndian.Uint32(src))
		src = src[4:]
		if want < 0 || len(out)+want > cap(dst) {
			return nil, false
		}
		got := 0
		for got < want {
			if len(src) < 4 {
				return nil, false
			}
			clen := int(binary.BigEndian.Uint32(src))
			src = src[4:]
			if clen <= 0 || clen > len(src) {
				return nil, false
			}
			n, err := lz4.UncompressBlock(src[:clen], out[len(out):cap(dst)])
			if err != nil {
				return nil, false
			}
			out = out[:len(out)+n]
			got += n
			src = src[clen:]
		}
		if got != want {
			return nil, false
		}
	}
	if len(dst) > 0 && len(out) != len(dst) {
		return nil, false
	}
	return out, true
}

// Encode is not supported: this reader never writes Parquet.
func (HadoopLZ4) Encode(dst, src []byte) []byte { panic("lz4 (hadoop): " + errDecodeOnly.Error()) }

// EncodeLevel is not supported.
func (c HadoopLZ4) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

// CompressBound is the raw LZ4 bound plus one chunk header.
func (HadoopLZ4) CompressBound(n int64) int64 { return int64(lz4.CompressBlockBound(int(n))) + 8 }
