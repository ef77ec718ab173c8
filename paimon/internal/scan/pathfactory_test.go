package scan

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Expected strings below are what Java's PartitionPathUtils and toString
// produce (JDK Double.toString, LocalDateTime.toString), written out by hand.
func TestEscapePathName(t *testing.T) {
	cases := map[string]string{
		"plain":        "plain",
		"a b":          "a b",
		"a/b":          "a%2Fb",
		"k=v":          "k%3Dv",
		"10:30":        "10%3A30",
		"100%":         "100%25",
		"x\ty":         "x%09y",
		"ü€":           "ü€",
		`q"#'*?\{}[]^`: "q%22%23%27%2A%3F%5C%7B%7D%5B%5D%5E",
		"\x7f":         "%7F",
	}
	for in, want := range cases {
		if got := EscapePathName(in); got != want {
			t.Errorf("EscapePathName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPartitionPathLegacy(t *testing.T) {
	f := &PathFactory{
		Root:          "/wh/db.db/t",
		PartitionKeys: []string{"dt", "ts", "b", "s", "d"},
		PartitionTypes: []types.DataType{
			{Root: types.Date}, {Root: types.Timestamp, Precision: 3}, {Root: types.Boolean},
			{Root: types.VarChar, Length: types.MaxLength}, {Root: types.Decimal, Precision: 10, Scale: 2},
		},
		Legacy: true,
	}
	dec := types.DecimalValue{Unscaled: decimal128.FromI64(1230), Precision: 10, Scale: 2}
	// 2024-01-01 = day 19723; 2024-01-01T12:30 = 1704112200000 ms.
	got, err := f.BucketDir([]any{types.DateValue(19723), types.TimestampValue{Millis: 1704112200000}, true, "a/b c", dec}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "/wh/db.db/t/dt=19723/ts=2024-01-01T12%3A30/b=true/s=a%2Fb c/d=12.30/bucket-3"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	got, err = f.BucketDir([]any{nil, types.TimestampValue{Millis: 1704112200123, NanoOfMilli: 456000}, false, " ", dec}, -2)
	if err != nil {
		t.Fatal(err)
	}
	want = "/wh/db.db/t/dt=__DEFAULT_PARTITION__/ts=2024-01-01T12%3A30%3A00.123456/b=false/s=__DEFAULT_PARTITION__/d=12.30/bucket-postpone"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestPartitionPathNonLegacy(t *testing.T) {
	f := &PathFactory{
		Root:           "s3://bucket/wh/db.db/t",
		DataDir:        "data",
		PartitionKeys:  []string{"dt", "ts"},
		PartitionTypes: []types.DataType{{Root: types.Date}, {Root: types.Timestamp, Precision: 3}},
		DefaultName:    "NULLP",
	}
	got, err := f.BucketDir([]any{types.DateValue(19723), types.TimestampValue{Millis: 1704112200000}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "s3://bucket/wh/db.db/t/data/dt=2024-01-01/ts=2024-01-01 12%3A30%3A00.000/bucket-0"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, err := (&PathFactory{PartitionKeys: []string{"b"}, PartitionTypes: []types.DataType{{Root: types.VarBinary}}, Legacy: true}).PartitionPath([]any{[]byte("x")}); err == nil {
		t.Fatal("legacy binary partition must be refused")
	}
}
