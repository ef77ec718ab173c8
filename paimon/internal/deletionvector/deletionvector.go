// Package deletionvector reads Paimon deletion vectors: per data file, the
// set of physical row positions (0-based, before any filtering) that were
// deleted after the file was written. Readers drop those rows.
//
// Deletion vectors live in index files listed by the index manifest
// (IndexType "DELETION_VECTORS"). An index file is a version byte (1)
// followed by the vectors of several data files back to back; the index
// manifest gives each data file's offset. Two encodings exist and are told
// apart by a magic number, never by the recorded length, whose meaning
// differs between them:
//
//   - 32-bit (Java BitmapDeletionVector, default): int32 BE length (magic +
//     bitmap), int32 BE magic 0x5E43F2D0, a portable RoaringBitmap, int32 BE
//     CRC32 of magic + bitmap.
//   - 64-bit (deletion-vectors.bitmap64, Paimon 1.2+, Iceberg's
//     "deletion-vector-v1" layout): int32 BE length (magic + payload), magic
//     0x6439D3D1 stored little-endian, int64 LE bitmap count, then per bitmap
//     an int32 LE key (high 32 bits of the positions) and a portable 32-bit
//     RoaringBitmap, then int32 BE CRC32 of magic + payload.
package deletionvector

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// Vector is the deleted-row set of one data file.
type Vector interface {
	// IsDeleted reports whether the row at physical position pos (0-based)
	// is deleted.
	IsDeleted(pos int64) bool
	// Cardinality is the number of deleted rows.
	Cardinality() int64
}

const (
	// IndexFileVersion is the first byte of a deletion vector index file.
	IndexFileVersion = 1
	magic32          = 0x5E43F2D0 // big-endian in the file
	magic64          = 0x6439D3D1 // little-endian in the file
	// minRoaringBytes is the smallest portable RoaringBitmap (cookie and
	// container count), used to bound the bitmap count of 64-bit vectors
	// before allocating anything.
	minRoaringBytes = 8
)

// Decode decodes one deletion vector starting at its 4-byte length prefix.
// b may extend past the vector (the rest of an index file); only the bytes
// the prefix announces, plus the CRC, are read. The CRC is always checked.
func Decode(b []byte) (v Vector, err error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("deletion vector: %d bytes, need at least 8 for length and magic", len(b))
	}
	l := int64(int32(binary.BigEndian.Uint32(b[0:4])))
	if l < 4 {
		return nil, fmt.Errorf("deletion vector: invalid length %d", l)
	}
	if need := 4 + l + 4; int64(len(b)) < need {
		return nil, fmt.Errorf("deletion vector: length %d needs %d bytes, only %d available (truncated)", l, need, len(b))
	}
	body := b[4 : 4+l] // magic + bitmap data: what the CRC covers
	want := binary.BigEndian.Uint32(b[4+l : 8+l])
	if got := crc32.ChecksumIEEE(body); got != want {
		return nil, fmt.Errorf("deletion vector: CRC32 mismatch: stored %08x, computed %08x", want, got)
	}
	// The roaring library trusts container headers; a CRC-valid but
	// malformed bitmap must still not bring the process down.
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("deletion vector: malformed bitmap: %v", r)
		}
	}()
	switch {
	case binary.BigEndian.Uint32(body[0:4]) == magic32:
		return decode32(body[4:])
	case binary.LittleEndian.Uint32(body[0:4]) == magic64:
		return decode64(body[4:])
	}
	return nil, fmt.Errorf("deletion vector: unknown magic %x (want %08x big-endian for 32-bit or %08x little-endian for 64-bit bitmaps)",
		body[0:4], uint32(magic32), uint32(magic64))
}

// readRoaring parses one portable 32-bit RoaringBitmap from the front of b
// and returns it with the number of bytes it used.
func readRoaring(b []byte) (*roaring.Bitmap, int64, error) {
	bm := roaring.New()
	n, err := bm.ReadFrom(bytes.NewReader(b))
	if err != nil {
		return nil, 0, err
	}
	if err := bm.Validate(); err != nil {
		return nil, 0, err
	}
	return bm, n, nil
}

func decode32(data []byte) (Vector, error) {
	bm, n, err := readRoaring(data)
	if err != nil {
		return nil, fmt.Errorf("deletion vector: 32-bit bitmap: %w", err)
	}
	if n != int64(len(data)) {
		return nil, fmt.Errorf("deletion vector: 32-bit bitmap uses %d of %d bytes", n, len(data))
	}
	return bitmap32{bm}, nil
}

