package harness

import (
	"sort"
	"strings"
)

// Range is a byte range [From, To) of a result's original text.
type Range struct{ From, To int64 }

// SeenRanges finds what of the original the model still saw in the
// replacement: the longest head and tail of the original that appear in
// it. harness-rs quotes them as JSON: once in a spill preview, twice in a
// truncation marker, whose head is a prefix of the serialized result.
func SeenRanges(style Style, original, replacement string) []Range {
	if style != HarnessRS {
		return seenIn(original, replacement, func(s string) string { return s })
	}
	quote := func(s string) string {
		q := serdeString(s)
		return q[1 : len(q)-1]
	}
	once := seenIn(original, replacement, quote)
	twice := seenIn(original, replacement, func(s string) string { return quote(quote(s)) })
	if covered(twice) > covered(once) {
		return twice
	}
	return once
}

func covered(rs []Range) int64 {
	var n int64
	for _, r := range rs {
		n += r.To - r.From
	}
	return n
}

// seenIn finds the longest head and tail of original whose form appears in
// replacement.
func seenIn(original, replacement string, form func(string) string) []Range {
	n := len(original)
	in := func(part string) bool { return strings.Contains(replacement, form(part)) }
	// Cuts at whole characters keep the test monotone: a prefix ending in
	// half a character would escape differently from the longer one.
	head := sort.Search(n+1, func(k int) bool { return k > 0 && !in(headBytes(original, int64(k))) }) - 1
	head = len(headBytes(original, int64(max(head, 0))))
	if head > 0 {
		// The tail comes after the head: repetitive text must not find it
		// inside the head's own copy.
		replacement = replacement[strings.Index(replacement, form(original[:head]))+len(form(original[:head])):]
	}
	tail := sort.Search(n-head+1, func(k int) bool { return k > 0 && !in(tailBytes(original, int64(k))) }) - 1
	tail = len(tailBytes(original, int64(max(tail, 0))))
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

// Shown tells whether the bytes part of a result's original text appear in
// its replacement as the style shows them: raw, or for harness-rs quoted
// once (a spill preview of JSON) or twice (a truncation marker's head).
func Shown(style Style, part, replacement string) bool {
	if strings.Contains(replacement, part) {
		return true
	}
	if style != HarnessRS {
		return false
	}
	q := serdeString(part)
	once := q[1 : len(q)-1]
	if once == part {
		return false
	}
	if strings.Contains(replacement, once) {
		return true
	}
	qq := serdeString(once)
	return strings.Contains(replacement, qq[1:len(qq)-1])
}
