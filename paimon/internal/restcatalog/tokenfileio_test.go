package restcatalog

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

type closingFIO struct {
	fileio.FileIO
	closed *int
}

func (c closingFIO) Close() error { *c.closed++; return nil }

// The token is refreshed an hour before expiry (Java's safe time) for long
// tokens and half-way for short ones; a failed refresh keeps a still-valid
// token (loudly) and fails once it expired; superseded clients are closed
// beyond the last two.
func TestTokenFileIORefresh(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_000_000, 0)
	var loads, opens, closed int
	var failLoad error
	life := 3 * time.Hour
	var warned []string
	tf := NewTokenFileIO("db.t",
		func(context.Context) (*Token, error) {
			loads++
			if failLoad != nil {
				return nil, failLoad
			}
			return &Token{Props: map[string]string{"k": "v"}, ExpiresAt: now.Add(life)}, nil
		},
		func(_ context.Context, props map[string]string) (fileio.FileIO, error) {
			if props["k"] != "v" {
				t.Fatalf("props %v", props)
			}
			opens++
			return closingFIO{FileIO: fileio.NewLocal(), closed: &closed}, nil
		}, func(m string) { warned = append(warned, m) })
	tf.SetClock(func() time.Time { return now })
	step := func(d time.Duration, wantLoads int) {
		t.Helper()
		now = now.Add(d)
		if _, err := tf.FileIO(ctx); err != nil {
			t.Fatal(err)
		}
		if loads != wantLoads {
			t.Fatalf("after +%s: %d loads, want %d", d, loads, wantLoads)
		}
	}
	step(0, 1)
	step(119*time.Minute, 1) // 3h token: refresh 1h before expiry
	step(2*time.Minute, 2)
	life = 10 * time.Minute // short tokens: half-way
	step(2*time.Hour+time.Minute, 3)
	step(4*time.Minute, 3)
	step(2*time.Minute, 4)
	step(6*time.Minute, 5)
	if opens != 5 || closed != 2 {
		t.Fatalf("%d clients opened, %d closed; want 5 and 2 (the last two superseded stay open)", opens, closed)
	}
	failLoad = errors.New("server down")
	step(6*time.Minute, 6) // due, fails, old token valid for 4 more minutes
	if len(warned) != 1 || !strings.Contains(warned[0], "server down") {
		t.Fatalf("warnings %v", warned)
	}
	now = now.Add(5 * time.Minute)
	if _, err := tf.FileIO(ctx); err == nil || !strings.Contains(err.Error(), "server down") {
		t.Fatalf("expired token and failing refresh: %v", err)
	}
	if err := tf.Close(); err != nil {
		t.Fatal(err)
	}
	if closed != 5 {
		t.Fatalf("Close closed %d clients in all, want 5", closed)
	}
	if _, err := tf.FileIO(ctx); err == nil {
		t.Fatal("FileIO after Close succeeded")
	}
}
