package restcatalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/fileutil"
)

// safeTime is Java's RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS: a token is
// refreshed once less than this is left of it.
const safeTime = time.Hour

// keepClients is how many superseded storage clients stay open: a file
// opened with the previous token may still be read for a while.
const keepClients = 2

// TokenFileIO is Java's RESTTokenFileIO: storage opened with the data token
// the catalog vends for one table, refreshed before it expires. Every call
// first makes sure the token is fresh, then goes to the client built from
// the catalog options merged with the token's properties.
type TokenFileIO struct {
	load func(ctx context.Context) (*Token, error)
	open func(ctx context.Context, props map[string]string) (fileio.FileIO, error)
	now  func() time.Time
	warn func(string)
	name string

	mu        sync.Mutex
	cur       fileio.FileIO
	tok       *Token
	refreshAt time.Time
	old       []fileio.FileIO
	closed    bool
}

// NewTokenFileIO returns the token FileIO of table name: load fetches a
// token, open builds storage from the merged properties (catalog options,
// then the token's, which win: Java's RESTUtil.merge). warn (may be nil)
// hears about a failed refresh that the still-valid token covers.
func NewTokenFileIO(name string, load func(ctx context.Context) (*Token, error),
	open func(ctx context.Context, props map[string]string) (fileio.FileIO, error), warn func(string)) *TokenFileIO {
	return &TokenFileIO{name: name, load: load, open: open, now: time.Now, warn: warn}
}

// SetClock replaces the clock (tests).
func (t *TokenFileIO) SetClock(now func() time.Time) { t.now = now }

// refreshPoint is when a token fetched at fetched should be replaced: an
// hour before it expires, as Java, or half-way for tokens shorter than two
// hours (Java would refresh those on every call).
func refreshPoint(fetched, expires time.Time) time.Time {
	life := expires.Sub(fetched)
	margin := safeTime
	if life < 2*safeTime {
		margin = life / 2
	}
	return expires.Add(-margin)
}

// FileIO returns the storage of the current token, refreshing it first
// when due. A refresh that fails while the old token is still valid keeps
// the old client (and warns); one that fails after expiry is returned.
func (t *TokenFileIO) FileIO(ctx context.Context) (fileio.FileIO, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, fmt.Errorf("data token storage of %s: closed", t.name)
	}
	now := t.now()
	if t.cur != nil && now.Before(t.refreshAt) {
		return t.cur, nil
	}
	tok, err := t.load(ctx)
	if err == nil {
		var fio fileio.FileIO
		fio, err = t.open(ctx, tok.Props)
		if err == nil {
			if t.cur != nil {
				t.old = append(t.old, t.cur)
				if len(t.old) > keepClients {
					closeFIO(t.old[0])
					t.old = t.old[1:]
				}
			}
			t.cur, t.tok = fio, tok
			t.refreshAt = refreshPoint(now, tok.ExpiresAt)
			return fio, nil
		}
		err = fmt.Errorf("open storage with the data token of %s: %w", t.name, err)
	}
	if t.cur != nil && now.Before(t.tok.ExpiresAt) {
		if t.warn != nil {
			t.warn(fmt.Sprintf("refreshing the data token of %s failed; the current one is valid until %s: %v",
				t.name, t.tok.ExpiresAt.UTC().Format(time.RFC3339), err))
		}
		return t.cur, nil
	}
	return nil, err
}

// Token returns the current token (nil before the first call).
func (t *TokenFileIO) Token() *Token {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tok
}

// Close closes every storage client the tokens opened.
func (t *TokenFileIO) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	var errs []error
	for _, f := range append(t.old, t.cur) {
		if c, ok := f.(io.Closer); ok && f != nil {
			errs = append(errs, c.Close())
		}
	}
	t.old, t.cur = nil, nil
	return errors.Join(errs...)
}

func closeFIO(f fileio.FileIO) {
	if c, ok := f.(io.Closer); ok {
		_ = c.Close()
	}
}

// Open implements fileio.FileIO.
func (t *TokenFileIO) Open(ctx context.Context, path string) (fileio.File, error) {
	f, err := t.FileIO(ctx)
	if err != nil {
		return nil, err
	}
	return f.Open(ctx, path)
}

// OpenSize implements fileutil.SizedOpener.
func (t *TokenFileIO) OpenSize(ctx context.Context, path string, size int64) (fileio.File, error) {
	f, err := t.FileIO(ctx)
	if err != nil {
		return nil, err
	}
	return fileutil.OpenSized(ctx, f, path, size)
}

// ReadFile implements fileio.FileIO.
func (t *TokenFileIO) ReadFile(ctx context.Context, path string) ([]byte, error) {
	f, err := t.FileIO(ctx)
	if err != nil {
		return nil, err
	}
	return f.ReadFile(ctx, path)
}

// Stat implements fileio.FileIO.
func (t *TokenFileIO) Stat(ctx context.Context, path string) (fileio.FileInfo, error) {
	f, err := t.FileIO(ctx)
	if err != nil {
		return fileio.FileInfo{}, err
	}
	return f.Stat(ctx, path)
}

// Exists implements fileio.FileIO.
func (t *TokenFileIO) Exists(ctx context.Context, path string) (bool, error) {
	f, err := t.FileIO(ctx)
	if err != nil {
		return false, err
	}
	return f.Exists(ctx, path)
}

// List implements fileio.FileIO.
func (t *TokenFileIO) List(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	f, err := t.FileIO(ctx)
	if err != nil {
		return nil, err
	}
	return f.List(ctx, dir)
}

// WriteFileAtomic implements fileio.FileIO.
func (t *TokenFileIO) WriteFileAtomic(ctx context.Context, path string, data []byte, overwrite bool) error {
	f, err := t.FileIO(ctx)
	if err != nil {
		return err
	}
	return f.WriteFileAtomic(ctx, path, data, overwrite)
}

// Delete implements fileio.FileIO.
func (t *TokenFileIO) Delete(ctx context.Context, path string) error {
	f, err := t.FileIO(ctx)
	if err != nil {
		return err
	}
	return f.Delete(ctx, path)
}
