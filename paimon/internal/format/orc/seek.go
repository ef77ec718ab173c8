package orc

import "fmt"

// Seeking to a row group. ORC's row index records, per column and row
// group, where each of the column's streams stood when the group began, in
// the order the writer's tree writers record them (Java's
// TreeWriter.getPosition, C++'s recordPosition) and its readers consume
// them (TreeReader.seek):
//
//   - a stream: the byte offset when uncompressed; with compression the
//     offset of the chunk in the compressed stream, then the offset in the
//     decompressed chunk;
//   - byte RLE and integer RLE (v1 and v2): the stream's positions, then
//     how many values of the run starting there belong to earlier groups;
//   - boolean streams (PRESENT, BOOLEAN data): byte RLE, then how many bits
//     of the current byte were used;
//   - per column: PRESENT first when the stripe has that stream (writers
//     drop both the stream and its positions when a stripe has no NULL),
//     then the column's own streams, then each child column by its own
//     entry.

// posList is one row index entry's positions, consumed in order.
type posList struct {
	col uint64
	p   []uint64
	i   int
}

func (l *posList) next() (int, error) {
	if l.i >= len(l.p) {
		return 0, corruptf("row index of column %d has %d positions, the column's streams need more", l.col, len(l.p))
	}
	v := l.p[l.i]
	l.i++
	if v > 1<<40 {
		return 0, corruptf("row index position %d of column %d", v, l.col)
	}
	return int(v), nil
}

// seeker hands every column its row index entry for one row group.
type seeker struct {
	ix    map[uint64][]rowIndexEntry
	group int
}

func (s *seeker) at(col uint64) (*posList, error) {
	e, ok := s.ix[col]
	if !ok || s.group >= len(e) {
		return nil, corruptf("no row index entry %d for column %d", s.group, col)
	}
	return &posList{col: col, p: e[s.group].positions}, nil
}

// seek moves the stream to a recorded position.
func (s *inStream) seek(l *posList) error {
	off, err := l.next()
	if err != nil {
		return err
	}
	if off > len(s.orig) {
		return corruptf("row index offset %d in a stream of %d bytes (column %d)", off, len(s.orig), l.col)
	}
	if s.d.kind == compNone {
		s.buf, s.src, s.pos = s.orig, nil, off
		return nil
	}
	inner, err := l.next()
	if err != nil {
		return err
	}
	s.src, s.buf, s.pos = s.orig[off:], nil, 0
	if inner == 0 {
		return nil
	}
	if err := s.nextChunk(); err != nil {
		return fmt.Errorf("row index seek of column %d: %w", l.col, err)
	}
	if inner > len(s.buf) {
		return corruptf("row index offset %d in a chunk of %d bytes (column %d)", inner, len(s.buf), l.col)
	}
	s.pos = inner
	return nil
}

// skipValues decodes n values through next, buf at a time, and drops them:
// the run offset of a row-index position counts values already consumed.
func skipValues[T any](n int, buf []T, next func([]T) error, col uint64) error {
	for n > 0 {
		k := min(n, len(buf))
		if err := next(buf[:k]); err != nil {
			return fmt.Errorf("row index seek of column %d: %w", col, err)
		}
		n -= k
	}
	return nil
}

// seekOffset moves what a decoder reads from with seek, then returns the
// position that follows it in l: how many values (or bits) of the run at
// that point the row group does not include.
func seekOffset(l *posList, seek func(*posList) error) (int, error) {
	if err := seek(l); err != nil {
		return 0, err
	}
	return l.next()
}

// seekRun positions a run-length decoder reading s: the stream first, then
// the values of the run already consumed, which are decoded and dropped.
func seekRun[T any](s *inStream, run *int, l *posList, buf []T, next func([]T) error) error {
	n, err := seekOffset(l, s.seek)
	if err != nil {
		return err
	}
	*run = 0
	return skipValues(n, buf, next, l.col)
}

func (r *byteRLE) seek(l *posList) error {
	var tmp [256]byte
	return seekRun(r.s, &r.run, l, tmp[:], r.next)
}

