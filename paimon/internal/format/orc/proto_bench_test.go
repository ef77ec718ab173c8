package orc

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// rowIndexMessage is a RowIndex of n entries as a writer lays them out:
// packed positions and integer, string and timestamp statistics per group.
func rowIndexMessage(n int) []byte {
	var idx []byte
	for g := 0; g < n; g++ {
		var pos []byte
		for _, p := range []uint64{0, uint64(g) * 4096, 0, 17, uint64(g) * 512, 3} {
			pos = protowire.AppendVarint(pos, p)
		}
		var ints, strs, ts, cs []byte
		ints = protowire.AppendTag(ints, 1, protowire.VarintType)
		ints = protowire.AppendVarint(ints, protowire.EncodeZigZag(int64(-g)))
		ints = protowire.AppendTag(ints, 2, protowire.VarintType)
		ints = protowire.AppendVarint(ints, protowire.EncodeZigZag(int64(g*10000)))
		strs = protowire.AppendTag(strs, 1, protowire.BytesType)
		strs = protowire.AppendString(strs, "apple")
		strs = protowire.AppendTag(strs, 2, protowire.BytesType)
		strs = protowire.AppendString(strs, "zebra")
		for f := protowire.Number(1); f <= 4; f++ {
			ts = protowire.AppendTag(ts, f, protowire.VarintType)
			ts = protowire.AppendVarint(ts, protowire.EncodeZigZag(1_700_000_000_000+int64(g)))
		}
		cs = protowire.AppendTag(cs, 1, protowire.VarintType)
		cs = protowire.AppendVarint(cs, 10000)
		cs = protowire.AppendTag(cs, 2, protowire.BytesType)
		cs = protowire.AppendBytes(cs, ints)
		cs = protowire.AppendTag(cs, 4, protowire.BytesType)
		cs = protowire.AppendBytes(cs, strs)
		cs = protowire.AppendTag(cs, 9, protowire.BytesType)
		cs = protowire.AppendBytes(cs, ts)
		cs = protowire.AppendTag(cs, 10, protowire.VarintType)
		cs = protowire.AppendVarint(cs, 1)
		var e []byte
		e = protowire.AppendTag(e, 1, protowire.BytesType)
		e = protowire.AppendBytes(e, pos)
		e = protowire.AppendTag(e, 2, protowire.BytesType)
		e = protowire.AppendBytes(e, cs)
		idx = protowire.AppendTag(idx, 1, protowire.BytesType)
		idx = protowire.AppendBytes(idx, e)
	}
	return idx
}

func TestParseRowIndexMessage(t *testing.T) {
	es, err := parseRowIndex(rowIndexMessage(3))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 {
		t.Fatalf("%d entries", len(es))
	}
	e := es[2]
	s := e.stats
	if !e.hasStats || len(e.positions) != 6 || e.positions[1] != 8192 || !s.hasNumValues || s.numValues != 10000 ||
		!s.hasInt || !s.hasIntMin || s.intMin != -2 || !s.hasIntMax || s.intMax != 20000 ||
		!s.hasString || *s.strMin != "apple" || *s.strMax != "zebra" || s.strLower != nil ||
		!s.hasTimestamp || *s.tsMin != 1_700_000_000_002 || *s.tsMaxUTC != 1_700_000_000_002 || s.tsMinNanos != nil ||
		s.hasNull == nil || !*s.hasNull || s.hasDouble || s.hasDate {
		t.Errorf("entry 2 = %+v", e)
	}
}

// BenchmarkParseRowIndex measures decoding a column's row index, which a
// filtered read does for every stripe and column it keeps.
func BenchmarkParseRowIndex(b *testing.B) {
	msg := rowIndexMessage(14)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, err := parseRowIndex(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadJavaMaps decodes every stripe of Java's direct-encoded map
// fixture (maps, multisets, maps in lists and rows, small stripes).
func BenchmarkReadJavaMaps(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join(javaWarehouse, "orc_maps_direct", "bucket-*", "*.orc"))
	if len(paths) == 0 {
		b.Fatal("no javagen.orc_maps_direct files")
	}
	var raws [][]byte
	size := 0
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
		size += len(raw)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, raw := range raws {
			if _, err := decodeAll(raw); err != nil {
				b.Fatal(err)
			}
		}
	}
}
