package spillview

import (
	"cmp"
	"slices"
	"sort"
)

// seenKind is what the model saw of one line.
type seenKind uint8

const (
	seenAll  seenKind = iota // every byte of the line, its newline included
	seenNone                 // none of it
	seenPart                 // a range boundary splits the line
)

// gap is a run of lines [first, last] the model saw none of, drawn after
// a separator row so the jump from a spill's head to its tail is obvious.
type gap struct{ first, last int }

// seenMap answers which bytes and lines of a document the model saw.
type seenMap struct {
	all    bool    // Source.Seen was nil: the model saw everything
	ranges []Range // sorted, merged, clipped to the document
	gaps   []gap   // sorted by first line
}

func newSeenMap(d *Document, seen []Range) seenMap {
	if seen == nil {
		return seenMap{all: true}
	}
	var size int64
	if d != nil {
		size = d.Size()
	}
	var rs []Range
	for _, r := range seen {
		r.From, r.To = max(r.From, 0), min(r.To, size)
		if r.From < r.To {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b Range) int { return cmp.Compare(a.From, b.From) })
	var merged []Range
	for _, r := range rs {
		if n := len(merged); n > 0 && r.From <= merged[n-1].To {
			merged[n-1].To = max(merged[n-1].To, r.To)
			continue
		}
		merged = append(merged, r)
	}
	m := seenMap{ranges: merged}
	if d == nil || d.Lines() == 0 {
		return m
	}
	// Lines touched by a range are not fully unseen; the rest form gaps.
	next := 0
	for _, r := range merged {
		first, last := d.lineOf(r.From), d.lineOf(r.To-1)
		if first > next {
			m.gaps = append(m.gaps, gap{next, first - 1})
		}
		next = max(next, last+1)
	}
	if next < d.Lines() {
		m.gaps = append(m.gaps, gap{next, d.Lines() - 1})
	}
	return m
}

// kind classifies line i, whose bytes with its newline are [from, next).
func (s seenMap) kind(from, next int64) seenKind {
	if s.all {
		return seenAll
	}
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].To > from })
	if i == len(s.ranges) || s.ranges[i].From >= next {
		return seenNone
	}
	if s.ranges[i].From <= from && s.ranges[i].To >= next {
		return seenAll
	}
	return seenPart
}

// clip returns the seen ranges within [from, to), relative to from.
func (s seenMap) clip(from, to int64) []Range {
	if s.all {
		return []Range{{0, to - from}}
	}
	var out []Range
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].To > from })
	for ; i < len(s.ranges) && s.ranges[i].From < to; i++ {
		out = append(out, Range{max(s.ranges[i].From, from) - from, min(s.ranges[i].To, to) - from})
	}
	return out
}

// gapAt returns the gap starting at line, if one does.
func (s seenMap) gapAt(line int) (gap, bool) {
	i := sort.Search(len(s.gaps), func(i int) bool { return s.gaps[i].first >= line })
	if i < len(s.gaps) && s.gaps[i].first == line {
		return s.gaps[i], true
	}
	return gap{}, false
}
