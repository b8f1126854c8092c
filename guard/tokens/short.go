package tokens

import "sync/atomic"

// Pieces of 3 to 7 bytes are most of a text's and are counted from a
// small memo that fits the processor's second-level cache: the piece's
// bytes, its length and its count packed in one word, so a lookup is one
// load and one compare, where the vocabulary's table (megabytes) missed
// the caches at every word.
const (
	maxShortPiece = 7
	shortSlotBits = 14
	shortKeyBits  = 59 // 56 bits of bytes, 3 of length; the count above
)

type shortMemo [1 << shortSlotBits]atomic.Uint64

// shortKey packs piece, of 3 to maxShortPiece bytes, with its length.
func shortKey(s string) uint64 {
	n := len(s)
	var v uint64
	if n >= 4 {
		v = le32(s) | le32(s[n-4:])<<(8*(n-4))
	} else {
		v = uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16
	}
	return v | uint64(n)<<56
}

func shortSlot(key uint64) uint64 { return key * 0x9E3779B97F4A7C15 >> (64 - shortSlotBits) }

// get is the count remembered for key; an empty slot, 0, matches no key,
// all of which have a length.
func (m *shortMemo) get(key uint64) (int, bool) {
	e := m[shortSlot(key)].Load()
	if e&(1<<shortKeyBits-1) == key {
		return int(e >> shortKeyBits), true
	}
	return 0, false
}

// put remembers n, which is at most the piece's length and so fits.
func (m *shortMemo) put(key uint64, n int) {
	m[shortSlot(key)].Store(key | uint64(n)<<shortKeyBits)
}
