package tokens

import "slices"

// A piece longer than a window (a run of one letter, of spaces, of
// punctuation) is merged in windows of that many bytes, so that counting it
// takes memory bounded by the window, not by the piece, and time linear in
// the piece. The windows overlap and are glued where they are known to
// agree, which keeps the count exact:
//
// Let W = A M B with M not empty. If the merge of A M has a part boundary
// at the end of A, and the merge of M B one at the end of M, then the merge
// of W is the merges of A, M and B side by side. (While no merge in W
// crosses either end of M, the pairs A M alone has are pairs of W too, so
// each merge W makes within A M, the lowest and leftmost pair of W, is the
// one A M alone makes next, and likewise within M B. So the first merge of
// W across the end of A would be the lowest and leftmost pair of A M too,
// which A M never merges; likewise across the end of M, for M B. And when
// W has no pair left to merge, neither has A M nor M B.)
//
// So, knowing the merge of the prefix P[:x] of a piece, with a boundary
// at s < x, and merging the window P[s:e]: if the window has a boundary at
// x, the merge of P[:e] is that of P[:s] followed by the window's. Each
// window then picks the next x among its own boundaries, margin bytes or
// more before its end, where its cut-off end no longer shows, and the next
// s at the boundary before that x.
const window = 8 << 10

// countLong returns merge(piece)'s count for a piece longer than w. Should
// two windows of w bytes not agree where they must, which text shaped to
// defeat merging a few hundred bytes at a time could make happen, it
// starts again with windows four times as long, up to the whole piece.
func (v *vocab) countLong(piece string, w int) int {
	m := getMerger()
	defer putMerger(m)
	for ; w < len(piece); w *= 4 {
		if n, ok := v.countWindows(m, piece, w); ok {
			return n
		}
	}
	if len(piece) > 1<<31-1 {
		return new(merger[int]).merge(v, piece)
	}
	return m.merge(v, piece)
}

// countWindows counts piece in windows of w bytes; ok is false when two
// windows do not agree.
func (v *vocab) countWindows(m *merger[int32], piece string, w int) (n int, ok bool) {
	margin := w / 16
	// The merge of piece[:x] has a boundary at s, and before it as many
	// parts as before says.
	s, x, before := 0, 0, 0
	for {
		e := min(s+w, len(piece))
		m.merge(v, piece[s:e])
		starts := m.partStarts()
		if x > s {
			if _, found := slices.BinarySearch(starts, int32(x-s)); !found {
				return 0, false
			}
		}
		if e == len(piece) {
			return before + len(starts), true
		}
		k, found := slices.BinarySearch(starts, int32(e-s-margin))
		if !found {
			k--
		}
		if k < 2 || s+int(starts[k]) <= x {
			return 0, false // a window too short for its tokens
		}
		before += k - 1
		s, x = s+int(starts[k-1]), s+int(starts[k])
	}
}

// partStarts returns the start of each part the last merge left, in a
// slice the next call reuses.
func (m *merger[P]) partStarts() []int32 {
	m.starts = m.starts[:0]
	for i := 0; i < len(m.next); i = int(m.next[i]) {
		m.starts = append(m.starts, int32(i))
	}
	return m.starts
}
