package agg

import (
	"errors"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// javaHash is hashCode() of the Java object Paimon's element getters
// return for value i of a (schema.JavaHashable types): Integer, Long,
// Boolean, Float, Double, BinaryString. NULL hashes to 0, as HashMap does.
func javaHash(a arrow.Array, i int) int32 {
	if a.IsNull(i) {
		return 0
	}
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(i) {
			return 1231
		}
		return 1237
	case *array.Int8:
		return int32(x.Value(i))
	case *array.Int16:
		return int32(x.Value(i))
	case *array.Int32:
		return x.Value(i)
	case *array.Date32:
		return int32(x.Value(i))
	case *array.Time32:
		return int32(x.Value(i))
	case *array.Int64:
		v := uint64(x.Value(i))
		return int32(v ^ v>>32)
	case *array.Float32:
		return int32(floatBits(x.Value(i)))
	case *array.Float64:
		v := doubleBits(x.Value(i))
		return int32(v ^ v>>32)
	case *array.String:
		return murmurPaimon([]byte(x.Value(i)))
	}
	return 0
}

// javaEquals is equals() of those objects: floats by their canonical bits
// (-0.0 differs from 0.0, NaN equals NaN).
func javaEquals(a arrow.Array, i int, b arrow.Array, j int) bool {
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		return an && bn
	}
	switch x := a.(type) {
	case *array.Float32:
		return floatBits(x.Value(i)) == floatBits(b.(*array.Float32).Value(j))
	case *array.Float64:
		return doubleBits(x.Value(i)) == doubleBits(b.(*array.Float64).Value(j))
	case *array.Binary:
		return false // byte[]: identity, and every read makes a new array
	}
	return array.SliceEqual(a, int64(i), int64(i+1), b, int64(j), int64(j+1))
}

func floatBits(f float32) uint32 {
	if f != f {
		return 0x7fc00000 // Float.floatToIntBits' canonical NaN
	}
	return math.Float32bits(f)
}

func doubleBits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// murmurPaimon is BinaryString.hashCode: MurmurHashUtils.hashBytes with
// seed 42 (little-endian words, the tail mixed byte by byte, sign-extended).
func murmurPaimon(b []byte) int32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	mixK1 := func(k uint32) uint32 {
		k *= c1
		k = k<<15 | k>>17
		return k * c2
	}
	mixH1 := func(h, k uint32) uint32 {
		h ^= k
		h = h<<13 | h>>19
		return h*5 + 0xe6546b64
	}
	h := uint32(42)
	n := len(b) - len(b)%4
	for i := 0; i < n; i += 4 {
		h = mixH1(h, mixK1(uint32(b[i])|uint32(b[i+1])<<8|uint32(b[i+2])<<16|uint32(b[i+3])<<24))
	}
	for i := n; i < len(b); i++ {
		h = mixH1(h, mixK1(uint32(int32(int8(b[i])))))
	}
	h ^= uint32(len(b))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// errTreeBin: Java's HashMap turned a bucket into a tree, whose iteration
// order this reader does not reproduce.
var errTreeBin = errors.New("nine or more elements share one bucket of Java's HashMap (a tree bin, whose order is not reproduced)")

// hashOrder returns the iteration order of a fresh java.util.HashMap (or
// HashSet) after inserting n distinct keys in index order: by bucket of
// the final table, insertion order within a bucket (resize splits keep it).
func hashOrder(n int, hash func(int) int32) ([]int, error) {
	capacity := 16
	spread := make([]uint32, n)
	for k := range spread {
		h := uint32(hash(k))
		spread[k] = h ^ h>>16
	}
	counts := map[uint32]int{}
	recount := func(upto int) {
		counts = map[uint32]int{}
		for k := 0; k < upto; k++ {
			counts[spread[k]&uint32(capacity-1)]++
		}
	}
	for k := 0; k < n; k++ {
		b := spread[k] & uint32(capacity-1)
		old := counts[b]
		counts[b]++
		if old >= 8 { // putVal: binCount >= TREEIFY_THRESHOLD-1
			if capacity < 64 {
				capacity *= 2 // treeifyBin resizes small tables instead
				recount(k + 1)
			} else {
				return nil, errTreeBin
			}
		}
		if k+1 > capacity*3/4 {
			capacity *= 2
			recount(k + 1)
		}
	}
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	mask := uint32(capacity - 1)
	// Stable: insertion order within a bucket.
	sortStable(order, func(x, y int) bool { return spread[x]&mask < spread[y]&mask })
	return order, nil
}

func sortStable(xs []int, less func(a, b int) bool) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && less(xs[j], xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// hashDistinct returns keys (by key(e)) de-duplicated, first occurrence
// kept, in Java's HashMap iteration order; last[k] is the index in elems of
// the last occurrence of the k-th result's key (HashMap.put keeps the
// key's position but takes the newest value).
func hashDistinct(elems []elemRef, key func(elemRef) (arrow.Array, int)) (first, last []int, err error) {
	var idx []int
	byHash := map[int32][]int{} // hash → positions in idx
	for e := range elems {
		ka, ki := key(elems[e])
		h := javaHash(ka, ki)
		dup := -1
		for _, p := range byHash[h] {
			pa, pi := key(elems[idx[p]])
			if javaEquals(pa, pi, ka, ki) {
				dup = p
				break
			}
		}
		if dup >= 0 {
			last[dup] = e
			continue
		}
		byHash[h] = append(byHash[h], len(idx))
		idx = append(idx, e)
		last = append(last, e)
	}
	order, err := hashOrder(len(idx), func(k int) int32 {
		ka, ki := key(elems[idx[k]])
		return javaHash(ka, ki)
	})
	if err != nil {
		return nil, nil, err
	}
	first = make([]int, len(order))
	lastOut := make([]int, len(order))
	for k, o := range order {
		first[k], lastOut[k] = idx[o], last[o]
	}
	return first, lastOut, nil
}
