// Package roaring64 reproduces FieldRoaringBitmap64Agg of Java Paimon
// 1.3.1. Its values are Roaring64Bitmap.serialize(DataOutput) of
// RoaringBitmap 1.2.1 (shaded into paimon-common), after runOptimize: the
// layout of the bitmap's in-memory ART (adaptive radix tree over the high 48
// bits) and of its two-level container store, not the portable 64-bit
// format. The merged bytes depend on the accumulator's tree shape, on
// container slot allocation and on the container type each in-place OR
// returns, so the Java classes (Art, Node4/16/48/256, LeafNode, Containers,
// Array/Bitmap/RunContainer.ior, runOptimize) are ported here step by step
// rather than recomputed from the set of values: a canonical re-encoding
// would differ from Java's bytes.
package roaring64

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Node types in NodeType ordinal order.
const (
	r64Node4 byte = iota
	r64Node16
	r64Node48
	r64Node256
	r64Leaf
)

// Container types as Containers.containerType writes them.
const (
	r64Run    byte = 0
	r64Bitmap byte = 1
	r64Array  byte = 2
)

const (
	r64KeyLen      = 6    // LeafNode.LEAF_NODE_KEY_LENGTH_IN_BYTES
	r64ArrayMax    = 4096 // ArrayContainer.DEFAULT_MAX_SIZE
	r64BitmapBytes = 8192 // BitmapContainer.MAX_CAPACITY_BYTE
	r64MaxDepth    = 8    // a valid tree nests at most 7 nodes (6 key bytes + leaf)
	r64Empty48     = 0xFF // Node48.EMPTY_VALUE
	jvmArrayOffset = 1<<31 - 1 - 8 - 1
)

var errR64Malformed = errors.New("malformed Roaring64Bitmap")

// r64Node is one ART node with the fields Java serializes.
type r64Node struct {
	kind   byte
	count  int // Java's short count
	prefix []byte
	key4   uint32     // Node4: child key bytes, big-endian order
	first  uint64     // Node16: keys 0..7, big-endian order
	second uint64     // Node16: keys 8..15
	index  [32]uint64 // Node48: child slot per key byte, big-endian bytes
	mask   [4]uint64  // Node256: present key bytes
	kids   []*r64Node
	key    [r64KeyLen]byte // leaf: high 48 bits, big-endian
	cidx   int64           // leaf: container index
}

func newR64Inner(kind byte, prefix []byte) *r64Node {
	n := &r64Node{kind: kind, prefix: append([]byte(nil), prefix...)}
	switch kind {
	case r64Node4:
		n.kids = make([]*r64Node, 4)
	case r64Node16:
		n.kids = make([]*r64Node, 16)
	case r64Node48:
		n.kids = make([]*r64Node, 48)
		for i := range n.index {
			n.index[i] = ^uint64(0)
		}
	case r64Node256:
		n.kids = make([]*r64Node, 256)
	}
	return n
}

func (n *r64Node) idx48(k byte) byte { return byte(n.index[k>>3] >> ((7 - uint(k&7)) * 8)) }

func (n *r64Node) setIdx48(k, v byte) {
	shift := (7 - uint(k&7)) * 8
	n.index[k>>3] = n.index[k>>3]&^(0xFF<<shift) | uint64(v)<<shift
}

func (n *r64Node) key16(pos int) byte {
	if pos < 8 {
		return byte(n.first >> ((7 - uint(pos)) * 8))
	}
	return byte(n.second >> ((15 - uint(pos)) * 8))
}

