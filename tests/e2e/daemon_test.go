package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// daemon is the real binary running a config that never ends by itself
// (a stream with no end bound), as the observability tests need it: they
// watch it from outside while it runs, then stop it with SIGTERM as an
// operator would.
type daemon struct {
	cmd    *exec.Cmd
	stderr strings.Builder
	exited chan error
}

// startDaemon writes cfg to a file and runs `connect-paimon run` on it; the
// process is killed when the test ends if it is still running.
func startDaemon(t *testing.T, cfg string) *daemon {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// Generous: on a loaded shared machine the binary's start-up and the
	// table read alone have taken over two minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	d := &daemon{cmd: exec.CommandContext(ctx, testenv.Binary(t), "run", path), exited: make(chan error, 1)}
	d.cmd.Stderr = &d.stderr
	if err := d.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() { d.exited <- d.cmd.Wait() }()
	t.Cleanup(func() {
		if d.cmd.ProcessState == nil {
			_ = d.cmd.Process.Kill()
		}
		cancel()
	})
	return d
}

// waitUntil polls cond every 200ms until it holds; it fails the test if the
// binary exits first or within is over, with what (a description of the
// last state) and the binary's stderr.
func (d *daemon) waitUntil(t *testing.T, within time.Duration, cond func() bool, what func() string) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(200 * time.Millisecond) {
		select {
		case err := <-d.exited:
			t.Fatalf("binary exited early: %v\n%s", err, d.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s\n%s", within, what(), d.stderr.String())
		}
	}
}

// stop sends SIGTERM and requires a clean exit within 30s.
func (d *daemon) stop(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-d.exited:
		if err != nil {
			t.Fatalf("binary after SIGTERM: %v\n%s", err, d.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("binary did not stop on SIGTERM\n%s", d.stderr.String())
	}
}
