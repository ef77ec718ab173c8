// Package localpath spells the local FileIO's paths: file: URIs as plain
// paths, and the names of the temp files its atomic writes rename into
// place (which the consumer manager cleans up after a crash).
package localpath

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// Strip strips a file: scheme from a path.
func Strip(p string) string {
	switch {
	case strings.HasPrefix(p, "file://"):
		return p[len("file://"):]
	case strings.HasPrefix(p, "file:"):
		return p[len("file:"):]
	}
	return p
}

// tempRandBytes is the randomness in the local FileIO's temp file names.
const tempRandBytes = 8

// IsTempFor reports whether name is a temp file the local FileIO's
// WriteFileAtomic creates for a target named base (".<base>.<16 hex digits>.tmp"): what a
// write interrupted by a crash leaves behind. Java's and pypaimon's temp
// files (a UUID with dashes) never match, so a cleanup by this test only
// touches ours.
func IsTempFor(name, base string) bool {
	rest, ok := strings.CutPrefix(name, "."+base+".")
	if !ok {
		return false
	}
	h, ok := strings.CutSuffix(rest, ".tmp")
	if !ok || len(h) != 2*tempRandBytes {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// TempName is a fresh temp file name for a target named base, in the
// pattern IsTempFor recognises (a hidden name Paimon's listers ignore).
func TempName(base string) string {
	var rnd [tempRandBytes]byte
	_, _ = rand.Read(rnd[:])
	return "." + base + "." + hex.EncodeToString(rnd[:]) + ".tmp"
}