// childPos is Node.getChildPos: a position getChild understands, or -1.
func (n *r64Node) childPos(k byte) int {
	switch n.kind {
	case r64Node4:
		for i := 0; i < n.count; i++ {
			if byte(n.key4>>((3-uint(i))*8)) == k {
				return i
			}
		}
	case r64Node16:
		search := func(from, to int) int { // Node.binarySearch over key16
			lo, hi := from, to-1
			for lo <= hi {
				mid := int(uint(lo+hi) >> 1)
				switch v := n.key16(mid); {
				case v < k:
					lo = mid + 1
				case v > k:
					hi = mid - 1
				default:
					return mid
				}
			}
			return -1
		}
		if n.count <= 8 {
			return search(0, n.count)
		}
		if p := search(0, 8); p >= 0 {
			return p
		}
		return search(8, n.count)
	case r64Node48:
		if n.idx48(k) != r64Empty48 {
			return int(k)
		}
	case r64Node256:
		if n.kids[k] != nil {
			return int(k)
		}
	}
	return -1
}

func (n *r64Node) child(pos int) *r64Node {
	if n.kind == r64Node48 {
		return n.kids[n.idx48(byte(pos))]
	}
	return n.kids[pos]
}

func (n *r64Node) replace(pos int, c *r64Node) {
	if n.kind == r64Node48 {
		n.kids[n.idx48(byte(pos))] = c
		return
	}
	n.kids[pos] = c
}

// children are the children in Java's getNextLargerPos order (ascending key
// byte), the order of serialization and of key iteration.
func (n *r64Node) children() []*r64Node {
	switch n.kind {
	case r64Node4, r64Node16:
		return n.kids[:n.count]
	case r64Node48:
		var out []*r64Node
		for k := 0; k < 256; k++ {
			if s := n.idx48(byte(k)); s != r64Empty48 {
				out = append(out, n.kids[s])
			}
		}
		return out
	case r64Node256:
		var out []*r64Node
		for k := 0; k < 256; k++ {
			if n.mask[k>>6]&(1<<uint(k&63)) != 0 {
				out = append(out, n.kids[k])
			}
		}
		return out
	}
	return nil
}

// sortSmall is Node.sortSmallByteArray: one insertion-sort pass that moves
// key[right] (and its child) into place among key[left..right-1].
func sortSmall(key []byte, kids []*r64Node, left, right int) {
	for i := left; i < right; i++ {
		j := i
		ai, c := key[i+1], kids[i+1]
		for ai < key[j] {
			key[j+1], kids[j+1] = key[j], kids[j]
			if j == left {
				j--
				break
			}
			j--
		}
		key[j+1], kids[j+1] = ai, c
	}
}

// insertChild is Node.insertLeaf (and Node4.insert, used by Art.insert on
// inner children): add c under key byte k, growing the node when full.
func insertChild(n *r64Node, c *r64Node, k byte) *r64Node {
	switch n.kind {
	case r64Node4:
		if n.count < 4 {
			shift := (3 - uint(n.count)) * 8
			n.key4 = n.key4&^(0xFF<<shift) | uint32(k)<<shift
			n.kids[n.count] = c
			n.count++
			var kb [4]byte
			binary.BigEndian.PutUint32(kb[:], n.key4)
			sortSmall(kb[:], n.kids, 0, n.count-1)
			n.key4 = binary.BigEndian.Uint32(kb[:])
			return n
		}
		g := newR64Inner(r64Node16, n.prefix)
		g.count = 4
		g.first = uint64(n.key4) << 32
		copy(g.kids, n.kids[:4])
		return insertChild(g, c, k)
	case r64Node16:
		if n.count < 16 {
			var kb [16]byte
			binary.BigEndian.PutUint64(kb[:8], n.first)
			binary.BigEndian.PutUint64(kb[8:], n.second)
			kb[n.count] = k
			n.kids[n.count] = c
			if n.count < 8 {
				sortSmall(kb[:8], n.kids, 0, n.count)
			} else {
				sortSmall(kb[:], n.kids, 0, n.count)
			}
			n.count++
			n.first = binary.BigEndian.Uint64(kb[:8])
			if n.count > 8 {
				n.second = binary.BigEndian.Uint64(kb[8:])
			}
			return n
		}
		g := newR64Inner(r64Node48, n.prefix)
		for i := 0; i < n.count; i++ {
			g.setIdx48(n.key16(i), byte(i))
			g.kids[i] = n.kids[i]
		}
		g.count = n.count
		return insertChild(g, c, k)
	case r64Node48:
		if n.count < 48 {
			pos := n.count
			if n.kids[pos] != nil {
				pos = 0
				for n.kids[pos] != nil {
					pos++
				}
			}
			n.kids[pos] = c
			n.setIdx48(k, byte(pos))
			n.count++
			return n
		}
		g := newR64Inner(r64Node256, n.prefix)
		for kk := 0; kk < 256; kk++ {
			if s := n.idx48(byte(kk)); s != r64Empty48 {
				g.kids[kk] = n.kids[s]
				g.mask[kk>>6] |= 1 << uint(kk&63)
			}
		}
		g.count = n.count
		return insertChild(g, c, k)
	default: // Node256
		n.count++
		n.kids[k] = c
		n.mask[k>>6] |= 1 << uint(k&63)
		return n
	}
}

