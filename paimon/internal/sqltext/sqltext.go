// Package sqltext holds the lexing that Paimon's type strings and the
// filter expressions share, so both read SQL quoting the same way.
package sqltext

import "strings"

// Quoted reads the quoted token that opens at s[i] with the quote character
// s[i] (' for a string, ` for an identifier), where a doubled quote stands
// for itself. It returns the token's text and the index after its closing
// quote; ok is false when the quote is never closed.
func Quoted(s string, i int) (text string, next int, ok bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != q {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return b.String(), j + 1, true
	}
	return "", len(s), false
}
