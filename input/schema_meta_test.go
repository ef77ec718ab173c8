package input

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// The paimon_schema metadata of rows read from a committed table of every
// type (pypaimon's types_parquet_zstd) parses as Benthos' common schema and
// describes each column as the table's schema file types it.
func TestSchemaMetadataOfAllTypes(t *testing.T) {
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	env := service.NewEnvironment()
	if err := register(env, openTable); err != nil {
		t.Fatal(err)
	}
	sb := env.NewStreamBuilder()
	if err := sb.SetLoggerYAML("level: none"); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddInputYAML("paimon:\n  warehouse: " + wh + "\n  table: interop.types_parquet_zstd\n  end: {at_latest: true}\n"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var metas []any
	if err := sb.AddBatchConsumerFunc(func(_ context.Context, b service.MessageBatch) error {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range b {
			v, ok := m.MetaGetMut(MetaSchema)
			if !ok {
				t.Error("a message without paimon_schema")
				continue
			}
			metas = append(metas, v)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := strm.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(metas) == 0 {
		t.Fatal("no rows")
	}
	got, err := schema.ParseFromAny(metas[0])
	if err != nil {
		t.Fatalf("paimon_schema does not parse as a common schema: %v", err)
	}
	if got.Type != schema.Object {
		t.Fatalf("root type %v", got.Type)
	}
	byName := map[string]schema.Common{}
	for _, c := range got.Children {
		byName[c.Name] = c
	}
	leaf := func(name string, typ schema.CommonType) schema.Common {
		t.Helper()
		c, ok := byName[name]
		if !ok {
			t.Fatalf("no column %s in %v", name, got)
		}
		if c.Type != typ {
			t.Errorf("column %s: %v, want %v", name, c.Type, typ)
		}
		return c
	}
	// Types as the schema file spells them (schema/schema-0).
	leaf("id", schema.Int32)
	leaf("b", schema.Boolean)
	leaf("i8", schema.Int32)
	leaf("i16", schema.Int32)
	leaf("i64", schema.Int64)
	leaf("f32", schema.Float32)
	leaf("f64", schema.Float64)
	for name, ps := range map[string][2]int32{"d5_2": {5, 2}, "d18_4": {18, 4}, "d38_10": {38, 10}} {
		if d := leaf(name, schema.Decimal).Logical.Decimal; d.Precision != ps[0] || d.Scale != ps[1] {
			t.Errorf("%s: DECIMAL(%d, %d)", name, d.Precision, d.Scale)
		}
	}
	leaf("s", schema.String)
	leaf("bin", schema.ByteArray)
	leaf("dt", schema.Date)
	leaf("tm", schema.TimeOfDay)
	for name, want := range map[string]schema.TimestampParams{
		"ts0": {Unit: schema.TimeUnitMillis}, "ts3": {Unit: schema.TimeUnitMillis}, "ts6": {Unit: schema.TimeUnitMicros},
		"ts9": {Unit: schema.TimeUnitNanos}, "ltz3": {Unit: schema.TimeUnitMillis, AdjustToUTC: true}, "ltz6": {Unit: schema.TimeUnitMicros, AdjustToUTC: true},
	} {
		c := leaf(name, schema.Timestamp)
		if ts := c.EffectiveTimestamp(); ts != want {
			t.Errorf("%s: %+v, want %+v", name, ts, want)
		}
	}
	if arr := leaf("arr", schema.Array); len(arr.Children) != 1 || arr.Children[0].Type != schema.String || !arr.Optional {
		t.Errorf("arr: %+v", arr)
	}
	if aa := leaf("arr_arr", schema.Array); aa.Children[0].Type != schema.Array || aa.Children[0].Children[0].Type != schema.Int64 {
		t.Errorf("arr_arr: %+v", aa)
	}
	// String keys are a JSON object in the body; INT keys a list of
	// {"key", "value"} objects.
	if m := leaf("m", schema.Map); len(m.Children) != 1 || m.Children[0].Type != schema.Int32 {
		t.Errorf("m: %+v", m)
	}
	mi := leaf("m_int", schema.Array)
	if e := mi.Children[0]; e.Type != schema.Object || len(e.Children) != 2 || e.Children[0].Name != "key" || e.Children[0].Type != schema.Int32 ||
		e.Children[1].Name != "value" || e.Children[1].Type != schema.Array {
		t.Errorf("m_int: %+v", mi)
	}
	st := leaf("st", schema.Object)
	if len(st.Children) != 3 || st.Children[2].Name != "inner" || st.Children[2].Children[1].Type != schema.Date {
		t.Errorf("st: %+v", st)
	}
	if as := leaf("arr_st", schema.Array); as.Children[0].Type != schema.Object || as.Children[0].Children[1].Logical.Decimal.Scale != 3 {
		t.Errorf("arr_st: %+v", as)
	}
	if len(got.Children) != 26 {
		t.Errorf("%d columns, the table has 26", len(got.Children))
	}
	if _, ok := byName["_row_kind"]; ok {
		t.Error("the row kind column is in the body schema")
	}
}
