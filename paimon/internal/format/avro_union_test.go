package format

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// The row schema Paimon 0.8 to 1.0 write for a nullable row type (the table's own row, the key-value
// row of primary-key tables): the record inside a ["null", record] union.
const nullableRowSchema = `["null", {"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated",
 "fields":[{"name":"id","type":"int"},{"name":"s","type":["null","string"],"default":null}]}]`

func writeAvroFile(t *testing.T, schema string, rows ...any) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data-0.avro")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ocf.NewWriter(f, avro.MustParse(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAvroNullableRowSchema(t *testing.T) {
	fields := []types.DataField{field(t, 0, "id", "INT NOT NULL"), field(t, 1, "s", "STRING")}
	path := writeAvroFile(t, nullableRowSchema,
		map[string]any{"id": int32(1), "s": "a"}, map[string]any{"id": int32(2), "s": nil})
	got := readAll(t, path, Options{Fields: fields})
	compareRows(t, got, []string{`{"id":1,"s":"a"}`, `{"id":2,"s":null}`})

	// Deletion vectors count physical records, the union's index included.
	got = readAll(t, path, Options{Fields: fields, Deleted: posSet{0: true}})
	compareRows(t, got, []string{`{"id":2,"s":null}`})
}

// A record in the null branch is no row of any Paimon table: Java's AvroRowDatumReader fails
// on it ("Cannot read a null row"), and so does this reader, naming the file and the record.
func TestAvroNullRowRefused(t *testing.T) {
	fields := []types.DataField{field(t, 0, "id", "INT NOT NULL")}
	path := writeAvroFile(t, nullableRowSchema, map[string]any{"id": int32(1), "s": "a"}, nil)
	ctx := context.Background()
	r, err := Open(ctx, localIO(t), path, Options{Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			t.Fatal("a file holding a NULL row was read without an error")
		}
		if err != nil {
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "record 1") || !strings.Contains(err.Error(), "NULL") {
				t.Fatalf("error %q should name the file, the record and the NULL row", err)
			}
			return
		}
		rec.Release()
	}
}

// Unions Paimon never writes as a file's row stay refused, naming the file and the branches.
func TestAvroOtherTopLevelUnionsRefused(t *testing.T) {
	rec := `{"type":"record","name":"record","fields":[{"name":"id","type":"int"}]}`
	for _, schema := range []string{`[` + rec + `, "null"]`, `["null", "int"]`, `["null", ` + rec + `, "string"]`} {
		path := writeAvroFile(t, schema)
		_, err := Open(context.Background(), localIO(t), path, Options{Fields: []types.DataField{field(t, 0, "id", "INT")}})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "union of [") {
			t.Errorf("schema %s: error %v should refuse the union, naming the file and its branches", schema, err)
		}
	}
}
