package transcript

import (
	"math/bits"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/transcript/internal/masks"
)

// Measuring a long string 64 bytes at a time: masks.Strings classifies the
// bytes of a run of 64-byte blocks (quotes, backslashes, bytes a
// backslash cannot escape in two, UTF-8 classes), a bit per byte, and
// walkString reads the string off those words. Which bytes the escapes
// cover is worked out for a whole block at once, without a branch (the
// carry trick of simdjson), so a plain escape costs no stop, and a block
// whose runes are all of two or three bytes is found valid UTF-8 with a
// few word operations. Only other runes and escapes are looked at one by
// one. Skipping a string (quoteOrBackslashBlocks, stringEndBlocks) needs
// only the quotes and backslashes, which masks.Quotes marks.

const (
	// maxBlocks bounds how many blocks one masks.Strings call marks. A
	// call's cost is worth paying for a few blocks, but blocks past the
	// string's end are marked for nothing, so the first calls mark fewer.
	maxBlocks = 8
	// vectorAfter is how far into a string measureString reads a word
	// at a time before walkString takes over: most strings end sooner.
	vectorAfter = 16
	oddBits     = 0xAAAAAAAAAAAAAAAA
)

// walkStop is why walkString stopped.
type walkStop uint8

const (
	walkEnd     walkStop = iota // at the quote that ends the string
	walkSpot                    // at an escape or rune it does not follow
	walkShort                   // fewer than 64 bytes from the end of b
	walkInvalid                 // at a byte that is not UTF-8: the string is not measured
)

// walkString reads on from b[i], which is not inside an escape or a rune,
// and returns where it stopped, why, and how many bytes the plain escapes
// it passed take beyond what they stand for. It follows the escapes of a
// backslash and one of "\/bfnrt, and UTF-8 runes; at any other escape
// (walkSpot) and wherever b has less than a block left (walkShort), j is
// again a position outside any escape or rune, for measureString to go on
// from.
func walkString(b []byte, i int) (j, saved int, stop walkStop) {
	var m [maxBlocks * masks.Words]uint64
	// escNext is 1 when the block's last backslash escapes the next
	// block's first byte; contNext marks the next block's bytes that
	// continue a rune begun in this one, runeBack how many bytes of that
	// rune are in this block.
	var escNext, contNext uint64
	runeBack := 0
	for blocks := 1; len(b)-i >= 64; blocks = min(2*blocks, maxBlocks) {
		n := min((len(b)-i)/64, blocks)
		masks.Strings(&b[i], n, &m[0])
		for k := 0; k < masks.Words*n; k, i = k+masks.Words, i+64 {
			w := m[k : k+masks.Words : k+masks.Words]
			q, bs, h := w[0], w[1], w[2]
			// escape: the backslashes that escape the next byte;
			// escaped: the bytes they escape.
			pot := bs &^ escNext
			code := ((pot<<1 | oddBits) - pot) ^ oddBits
			escaped := code ^ (bs | escNext)
			escape := code & bs
			free := q &^ escaped // quotes that end the string
			at, kind := bits.TrailingZeros64(free), walkEnd
			if at == 64 {
				kind = walkShort // none: on to the next block
			}
			if e := escaped & w[3] & (free&-free - 1); e != 0 {
				at, kind = bits.TrailingZeros64(e)-1, walkSpot // at the backslash
			}
			var before uint64 // the bytes before at
			if at > 0 {
				before = uint64(1)<<at - 1
			}
			saved += bits.OnesCount64(escape & before)
			carried := contNext
			cont, lead2, lead3 := w[4], w[5], w[6]
			if need := lead2<<1 | lead3<<1 | lead3<<2 | carried; h == cont|lead2|lead3 && cont == need {
				// Every rune of the block is UTF-8 of two or three bytes.
				contNext, runeBack = lead2>>63|lead3>>62|lead3>>63, 1+int(lead3>>62&1)
				if lead3>>63 != 0 {
					runeBack = 1
				}
			} else {
				if carried&^cont != 0 {
					return i, saved, walkInvalid // a rune cut short
				}
				contNext = 0
				for r := h &^ carried & before; r != 0; {
					t := bits.TrailingZeros64(r)
					p := i + t
					size := 3
					if c := b[p]; c&0xF0 != 0xE0 || p+2 >= len(b) || b[p+1]&0xC0 != 0x80 || b[p+2]&0xC0 != 0x80 ||
						c == 0xE0 && b[p+1] < 0xA0 || c == 0xED && b[p+1] >= 0xA0 {
						// Not the common three-byte rune (no overlong form,
						// no surrogate): the standard library decides.
						var c rune
						if c, size = utf8.DecodeRune(b[p:]); c == utf8.RuneError && size == 1 {
							return p, saved, walkInvalid
						}
					}
					r &^= (uint64(1)<<size - 1) << t
					if t+size > 64 {
						contNext, runeBack = uint64(1)<<(t+size-64)-1, 64-t
					}
				}
			}
			if kind != walkShort {
				if at < 0 {
					saved-- // the escape begun in the block before
				}
				return i + at, saved, kind
			}
			escNext = escape >> 63
		}
	}
	switch {
	case escNext != 0:
		return i - 1, saved - 1, walkShort
	case contNext != 0:
		return i - runeBack, saved, walkShort
	}
	return i, saved, walkShort
}

// quoteOrBackslashBlocks is quoteOrBackslash a block at a time, for long
// strings.
func quoteOrBackslashBlocks(b []byte, i int) int {
	var m [maxBlocks * 2]uint64
	for blocks := 1; len(b)-i >= 64; blocks = min(2*blocks, maxBlocks) {
		n := min((len(b)-i)/64, blocks)
		masks.Quotes(&b[i], n, &m[0])
		for k := 0; k < 2*n; k, i = k+2, i+64 {
			if f := m[k] | m[k+1]; f != 0 {
				return i + bits.TrailingZeros64(f)
			}
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}

// stringEndBlocks is stringEnd a block at a time, for long strings: it
// returns the index of the quote that ends the string, -1 if none does,
// reading on from b[i], which is not inside an escape.
func stringEndBlocks(b []byte, i int) int {
	var m [maxBlocks * 2]uint64
	var escNext uint64 // as in walkString
	for blocks := 1; len(b)-i >= 64; blocks = min(2*blocks, maxBlocks) {
		n := min((len(b)-i)/64, blocks)
		masks.Quotes(&b[i], n, &m[0])
		for k := 0; k < 2*n; k, i = k+2, i+64 {
			q, bs := m[k], m[k+1]
			pot := bs &^ escNext
			code := ((pot<<1 | oddBits) - pot) ^ oddBits
			escaped := code ^ (bs | escNext)
			if free := q &^ escaped; free != 0 {
				return i + bits.TrailingZeros64(free)
			}
			escNext = code & bs >> 63
		}
	}
	i += int(escNext)
	for i < len(b) {
		switch b[i] {
		case '"':
			return i
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return -1
}
