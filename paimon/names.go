package paimon

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/connect-paimon/connect-paimon/internal/suggest"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
)

// notExist is a not-exist error (errors.Is fileio.ErrNotExist: permanent)
// whose message says all, without the file system's words.
func notExist(msg string) error { return notExistErr(msg) }

type notExistErr string

func (e notExistErr) Error() string { return string(e) }

func (e notExistErr) Unwrap() error { return fileio.ErrNotExist }

// missingTable explains why table db.tbl (branch) could not be opened from
// the warehouse when its schema files were not found: the warehouse has no
// database, the database or the table does not exist, or the branch does
// not; each with the nearest existing names, or the list of them. err is
// returned when the listing itself fails.
func (c *Catalog) missingTable(ctx context.Context, db, tbl, branch string, err error) error {
	name := db + "." + tbl
	dbs, lerr := c.ListDatabases(ctx)
	if lerr != nil {
		return err
	}
	if len(dbs) == 0 {
		return notExist(fmt.Sprintf("table %s: %s", name, c.emptyWarehouse(ctx)))
	}
	if !slices.Contains(dbs, db) {
		return notExist(fmt.Sprintf("table %s: database %s does not exist%s", name, db, suggest.Hint(db, dbs, "databases")))
	}
	var all, own []string
	for _, d := range dbs {
		ts, lerr := c.ListTables(ctx, d)
		if lerr != nil {
			return err
		}
		for _, t := range ts {
			all = append(all, d+"."+t)
			if d == db {
				own = append(own, t)
			}
		}
	}
	if !slices.Contains(own, tbl) {
		// The nearest of the whole warehouse, else the database's tables.
		hint := suggest.Hint(tbl, own, "tables of database "+db)
		if near := suggest.Nearest(name, all, 3); len(near) > 0 {
			hint = "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return notExist(fmt.Sprintf("table %s does not exist%s", name, hint))
	}
	if branch == "" || branch == "main" {
		return err
	}
	branches, lerr := listBranches(ctx, c.fio, fileio.Join(c.warehouse, db+".db", tbl))
	if lerr != nil {
		return err
	}
	return notExist(fmt.Sprintf("table %s has no branch %s%s", name, branch, suggest.Hint(branch, branches, "branches")))
}

// emptyWarehouse explains a warehouse without a database: one of its
// subdirectories holding databases is likely what was meant.
func (c *Catalog) emptyWarehouse(ctx context.Context) string {
	msg := fmt.Sprintf("the warehouse %s has no database (no <database>.db directory)", c.warehouse)
	ents, err := c.fio.List(ctx, c.warehouse)
	if err != nil {
		return msg
	}
	var roots []string
	for _, e := range ents {
		if !e.IsDir {
			continue
		}
		sub, err := c.fio.List(ctx, e.Path)
		if err != nil {
			continue
		}
		for _, s := range sub {
			if s.IsDir && strings.HasSuffix(s.Name, ".db") && len(s.Name) > 3 {
				roots = append(roots, e.Path)
				break
			}
		}
	}
	if len(roots) > 0 {
		return msg + "; is the warehouse " + strings.Join(roots, " or ") + "?"
	}
	return msg + "; is it the warehouse root?"
}

// CheckWarehouse returns an error when the warehouse holds no database:
// most likely a wrong but existing path (a parent or sibling of the
// warehouse), which the error says, naming subdirectories that hold
// databases. A REST catalog is not checked.
func (c *Catalog) CheckWarehouse(ctx context.Context) error {
	if c.rest != nil {
		return nil
	}
	dbs, err := c.ListDatabases(ctx)
	if err != nil || len(dbs) > 0 {
		return err
	}
	return notExist(c.emptyWarehouse(ctx))
}

// listBranches lists the branches of the table at root: main and every
// branch/branch-<name> directory.
func listBranches(ctx context.Context, fio fileio.FileIO, root string) ([]string, error) {
	out := []string{"main"}
	ents, err := fio.List(ctx, fileio.Join(root, "branch"))
	if err != nil {
		if fileio.IsNotExist(err) {
			return out, nil
		}
		return nil, err
	}
	for _, e := range ents {
		if e.IsDir && strings.HasPrefix(e.Name, "branch-") && len(e.Name) > len("branch-") {
			out = append(out, strings.TrimPrefix(e.Name, "branch-"))
		}
	}
	return out, nil
}

// Branches lists the table's branches: main first, then the others in
// lexical order.
func (t *Table) Branches(ctx context.Context) ([]string, error) {
	bs, err := listBranches(ctx, t.fio, t.root)
	if err != nil {
		return nil, fmt.Errorf("table %s: list branches: %w", t.name, err)
	}
	slices.Sort(bs[1:])
	return bs, nil
}

// Tags lists the tags of the table's branch in lexical order.
func (t *Table) Tags(ctx context.Context) ([]string, error) {
	tags, err := snapshot.NewTagManager(t.fio, t.root, t.branch).List(ctx)
	if err != nil {
		if fileio.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	return tags, nil
}

// TagSnapshotID returns the id of the snapshot tag name points at; a tag
// that does not exist gets the nearest existing names in the error.
func (t *Table) TagSnapshotID(ctx context.Context, name string) (int64, error) {
	tag, err := t.tag(ctx, name)
	if err != nil {
		return 0, err
	}
	return tag.Snapshot.ID, nil
}

// tag reads a tag of the table's branch; a tag that does not exist gets
// the nearest existing names, or the list of them.
func (t *Table) tag(ctx context.Context, name string) (*snapshot.Tag, error) {
	tag, err := snapshot.NewTagManager(t.fio, t.root, t.branch).Tag(ctx, name)
	if err == nil || !fileio.IsNotExist(err) {
		if err != nil {
			err = fmt.Errorf("table %s: %w", t.name, err)
		}
		return tag, err
	}
	tags, lerr := t.Tags(ctx)
	if lerr != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	return nil, notExist(fmt.Sprintf("table %s%s has no tag %s%s", t.name, t.branchSuffix(), name, suggest.Hint(name, tags, "tags")))
}

// branchSuffix names a branch other than main: " (branch b1)".
func (t *Table) branchSuffix() string {
	if t.branch == "" || t.branch == "main" {
		return ""
	}
	return " (branch " + t.branch + ")"
}
