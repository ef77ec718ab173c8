package rowjson

import (
	"bytes"
	"testing"
)

// NewBuffer gives each caller its own memory of the asked capacity:
// buffers filled one after the other keep their own bytes, and appending
// past the capacity moves to new memory as append always does.
func TestNewBuffer(t *testing.T) {
	if b := NewBuffer(0); b != nil {
		t.Fatalf("NewBuffer(0) = %v, want nil", b)
	}
	var bufs [][]byte
	for i, n := range []int{1, 7, 8, 100, 4096, 1 << 20, 3<<20 + 5} {
		b := NewBuffer(n)
		if len(b) != 0 || cap(b) < n {
			t.Fatalf("NewBuffer(%d): len %d cap %d", n, len(b), cap(b))
		}
		b = append(b, bytes.Repeat([]byte{byte('a' + i)}, cap(b))...)
		bufs = append(bufs, b)
	}
	for i, b := range bufs {
		if want := bytes.Repeat([]byte{byte('a' + i)}, len(b)); !bytes.Equal(b, want) {
			t.Fatalf("buffer %d lost its bytes to a later one", i)
		}
	}
	b := NewBuffer(4)
	b = append(b, bytes.Repeat([]byte("x"), cap(b))...)
	c := append(b, 'e')
	if &c[0] == &b[0] || string(c) != string(b)+"e" {
		t.Fatalf("append past capacity: %q %q", b, c)
	}
}
