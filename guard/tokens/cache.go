package tokens

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// Pieces whose counts are memoized here: shorter ones are in the short
// memo, longer ones are rare and would crowd it.
const minCachedPiece, maxCachedPiece = maxShortPiece + 1, 128

const pieceSlots = 1 << 15

// pieceCache memoizes the counts of pieces that are not single tokens. It
// is direct-mapped: a slot holds the last piece stored there, so its size
// is fixed and lookups take no lock.
type pieceCache struct {
	seed  maphash.Seed
	slots [pieceSlots]atomic.Pointer[pieceEntry]
}

type pieceEntry struct {
	piece string
	n     int
}

func newPieceCache() *pieceCache {
	return &pieceCache{seed: maphash.MakeSeed()}
}

func (pc *pieceCache) slot(piece string) *atomic.Pointer[pieceEntry] {
	return &pc.slots[maphash.String(pc.seed, piece)&(pieceSlots-1)]
}

func (pc *pieceCache) get(piece string) (int, bool) {
	if e := pc.slot(piece).Load(); e != nil && e.piece == piece {
		return e.n, true
	}
	return 0, false
}

func (pc *pieceCache) put(piece string, n int) {
	// Clone so the entry does not keep the whole text alive.
	pc.slot(piece).Store(&pieceEntry{piece: strings.Clone(piece), n: n})
}

// Cache memoizes counts by text, so a text seen many times is counted once.
// It is safe for concurrent use; two callers given the same text at once
// may both count it. It keeps a 128-bit hash of every distinct text it is
// given, never the text: a session's replacement texts (a marker per
// shaped result at every ceiling tried) would otherwise stay alive for as
// long as the session, growing with every replay. Two texts would share
// a count only if both 64-bit hashes of them, under seeds of their own,
// agreed: for a million texts, a chance below 1 in 10^26. Its map holds
// no pointer, so the garbage collector never scans it: with an object
// per text for callers to wait on, a list of 2,000 sessions held 124 MB
// in it that every collection traced.
type Cache struct {
	c     *Counter
	seeds [2]maphash.Seed
	limit int // texts remembered at most
	mu    sync.Mutex
	m     map[cacheKey]int
}

// cacheKey is a text's two hashes and its length.
type cacheKey struct {
	h      [2]uint64
	length int
}

// cachedTexts bounds the texts a Cache from NewCache remembers (32 bytes
// each, and the map's room to grow): past it, it forgets them all and
// starts again. A list of thousands of sessions, tuned at many ceilings,
// counted more than two million.
var cachedTexts = 1 << 19

// NewCache returns an empty Cache over c.
func NewCache(c *Counter) *Cache { return NewCacheOf(c, cachedTexts, 0) }

// NewCacheOf is NewCache remembering up to texts texts rather than
// cachedTexts, with room made for expected of them: a map grown a text at
// a time to hundreds of thousands leaves as much again behind it.
func NewCacheOf(c *Counter, texts, expected int) *Cache {
	return &Cache{c: c, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, limit: texts, m: make(map[cacheKey]int, min(expected, texts))}
}

// Counter returns the Counter the cache counts with.
func (k *Cache) Counter() *Counter { return k.c }

// Encoding is the encoding the cache counts in.
func (k *Cache) Encoding() Encoding { return k.c.Encoding() }

// Count returns k.Counter().Count(text), counting each distinct text once.
func (k *Cache) Count(text string) int {
	key := cacheKey{h: [2]uint64{maphash.String(k.seeds[0], text), maphash.String(k.seeds[1], text)}, length: len(text)}
	k.mu.Lock()
	n, ok := k.m[key]
	k.mu.Unlock()
	if ok {
		return n
	}
	n = k.c.Count(text)
	k.mu.Lock()
	if len(k.m) >= k.limit {
		k.m = map[cacheKey]int{}
	}
	k.m[key] = n
	k.mu.Unlock()
	return n
}

// Forget lets go of every count the cache holds.
func (k *Cache) Forget() {
	k.mu.Lock()
	k.m = map[cacheKey]int{}
	k.mu.Unlock()
}

// Len returns the number of distinct texts the cache holds.
func (k *Cache) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}

// CountParts is Counter().CountParts. Replacements cut at new places are
// not kept: what an Index remembers makes them cheap to count again.
func (k *Cache) CountParts(parts ...Part) int { return k.c.CountParts(parts...) }
