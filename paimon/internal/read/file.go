package read

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/cast"
	"github.com/connect-paimon/connect-paimon/paimon/internal/deletionvector"
	"github.com/connect-paimon/connect-paimon/paimon/internal/format"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// column sources of an output column for one file.
const (
	srcFile = iota
	srcPartition
	srcNull
)

type colPlan struct {
	src     int
	fileIdx int // index into the file reader's columns (srcFile)
	partIdx int // index into the partition values (srcPartition)
	from    types.DataType
	to      types.DataType
	cast    bool
}

// fileReader reads one data file and maps its columns to the needed ones.
type fileReader struct {
	s      *splitReader
	path   string
	fr     format.Reader
	cols   []colPlan
	consts []arrow.Array // cached partition/null columns, sized to the last batch
}

func (s *splitReader) openFile(f *split.DataFile) (*fileReader, error) {
	ctx := s.ctx
	meta := &f.Meta
	if meta.WriteCols != nil {
		return nil, fmt.Errorf("data file %s has _WRITE_COLS (data evolution): %w", f.Path, types.ErrUnsupported)
	}
	fileSchema, err := s.r.Schemas.Schema(ctx, meta.SchemaID)
	if err != nil {
		return nil, fmt.Errorf("schema %d of data file %s: %w", meta.SchemaID, f.Path, err)
	}
	partKeys := s.r.Schema.PartitionKeys
	fr := &fileReader{s: s, path: f.Path}
	var fileFields []types.DataField
	for _, nf := range s.need {
		cp := colPlan{to: nf.Type}
		if pi := indexOf(partKeys, nf.Name); pi >= 0 {
			// Partition columns come from the manifest's partition row,
			// as in Java (PartitionUtils), not from the file.
			cp.src, cp.partIdx = srcPartition, pi
		} else if j := types.FieldByID(fileSchema.Fields, nf.ID); j >= 0 {
			ff := fileSchema.Fields[j]
			cp.src, cp.fileIdx, cp.from = srcFile, len(fileFields), ff.Type
			cp.cast = !types.SameIgnoringNullability(ff.Type, nf.Type)
			fileFields = append(fileFields, ff)
		} else {
			cp.src = srcNull // added after the file was written
		}
		fr.cols = append(fr.cols, cp)
	}
	opts := format.Options{Fields: fileFields, BatchSize: s.r.BatchSize, Alloc: s.mem, FileSize: meta.FileSize}
	if s.filter != nil {
		opts.RowGroupFilter = fr.rowGroupMayMatch
	}
	if f.Deletion != nil {
		dv, err := deletionvector.ReadRange(ctx, s.r.FIO, f.Deletion.Path, f.Deletion.Offset, f.Deletion.Length)
		if err != nil {
			return nil, fmt.Errorf("deletion vector of data file %s: %w", f.Path, err)
		}
		opts.Deleted = dv
	}
	r, err := format.Open(ctx, s.r.FIO, f.Path, opts)
	if err != nil {
		return nil, err
	}
	fr.fr = r
	if st := s.r.Stats; st != nil {
		st.FilesRead.Add(1)
		st.BytesRead.Add(meta.FileSize)
	}
	return fr, nil
}

// rowGroupMayMatch evaluates the filter on a row group's statistics, mapped
// to the needed columns the same way the data is.
func (fr *fileReader) rowGroupMayMatch(rg format.RowGroupStats) bool {
	n := len(fr.cols)
	minV, maxV := make([]any, n), make([]any, n)
	nulls := make([]*int64, n)
	for i, cp := range fr.cols {
		switch cp.src {
		case srcPartition:
			v := fr.s.sp.PartitionValues[cp.partIdx]
			minV[i], maxV[i] = v, v
			var z int64
			if v == nil {
				z = rg.NumRows
			}
			nulls[i] = &z
		case srcNull:
			all := rg.NumRows
			nulls[i] = &all
		case srcFile:
			if cp.cast {
				continue // stats in the old type would compare wrongly
			}
			if cp.fileIdx < len(rg.Min) {
				minV[i] = rg.Min[cp.fileIdx]
			}
			if cp.fileIdx < len(rg.Max) {
				maxV[i] = rg.Max[cp.fileIdx]
			}
			if cp.fileIdx < len(rg.NullCounts) {
				nulls[i] = rg.NullCounts[cp.fileIdx]
			}
		}
	}
	return fr.s.filter.TestStats(rg.NumRows, minV, maxV, nulls)
}

func (fr *fileReader) next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := fr.fr.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(fr.cols))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, cp := range fr.cols {
		switch cp.src {
		case srcFile:
			col := rec.Column(cp.fileIdx)
			if cp.cast {
				c, err := cast.Cast(ctx, col, cp.from, cp.to, fr.s.mem)
				if err != nil {
					return nil, fmt.Errorf("column %q: %w", fr.s.need[i].Name, err)
				}
				cols[i] = c
			} else {
				col.Retain()
				cols[i] = col
			}
		case srcPartition:
			c, err := constArray(fr.s.mem, fr.s.sp.PartitionValues[cp.partIdx], cp.to, n)
			if err != nil {
				return nil, fmt.Errorf("partition column %q: %w", fr.s.need[i].Name, err)
			}
			cols[i] = c
		case srcNull:
			dt, err := arrowconv.Type(cp.to)
			if err != nil {
				return nil, err
			}
			cols[i] = array.MakeArrayOfNull(fr.s.mem, dt, n)
		}
	}
	return array.NewRecordBatch(fr.s.needSchema, cols, int64(n)), nil
}

func (fr *fileReader) close() {
	if fr.fr != nil {
		fr.fr.Close()
		fr.fr = nil
	}
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}