// mismatch is java.util.Arrays.mismatch over two ranges: the first differing
// index, the shorter length when one is a prefix of the other, -1 if equal.
func mismatch(a, b []byte) int {
	m := min(len(a), len(b))
	for i := 0; i < m; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) == len(b) {
		return -1
	}
	return m
}

// commonPrefixLength is Art.commonPrefixLength.
func commonPrefixLength(a, b []byte) int {
	mm := mismatch(a, b)
	if m := min(len(a), len(b)); len(a) != len(b) && mm >= m {
		return m
	}
	return mm
}

// r64Insert is Art.insert(Node, key, depth, containerIdx).
func r64Insert(n *r64Node, key [r64KeyLen]byte, depth int, cidx int64) (*r64Node, error) {
	if n == nil {
		return &r64Node{kind: r64Leaf, key: key, cidx: cidx}, nil
	}
	if depth >= r64KeyLen {
		return nil, errR64Malformed
	}
	if n.kind == r64Leaf {
		common := commonPrefixLength(n.key[depth:], key[depth:])
		if common < 0 || depth+common >= r64KeyLen {
			return nil, errR64Malformed // the key is present already
		}
		n.prefix = nil
		g := newR64Inner(r64Node4, key[depth:depth+common])
		insertChild(g, n, n.key[depth+common])
		insertChild(g, &r64Node{kind: r64Leaf, key: key, cidx: cidx}, key[depth+common])
		return g, nil
	}
	if len(n.prefix) > 0 {
		mm := mismatch(n.prefix, key[depth:])
		if mm < 0 || mm > len(n.prefix) {
			return nil, errR64Malformed
		}
		if mm != len(n.prefix) {
			g := newR64Inner(r64Node4, n.prefix[:mm])
			insertChild(g, n, n.prefix[mm])
			n.prefix = append([]byte(nil), n.prefix[mm+1:]...)
			insertChild(g, &r64Node{kind: r64Leaf, key: key, cidx: cidx}, key[depth+mm])
			return g, nil
		}
		depth += len(n.prefix)
		if depth >= r64KeyLen {
			return nil, errR64Malformed
		}
	}
	if pos := n.childPos(key[depth]); pos >= 0 {
		c := n.child(pos)
		fresh, err := r64Insert(c, key, depth+1, cidx)
		if err != nil {
			return nil, err
		}
		if fresh != c {
			n.replace(pos, fresh)
		}
		return n, nil
	}
	return insertChild(n, &r64Node{kind: r64Leaf, key: key, cidx: cidx}, key[depth]), nil
}

