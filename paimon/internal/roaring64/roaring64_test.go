package roaring64

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// javaRbm64Values are the distinct rbm64 values Java Paimon 1.3.1 wrote and
// returned in the committed JavaPkMergeGen pk_rbm64* tables: single inputs
// (RoaringBitmap64.serialize) and Java's merged results.
func javaRbm64Values(t *testing.T) [][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "..", "resources", "fixtures", "pk-merge", "expected", "javapk.pk_rbm64*", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no pk_rbm64 fixtures (%v)", err)
	}
	seen := map[string]bool{}
	var out [][]byte
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var row map[string]any
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, col := range []string{"rb", "rb2"} {
				s, ok := row[col].(string)
				if !ok || seen[s] {
					continue
				}
				seen[s] = true
				b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "b64:"))
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				out = append(out, b)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d distinct rbm64 values in the fixtures", len(out))
	}
	return out
}

// values lists a bitmap's 64-bit values in key order.
func (bm *bitmap) values(t *testing.T) []uint64 {
	t.Helper()
	var out []uint64
	for _, leaf := range bm.leaves() {
		var high uint64
		for _, b := range leaf.key {
			high = high<<8 | uint64(b)
		}
		c, err := bm.cs.get(leaf.cidx)
		if err != nil {
			t.Fatal(err)
		}
		set := fromBitset(r64Array, c.bitset(), c.cardinality())
		for _, low := range set.vals {
			out = append(out, high<<16|uint64(low))
		}
	}
	return out
}

// TestRbm64RoundTrip: every value Java wrote is already run-optimized, so
// reading it and serializing it again gives Java's bytes back.
func TestRbm64RoundTrip(t *testing.T) {
	kinds := map[byte]int{}
	for i, v := range javaRbm64Values(t) {
		bm, err := readR64(v)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		bm.runOptimize()
		if got := bm.serialize(); !slices.Equal(got, v) {
			t.Errorf("value %d: serialized again differs from Java's bytes (%d vs %d bytes)", i, len(got), len(v))
		}
		for _, arr := range bm.cs.arrays {
			for _, c := range arr {
				if c != nil {
					kinds[c.kind]++
				}
			}
		}
	}
	// The fixtures are meant to hold every container type.
	for _, k := range []byte{r64Run, r64Bitmap, r64Array} {
		if kinds[k] == 0 {
			t.Errorf("no container of type %d in the fixtures", k)
		}
	}
}

// TestRbm64UnionValues: the merge of any two Java values holds exactly the
// union of their values, in a layout the reader reads back.
func TestRbm64UnionValues(t *testing.T) {
	vals := javaRbm64Values(t)
	if len(vals) > 16 {
		vals = vals[:16]
	}
	for i, a := range vals {
		for j, b := range vals {
			m, err := Merge(a, b)
			if err != nil {
				t.Fatalf("merge %d|%d: %v", i, j, err)
			}
			ba, _ := readR64(a)
			bb, _ := readR64(b)
			bm, err := readR64(m)
			if err != nil {
				t.Fatalf("merge %d|%d: merged bytes unreadable: %v", i, j, err)
			}
			want := append(ba.values(t), bb.values(t)...)
			slices.Sort(want)
			want = slices.Compact(want)
			got := bm.values(t)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("merge %d|%d: %d values, want %d", i, j, len(got), len(want))
			}
			if int(bm.keys) != len(bm.leaves()) {
				t.Fatalf("merge %d|%d: key count %d, %d leaves", i, j, bm.keys, len(bm.leaves()))
			}
		}
	}
}

// TestRbm64Malformed: truncated or corrupted bytes are an error or a value,
// never a panic.
func TestRbm64Malformed(t *testing.T) {
	vals := javaRbm64Values(t)
	good := vals[0]
	try := func(a, b []byte) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic on %x | %x: %v", a, b, r)
			}
		}()
		_, _ = Merge(a, b)
		_, _ = Merge(b, a)
	}
	for _, v := range vals[:min(len(vals), 6)] {
		step := max(1, len(v)/150)
		for n := 0; n < len(v); n += step {
			try(good, v[:n])
		}
		for i := 0; i < len(v); i += step {
			for _, x := range []byte{0x01, 0x80, 0xFF} {
				m := slices.Clone(v)
				m[i] ^= x
				try(good, m)
			}
		}
	}
	if _, err := Merge(good, nil); err == nil {
		t.Error("an empty value must be an error, as Java's readByte fails")
	}
}
