package paimon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// A data-file codec no reader here decodes, or external data paths in a store the table's
// client cannot reach, is refused when the table is opened, naming the option, not when a
// stream reaches the first such file.
func TestUnreadableFilesRefusedAtOpen(t *testing.T) {
	for opts, want := range map[string]string{
		`{"file.format": "parquet", "file.compression": "lzo"}`:                                         "file.compression=lzo",
		`{"file.format": "avro", "file.format.per.level": "5:parquet", "file.compression": "LZO"}`:      "file.compression=LZO",
		`{"file.format": "parquet", "file.compression.per.level": "0:lz4,5:lzo"}`:                       "file.compression.per.level=lzo",
		`{"file.format": "parquet", "file.compression": "lz4", "file.compression.per.level": "0:zstd"}`: "",
		// Changelog files: their own codec and format when set, else the data files'.
		`{"file.format": "avro", "changelog-file.format": "parquet", "changelog-file.compression": "lzo"}`: "changelog-file.compression=lzo",
		`{"file.format": "parquet", "changelog-file.format": "avro", "file.compression": "lzo"}`:           "file.compression=lzo",
		`{"file.format": "orc", "changelog-file.format": "parquet", "changelog-file.compression": "zstd"}`: "",
		`{"manifest.format": "orc"}`:     "manifest.format=orc",
		`{"manifest.format": "parquet"}`: "",
		// External data paths: beside a local table they are read; in an object store they
		// would need another client.
		`{"data-file.external-paths": "file:///tmp/ext-a, /tmp/ext-b"}`:          "",
		`{"data-file.external-paths": "/tmp/ext-a,s3://lake/ext"}`:               "s3://lake/ext is outside the table's store (local)",
		`{"data-file.external-paths": "oss://bucket/ext", "file.format": "orc"}`: "data-file.external-paths=oss://bucket/ext",
	} {
		wh, table := demoCopy(t)
		sch := filepath.Join(table, "schema", "schema-0")
		b, err := os.ReadFile(sch)
		if err != nil {
			t.Fatal(err)
		}
		txt := strings.Replace(string(b), `"options": {}`, `"options": `+opts, 1)
		if txt == string(b) {
			t.Fatal("demo schema-0 no longer has empty options")
		}
		if err := os.WriteFile(sch, []byte(txt), 0o644); err != nil {
			t.Fatal(err)
		}
		cat, err := paimon.OpenCatalog(context.Background(), wh, interop.CheckedAlloc(t))
		if err != nil {
			t.Fatal(err)
		}
		_, err = cat.GetTable(context.Background(), "demo.orders")
		_ = cat.Close()
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", opts, err)
			}
			continue
		}
		if !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "demo.orders") {
			t.Errorf("%s: want ErrUnsupported naming %q and the table, got %v", opts, want, err)
		}
	}
}