// r64Find is Art.findByKey: the leaf of key, or nil.
func r64Find(n *r64Node, key [r64KeyLen]byte) *r64Node {
	depth := 0
	for n != nil {
		if n.kind == r64Leaf {
			if depth == r64KeyLen || mismatch(n.key[depth:], key[depth:]) == -1 {
				return n
			}
			return nil
		}
		if len(n.prefix) > 0 {
			if commonPrefixLength(key[depth:], n.prefix) != len(n.prefix) {
				return nil
			}
			depth += len(n.prefix)
		}
		if depth >= r64KeyLen {
			return nil
		}
		pos := n.childPos(key[depth])
		if pos < 0 {
			return nil
		}
		n = n.child(pos)
		depth++
	}
	return nil
}

// r64Container is a RoaringBitmap container as Containers serializes it.
type r64Container struct {
	kind byte
	card int      // bitmap: the cardinality as stored
	vals []uint16 // array: values; run: (start, length-1) pairs
	bits []uint64 // bitmap: 1024 words
}

func (c *r64Container) cardinality() int {
	switch c.kind {
	case r64Array:
		return len(c.vals)
	case r64Bitmap:
		return c.card
	}
	n := 0
	for i := 1; i < len(c.vals); i += 2 {
		n += int(c.vals[i]) + 1
	}
	return n
}

func (c *r64Container) isFullRun() bool {
	return c.kind == r64Run && len(c.vals) == 2 && c.vals[0] == 0 && c.vals[1] == 0xFFFF
}

func (c *r64Container) bitset() []uint64 {
	if c.kind == r64Bitmap {
		return c.bits
	}
	b := make([]uint64, 1024)
	if c.kind == r64Array {
		for _, v := range c.vals {
			b[v>>6] |= 1 << (v & 63)
		}
		return b
	}
	for i := 0; i+1 < len(c.vals); i += 2 {
		for v := int(c.vals[i]); v <= int(c.vals[i])+int(c.vals[i+1]); v++ {
			b[v>>6] |= 1 << uint(v&63)
		}
	}
	return b
}

// bitsetRuns counts the maximal runs of ones (BitmapContainer's
// numberOfRunsLowerBound + numberOfRunsAdjustment).
func bitsetRuns(b []uint64) int {
	n := 0
	for i, w := range b {
		n += bits.OnesCount64(^w & (w << 1))
		var next uint64
		if i+1 < len(b) {
			next = b[i+1]
		}
		n += int((w >> 63) & ^next & 1)
	}
	return n
}

func bitsetCard(b []uint64) int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// fromBitset builds a container of the given kind holding b, encoded as
// Java's conversions produce it (runs maximal, values ascending).
func fromBitset(kind byte, b []uint64, card int) *r64Container {
	c := &r64Container{kind: kind, card: card}
	switch kind {
	case r64Bitmap:
		c.bits = b
	case r64Array:
		c.vals = make([]uint16, 0, card)
		for i, w := range b {
			for w != 0 {
				c.vals = append(c.vals, uint16(i*64+bits.TrailingZeros64(w)))
				w &= w - 1
			}
		}
	default:
		start := -1
		for v := 0; v <= 65536; v++ {
			on := v < 65536 && b[v>>6]&(1<<uint(v&63)) != 0
			switch {
			case on && start < 0:
				start = v
			case !on && start >= 0:
				c.vals = append(c.vals, uint16(start), uint16(v-1-start))
				start = -1
			}
		}
	}
	return c
}

