package tokens

import (
	"math/bits"
	"sync"
)

// smallPiece is the longest piece merged with the quadratic scan, which is
// faster than the heap for short pieces.
const smallPiece = 64

// countPiece returns the number of tokens of one piece of the split.
func (c *Counter) countPiece(piece string) int {
	switch {
	case len(piece) == 1:
		return 1
	case len(piece) == 2:
		if c.t.pairOfBytes(piece[0], piece[1]) != noRank {
			return 1
		}
		return 2
	case len(piece) <= maxShortPiece:
		key := shortKey(piece)
		if n, ok := c.short.get(key); ok {
			return n
		}
		n := 1
		if !c.t.isToken(piece) {
			n = c.t.mergeSmall(piece)
		}
		c.short.put(key, n)
		return n
	case c.t.isToken(piece):
		return 1
	case len(piece) > c.window:
		return c.t.countLong(piece, c.window)
	case len(piece) < minCachedPiece || len(piece) > maxCachedPiece:
		return c.t.merge(piece)
	}
	if n, ok := c.pieces.get(piece); ok {
		return n
	}
	n := c.t.merge(piece)
	c.pieces.put(piece, n)
	return n
}

// merge returns the number of parts byte-pair merging leaves of piece: it
// repeatedly merges the adjacent pair whose concatenation is the token of
// lowest rank, the leftmost on ties, as tiktoken does. Parts are always
// tokens, so a pair is looked up by the ranks of its parts.
func (v *vocab) merge(piece string) int {
	switch {
	case len(piece) <= smallPiece:
		return v.mergeSmall(piece)
	case len(piece) <= window:
		m := getMerger()
		defer putMerger(m)
		return m.merge(v, piece)
	}
	return v.countLong(piece, window)
}

func (v *vocab) mergeSmall(piece string) int {
	// tok[i] is part i; rank[i] is the rank of parts i and i+1 together.
	var tok, rank [smallPiece]uint32
	m := len(piece)
	for i := 0; i < m; i++ {
		tok[i] = v.byteRank[piece[i]]
	}
	for i := 0; i < m-1; i++ {
		rank[i] = v.pairOfBytes(piece[i], piece[i+1])
	}
	for m > 1 {
		best, bi := uint32(noRank), -1
		for i, r := range rank[:m-1] {
			if r < best {
				best, bi = r, i
			}
		}
		if bi < 0 {
			break
		}
		tok[bi] = best
		copy(tok[bi+1:m], tok[bi+2:m])
		copy(rank[bi+1:m-1], rank[bi+2:m])
		m--
		if bi < m-1 {
			rank[bi] = v.pair(best, tok[bi+1])
		} else {
			rank[bi] = noRank
		}
		if bi > 0 {
			rank[bi-1] = v.pair(tok[bi-1], best)
		}
	}
	return m
}

// merger does the same merges in O(n log n), and in O(n) when merges sweep
// the piece in order, as in long runs of one byte, with a linked list of
// parts and a queue of pairs keyed by rank, then position. P holds
// positions in the piece. Its arrays are kept for the next piece.
type merger[P int32 | int] struct {
	// Parts are named by their start offset. next[i] is the start of the
	// part after part i, prev[i] of the one before; tok[i] is part i;
	// rank[i] is the rank of part i with the next one, noRank when there is
	// none or part i was merged into the one before.
	next, prev []P
	tok, rank  []uint32
	q          pairQueue[P]
	starts     []int32 // partStarts's
}

// mergers keeps the mergers of windows, so that counting allocates
// nothing per piece once warm.
var mergers = sync.Pool{New: func() any { return new(merger[int32]) }}

func getMerger() *merger[int32] { return mergers.Get().(*merger[int32]) }

func putMerger(m *merger[int32]) {
	if cap(m.next) <= window {
		mergers.Put(m)
	}
}

// merge merges piece, leaving its parts linked from 0 by m.next, and
// returns their number.
func (m *merger[P]) merge(v *vocab, piece string) int {
	n := len(piece)
	next, prev := resize(m.next, n), resize(m.prev, n)
	tok, rank := resize(m.tok, n), resize(m.rank, n)
	m.next, m.prev, m.tok, m.rank = next, prev, tok, rank
	q := &m.q
	q.reset()
	for i := 0; i < n; i++ {
		next[i] = P(i + 1)
		prev[i] = P(i - 1)
		tok[i] = v.byteRank[piece[i]]
		rank[i] = noRank
		if i+1 < n {
			rank[i] = v.pairOfBytes(piece[i], piece[i+1])
			if rank[i] != noRank {
				q.push(rank[i], P(i))
			}
		}
	}
	parts := n
	for {
		r, i, ok := q.pop()
		if !ok {
			break
		}
		if rank[i] != r {
			continue // stale: the pair changed since it was pushed
		}
		j := next[i]
		after := next[j]
		next[i] = after
		tok[i] = r
		rank[j] = noRank
		rank[i] = noRank
		parts--
		if int(after) < n {
			prev[after] = i
			if rank[i] = v.pair(r, tok[after]); rank[i] != noRank {
				q.push(rank[i], i)
			}
		}
		if pi := prev[i]; pi >= 0 {
			if rank[pi] = v.pair(tok[pi], r); rank[pi] != noRank {
				q.push(rank[pi], pi)
			}
		}
	}
	return parts
}

