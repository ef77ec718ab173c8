package rowjson

import (
	"strings"
	"unsafe"
)

// NewBuffer returns an empty slice with room for at least n bytes whose
// memory is not cleared first. A batch's JSON bodies are one buffer of
// megabytes that the encoder overwrites from its start, and make's clearing
// of it was 4 % of the binary's CPU (issue 16). The bytes past what a
// caller appends are whatever the memory held, so a caller must never
// read beyond the length it wrote (AppendRow's wide stores only write
// there).
//
// strings.Builder.Grow is the standard library's one way to allocate bytes
// without clearing them; the builder's buffer is taken over as a []byte,
// and since the builder and its one-byte string are dropped here, nothing
// else sees those bytes or expects them to stay unchanged.
func NewBuffer(n int) []byte {
	if n <= 0 {
		return nil
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(b.String()), b.Cap())[:0]
}
