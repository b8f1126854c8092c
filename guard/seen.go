package guard

import (
	"sort"
	"strings"
)

// Range is a byte range [From, To) of a result's original text.
type Range struct{ From, To int64 }

// seenRanges finds what of the original the model still saw in the
// replacement: the longest head and tail of the original that appear in
// it (as JSON-escaped text for harness-rs, whose markers quote them).
func seenRanges(style Style, original, replacement string) []Range {
	n := len(original)
	in := func(part string) bool {
		if style == StyleHarnessRS {
			q := serdeString(part)
			part = q[1 : len(q)-1]
		}
		return strings.Contains(replacement, part)
	}
	head := sort.Search(n+1, func(k int) bool { return k > 0 && !in(original[:k]) }) - 1
	head = max(head, 0)
	tail := sort.Search(n-head+1, func(k int) bool { return k > 0 && !in(original[n-k:]) }) - 1
	tail = max(tail, 0)
	var out []Range
	if head > 0 {
		out = append(out, Range{0, int64(head)})
	}
	if tail > 0 {
		out = append(out, Range{int64(n - tail), int64(n)})
	}
	if out == nil {
		out = []Range{}
	}
	return out
}
