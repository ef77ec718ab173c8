package paimon_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// TestGetTableNamesWhatExists: a table that cannot be opened says why —
// no database in the warehouse (and where the databases are), no such
// database, table or branch — with the nearest existing names, or the
// list of them; never a missing schema directory. The error is permanent.
func TestGetTableNamesWhatExists(t *testing.T) {
	ctx := context.Background()
	wh := demoWarehouse(t)
	cat, err := paimon.OpenCatalog(ctx, wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	for _, c := range []struct {
		name, branch, want string
	}{
		{"crm.customers", "", "table crm.customers: database crm does not exist; the existing databases are demo, interop, java_0_8_2"},
		{"dmeo.orders", "", "table dmeo.orders: database dmeo does not exist; did you mean demo?"},
		{"demo.ordes", "", "table demo.ordes does not exist; did you mean demo.orders?"},
		{"demo.customers", "", "table demo.customers does not exist; the existing tables of database demo are orders"},
		{"javagen.branchy", "b2", "table javagen.branchy has no branch b2; did you mean b1?"},
		{"javagen.branchy", "experimental", "table javagen.branchy has no branch experimental; the existing branches are b1, main"},
	} {
		var opts []paimon.TableOption
		if c.branch != "" {
			opts = append(opts, paimon.WithBranch(c.branch))
		}
		_, err := cat.GetTable(ctx, c.name, opts...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !paimon.IsPermanent(err) || strings.Contains(err.Error(), "schema") {
			t.Errorf("%s (branch %q): %v, want %q", c.name, c.branch, err, c.want)
		}
	}

	// The warehouse's parent: no database, and the error says where they are.
	parent := filepath.Dir(wh)
	pcat, err := paimon.OpenCatalog(ctx, parent)
	if err != nil {
		t.Fatal(err)
	}
	defer pcat.Close()
	want := "the warehouse " + parent + " has no database (no <database>.db directory); is the warehouse " + wh + "?"
	if err := pcat.CheckWarehouse(ctx); err == nil || err.Error() != want {
		t.Errorf("CheckWarehouse: %v, want %q", err, want)
	}
	if _, err := pcat.GetTable(ctx, "demo.orders"); err == nil || err.Error() != "table demo.orders: "+want {
		t.Errorf("GetTable in the parent: %v", err)
	}
	if err := cat.CheckWarehouse(ctx); err != nil {
		t.Errorf("CheckWarehouse of the warehouse: %v", err)
	}
}

// TestBranchesAndTags: a table lists its branches and tags, and a wrong tag
// is named with the existing ones.
func TestBranchesAndTags(t *testing.T) {
	ctx := context.Background()
	_, tbl := openTableAt(t, demoWarehouse(t), "javagen.branchy")
	if bs, err := tbl.Branches(ctx); err != nil || !slices.Equal(bs, []string{"main", "b1"}) {
		t.Errorf("Branches = %q, %v", bs, err)
	}
	if tags, err := tbl.Tags(ctx); err != nil || !slices.Equal(tags, []string{"t1"}) {
		t.Errorf("Tags = %q, %v", tags, err)
	}
	if id, err := tbl.TagSnapshotID(ctx, "t1"); err != nil || id != 1 {
		t.Errorf("TagSnapshotID(t1) = %d, %v", id, err)
	}
	_, err := tbl.NewReadBuilder().WithTag("t2").Plan(ctx)
	if err == nil || err.Error() != "table javagen.branchy has no tag t2; did you mean t1?" || !paimon.IsPermanent(err) {
		t.Errorf("WithTag(t2): %v", err)
	}
	_, demo := openDemo(t)
	if _, err := demo.TagSnapshotID(ctx, "v1"); err == nil || err.Error() != "table demo.orders has no tag v1; there are no tags" {
		t.Errorf("a tag of a table without tags: %v", err)
	}
}

// TestColumnSuggestions: a wrong column in a projection or a filter names
// the nearest columns, or lists them.
func TestColumnSuggestions(t *testing.T) {
	_, tbl := openDemo(t)
	ctx := context.Background()
	for _, c := range []struct {
		cfg  paimon.StreamConfig
		want string
	}{
		{paimon.StreamConfig{Columns: []string{"idd"}}, `no column "idd" in schema 0; did you mean id, dt?`},
		{paimon.StreamConfig{Filter: "regoin = 'eu'"}, `unknown column "regoin"; did you mean region?`},
		{paimon.StreamConfig{Filter: "zzzzzz = 1"}, `unknown column "zzzzzz"; the existing columns are amount, dt, flag, id, name, price, region, ts`},
	} {
		_, _, err := tbl.NewStreamingScan(ctx, c.cfg)
		var fe *paimon.FieldError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &fe) || !paimon.IsPermanent(err) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}
