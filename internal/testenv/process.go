package testenv

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Process is a Python helper process a test talks to over its stdin and
// stdout (a pypaimon writer serving commands, a generator streaming events).
type Process struct {
	Cmd *exec.Cmd
	// Stdin and Stdout are the process's pipes.
	Stdin  io.WriteCloser
	Stdout io.Reader
	stderr LockedBuffer

	wait    sync.Once
	waitErr error
}

// StartPython starts script with pypaimon's interpreter (skipping loudly, or
// failing in CI, without it), args as sys.argv[1:]. ctx, when it ends, kills
// the process. At the end of the test stdin is closed and the process waited
// for, killed after 10 s.
func StartPython(t testing.TB, ctx context.Context, script string, args ...string) *Process {
	t.Helper()
	py := Python(t)
	p := &Process{Cmd: exec.CommandContext(ctx, py, append([]string{script}, args...)...)}
	p.Cmd.Stderr = &p.stderr
	var err error
	if p.Stdin, err = p.Cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.Stdout, err = p.Cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", script, err)
	}
	t.Cleanup(func() {
		p.Stdin.Close()
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Cmd.Process.Kill()
			<-done
		}
	})
	return p
}

// Wait waits for the process to exit (once; later calls return the same
// error). Stdout must have been read to its end first.
func (p *Process) Wait() error {
	p.wait.Do(func() { p.waitErr = p.Cmd.Wait() })
	return p.waitErr
}

// Stderr returns what the process wrote to stderr so far, for failure
// messages.
func (p *Process) Stderr() string { return p.stderr.String() }

// LockedBuffer is written by a process's output copier while the test
// reads it.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
