package orc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// errCorrupt marks data that contradicts the ORC format; callers wrap it
// with the file and column.
var errCorrupt = errors.New("corrupt ORC data")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// decompressor turns the compression chunks of one file's streams back into
// bytes. It is per file (not shared between goroutines) so its codec state
// (flate and zstd decoders) is reused across chunks without locks.
type decompressor struct {
	kind      uint64
	blockSize int
	flate     io.ReadCloser
	zstd      *zstd.Decoder
	src       bytes.Reader
}

func newDecompressor(kind uint64, blockSize uint64) (*decompressor, error) {
	switch kind {
	case compNone, compZlib, compSnappy, compLZ4, compZstd:
	case compLZO:
		return nil, fmt.Errorf("ORC compression LZO is not supported")
	default:
		return nil, corruptf("unknown compression kind %d", kind)
	}
	if kind != compNone && (blockSize == 0 || blockSize > 1<<23) {
		// The chunk header has 23 bits of length; 0 would loop forever.
		if blockSize == 0 {
			blockSize = 256 << 10 // ORC's default when the writer omitted it
		} else {
			return nil, corruptf("compression block size %d exceeds the 23-bit chunk length", blockSize)
		}
	}
	return &decompressor{kind: kind, blockSize: int(blockSize)}, nil
}

func (d *decompressor) close() {
	if d.zstd != nil {
		d.zstd.Close()
		d.zstd = nil
	}
}

// chunk decompresses one chunk body into dst (reusing its capacity).
func (d *decompressor) chunk(dst, src []byte) ([]byte, error) {
	switch d.kind {
	case compZlib:
		d.src.Reset(src)
		if d.flate == nil {
			d.flate = flate.NewReader(&d.src)
		} else if err := d.flate.(flate.Resetter).Reset(&d.src, nil); err != nil {
			return nil, err
		}
		buf := bytes.NewBuffer(dst[:0])
		n, err := buf.ReadFrom(io.LimitReader(d.flate, int64(d.blockSize)+1))
		if err != nil {
			return nil, fmt.Errorf("zlib: %w", err)
		}
		if n > int64(d.blockSize) {
			return nil, corruptf("zlib chunk inflates beyond the block size %d", d.blockSize)
		}
		return buf.Bytes(), nil
	case compSnappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if n > d.blockSize {
			return nil, corruptf("snappy chunk of %d bytes exceeds the block size %d", n, d.blockSize)
		}
		out, err := snappy.Decode(dst[:cap(dst)], src)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		return out, nil
	case compLZ4:
		if cap(dst) < d.blockSize {
			dst = make([]byte, d.blockSize)
		}
		n, err := lz4.UncompressBlock(src, dst[:d.blockSize])
		if err != nil {
			return nil, fmt.Errorf("lz4: %w", err)
		}
		return dst[:n], nil
	case compZstd:
		if d.zstd == nil {
			z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(d.blockSize)+(1<<20)))
			if err != nil {
				return nil, fmt.Errorf("zstd: %w", err)
			}
			d.zstd = z
		}
		out, err := d.zstd.DecodeAll(src, dst[:0])
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		if len(out) > d.blockSize {
			return nil, corruptf("zstd chunk of %d bytes exceeds the block size %d", len(out), d.blockSize)
		}
		return out, nil
	}
	return nil, corruptf("compression kind %d", d.kind)
}

// decodeAll decompresses a whole compressed region (the footer, metadata or
// a stripe footer) into one buffer.
func (d *decompressor) decodeAll(b []byte, limit int) ([]byte, error) {
	if d.kind == compNone {
		return b, nil
	}
	s := inStream{d: d, src: b}
	var out []byte
	for {
		if s.pos < len(s.buf) {
			if len(out)+len(s.buf)-s.pos > limit {
				return nil, corruptf("decompresses beyond %d bytes", limit)
			}
			out = append(out, s.buf[s.pos:]...)
			s.pos = len(s.buf)
		}
		if err := s.nextChunk(); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
	}
}

