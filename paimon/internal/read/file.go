package read

import (
	"github.com/connect-paimon/connect-paimon/paimon/internal/datafile"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
)

// openFile opens the split's next data file through the one data-file read
// path and counts it.
func (s *splitReader) openFile(f *split.DataFile) (*datafile.Reader, error) {
	return s.open(f, &s.files)
}

// open opens one data file with o and counts it.
func (s *splitReader) open(f *split.DataFile, o *datafile.Options) (*datafile.Reader, error) {
	r, err := datafile.Open(s.ctx, f, o)
	if err != nil {
		return nil, err
	}
	if st := s.r.Stats; st != nil {
		st.FilesRead.Add(1)
		st.BytesRead.Add(f.Meta.FileSize)
	}
	return r, nil
}
