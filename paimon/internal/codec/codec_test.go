package codec

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/ulikunitz/xz"
)

func lz4Block(t testing.TB, src []byte) []byte {
	t.Helper()
	dst := make([]byte, lz4.CompressBlockBound(len(src)))
	var c lz4.Compressor
	n, err := c.CompressBlock(src, dst)
	if err != nil || n == 0 {
		t.Fatalf("compress: %d, %v", n, err)
	}
	return dst[:n]
}

// hadoopFrame builds Hadoop's BlockCompressorStream layout: per chunk the uncompressed length,
// then (compressed length, block) pairs; parts splits a chunk into several blocks.
func hadoopFrame(t testing.TB, chunks [][]byte, parts int) []byte {
	var out bytes.Buffer
	for _, c := range chunks {
		_ = binary.Write(&out, binary.BigEndian, uint32(len(c)))
		step := (len(c) + parts - 1) / parts
		for i := 0; i < len(c); i += step {
			b := lz4Block(t, c[i:min(i+step, len(c))])
			_ = binary.Write(&out, binary.BigEndian, uint32(len(b)))
			out.Write(b)
		}
	}
	return out.Bytes()
}

func TestHadoopLZ4(t *testing.T) {
	a := []byte(strings.Repeat("paimon page ", 300))
	b := []byte(strings.Repeat("second chunk/", 200))
	want := append(append([]byte(nil), a...), b...)
	for _, parts := range []int{1, 3} {
		src := hadoopFrame(t, [][]byte{a, b}, parts)
		got, err := HadoopLZ4{}.DecodeWithError(make([]byte, len(want)), src)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("parts %d: %d bytes, %v", parts, len(got), err)
		}
	}
	// A bare LZ4 block under the same codec id (other writers).
	got, err := HadoopLZ4{}.DecodeWithError(make([]byte, len(a)), lz4Block(t, a))
	if err != nil || !bytes.Equal(got, a) {
		t.Fatalf("raw block: %v", err)
	}
	// An LZ4 frame.
	var fr bytes.Buffer
	w := lz4.NewWriter(&fr)
	_, _ = w.Write(a)
	_ = w.Close()
	got, err = HadoopLZ4{}.DecodeWithError(make([]byte, len(a)), fr.Bytes())
	if err != nil || !bytes.Equal(got, a) {
		t.Fatalf("frame: %v", err)
	}
}

// Corrupt pages are errors, never a panic or bytes beyond the page.
func TestHadoopLZ4Corrupt(t *testing.T) {
	a := []byte(strings.Repeat("x1y2z3", 500))
	src := hadoopFrame(t, [][]byte{a}, 2)
	for name, bad := range map[string][]byte{
		"truncated":      src[:len(src)-5],
		"length too big": append([]byte{0x7f, 0xff, 0xff, 0xff}, src[4:]...),
		"garbage":        bytes.Repeat([]byte{0xff}, 64),
		"empty":          nil,
	} {
		got, err := HadoopLZ4{}.DecodeWithError(make([]byte, len(a)), bad)
		if err == nil && !bytes.Equal(got, a) {
			t.Errorf("%s: decoded %d wrong bytes without an error", name, len(got))
		}
	}
	// A page that decodes to fewer bytes than its header says is not accepted.
	if _, err := (HadoopLZ4{}).DecodeWithError(make([]byte, len(a)+1), src); err == nil {
		t.Error("short page accepted")
	}
}

func TestAvroBlockCodecs(t *testing.T) {
	want := []byte(strings.Repeat("avro block ", 1000))
	var xb bytes.Buffer
	xw, err := xz.NewWriter(&xb)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = xw.Write(want)
	_ = xw.Close()
	got, err := XZ{}.Decompress(xb.Bytes())
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("xz: %v", err)
	}
	if _, err := (XZ{}).DecompressBounded(xb.Bytes(), 100); err == nil || !strings.Contains(err.Error(), "more than 100 bytes") {
		t.Fatalf("xz bound: %v", err)
	}
	for _, cut := range []int{20, xb.Len() / 2, xb.Len() - 3} {
		if got, err := (XZ{}).Decompress(xb.Bytes()[:cut]); err == nil {
			t.Fatalf("xz cut at %d of %d accepted (%d bytes)", cut, xb.Len(), len(got))
		}
	}
	if _, err := (Bzip2{}).Decompress([]byte("BZh9 not really")); err == nil {
		t.Fatal("corrupt bzip2 accepted")
	}
}

func FuzzHadoopLZ4(f *testing.F) {
	f.Add(hadoopFrame(f, [][]byte{[]byte(strings.Repeat("seed", 64))}, 2), 256)
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 1, 0}, 4)
	f.Fuzz(func(t *testing.T, src []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		out, err := HadoopLZ4{}.DecodeWithError(make([]byte, n), src)
		if err == nil && len(out) > n {
			t.Fatalf("decoded %d bytes into a page of %d", len(out), n)
		}
	})
}
