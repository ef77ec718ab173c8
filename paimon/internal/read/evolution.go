package read

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/datafile"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// A data-evolution table (data-evolution.enabled, with row tracking) stores
// later values of some columns of existing rows in files of their own: a
// file whose _FIRST_ROW_ID and row count are those of the rows it updates,
// holding only the columns its _WRITE_COLS names. The rows of one first row
// id are read from all its files at once, each column from the newest file
// (highest max sequence number) that holds it, NULL where none does — Java's
// DataEvolutionSplitRead.

// fileReader is what a split reader reads one after another: a data file,
// or the union of a data-evolution group's files.
type fileReader interface {
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close()
	Path() string
}

// fileGroups returns the split's files as they are read: each alone in
// split order, or a data-evolution table's as evolutionGroups groups them.
func fileGroups(files []split.DataFile, evolution bool) ([][]*split.DataFile, error) {
	if evolution {
		return evolutionGroups(files)
	}
	out := make([][]*split.DataFile, len(files))
	for i := range files {
		out[i] = []*split.DataFile{&files[i]}
	}
	return out, nil
}

// evolutionGroups orders a split's files as Java does (first row id, then
// the newest first; files without a first row id alone, first) and groups
// the files of one first row id. Files of overlapping row ids, or of one
// first row id and different row counts, are corrupt.
func evolutionGroups(files []split.DataFile) ([][]*split.DataFile, error) {
	sorted := make([]*split.DataFile, len(files))
	for i := range files {
		sorted[i] = &files[i]
	}
	first := func(f *split.DataFile) int64 {
		if f.Meta.FirstRowID == nil {
			return math.MinInt64
		}
		return *f.Meta.FirstRowID
	}
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if first(a) != first(b) {
			return first(a) < first(b)
		}
		return a.Meta.MaxSequenceNumber > b.Meta.MaxSequenceNumber
	})
	var groups [][]*split.DataFile
	var end int64 // first row id after the current group's rows
	for _, f := range sorted {
		if f.Meta.FirstRowID == nil {
			groups = append(groups, []*split.DataFile{f})
			continue
		}
		id := *f.Meta.FirstRowID
		if n := len(groups); n > 0 && groups[n-1][0].Meta.FirstRowID != nil && *groups[n-1][0].Meta.FirstRowID == id {
			if g := groups[n-1]; f.Meta.RowCount != g[0].Meta.RowCount {
				return nil, fmt.Errorf("data files %s and %s update rows from row id %d but hold %d and %d rows: %w",
					g[0].Path, f.Path, id, g[0].Meta.RowCount, f.Meta.RowCount, types.ErrCorrupt)
			}
			groups[n-1] = append(groups[n-1], f)
			continue
		}
		if id < end {
			return nil, fmt.Errorf("data file %s starts at row id %d, inside the rows of the files before it (up to %d): %w", f.Path, id, end-1, types.ErrCorrupt)
		}
		end = id + f.Meta.RowCount
		groups = append(groups, []*split.DataFile{f})
	}
	return groups, nil
}

// unionReader reads the files of one first row id side by side: each
// output column from the file that provides it, row i of every file being
// one row.
type unionReader struct {
	members []*unionMember
	src     []int // per output field: member index, or -1 for NULL
	col     []int // column of the member's batches
	schema  *arrow.Schema
	rows    int64 // rows left when no file provides a column
	o       *datafile.Options
	mem     memory.Allocator
	path    string
}

type unionMember struct {
	r   *datafile.Reader
	rec arrow.RecordBatch
	off int64
	eof bool
}

