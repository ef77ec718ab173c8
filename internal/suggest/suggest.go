// Package suggest names what exists when a name is wrong: the nearest
// existing names ("did you mean ...?"), or the list of them when none is
// near. The library, the input and the CLI word these hints alike.
package suggest

import (
	"sort"
	"strconv"
	"strings"
)

// Nearest returns up to n candidates closest to name by edit distance
// (case-insensitive), those within a third of the name's length (at least
// 2 edits), closest first. A name that is a whole segment of a dotted
// candidate ("orders" for demo.orders) is near whatever its length.
func Nearest(name string, candidates []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	limit := max(2, len(name)/3)
	var hits []scored
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if _, t, ok := strings.Cut(c, "."); ok && strings.EqualFold(t, name) {
			d = 0
		}
		if d <= limit {
			hits = append(hits, scored{c, d})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].d != hits[j].d {
			return hits[i].d < hits[j].d
		}
		return hits[i].s < hits[j].s
	})
	var out []string
	for i := 0; i < len(hits) && i < n; i++ {
		out = append(out, hits[i].s)
	}
	return out
}

// listed is how many names Hint lists when none is near.
const listed = 10

// Hint is the end of an error about name, which is not among candidates
// (what names them, plural: "tables", "branches"): "; did you mean a, b?"
// with the nearest ones, else "; the existing tables are a, b, c" (the
// first ten and how many more), or "; there are no tables".
func Hint(name string, candidates []string, what string) string {
	if near := Nearest(name, candidates, 3); len(near) > 0 {
		return "; did you mean " + strings.Join(near, ", ") + "?"
	}
	if len(candidates) == 0 {
		return "; there are no " + what
	}
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	more := ""
	if len(sorted) > listed {
		more = ", and " + strconv.Itoa(len(sorted)-listed) + " more"
		sorted = sorted[:listed]
	}
	return "; the existing " + what + " are " + strings.Join(sorted, ", ") + more
}

// editDistance is the Levenshtein distance of a and b in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
