package orc

// Run-length decoders of the ORC v1 specification ("Run Length Encoding").
// Each decodes exactly as many values as asked, keeping any rest of a run
// for the next call, and reports a stream that ends inside a run as corrupt.

// byteRLE decodes byte run-length encoding (TINYINT data, and the bytes
// under boolean streams).
type byteRLE struct {
	s       *inStream
	run     int  // values left in the current run
	literal bool // current run is literals (else repeats val)
	val     byte
}

// runHeader reads the start of a byte-RLE or RLE v1 run: a header byte h,
// below 0x80 a repeat of h+3 values, else 256-h literals. Both encodings
// follow a repeat's header with one byte, returned as b: the repeated byte,
// or the signed delta of an integer run.
func runHeader(s *inStream) (run int, literal bool, b byte, err error) {
	h, err := s.readByte()
	if err != nil {
		return 0, false, 0, err
	}
	if h >= 0x80 {
		return 256 - int(h), true, 0, nil
	}
	b, err = s.readByte()
	return int(h) + 3, false, b, err
}

// readInt reads one base-128 varint of an integer stream, zigzag-decoded
// when the stream is signed.
func readInt(s *inStream, signed bool) (int64, error) {
	if signed {
		return s.varint()
	}
	u, err := s.varuint()
	return int64(u), err
}

// bigEndian is the unsigned big-endian integer of up to 8 bytes.
func bigEndian(b []byte) uint64 {
	var u uint64
	for _, c := range b {
		u = u<<8 | uint64(c)
	}
	return u
}

func (r *byteRLE) next(dst []byte) error {
	for i := 0; i < len(dst); {
		if r.run == 0 {
			var err error
			if r.run, r.literal, r.val, err = runHeader(r.s); err != nil {
				return err
			}
		}
		k := min(r.run, len(dst)-i)
		if r.literal {
			b, err := r.s.bytes(k)
			if err != nil {
				return err
			}
			copy(dst[i:], b)
		} else {
			for j := i; j < i+k; j++ {
				dst[j] = r.val
			}
		}
		i += k
		r.run -= k
	}
	return nil
}

// boolRLE decodes boolean streams (PRESENT and BOOLEAN data): bits of
// byte-RLE bytes, most significant first.
type boolRLE struct {
	bytes byteRLE
	cur   byte
	left  int // bits of cur not yet returned
	one   [1]byte
}

func (r *boolRLE) next(dst []bool) error {
	for i := range dst {
		if r.left == 0 {
			if err := r.bytes.next(r.one[:]); err != nil {
				return err
			}
			r.cur, r.left = r.one[0], 8
		}
		r.left--
		dst[i] = r.cur>>uint(r.left)&1 == 1
	}
	return nil
}

// intReader decodes an integer stream, RLE v1 or v2.
type intReader interface {
	next(dst []int64) error
	seek(l *posList) error
}

func newIntReader(s *inStream, enc uint64, signed bool) intReader {
	if enc == encDirect || enc == encDictionary {
		return &rleV1{s: s, signed: signed}
	}
	return &rleV2{s: s, signed: signed}
}

type rleV1 struct {
	s       *inStream
	signed  bool
	run     int
	literal bool
	val     int64
	delta   int64
}

func (r *rleV1) next(dst []int64) error {
	for i := 0; i < len(dst); {
		if r.run == 0 {
			var d byte
			var err error
			if r.run, r.literal, d, err = runHeader(r.s); err != nil {
				return err
			}
			if !r.literal {
				r.delta = int64(int8(d))
				if r.val, err = readInt(r.s, r.signed); err != nil {
					return err
				}
			}
		}
		k := min(r.run, len(dst)-i)
		for j := i; j < i+k; j++ {
			if r.literal {
				v, err := readInt(r.s, r.signed)
				if err != nil {
					return err
				}
				dst[j] = v
			} else {
				dst[j] = r.val
				r.val += r.delta
			}
		}
		i += k
		r.run -= k
	}
	return nil
}

// rleV2 decodes integer RLE v2: each header starts a group of up to 512
// values (SHORT_REPEAT, DIRECT, PATCHED_BASE or DELTA), decoded whole into
// lit and served from there.
type rleV2 struct {
	s      *inStream
	signed bool
	lit    [512]int64
	n, pos int
	patch  [32]int64
}

func (r *rleV2) next(dst []int64) error {
	for i := 0; i < len(dst); {
		if r.pos == r.n {
			if err := r.group(); err != nil {
				return err
			}
		}
		k := copy(dst[i:], r.lit[r.pos:r.n])
		r.pos += k
		i += k
	}
	return nil
}

// wideWidth is the i-th (0..7) of the bit widths above 24 that RLE v2 can
// name (FixedBitSizes in ORC's writer): its width codes and the writer's
// rounding of patch widths share them.
func wideWidth(i int) int {
	return [...]int{26, 28, 30, 32, 40, 48, 56, 64}[i]
}

// widths decodes the 5-bit width codes (FixedBitSizes in ORC's writer).
func decodeWidth(code int) int {
	if code <= 23 {
		return code + 1
	}
	return wideWidth(min(code-24, 7))
}