func (r *boolRLE) seek(l *posList) error {
	bits, err := seekOffset(l, r.bytes.seek)
	if err != nil {
		return err
	}
	r.left = 0
	if bits > 8 {
		return corruptf("row index bit offset %d (column %d)", bits, l.col)
	}
	if bits > 0 {
		if err := r.bytes.next(r.one[:]); err != nil {
			return fmt.Errorf("row index seek of column %d: %w", l.col, err)
		}
		r.cur, r.left = r.one[0], 8-bits
	}
	return nil
}

func (r *rleV1) seek(l *posList) error {
	var tmp [128]int64
	return seekRun(r.s, &r.run, l, tmp[:], r.next)
}

func (r *rleV2) seek(l *posList) error {
	n, err := seekOffset(l, r.s.seek)
	if err != nil {
		return err
	}
	r.n, r.pos = 0, 0
	// The writer's count can cover more than one run (it records the values
	// it had buffered, which it may later write as several): whole runs are
	// decoded and dropped, as ORC's reader does.
	for n > 0 {
		if r.pos == r.n {
			if err := r.group(); err != nil {
				return fmt.Errorf("row index seek of column %d: %w", l.col, err)
			}
		}
		k := min(n, r.n-r.pos)
		r.pos += k
		n -= k
	}
	return nil
}

func (p *presence) seek(l *posList) error {
	if p.present == nil {
		return nil
	}
	if err := p.present.seek(l); err != nil {
		return fmt.Errorf("PRESENT: %w", err)
	}
	return nil
}

// seekStreams moves a column's PRESENT stream and then each of its own
// streams (byte/bool RLE, integer RLE or raw streams) in the writer's order.
func seekStreams(s *seeker, col uint64, p *presence, streams ...interface{ seek(*posList) error }) error {
	l, err := s.at(col)
	if err != nil {
		return err
	}
	if err := p.seek(l); err != nil {
		return err
	}
	for _, st := range streams {
		if err := st.seek(l); err != nil {
			return err
		}
	}
	return nil
}

func (c *boolColumn) seek(s *seeker) error { return seekStreams(s, c.col, &c.presence, &c.data) }
func (c *byteColumn) seek(s *seeker) error { return seekStreams(s, c.col, &c.presence, &c.data) }
func (c *intColumn) seek(s *seeker) error  { return seekStreams(s, c.col, &c.presence, c.data) }
func (c *floatColumn) seek(s *seeker) error {
	return seekStreams(s, c.col, &c.presence, c.data)
}
func (c *stringColumn) seek(s *seeker) error {
	return seekStreams(s, c.col, &c.presence, c.data, c.lengths)
}
func (c *dictColumn) seek(s *seeker) error { return seekStreams(s, c.col, &c.presence, c.index) }
func (c *decimalColumn) seek(s *seeker) error {
	return seekStreams(s, c.col, &c.presence, c.data, c.scales)
}
func (c *timestampColumn) seek(s *seeker) error {
	return seekStreams(s, c.col, &c.presence, c.secs, c.nanos)
}

func (c *listColumn) seek(s *seeker) error {
	if err := seekStreams(s, c.col, &c.presence, c.lengths); err != nil {
		return err
	}
	if err := c.child.seek(s); err != nil {
		return fmt.Errorf("element: %w", err)
	}
	return nil
}

func (c *mapColumn) seek(s *seeker) error {
	if err := seekStreams(s, c.col, &c.presence, c.lengths); err != nil {
		return err
	}
	if err := c.key.seek(s); err != nil {
		return fmt.Errorf("map key: %w", err)
	}
	if err := c.value.seek(s); err != nil {
		return fmt.Errorf("map value: %w", err)
	}
	return nil
}

func (c *structColumn) seek(s *seeker) error {
	if err := seekStreams(s, c.col, &c.presence); err != nil {
		return err
	}
	for i, ch := range c.children {
		if err := ch.seek(s); err != nil {
			return fmt.Errorf("field %q: %w", c.names[i], err)
		}
	}
	return nil
}