// r64Ior is Container.ior(x) followed by nothing else: the union of a and x
// in the container type Java's in-place OR returns for this pair of types.
func r64Ior(a, x *r64Container) *r64Container {
	if a.isFullRun() {
		return a // RunContainer.ior: if (isFull()) return this
	}
	u := make([]uint64, 1024)
	ab, xb := a.bitset(), x.bitset()
	for i := range u {
		u[i] = ab[i] | xb[i]
	}
	card := bitsetCard(u)
	runs := bitsetRuns(u)
	fullOrBitmap := func() byte { // BitmapContainer.or/ior: RunContainer.full() when full
		if card == 1<<16 {
			return r64Run
		}
		return r64Bitmap
	}
	efficient := func() byte { // RunContainer.toEfficientContainer
		if 2+4*runs <= min(r64BitmapBytes, 2+2*card) {
			return r64Run
		}
		if card <= r64ArrayMax {
			return r64Array
		}
		return r64Bitmap
	}
	var kind byte
	switch a.kind {
	case r64Array:
		switch x.kind {
		case r64Array:
			kind = r64Array
			if a.cardinality()+x.cardinality() > r64ArrayMax { // lazyIOR + repairAfterLazy
				switch {
				case card <= r64ArrayMax:
					kind = r64Array
				case card == 1<<16:
					kind = r64Run
				default:
					kind = r64Bitmap
				}
			}
		case r64Bitmap:
			kind = fullOrBitmap()
		default: // RunContainer.or(ArrayContainer): lazyorToRun + repairAfterLazy
			kind = efficient()
		}
	case r64Bitmap:
		if x.kind == r64Array {
			kind = r64Bitmap // BitmapContainer.ior(ArrayContainer) never converts
		} else {
			kind = fullOrBitmap()
		}
	default:
		if x.kind == r64Bitmap {
			kind = fullOrBitmap()
		} else {
			kind = efficient()
		}
	}
	return fromBitset(kind, u, card)
}

// r64RunOptimize is what Roaring64Bitmap.runOptimize keeps of
// Container.runOptimize: only a conversion to a run container replaces a
// container (a run container is never turned back into another type).
func r64RunOptimize(c *r64Container) *r64Container {
	switch c.kind {
	case r64Array:
		b := c.bitset()
		if r := bitsetRuns(b); 2*len(c.vals) > 2+4*r {
			return fromBitset(r64Run, b, len(c.vals))
		}
	case r64Bitmap:
		if r := bitsetRuns(c.bits); r64BitmapBytes > 2+4*r {
			return fromBitset(r64Run, c.bits, c.card)
		}
	}
	return c
}

// r64Containers is art.Containers: containers in arrays that grow by half,
// addressed by (array << 32 | slot).
type r64Containers struct {
	arrays [][]*r64Container
	size   int64
	first  int32
	second int32
}

func (cs *r64Containers) get(idx int64) (*r64Container, error) {
	f, s := int64(uint64(idx)>>32), int64(int32(idx))
	if f >= int64(len(cs.arrays)) || s < 0 || s >= int64(len(cs.arrays[f])) || cs.arrays[f][s] == nil {
		return nil, fmt.Errorf("%w: container index %d", errR64Malformed, idx)
	}
	return cs.arrays[f][s], nil
}

func (cs *r64Containers) replace(idx int64, c *r64Container) {
	cs.arrays[uint64(idx)>>32][int32(idx)] = c
}

// add is Containers.addContainer.
func (cs *r64Containers) add(c *r64Container) (int64, error) {
	if cs.second+1 == jvmArrayOffset || cs.first == -1 {
		cs.arrays = append(cs.arrays, make([]*r64Container, 1))
		cs.first++
		cs.second = 0
	} else {
		cs.second++
	}
	if cs.first < 0 || int(cs.first) >= len(cs.arrays) || cs.second < 0 {
		return 0, fmt.Errorf("%w: container position %d/%d", errR64Malformed, cs.first, cs.second)
	}
	arr := cs.arrays[cs.first]
	if need := int(cs.second) + 1; need > len(arr) { // Containers.grow
		n := len(arr) + len(arr)>>1
		if n < need {
			n = need
		}
		grown := make([]*r64Container, n)
		copy(grown, arr)
		arr = grown
		cs.arrays[cs.first] = arr
	}
	arr[cs.second] = c
	cs.size++
	return int64(cs.first)<<32 | int64(cs.second), nil
}

// bitmap is a Roaring64Bitmap: its ART, the key count the ART keeps and
// its containers. root == nil is the empty bitmap.
type bitmap struct {
	keys int64
	root *r64Node
	cs   r64Containers
}

