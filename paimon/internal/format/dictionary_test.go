package format

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// chunkPages counts, over every row group of leaf column col, the data
// pages written dictionary-encoded and PLAIN.
func chunkPages(t *testing.T, path string, col int) (groups, dict, plain int) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	for g := 0; g < pf.NumRowGroups(); g++ {
		cc, err := pf.MetaData().RowGroup(g).ColumnChunk(col)
		if err != nil {
			t.Fatal(err)
		}
		if !cc.HasDictionaryPage() {
			t.Fatalf("row group %d column %d has no dictionary page", g, col)
		}
		// The thrift footer, for the page counts arrow-go's accessor drops.
		for _, st := range pf.MetaData().FileMetaData.RowGroups[g].Columns[col].MetaData.EncodingStats {
			if st.PageType != 0 && st.PageType != 3 { // DATA_PAGE, DATA_PAGE_V2
				continue
			}
			switch parquet.Encoding(st.Encoding) {
			case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
				dict += int(st.Count)
			case parquet.Encodings.Plain:
				plain += int(st.Count)
			}
		}
	}
	return pf.NumRowGroups(), dict, plain
}

// Dictionary-encoded columns (pyarrow's writer, testdata/gen_dict.py) read
// exactly as pyarrow reads them: with nulls, across row groups with
// different dictionaries, through the fallback to PLAIN pages in the middle
// of a column chunk, and inside nested columns; in batches smaller and
// larger than a row group.
func TestDictionaryColumns(t *testing.T) {
	path := testdata("dictionary.parquet")
	fields := loadFields(t, "dictionary.fields.json")
	want := expectedLines(t, "dictionary.parquet.expected.jsonl")

	// The file has the shape the test is about.
	groups, dict, plain := chunkPages(t, path, 0) // id: distinct values
	if groups != 3 || dict == 0 || plain == 0 {
		t.Fatalf("id: %d row groups, %d dictionary and %d plain pages; want 3 groups and both kinds", groups, dict, plain)
	}
	if _, dict, plain := chunkPages(t, path, 1); dict == 0 || plain != 0 { // i: 3,000 distinct, nulls
		t.Fatalf("i: %d dictionary and %d plain pages; want dictionary pages only", dict, plain)
	}
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for leaf := 0; leaf < pf.MetaData().Schema.NumColumns(); leaf++ {
		cc, err := pf.MetaData().RowGroup(0).ColumnChunk(leaf)
		if err != nil {
			t.Fatal(err)
		}
		if !cc.HasDictionaryPage() {
			t.Errorf("leaf %s is not dictionary-encoded", pf.MetaData().Schema.Column(leaf).Path())
		}
	}
	pf.Close()

	for _, batch := range []int{0, 1000, 4001} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			compareRows(t, readAll(t, path, Options{Fields: fields, BatchSize: batch}), want)
		})
	}
}
