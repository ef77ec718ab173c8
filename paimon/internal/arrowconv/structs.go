package arrowconv

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// WithChildren returns s's rows as a struct array of type target whose
// field i is child(i): the struct's own validity and offset are kept, so
// each child must be sized like s's unsliced children. Schema evolution and
// file-type conforming both rebuild ROW columns this way.
func WithChildren(s *array.Struct, target *arrow.StructType, child func(i int) (arrow.Array, error)) (arrow.Array, error) {
	children := make([]arrow.ArrayData, target.NumFields())
	defer func() {
		for _, c := range children {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range children {
		c, err := child(i)
		if err != nil {
			return nil, err
		}
		children[i] = c.Data()
		children[i].Retain()
		c.Release()
	}
	d := s.Data()
	nd := array.NewData(target, d.Len(), d.Buffers()[:1], children, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd), nil
}
