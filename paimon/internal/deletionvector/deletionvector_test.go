package deletionvector

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// dvindex32 is paimon-core's compatibility/dvindex-32 prefix as recorded in
// the format notes: version byte, then the vector of positions {2, 3}, then
// the start of the next vector.
const dvindex32 = "01" + "00000018" + "5E43F2D0" + "3A300000" + "01000000" + "0000" + "0100" + "10000000" + "0200" + "0300" + "C898F63D" + "00000016"

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func positions(v Vector, upTo int64) []int64 {
	out := []int64{}
	for p := int64(0); p < upTo; p++ {
		if v.IsDeleted(p) {
			out = append(out, p)
		}
	}
	return out
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSpecBytes32(t *testing.T) {
	b := mustHex(t, dvindex32)
	v, err := Decode(b[1:]) // skip the file's version byte
	if err != nil {
		t.Fatal(err)
	}
	if got := positions(v, 100); !equal(got, []int64{2, 3}) {
		t.Fatalf("positions %v, want [2 3]", got)
	}
	if v.Cardinality() != 2 {
		t.Fatalf("cardinality %d", v.Cardinality())
	}
	if v.IsDeleted(-1) || v.IsDeleted(1<<32+2) {
		t.Fatal("out-of-range positions reported deleted")
	}

	// Through the file API: offset 1 points at the length prefix.
	path := filepath.Join(t.TempDir(), "index-spec-0")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err = ReadRange(context.Background(), fileio.NewLocal(), path, 1, 0x18)
	if err != nil {
		t.Fatal(err)
	}
	if got := positions(v, 100); !equal(got, []int64{2, 3}) {
		t.Fatalf("ReadRange positions %v", got)
	}
}

// build64 lays out a 64-bit vector by hand per the format notes.
func build64(t testing.TB, byKey map[uint32][]uint32, keys []uint32) []byte {
	t.Helper()
	payload := binary.LittleEndian.AppendUint32(nil, magic64)
	payload = binary.LittleEndian.AppendUint64(payload, uint64(len(keys)))
	for _, k := range keys {
		bm := roaring.BitmapOf(byKey[k]...)
		rb, err := bm.ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		payload = binary.LittleEndian.AppendUint32(payload, k)
		payload = append(payload, rb...)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	out = append(out, payload...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(payload))
}

func TestBuilt64(t *testing.T) {
	b := build64(t, map[uint32][]uint32{0: {0, 7, 65536}, 5: {9}}, []uint32{0, 5})
	v, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int64{0, 7, 65536, 5<<32 + 9} {
		if !v.IsDeleted(p) {
			t.Errorf("position %d not deleted", p)
		}
	}
	for _, p := range []int64{1, 9, 65537, 5 << 32, 1<<32 + 7, 6<<32 + 9, -1} {
		if v.IsDeleted(p) {
			t.Errorf("position %d reported deleted", p)
		}
	}
	if v.Cardinality() != 4 {
		t.Fatalf("cardinality %d", v.Cardinality())
	}

	// Keys must ascend, as Java writes them.
	if _, err := Decode(build64(t, map[uint32][]uint32{0: {1}, 5: {9}}, []uint32{5, 0})); err == nil ||
		!strings.Contains(err.Error(), "ascending") {
		t.Fatalf("descending keys: %v", err)
	}
}

type javaPlan struct {
	Splits []struct {
		Partition string `json:"partition"`
		Bucket    int    `json:"bucket"`
		Files     []struct {
			Name     string `json:"name"`
			RowCount int64  `json:"rowCount"`
			DV       *struct {
				Path        string  `json:"path"`
				Offset      int64   `json:"offset"`
				Length      int64   `json:"length"`
				Cardinality int64   `json:"cardinality"`
				Positions   []int64 `json:"positions"`
			} `json:"dv"`
		} `json:"files"`
	} `json:"splits"`
}

// TestJavaVectors reads the deletion vectors Java Paimon 1.3.1 wrote (32-bit
// and bitmap64 tables) at the ranges Java's own plan reports, and compares
// every position with what Java's DeletionVector.read said.
func TestJavaVectors(t *testing.T) {
	for _, table := range []string{"pk_dv32", "pk_dv64"} {
		dir := filepath.Join("testdata", "java", table)
		raw, err := os.ReadFile(filepath.Join(dir, "java-plan.json"))
		if err != nil {
			t.Fatal(err)
		}
		var plan javaPlan
		if err := json.Unmarshal(raw, &plan); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, s := range plan.Splits {
			for _, f := range s.Files {
				if f.DV == nil {
					continue
				}
				v, err := ReadRange(context.Background(), fileio.NewLocal(), filepath.Join(dir, f.DV.Path), f.DV.Offset, f.DV.Length)
				if err != nil {
					t.Fatalf("%s %s: %v", table, f.Name, err)
				}
				if got := positions(v, f.RowCount); !equal(got, f.DV.Positions) {
					t.Errorf("%s %s: positions %v, Java %v", table, f.Name, got, f.DV.Positions)
				}
				if v.Cardinality() != f.DV.Cardinality {
					t.Errorf("%s %s: cardinality %d, Java %d", table, f.Name, v.Cardinality(), f.DV.Cardinality)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Fatalf("%s: no deletion vectors in the plan", table)
		}
	}
	// The bitmap64 table really holds the 64-bit encoding.
	b, err := os.ReadFile(filepath.Join("testdata", "java", "pk_dv64", "index-458120b6-3110-45f6-8eca-3332c0588c9b-1"))
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(b[5:9]) != magic64 {
		t.Fatalf("pk_dv64 fixture does not carry the 64-bit magic: %x", b[:9])
	}
}

// TestPypaimonVector reads the vector pypaimon 2.1.0 wrote for
// delete_by_row_id([2, 3, 7]) on a 10-row file (gen_pypaimon.py in
// ../manifest/testdata); offset 1 and length 26 are from its index manifest.
func TestPypaimonVector(t *testing.T) {
	path := filepath.Join("testdata", "pypaimon", "dv", "index-3040e928-f96b-445a-b00d-8ff16ea1407d-1")
	v, err := ReadRange(context.Background(), fileio.NewLocal(), path, 1, 26)
	if err != nil {
		t.Fatal(err)
	}
	if got := positions(v, 10); !equal(got, []int64{2, 3, 7}) {
		t.Fatalf("positions %v, want [2 3 7]", got)
	}
}

func TestDecodeErrors(t *testing.T) {
	good := mustHex(t, dvindex32)[1 : 1+4+0x18+4]
	flip := func(i int) []byte {
		b := append([]byte(nil), good...)
		b[i] ^= 0x01
		return b
	}
	for name, tc := range map[string]struct {
		in  []byte
		msg string
	}{
		"crc byte":      {flip(len(good) - 1), "CRC32 mismatch"},
		"bitmap byte":   {flip(14), "CRC32 mismatch"},
		"magic":         {flip(5), "CRC32 mismatch"},
		"short":         {good[:7], "need at least 8"},
		"length beyond": {good[:len(good)-1], "truncated"},
		"tiny length":   {append([]byte{0, 0, 0, 2}, good[4:]...), "invalid length"},
		"negative len":  {append([]byte{0x80, 0, 0, 0}, good[4:]...), "invalid length"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want an error containing %q", err, tc.msg)
			}
		})
	}

	// A wrong magic with a matching CRC is reported as a wrong magic.
	payload := append([]byte{0xCA, 0xFE, 0xBA, 0xBE}, good[8:len(good)-4]...)
	b := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	b = append(b, payload...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(payload))
	if _, err := Decode(b); err == nil || !strings.Contains(err.Error(), "unknown magic") {
		t.Fatalf("wrong magic: %v", err)
	}

	// A CRC-valid but malformed bitmap (count claims more containers).
	payload = append([]byte(nil), good[4:len(good)-4]...)
	payload[8] = 9
	b = binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	b = append(b, payload...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(payload))
	if _, err := Decode(b); err == nil {
		t.Fatal("malformed bitmap accepted")
	}

	// A 64-bit vector claiming 2^60 bitmaps must fail before allocating.
	payload = binary.LittleEndian.AppendUint32(nil, magic64)
	payload = binary.LittleEndian.AppendUint64(payload, 1<<60)
	b = binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	b = append(b, payload...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(payload))
	if _, err := Decode(b); err == nil || !strings.Contains(err.Error(), "cannot fit") {
		t.Fatalf("huge bitmap count: %v", err)
	}
}

func TestTruncatedEverywhere(t *testing.T) {
	for _, b := range [][]byte{
		mustHex(t, dvindex32)[1 : 1+4+0x18+4],
		build64(t, map[uint32][]uint32{0: {1, 2}, 3: {4}}, []uint32{0, 3}),
	} {
		for n := 0; n < len(b); n++ {
			if _, err := Decode(b[:n]); err == nil {
				t.Fatalf("truncation to %d of %d bytes accepted", n, len(b))
			}
		}
	}
}

func TestReadRangeErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := mustHex(t, dvindex32)
	ok := write("ok", good[:1+4+0x18+4])
	badVersion := write("v2", append([]byte{2}, good[1:]...))
	// length prefix claiming far more than the file holds
	huge := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(huge[1:5], 0x7FFFFFF0)
	hugePath := write("huge", huge)

	for name, tc := range map[string]struct {
		path   string
		offset int64
		msg    string
	}{
		"version":       {badVersion, 1, "index file version 2"},
		"offset beyond": {ok, 100, "beyond"},
		"offset zero":   {ok, 0, "invalid range"},
		"huge length":   {hugePath, 1, "overruns"},
		"missing":       {filepath.Join(dir, "nope"), 1, "nope"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadRange(ctx, fileio.NewLocal(), tc.path, tc.offset, 24)
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("got %v, want an error naming %s and containing %q", err, tc.path, tc.msg)
			}
		})
	}
	_, err := ReadRange(ctx, fileio.NewLocal(), filepath.Join(dir, "nope"), 1, 24)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v is not ErrNotExist", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(mustHex(f, dvindex32)[1:])
	f.Add(build64(f, map[uint32][]uint32{0: {1, 2, 70000}, 3: {4}}, []uint32{0, 3}))
	for _, p := range []string{"java/pk_dv32/index-d269a880-88ee-430d-8e9d-127d0fe4fdb1-1", "java/pk_dv64/index-458120b6-3110-45f6-8eca-3332c0588c9b-1"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[1:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b)
		if err == nil {
			v.IsDeleted(0)
			v.IsDeleted(1 << 40)
			_ = v.Cardinality()
		}
	})
}
