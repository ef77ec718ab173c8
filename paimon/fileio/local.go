package fileio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/connect-paimon/connect-paimon/paimon/internal/localpath"
)

// localFS is the FileIO over the local filesystem. Paths may be plain paths or
// "file:" URIs (file:///x, file:/x), the spellings Java and pypaimon use.
type localFS struct{}

// NewLocal returns a FileIO for local paths.
func NewLocal() FileIO { return &localFS{} }

type localFile struct {
	*os.File
	size int64
	path string
}

func (f *localFile) Size() int64  { return f.size }
func (f *localFile) Path() string { return f.path }

// Open implements FileIO.
func (l *localFS) Open(_ context.Context, path string) (File, error) {
	f, err := os.Open(localpath.Strip(path))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("open %s: is a directory", path)
	}
	return &localFile{File: f, size: st.Size(), path: path}, nil
}

// ReadFile implements FileIO.
func (l *localFS) ReadFile(_ context.Context, path string) ([]byte, error) {
	return os.ReadFile(localpath.Strip(path))
}

// Stat implements FileIO.
func (l *localFS) Stat(_ context.Context, path string) (FileInfo, error) {
	st, err := os.Stat(localpath.Strip(path))
	if err != nil {
		return FileInfo{}, err
	}
	return infoOf(path, st), nil
}

func infoOf(path string, st os.FileInfo) FileInfo {
	size := st.Size()
	if st.IsDir() {
		size = 0
	}
	return FileInfo{Path: path, Name: st.Name(), Size: size, ModTime: st.ModTime(), IsDir: st.IsDir()}
}

// Exists implements FileIO.
func (l *localFS) Exists(_ context.Context, path string) (bool, error) {
	_, err := os.Stat(localpath.Strip(path))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// List implements FileIO.
func (l *localFS) List(_ context.Context, dir string) ([]FileInfo, error) {
	ents, err := os.ReadDir(localpath.Strip(dir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	out := make([]FileInfo, 0, len(ents))
	for _, e := range ents {
		st, err := e.Info()
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // removed between ReadDir and Info
			}
			return nil, err
		}
		out = append(out, infoOf(Join(dir, e.Name()), st))
	}
	return out, nil
}

// WriteFileAtomic implements FileIO with a hidden temp file in the target
// directory (the `.<name>.<uuid>.tmp` pattern Paimon's listers ignore) and a
// rename, or a hard link when overwrite is false so an existing target is
// never replaced.
func (l *localFS) WriteFileAtomic(_ context.Context, path string, data []byte, overwrite bool) error {
	target := localpath.Strip(path)
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, localpath.TempName(filepath.Base(target)))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	if overwrite {
		if err := os.Rename(tmp, target); err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	err = os.Link(tmp, target)
	os.Remove(tmp)
	if err != nil && errors.Is(err, os.ErrExist) {
		return fmt.Errorf("write %s: %w", path, ErrExist)
	}
	return err
}

// Delete implements FileIO.
func (l *localFS) Delete(_ context.Context, path string) error {
	err := os.Remove(localpath.Strip(path))
	if err != nil && errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