func decode64(data []byte) (Vector, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("deletion vector: 64-bit payload of %d bytes lacks the bitmap count", len(data))
	}
	count := binary.LittleEndian.Uint64(data[:8])
	rest := data[8:]
	if count > uint64(len(rest))/(4+minRoaringBytes) {
		return nil, fmt.Errorf("deletion vector: 64-bit bitmap count %d cannot fit in %d bytes", count, len(rest))
	}
	v := bitmap64{keys: make([]uint32, 0, count), maps: make([]*roaring.Bitmap, 0, count)}
	for i := uint64(0); i < count; i++ {
		if len(rest) < 4 {
			return nil, fmt.Errorf("deletion vector: 64-bit bitmap %d: truncated key", i)
		}
		key := binary.LittleEndian.Uint32(rest[:4])
		if i > 0 && key <= v.keys[len(v.keys)-1] {
			return nil, fmt.Errorf("deletion vector: 64-bit bitmap keys not ascending (%d after %d)", key, v.keys[len(v.keys)-1])
		}
		bm, n, err := readRoaring(rest[4:])
		if err != nil {
			return nil, fmt.Errorf("deletion vector: 64-bit bitmap %d (key %d): %w", i, key, err)
		}
		v.keys = append(v.keys, key)
		v.maps = append(v.maps, bm)
		v.card += int64(bm.GetCardinality())
		rest = rest[4+n:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("deletion vector: %d trailing bytes after %d 64-bit bitmaps", len(rest), count)
	}
	return v, nil
}

type bitmap32 struct{ bm *roaring.Bitmap }

func (v bitmap32) IsDeleted(pos int64) bool {
	return pos >= 0 && pos <= 0xFFFFFFFF && v.bm.Contains(uint32(pos))
}

func (v bitmap32) Cardinality() int64 { return int64(v.bm.GetCardinality()) }

// bitmap64 keeps the per-key bitmaps sorted by key (the format requires
// ascending keys), so a lookup is a binary search plus a 32-bit lookup.
type bitmap64 struct {
	keys []uint32
	maps []*roaring.Bitmap
	card int64
}

func (v bitmap64) IsDeleted(pos int64) bool {
	if pos < 0 {
		return false
	}
	hi, lo := uint32(uint64(pos)>>32), uint32(pos)
	i := sort.Search(len(v.keys), func(i int) bool { return v.keys[i] >= hi })
	return i < len(v.keys) && v.keys[i] == hi && v.maps[i].Contains(lo)
}

func (v bitmap64) Cardinality() int64 { return v.card }

// ReadRange reads the deletion vector at offset in the index file at path.
// length is the value recorded in the index manifest; because its meaning
// differs between the 32-bit and 64-bit encodings, the vector's own length
// prefix decides how much is read, and length is only checked to be
// non-negative. The file's version byte is checked as well.
func ReadRange(ctx context.Context, fio fileio.FileIO, path string, offset, length int64) (Vector, error) {
	v, err := readRange(ctx, fio, path, offset, length)
	if err != nil {
		return nil, fmt.Errorf("read deletion vector %s at offset %d: %w", path, offset, err)
	}
	return v, nil
}

func readRange(ctx context.Context, fio fileio.FileIO, path string, offset, length int64) (Vector, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if offset < 1 || length < 0 {
		return nil, fmt.Errorf("invalid range: offset %d, length %d (vectors start after the version byte)", offset, length)
	}
	f, err := fio.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := f.Size()
	if offset+8 > size {
		return nil, fmt.Errorf("offset %d is beyond the file's %d bytes", offset, size)
	}
	var ver [1]byte
	if err := readAt(f, ver[:], 0); err != nil {
		return nil, err
	}
	if ver[0] != IndexFileVersion {
		return nil, fmt.Errorf("index file version %d, expected %d", ver[0], IndexFileVersion)
	}
	var head [4]byte
	if err := readAt(f, head[:], offset); err != nil {
		return nil, err
	}
	l := int64(int32(binary.BigEndian.Uint32(head[:])))
	if l < 4 {
		return nil, fmt.Errorf("invalid vector length %d", l)
	}
	total := 4 + l + 4
	if offset+total > size {
		return nil, fmt.Errorf("vector of %d bytes overruns the file's %d bytes (truncated or corrupt length)", total, size)
	}
	buf := make([]byte, total)
	if err := readAt(f, buf, offset); err != nil {
		return nil, err
	}
	return Decode(buf)
}

func readAt(f fileio.File, p []byte, off int64) error {
	n, err := f.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