// openUnion opens the files of a group that provide the columns of o.Fields
// (files in Java's order, the newest first).
func (s *splitReader) openUnion(group []*split.DataFile) (*unionReader, error) {
	o := &s.files
	u := &unionReader{o: o, mem: s.mem, path: group[0].Path, rows: group[0].Meta.RowCount}
	out, err := arrowconv.Schema(o.Fields)
	if err != nil {
		return nil, err
	}
	if o.WideTimestamps {
		out = arrowconv.WideSchema(out, o.Fields)
	}
	u.schema = out
	u.src = make([]int, len(o.Fields))
	u.col = make([]int, len(o.Fields))
	for i := range u.src {
		u.src[i] = -1
	}
	var memberFields [][]types.DataField
	var memberFiles []*split.DataFile
	for _, f := range group {
		held, err := datafile.FileFields(s.ctx, &f.Meta, o.ReadSchema, o.Schemas)
		if err != nil {
			return nil, fmt.Errorf("data file %s: %w", f.Path, err)
		}
		var fields []types.DataField
		for i, nf := range o.Fields {
			if u.src[i] >= 0 {
				continue
			}
			// Partition columns come from the split, whichever file reads them.
			isPart := slices.Contains(o.ReadSchema.PartitionKeys, nf.Name)
			if !isPart && typeutil.FieldByID(held, nf.ID) < 0 {
				continue
			}
			u.src[i], u.col[i] = len(memberFiles), len(fields)
			fields = append(fields, nf)
		}
		if len(fields) > 0 {
			memberFields = append(memberFields, fields)
			memberFiles = append(memberFiles, f)
		}
	}
	for i, nf := range o.Fields {
		if u.src[i] < 0 && !nf.Type.Nullable {
			return nil, fmt.Errorf("data files of row ids %d..%d: no file holds the NOT NULL column %q: %w",
				*group[0].Meta.FirstRowID, *group[0].Meta.FirstRowID+group[0].Meta.RowCount-1, nf.Name, types.ErrCorrupt)
		}
	}
	for k, f := range memberFiles {
		mo := *o
		mo.Fields = memberFields[k]
		// Rows of every file must stay aligned: nothing is skipped, and
		// plain arrays keep one column type for the whole group.
		mo.Filter, mo.Dictionary = nil, false
		r, err := s.open(f, &mo)
		if err != nil {
			u.Close()
			return nil, err
		}
		u.members = append(u.members, &unionMember{r: r})
	}
	return u, nil
}

func (u *unionReader) Path() string { return u.path }

func (u *unionReader) Close() {
	for _, m := range u.members {
		if m.rec != nil {
			m.rec.Release()
			m.rec = nil
		}
		m.r.Close()
	}
	u.members = nil
}

// Next returns the next rows every member has, io.EOF after the last.
func (u *unionReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	n := int64(-1)
	ended := 0
	for _, m := range u.members {
		for !m.eof && (m.rec == nil || m.off >= m.rec.NumRows()) {
			if m.rec != nil {
				m.rec.Release()
				m.rec = nil
			}
			rec, err := m.r.Next(ctx)
			if errors.Is(err, io.EOF) {
				m.eof = true
				break
			}
			if err != nil {
				return nil, err
			}
			m.rec, m.off = rec, 0
		}
		if m.eof {
			ended++
			continue
		}
		if left := m.rec.NumRows() - m.off; n < 0 || left < n {
			n = left
		}
	}
	switch {
	case len(u.members) == 0:
		// No file holds an output column: the group's rows, all NULL.
		if u.rows == 0 {
			return nil, io.EOF
		}
		n = u.rows
		u.rows = 0
	case ended == len(u.members):
		return nil, io.EOF
	case ended > 0:
		return nil, fmt.Errorf("data files of first row id from %s: one ends before the others: %w", u.path, types.ErrCorrupt)
	}
	cols := make([]arrow.Array, len(u.src))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, src := range u.src {
		if src < 0 {
			cols[i] = array.MakeArrayOfNull(u.mem, u.schema.Field(i).Type, int(n))
			continue
		}
		m := u.members[src]
		cols[i] = array.NewSlice(m.rec.Column(u.col[i]), m.off, m.off+n)
	}
	for _, m := range u.members {
		m.off += n
	}
	return array.NewRecordBatch(u.schema, cols, n), nil
}