// closestFixedBits pads a patch entry width as ORC's writer does.
func closestFixedBits(n int) int {
	if n <= 24 {
		return max(n, 1)
	}
	i := 0
	for i < 7 && wideWidth(i) < n {
		i++
	}
	return wideWidth(i)
}

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// readInts unpacks n big-endian bit-packed values of width w (padded to a
// byte at the end) into dst.
func (r *rleV2) readInts(dst []int64, w int) error {
	n := len(dst)
	nbytes := (n*w + 7) / 8
	b, err := r.s.bytes(nbytes)
	if err != nil {
		return err
	}
	switch w {
	case 8:
		for i := range dst {
			dst[i] = int64(b[i])
		}
		return nil
	case 16:
		for i := range dst {
			dst[i] = int64(uint16(b[2*i])<<8 | uint16(b[2*i+1]))
		}
		return nil
	case 32:
		for i := range dst {
			j := 4 * i
			dst[i] = int64(uint32(b[j])<<24 | uint32(b[j+1])<<16 | uint32(b[j+2])<<8 | uint32(b[j+3]))
		}
		return nil
	case 64:
		for i := range dst {
			dst[i] = int64(bigEndian(b[8*i : 8*i+8]))
		}
		return nil
	}
	var acc uint64  // current byte
	bits, p := 0, 0 // bits of acc left; next byte
	for i := range dst {
		var v uint64
		for need := w; need > 0; {
			if bits == 0 {
				acc, bits = uint64(b[p]), 8
				p++
			}
			take := min(need, bits)
			v = v<<uint(take) | acc>>uint(bits-take)&(1<<uint(take)-1)
			bits -= take
			need -= take
		}
		dst[i] = int64(v)
	}
	return nil
}

// groupLen reads the second header byte of a DIRECT or DELTA group and
// returns the group's value count, 9 bits split over both header bytes.
func (r *rleV2) groupLen(h byte) (int, error) {
	h2, err := r.s.readByte()
	if err != nil {
		return 0, err
	}
	return (int(h&1)<<8 | int(h2)) + 1, nil
}

func (r *rleV2) group() error {
	h, err := r.s.readByte()
	if err != nil {
		return err
	}
	r.pos = 0
	switch h >> 6 {
	case 0: // SHORT_REPEAT
		w := int(h>>3&7) + 1
		n := int(h&7) + 3
		b, err := r.s.bytes(w)
		if err != nil {
			return err
		}
		u := bigEndian(b)
		v := int64(u)
		if r.signed {
			v = unzigzag(u)
		}
		for i := 0; i < n; i++ {
			r.lit[i] = v
		}
		r.n = n
	case 1: // DIRECT
		n, err := r.groupLen(h)
		if err != nil {
			return err
		}
		w := decodeWidth(int(h >> 1 & 31))
		if err := r.readInts(r.lit[:n], w); err != nil {
			return err
		}
		if r.signed {
			for i := 0; i < n; i++ {
				r.lit[i] = unzigzag(uint64(r.lit[i]))
			}
		}
		r.n = n
	case 2: // PATCHED_BASE
		return r.patched(h)
	case 3: // DELTA
		n, err := r.groupLen(h)
		if err != nil {
			return err
		}
		w := int(h >> 1 & 31)
		if w != 0 {
			w = decodeWidth(w)
		}
		first, err := readInt(r.s, r.signed)
		if err != nil {
			return err
		}
		r.lit[0] = first
		delta, err := r.s.varint()
		if err != nil {
			return err
		}
		if w == 0 {
			for i := 1; i < n; i++ {
				r.lit[i] = r.lit[i-1] + delta
			}
		} else {
			if n < 2 {
				return corruptf("RLEv2 delta run of %d values with a bit width", n)
			}
			r.lit[1] = first + delta
			if err := r.readInts(r.lit[2:n], w); err != nil {
				return err
			}
			for i := 2; i < n; i++ {
				if delta < 0 {
					r.lit[i] = r.lit[i-1] - r.lit[i]
				} else {
					r.lit[i] = r.lit[i-1] + r.lit[i]
				}
			}
		}
		r.n = n
	}
	return nil
}

func (r *rleV2) patched(h byte) error {
	hdr, err := r.s.bytes(3)
	if err != nil {
		return err
	}
	w := decodeWidth(int(h >> 1 & 31))
	n := (int(h&1)<<8 | int(hdr[0])) + 1
	bw := int(hdr[1]>>5&7) + 1
	pw := decodeWidth(int(hdr[1] & 31))
	pgw := int(hdr[2]>>5&7) + 1
	pl := int(hdr[2] & 31)
	b, err := r.s.bytes(bw)
	if err != nil {
		return err
	}
	u := bigEndian(b)
	signBit := uint64(1) << uint(bw*8-1)
	base := int64(u)
	if u&signBit != 0 {
		base = -int64(u &^ signBit)
	}
	if err := r.readInts(r.lit[:n], w); err != nil {
		return err
	}
	if pw+pgw > 64 {
		return corruptf("RLEv2 patch width %d + gap width %d exceeds 64", pw, pgw)
	}
	patches := r.patch[:pl]
	if err := r.readInts(patches, closestFixedBits(pw+pgw)); err != nil {
		return err
	}
	mask := uint64(1)<<uint(pw) - 1
	pi := 0
	// nextGap returns the distance to the next patched value, following
	// the zero-patch entries that stand for gaps beyond 255.
	nextGap := func() (int, uint64, error) {
		gap := 0
		for {
			if pi >= pl {
				return 0, 0, corruptf("RLEv2 patch list ends inside a gap")
			}
			e := uint64(patches[pi])
			g, p := int(e>>uint(pw)), e&mask
			if g == 255 && p == 0 {
				gap += 255
				pi++
				continue
			}
			return gap + g, p, nil
		}
	}
	next := -1
	var patch uint64
	if pl > 0 {
		g, p, err := nextGap()
		if err != nil {
			return err
		}
		next, patch = g, p
	}
	for i := 0; i < n; i++ {
		v := uint64(r.lit[i])
		if i == next {
			v |= patch << uint(w)
			pi++
			if pi < pl {
				g, p, err := nextGap()
				if err != nil {
					return err
				}
				next, patch = i+g, p
			} else {
				next = -1
			}
		}
		r.lit[i] = base + int64(v)
	}
	r.n = n
	return nil
}
