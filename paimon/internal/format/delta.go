package format

import (
	"encoding/binary"
)

// Parquet's DELTA_BINARY_PACKED and DELTA_BYTE_ARRAY encodings, for the
// values arrow-go has no decoder for: parquet-java's v2 writer stores
// FIXED_LEN_BYTE_ARRAY decimals as DELTA_BYTE_ARRAY once a chunk's
// dictionary is off or full, and arrow-go decodes that encoding only for
// BYTE_ARRAY columns. dictColumn uses these for top-level decimals.

// deltaBinaryPacked decodes one DELTA_BINARY_PACKED run of at most limit
// values (the page's) at the start of src into out (reused when large
// enough) and returns the values and the bytes the run took. Arithmetic
// wraps, as the writers' does.
func deltaBinaryPacked(src []byte, limit int, out []int64) ([]int64, int, error) {
	pos := 0
	uvar := func(what string) (uint64, error) {
		v, k := binary.Uvarint(src[pos:])
		if k <= 0 {
			return 0, corruptf("DELTA_BINARY_PACKED %s truncated at byte %d", what, pos)
		}
		pos += k
		return v, nil
	}
	blockSize, err := uvar("block size")
	if err != nil {
		return nil, 0, err
	}
	minis, err := uvar("miniblock count")
	if err != nil {
		return nil, 0, err
	}
	total, err := uvar("value count")
	if err != nil {
		return nil, 0, err
	}
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<20 || minis == 0 || blockSize%minis != 0 || (blockSize/minis)%32 != 0 {
		return nil, 0, corruptf("DELTA_BINARY_PACKED block of %d values in %d miniblocks", blockSize, minis)
	}
	if total > uint64(limit) {
		return nil, 0, corruptf("DELTA_BINARY_PACKED run of %d values in a page of %d", total, limit)
	}
	first, k := binary.Varint(src[pos:])
	if k <= 0 {
		return nil, 0, corruptf("DELTA_BINARY_PACKED first value truncated")
	}
	pos += k
	if total == 0 {
		return out[:0], pos, nil
	}
	perMini := int(blockSize / minis)
	if cap(out) < int(total) {
		out = make([]int64, 0, total)
	}
	out = append(out[:0], first)
	prev := first
	for uint64(len(out)) < total {
		minDelta, k := binary.Varint(src[pos:])
		if k <= 0 {
			return nil, 0, corruptf("DELTA_BINARY_PACKED block header truncated after %d values", len(out))
		}
		pos += k
		if uint64(len(src)-pos) < minis {
			return nil, 0, corruptf("DELTA_BINARY_PACKED bit widths truncated after %d values", len(out))
		}
		widths := src[pos : pos+int(minis)]
		pos += int(minis)
		for _, bw := range widths {
			if uint64(len(out)) == total {
				break // the block's unneeded miniblocks take no bytes
			}
			if bw > 64 {
				return nil, 0, corruptf("DELTA_BINARY_PACKED bit width %d", bw)
			}
			nbytes := perMini * int(bw) / 8
			if len(src)-pos < nbytes {
				return nil, 0, corruptf("DELTA_BINARY_PACKED miniblock of %d bytes truncated after %d values", nbytes, len(out))
			}
			mini := src[pos : pos+nbytes]
			pos += nbytes
			take := int(min(uint64(perMini), total-uint64(len(out))))
			for j := 0; j < take; j++ {
				prev += minDelta + int64(bitsAt(mini, int(bw), j))
				out = append(out, prev)
			}
		}
	}
	return out, pos, nil
}

// bitsAt returns the i-th value of bw bits, least significant bit first,
// of src (which holds it).
func bitsAt(src []byte, bw, i int) uint64 {
	if bw == 0 {
		return 0
	}
	off := i * bw
	var v uint64
	for got := 0; got < bw; {
		b := src[(off+got)>>3] >> ((off + got) & 7)
		n := min(8-(off+got)&7, bw-got)
		v |= uint64(b&(1<<n-1)) << got
		got += n
	}
	return v
}

// deltaByteArrays decodes a DELTA_BYTE_ARRAY page's values (prefix
// lengths, then suffixes as DELTA_LENGTH_BYTE_ARRAY) and calls each with
// every value in order; a value is valid only during its call. It returns
// the number of values, at most limit (the page's).
func deltaByteArrays(src []byte, limit int, each func(i int, v []byte) error) (int, error) {
	prefixes, used, err := deltaBinaryPacked(src, limit, nil)
	if err != nil {
		return 0, err
	}
	src = src[used:]
	lengths, used, err := deltaBinaryPacked(src, limit, nil)
	if err != nil {
		return 0, err
	}
	if len(lengths) != len(prefixes) {
		return 0, corruptf("DELTA_BYTE_ARRAY page of %d prefix lengths and %d suffix lengths", len(prefixes), len(lengths))
	}
	suffixes := src[used:]
	var prev, cur []byte
	for i := range prefixes {
		p, l := prefixes[i], lengths[i]
		if p < 0 || p > int64(len(prev)) || l < 0 || l > int64(len(suffixes)) {
			return 0, corruptf("DELTA_BYTE_ARRAY value %d: prefix %d of a %d-byte value, suffix of %d bytes in %d", i, p, len(prev), l, len(suffixes))
		}
		cur = append(append(cur[:0], prev[:p]...), suffixes[:l]...)
		suffixes = suffixes[l:]
		if err := each(i, cur); err != nil {
			return 0, err
		}
		prev, cur = cur, prev
	}
	return len(prefixes), nil
}