// inStream reads the bytes of one stream, decompressing chunk by chunk, so a
// stream costs its compressed bytes plus one decompressed chunk.
type inStream struct {
	d       *decompressor
	src     []byte // compressed bytes not yet consumed
	buf     []byte // current decompressed chunk
	pos     int    // read position in buf
	own     []byte // decompression buffer, reused
	scratch []byte // assembles reads that span chunks
	orig    []byte // the whole stream, for seeks
}

func newStream(d *decompressor, src []byte) *inStream {
	s := &inStream{d: d}
	s.reset(src)
	return s
}

func (s *inStream) reset(src []byte) {
	s.pos = 0
	s.orig = src
	if s.d.kind == compNone {
		s.buf, s.src = src, nil
		return
	}
	s.buf, s.src = nil, src
}

// nextChunk loads the next chunk; io.EOF at the end of the stream.
func (s *inStream) nextChunk() error {
	if len(s.src) == 0 {
		return io.EOF
	}
	if len(s.src) < 3 {
		return corruptf("compression chunk header truncated")
	}
	h := uint32(s.src[0]) | uint32(s.src[1])<<8 | uint32(s.src[2])<<16
	original := h&1 == 1
	n := int(h >> 1)
	s.src = s.src[3:]
	if n > len(s.src) {
		return corruptf("compression chunk of %d bytes, %d left in the stream", n, len(s.src))
	}
	body := s.src[:n]
	s.src = s.src[n:]
	s.pos = 0
	if original {
		if n > s.d.blockSize {
			return corruptf("uncompressed chunk of %d bytes exceeds the block size %d", n, s.d.blockSize)
		}
		s.buf = body
		return nil
	}
	out, err := s.d.chunk(s.own, body)
	if err != nil {
		return err
	}
	s.own = out
	s.buf = out
	return nil
}

func (s *inStream) readByte() (byte, error) {
	for s.pos >= len(s.buf) {
		if err := s.nextChunk(); err != nil {
			if err == io.EOF {
				return 0, corruptf("stream ends early")
			}
			return 0, err
		}
	}
	b := s.buf[s.pos]
	s.pos++
	return b, nil
}

// bytes returns the next n bytes; the slice is valid until the next read.
func (s *inStream) bytes(n int) ([]byte, error) {
	if n < 0 {
		return nil, corruptf("negative length %d", n)
	}
	if s.pos+n <= len(s.buf) {
		b := s.buf[s.pos : s.pos+n]
		s.pos += n
		return b, nil
	}
	if cap(s.scratch) < n {
		// Grow by the data actually present: a corrupt length must not
		// allocate more than the stream could hold.
		if n > len(s.buf)-s.pos+len(s.src)*maxExpansion(s.d) {
			return nil, corruptf("read of %d bytes beyond the stream's end", n)
		}
		s.scratch = make([]byte, 0, n)
	}
	out := s.scratch[:0]
	for len(out) < n {
		if s.pos >= len(s.buf) {
			if err := s.nextChunk(); err != nil {
				if err == io.EOF {
					return nil, corruptf("stream ends early")
				}
				return nil, err
			}
			continue
		}
		k := min(n-len(out), len(s.buf)-s.pos)
		out = append(out, s.buf[s.pos:s.pos+k]...)
		s.pos += k
	}
	s.scratch = out
	return out, nil
}

// maxExpansion bounds how many bytes one compressed byte can become, for
// sanity checks against corrupt lengths.
func maxExpansion(d *decompressor) int {
	if d.kind == compNone {
		return 1
	}
	return 1 << 12
}

func (s *inStream) varuint() (uint64, error) {
	var x uint64
	for shift := uint(0); ; shift += 7 {
		b, err := s.readByte()
		if err != nil {
			return 0, err
		}
		if shift == 63 && b > 1 {
			return 0, corruptf("varint overflows 64 bits")
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
	}
}

func (s *inStream) varint() (int64, error) {
	u, err := s.varuint()
	return int64(u>>1) ^ -int64(u&1), err
}
