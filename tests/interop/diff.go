package interop

import (
	"fmt"
	"strings"
)

// DiffLines compares two sorted line sets and returns "" when equal, otherwise a readable
// report: counts, then the first lines only one side has (a sorted merge, so a single
// changed value shows as one "-" and one "+" line next to each other).
func DiffLines(want, got []string) string {
	const maxShown = 8
	var b strings.Builder
	i, j, shown, missing, extra := 0, 0, 0, 0, 0
	lastWant := ""
	for i < len(want) || j < len(got) {
		switch {
		case j >= len(got) || (i < len(want) && want[i] < got[j]):
			missing++
			if shown < maxShown {
				fmt.Fprintf(&b, "  - want %s\n", clip(want[i]))
				lastWant = want[i]
				shown++
			}
			i++
		case i >= len(want) || got[j] < want[i]:
			extra++
			if shown < maxShown {
				fmt.Fprintf(&b, "  + got  %s\n", clip(got[j]))
				if lastWant != "" {
					b.WriteString(firstDifference(lastWant, got[j]))
					lastWant = ""
				}
				shown++
			}
			j++
		default:
			i++
			j++
		}
	}
	if missing == 0 && extra == 0 {
		return ""
	}
	return fmt.Sprintf("rows: want %d, got %d; %d expected rows missing, %d unexpected rows\n%s",
		len(want), len(got), missing, extra, b.String())
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// firstDifference points at where two similar lines part, since rows are often longer than
// the clipped display.
func firstDifference(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	from := max(0, n-60)
	return fmt.Sprintf("    first difference at byte %d: want …%s… got …%s…\n", n, a[from:min(len(a), n+60)], b[from:min(len(b), n+60)])
}
