package orc

import (
	"slices"
	"testing"
)

func rawStream(b []byte) *inStream {
	d, _ := newDecompressor(compNone, 0)
	return newStream(d, b)
}

// The worked examples of the ORC v1 specification, section "Run Length
// Encoding".
func TestRLEv2SpecExamples(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want []int64
	}{
		{"short repeat", []byte{0x0a, 0x27, 0x10}, []int64{10000, 10000, 10000, 10000, 10000}},
		{"direct", []byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}, []int64{23713, 43806, 57005, 48879}},
		{"patched base", []byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8},
			[]int64{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190}},
		{"delta", []byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46}, []int64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}},
	}
	for _, c := range cases {
		// Read in pieces of every size so runs are split across calls.
		for step := 1; step <= len(c.want); step++ {
			r := newIntReader(rawStream(c.in), encDirectV2, false)
			var got []int64
			for len(got) < len(c.want) {
				buf := make([]int64, min(step, len(c.want)-len(got)))
				if err := r.next(buf); err != nil {
					t.Fatalf("%s step %d: %v", c.name, step, err)
				}
				got = append(got, buf...)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("%s step %d: got %v, want %v", c.name, step, got, c.want)
			}
		}
	}
}

func TestRLEv1AndByteRLESpecExamples(t *testing.T) {
	r := newIntReader(rawStream([]byte{0x61, 0xff, 0x64, 0xfb, 0x02, 0x03, 0x06, 0x07, 0xb}), encDirect, false)
	got := make([]int64, 105)
	if err := r.next(got); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if got[i] != int64(100-i) {
			t.Fatalf("run value %d = %d", i, got[i])
		}
	}
	if !slices.Equal(got[100:], []int64{2, 3, 6, 7, 11}) {
		t.Fatalf("literals %v", got[100:])
	}
	br := &byteRLE{s: rawStream([]byte{0x61, 0x00, 0xfe, 0x44, 0x45})}
	bs := make([]byte, 102)
	if err := br.next(bs); err != nil {
		t.Fatal(err)
	}
	if bs[0] != 0 || bs[99] != 0 || bs[100] != 0x44 || bs[101] != 0x45 {
		t.Fatalf("byte RLE %v", bs[95:])
	}
	bl := &boolRLE{bytes: byteRLE{s: rawStream([]byte{0xfe, 0xff, 0x80})}}
	bits := make([]bool, 16)
	if err := bl.next(bits); err != nil {
		t.Fatal(err)
	}
	want := []bool{true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false}
	if !slices.Equal(bits, want) {
		t.Fatalf("bool RLE %v", bits)
	}
}