// resize returns s with length n, reusing its array when large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// pairQueue yields pairs by rank, then position. Pairs of one rank pushed
// in increasing position, the usual case, wait in a plain list; the others
// go to a heap.
type pairQueue[P int32 | int] struct {
	index  rankIndex // rank -> lists
	lists  []rankList[P]
	active pairHeap // pairKey(rank, list index), for each non-empty list
	late   pairHeap // pairKey(rank, position)
}

type rankList[P int32 | int] struct {
	pos  []P
	head int
}

// reset empties the queue, keeping its arrays.
func (q *pairQueue[P]) reset() {
	q.index.reset()
	q.lists, q.active, q.late = q.lists[:0], q.active[:0], q.late[:0]
}

func (q *pairQueue[P]) push(rank uint32, pos P) {
	li, ok := q.index.get(rank)
	if !ok {
		li = len(q.lists)
		if li < cap(q.lists) {
			q.lists = q.lists[:li+1]
			q.lists[li].pos, q.lists[li].head = q.lists[li].pos[:0], 0
		} else {
			q.lists = append(q.lists, rankList[P]{})
		}
		q.index.put(rank, li)
	}
	l := &q.lists[li]
	switch {
	case l.head == len(l.pos):
		l.pos, l.head = append(l.pos[:0], pos), 0
		q.active.push(pairKey(rank, li))
	case pos > l.pos[len(l.pos)-1]:
		l.pos = append(l.pos, pos)
	default:
		q.late.push(pairKey(rank, int(pos)))
	}
}

func (q *pairQueue[P]) pop() (rank uint32, pos P, ok bool) {
	if len(q.active) == 0 {
		if len(q.late) == 0 {
			return 0, 0, false
		}
		k := q.late.pop()
		return uint32(k >> posBits), P(k & posMask), true
	}
	top := q.active[0]
	rank = uint32(top >> posBits)
	l := &q.lists[top&posMask]
	pos = l.pos[l.head]
	if len(q.late) > 0 && q.late[0] < pairKey(rank, int(pos)) {
		k := q.late.pop()
		return uint32(k >> posBits), P(k & posMask), true
	}
	if l.head++; l.head == len(l.pos) {
		q.active.pop()
	}
	return rank, pos, true
}

// rankIndex maps ranks to small numbers, an open-addressing table whose
// slots belong to the generation that wrote them: emptying it is a new
// generation, whatever it held before, which a queue reused for piece
// after piece needs (a map takes time to clear in proportion to the most
// it ever held).
type rankIndex struct {
	slots []rankSlot // a power of two of them
	shift uint       // 64 - log2(len(slots))
	gen   uint32
	n     int
}

type rankSlot struct{ rank, gen, val uint32 }

func (x *rankIndex) reset() {
	if x.gen++; x.gen == 0 {
		clear(x.slots)
		x.gen = 1
	}
	x.n = 0
}

func (x *rankIndex) home(rank uint32) int {
	return int((uint64(rank) * 0x9E3779B97F4A7C15) >> x.shift)
}

func (x *rankIndex) get(rank uint32) (int, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := len(x.slots) - 1
	for i := x.home(rank); ; i = (i + 1) & mask {
		sl := &x.slots[i]
		if sl.gen != x.gen {
			return 0, false
		}
		if sl.rank == rank {
			return int(sl.val), true
		}
	}
}

// put adds rank, which get does not find, keeping the table at most half
// full.
func (x *rankIndex) put(rank uint32, val int) {
	if 2*(x.n+1) > len(x.slots) {
		old := x.slots
		x.slots = make([]rankSlot, max(64, 2*len(old)))
		x.shift = uint(64 - bits.Len(uint(len(x.slots)-1)))
		for _, sl := range old {
			if sl.gen == x.gen {
				x.insert(sl.rank, sl.val)
			}
		}
	}
	x.insert(rank, uint32(val))
	x.n++
}

func (x *rankIndex) insert(rank, val uint32) {
	mask := len(x.slots) - 1
	i := x.home(rank)
	for x.slots[i].gen == x.gen {
		i = (i + 1) & mask
	}
	x.slots[i] = rankSlot{rank, x.gen, val}
}

// A pair key orders by rank, then position: rank<<posBits | position.
const (
	posBits = 64 - rankBits
	posMask = 1<<posBits - 1
)

func pairKey(rank uint32, pos int) uint64 { return uint64(rank)<<posBits | uint64(pos) }

// pairHeap is a binary min-heap.
type pairHeap []uint64

func (h *pairHeap) push(k uint64) {
	*h = append(*h, k)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p] <= k {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = k
}

func (h *pairHeap) pop() uint64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

func (h pairHeap) down(i int) {
	n := len(h)
	k := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1] < h[c] {
			c++
		}
		if k <= h[c] {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = k
}