type r64Reader struct {
	b   []byte
	err error
}

func (r *r64Reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		if r.err == nil {
			r.err = fmt.Errorf("%w: truncated", errR64Malformed)
		}
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *r64Reader) u8() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *r64Reader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *r64Reader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *r64Reader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// readR64 is Roaring64Bitmap.deserialize(DataInput). Like Java it reads what
// the layout says and ignores bytes after it; what Java could not read, or
// what no Java writer produces (unsorted values, a wrong cardinality), is an
// error.
func readR64(b []byte) (*bitmap, error) {
	r := &r64Reader{b: b}
	bm := &bitmap{cs: r64Containers{first: -1}}
	if r.u8() == 0 { // HighLowContainer EMPTY_TAG
		return bm, r.err
	}
	bm.keys = int64(r.u64())
	root, err := readR64Node(r, 0)
	if err != nil {
		return nil, err
	}
	bm.root = root
	nArr := int32(r.u32())
	if r.err == nil && (nArr < 0 || int(nArr) > len(r.b)) {
		return nil, fmt.Errorf("%w: %d container arrays", errR64Malformed, nArr)
	}
	for i := int32(0); i < nArr && r.err == nil; i++ {
		r.u8() // trim tag, ignored by Java
		n := int32(r.u32())
		if r.err == nil && (n < 0 || int(n) > len(r.b)) {
			return nil, fmt.Errorf("%w: container array of %d", errR64Malformed, n)
		}
		arr := make([]*r64Container, n)
		for j := range arr {
			switch tag := r.u8(); tag {
			case 0:
			case 1:
				c, err := readR64Container(r)
				if err != nil {
					return nil, err
				}
				arr[j] = c
			default:
				if r.err == nil {
					return nil, fmt.Errorf("%w: null tag %d", errR64Malformed, tag)
				}
			}
		}
		bm.cs.arrays = append(bm.cs.arrays, arr)
	}
	bm.cs.size = int64(r.u64())
	bm.cs.first = int32(r.u32())
	bm.cs.second = int32(r.u32())
	if r.err != nil {
		return nil, r.err
	}
	// Every leaf must address a container, as Java's reads assume.
	var check func(n *r64Node) error
	check = func(n *r64Node) error {
		if n.kind == r64Leaf {
			_, err := bm.cs.get(n.cidx)
			return err
		}
		for _, c := range n.children() {
			if err := check(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check(bm.root); err != nil {
		return nil, err
	}
	return bm, nil
}

func readR64Node(r *r64Reader, depth int) (*r64Node, error) {
	if depth >= r64MaxDepth {
		return nil, fmt.Errorf("%w: tree deeper than %d", errR64Malformed, r64MaxDepth)
	}
	kind := r.u8()
	count := int(int16(r.u16()))
	plen := int(int8(r.u8()))
	if r.err != nil {
		return nil, r.err
	}
	if plen < 0 || plen >= r64KeyLen || kind > r64Leaf {
		return nil, fmt.Errorf("%w: node type %d, prefix length %d", errR64Malformed, kind, plen)
	}
	prefix := r.take(plen)
	var n *r64Node
	if kind == r64Leaf {
		n = &r64Node{kind: r64Leaf, prefix: append([]byte(nil), prefix...)}
		copy(n.key[:], r.take(r64KeyLen))
		n.cidx = int64(r.u64())
		n.count = count
		return n, r.err
	}
	n = newR64Inner(kind, prefix)
	n.count = count
	if count < 0 || count > len(n.kids) {
		return nil, fmt.Errorf("%w: node of %d children", errR64Malformed, count)
	}
	present := count
	switch kind {
	case r64Node4:
		n.key4 = r.u32()
	case r64Node16:
		n.first, n.second = r.u64(), r.u64()
	case r64Node48:
		present = 0
		for i := range n.index {
			n.index[i] = r.u64()
		}
		for k := 0; k < 256; k++ {
			if s := n.idx48(byte(k)); s != r64Empty48 {
				if int(s) >= 48 {
					return nil, fmt.Errorf("%w: Node48 slot %d", errR64Malformed, s)
				}
				present++
			}
		}
	case r64Node256:
		present = 0
		for i := range n.mask {
			n.mask[i] = r.u64()
			present += bits.OnesCount64(n.mask[i])
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if present != count {
		return nil, fmt.Errorf("%w: node lists %d children, holds %d", errR64Malformed, present, count)
	}
	kids := make([]*r64Node, count)
	for i := range kids {
		c, err := readR64Node(r, depth+1)
		if err != nil {
			return nil, err
		}
		kids[i] = c
	}
	switch kind { // replaceChildren
	case r64Node4, r64Node16:
		copy(n.kids, kids)
	case r64Node48:
		i := 0
		for k := 0; k < 256; k++ {
			if s := n.idx48(byte(k)); s != r64Empty48 {
				if n.kids[s] != nil {
					return nil, fmt.Errorf("%w: Node48 slot %d used twice", errR64Malformed, s)
				}
				n.kids[s] = kids[i]
				i++
			}
		}
	case r64Node256:
		i := 0
		for k := 0; k < 256; k++ {
			if n.mask[k>>6]&(1<<uint(k&63)) != 0 {
				n.kids[k] = kids[i]
				i++
			}
		}
	}
	return n, nil
}

func readR64Container(r *r64Reader) (*r64Container, error) {
	kind := r.u8()
	card := int(int32(r.u32()))
	if r.err != nil {
		return nil, r.err
	}
	c := &r64Container{kind: kind, card: card}
	switch kind {
	case r64Run:
		n := int(r.u16())
		c.vals = make([]uint16, 0, min(2*n, len(r.b)/2+1))
		prevEnd := -1
		for i := 0; i < n && r.err == nil; i++ {
			s, l := r.u16(), r.u16()
			if int(s) <= prevEnd || int(s)+int(l) > 0xFFFF {
				return nil, fmt.Errorf("%w: run container runs out of order", errR64Malformed)
			}
			prevEnd = int(s) + int(l)
			c.vals = append(c.vals, s, l)
		}
	case r64Bitmap:
		c.bits = make([]uint64, 1024)
		for i := range c.bits {
			c.bits[i] = r.u64()
		}
		if r.err == nil && bitsetCard(c.bits) != card {
			return nil, fmt.Errorf("%w: bitmap container cardinality %d, holds %d", errR64Malformed, card, bitsetCard(c.bits))
		}
	case r64Array:
		if card < 0 || 2*card > len(r.b) {
			return nil, fmt.Errorf("%w: array container of %d", errR64Malformed, card)
		}
		c.vals = make([]uint16, card)
		for i := range c.vals {
			c.vals[i] = r.u16()
			if i > 0 && c.vals[i] <= c.vals[i-1] {
				return nil, fmt.Errorf("%w: array container out of order", errR64Malformed)
			}
		}
	default:
		return nil, fmt.Errorf("%w: container type %d", errR64Malformed, kind)
	}
	return c, r.err
}

// leaves are the (key, container) pairs in Java's key iteration order.
func (bm *bitmap) leaves() []*r64Node {
	var out []*r64Node
	var walk func(n *r64Node)
	walk = func(n *r64Node) {
		if n.kind == r64Leaf {
			out = append(out, n)
			return
		}
		for _, c := range n.children() {
			walk(c)
		}
	}
	if bm.root != nil {
		walk(bm.root)
	}
	return out
}

// or is Roaring64Bitmap.or(x2).
func (bm *bitmap) or(x *bitmap) error {
	for _, leaf := range x.leaves() {
		c2, err := x.cs.get(leaf.cidx)
		if err != nil {
			return err
		}
		if own := r64Find(bm.root, leaf.key); own != nil {
			c, err := bm.cs.get(own.cidx)
			if err != nil {
				return err
			}
			bm.cs.replace(own.cidx, r64Ior(c, c2))
			continue
		}
		idx, err := bm.cs.add(c2) // a clone: containers are never modified in place here
		if err != nil {
			return err
		}
		root, err := r64Insert(bm.root, leaf.key, 0, idx)
		if err != nil {
			return err
		}
		bm.root = root
		bm.keys++
	}
	return nil
}

func (bm *bitmap) runOptimize() {
	if bm.cs.size <= 0 {
		return // ContainerIterator.hasNext trusts the stored container count
	}
	for _, arr := range bm.cs.arrays {
		for j, c := range arr {
			if c != nil {
				arr[j] = r64RunOptimize(c)
			}
		}
	}
}

// serialize is Roaring64Bitmap.serialize(DataOutput).
func (bm *bitmap) serialize() []byte {
	if bm.root == nil {
		return []byte{0}
	}
	out := []byte{1}
	out = binary.LittleEndian.AppendUint64(out, uint64(bm.keys))
	var node func(n *r64Node)
	node = func(n *r64Node) {
		out = append(out, n.kind)
		out = binary.LittleEndian.AppendUint16(out, uint16(int16(n.count)))
		out = append(out, byte(len(n.prefix)))
		out = append(out, n.prefix...)
		switch n.kind {
		case r64Leaf:
			out = append(out, n.key[:]...)
			out = binary.LittleEndian.AppendUint64(out, uint64(n.cidx))
			return
		case r64Node4:
			out = binary.LittleEndian.AppendUint32(out, n.key4)
		case r64Node16:
			out = binary.LittleEndian.AppendUint64(out, n.first)
			out = binary.LittleEndian.AppendUint64(out, n.second)
		case r64Node48:
			for _, v := range n.index {
				out = binary.LittleEndian.AppendUint64(out, v)
			}
		case r64Node256:
			for _, v := range n.mask {
				out = binary.LittleEndian.AppendUint64(out, v)
			}
		}
		for _, c := range n.children() {
			node(c)
		}
	}
	node(bm.root)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(bm.cs.arrays)))
	for _, arr := range bm.cs.arrays {
		out = append(out, 0xFE) // NOT_TRIMMED_MARK
		out = binary.LittleEndian.AppendUint32(out, uint32(len(arr)))
		for _, c := range arr {
			if c == nil {
				out = append(out, 0)
				continue
			}
			out = append(out, 1, c.kind)
			out = binary.LittleEndian.AppendUint32(out, uint32(int32(c.cardinality())))
			switch c.kind {
			case r64Run:
				out = binary.LittleEndian.AppendUint16(out, uint16(len(c.vals)/2))
				fallthrough
			case r64Array:
				for _, v := range c.vals {
					out = binary.LittleEndian.AppendUint16(out, v)
				}
			case r64Bitmap:
				for _, w := range c.bits {
					out = binary.LittleEndian.AppendUint64(out, w)
				}
			}
		}
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(bm.cs.size))
	out = binary.LittleEndian.AppendUint32(out, uint32(bm.cs.first))
	out = binary.LittleEndian.AppendUint32(out, uint32(bm.cs.second))
	return out
}

// Merge is FieldRoaringBitmap64Agg.agg on two non-null values:
// deserialize both, OR the input into the accumulator, runOptimize,
// serialize.
func Merge(acc, in []byte) ([]byte, error) {
	a, err := readR64(acc)
	if err != nil {
		return nil, fmt.Errorf("accumulated bitmap: %w", err)
	}
	x, err := readR64(in)
	if err != nil {
		return nil, fmt.Errorf("input bitmap: %w", err)
	}
	if err := a.or(x); err != nil {
		return nil, err
	}
	a.runOptimize()
	return a.serialize(), nil
}
