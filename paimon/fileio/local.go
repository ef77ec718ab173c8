package fileio

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Local is a FileIO over the local filesystem. Paths may be plain paths or
// "file:" URIs (file:///x, file:/x), the spellings Java and pypaimon use.
type Local struct{}

// NewLocal returns a FileIO for local paths.
func NewLocal() *Local { return &Local{} }

// LocalPath strips a file: scheme from a path.
func LocalPath(p string) string {
	switch {
	case strings.HasPrefix(p, "file://"):
		return p[len("file://"):]
	case strings.HasPrefix(p, "file:"):
		return p[len("file:"):]
	}
	return p
}

type localFile struct {
	*os.File
	size int64
	path string
}

func (f *localFile) Size() int64  { return f.size }
func (f *localFile) Path() string { return f.path }

// Open implements FileIO.
func (l *Local) Open(_ context.Context, path string) (File, error) {
	f, err := os.Open(LocalPath(path))
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
func (l *Local) ReadFile(_ context.Context, path string) ([]byte, error) {
	return os.ReadFile(LocalPath(path))
}

// Stat implements FileIO.
func (l *Local) Stat(_ context.Context, path string) (FileInfo, error) {
	st, err := os.Stat(LocalPath(path))
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
func (l *Local) Exists(_ context.Context, path string) (bool, error) {
	_, err := os.Stat(LocalPath(path))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// List implements FileIO.
func (l *Local) List(_ context.Context, dir string) ([]FileInfo, error) {
	ents, err := os.ReadDir(LocalPath(dir))
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

// localTempRandBytes is the randomness in Local's temp file names.
const localTempRandBytes = 8

// IsLocalTempFor reports whether name is a temp file Local.WriteFileAtomic
// creates for a target named base (".<base>.<16 hex digits>.tmp"): what a
// write interrupted by a crash leaves behind. Java's and pypaimon's temp
// files (a UUID with dashes) never match, so a cleanup by this test only
// touches ours.
func IsLocalTempFor(name, base string) bool {
	rest, ok := strings.CutPrefix(name, "."+base+".")
	if !ok {
		return false
	}
	h, ok := strings.CutSuffix(rest, ".tmp")
	if !ok || len(h) != 2*localTempRandBytes {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// WriteFileAtomic implements FileIO with a hidden temp file in the target
// directory (the `.<name>.<uuid>.tmp` pattern Paimon's listers ignore) and a
// rename, or a hard link when overwrite is false so an existing target is
// never replaced.
func (l *Local) WriteFileAtomic(_ context.Context, path string, data []byte, overwrite bool) error {
	target := LocalPath(path)
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var rnd [localTempRandBytes]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+filepath.Base(target)+"."+hex.EncodeToString(rnd[:])+".tmp")
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
func (l *Local) Delete(_ context.Context, path string) error {
	err := os.Remove(LocalPath(path))
	if err != nil && errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
