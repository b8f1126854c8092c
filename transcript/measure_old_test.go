package transcript

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// measureStringOld is measureString as it was, for comparison while the new one is written.
func measureStringOld(b []byte, i int) (end, n int, ok bool) {
	start, saved := i, 0
	for {
		i = plainRunOld(b, i)
		if i == len(b) {
			return 0, 0, false
		}
		switch c := b[i]; {
		case c == '"':
			return i, i - start - saved, true
		case c == '\\' && i+1 < len(b) && plainEscape[b[i+1]]:
			i += 2
			saved++
		case c == '\\':
			span, out, fine := escape(b[i:])
			if !fine {
				return 0, 0, false
			}
			i += span
			saved += span - out
		case c&0xF0 == 0xE0 && i+2 < len(b) && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 &&
			(c != 0xE0 || b[i+1] >= 0xA0) && (c != 0xED || b[i+1] < 0xA0):
			i += 3
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, 0, false
			}
			i += size
		}
	}
}

func plainRunOld(b []byte, i int) int {
	rest := b[i:]
	for len(rest) >= 16 {
		f1 := plainBitsOld(binary.LittleEndian.Uint64(rest))
		f2 := plainBitsOld(binary.LittleEndian.Uint64(rest[8:]))
		if f1|f2 != 0 {
			if f1 != 0 {
				return len(b) - len(rest) + bits.TrailingZeros64(f1)/8
			}
			return len(b) - len(rest) + 8 + bits.TrailingZeros64(f2)/8
		}
		rest = rest[16:]
	}
	for j, c := range rest {
		if c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return len(b) - len(rest) + j
		}
	}
	return len(b)
}

func plainBitsOld(w uint64) uint64 {
	q := w ^ ('"' * ones)
	e := w ^ ('\\' * ones)
	return ((q-ones)&^q | (e-ones)&^e | w) & highs
}
