package transcript

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/transcript/internal/masks"
)

// Measuring a JSON string without decoding it: a reader that keeps only
// sizes (Options.SizesOnly) needs the length a string has once unescaped,
// and to know it is valid UTF-8, but not the string. One pass over the raw
// bytes does both; decoding, copying and validating would take three.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// escapedLen returns the length raw, the contents of a JSON string between
// its quotes, has once unescaped exactly as fastjson unescapes it (unknown
// and malformed escapes are kept as written). ok is false when raw is not
// valid UTF-8 or has an escape this pass does not follow; the caller then
// decodes the string and measures that.
func escapedLen(raw []byte) (n int, ok bool) {
	i := 0
	for i < len(raw) {
		// Eight bytes at a time while there is no backslash and no byte
		// above 0x7F. The flags are exact up to the first special byte;
		// bits above it may be spurious, so only the lowest is used.
		if i+8 <= len(raw) {
			w := binary.LittleEndian.Uint64(raw[i:])
			x := w ^ ('\\' * ones)
			special := ((x-ones)&^x | w) & highs
			if special == 0 {
				i += 8
				n += 8
				continue
			}
			skip := bits.TrailingZeros64(special) / 8
			i += skip
			n += skip
		}
		c := raw[i]
		switch {
		case c < utf8.RuneSelf && c != '\\':
			i++
			n++
		case c == '\\' && i+1 < len(raw) && plainEscape[raw[i+1]]:
			i += 2
			n++
		case c == '\\':
			span, out, fine := escape(raw[i:])
			if !fine {
				return 0, false
			}
			i += span
			n += out
		case c&0xF0 == 0xE0 && i+2 < len(raw) && raw[i+1]&0xC0 == 0x80 && raw[i+2]&0xC0 == 0x80 &&
			(c != 0xE0 || raw[i+1] >= 0xA0) && (c != 0xED || raw[i+1] < 0xA0):
			// The common case of three bytes inline: no overlong
			// form (E0 80..9F) and no surrogate (ED A0..BF).
			i += 3
			n += 3
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false
			}
			i += size
			n += size
		}
	}
	return n, true
}

// measureString is stringEnd and escapedLen in one pass: for the string
// whose contents start at b[i], it returns the index of the quote that ends
// it and the contents' length once unescaped. ok is false where there is
// no end or escapedLen would not measure the contents. Escapes are followed
// from left to right, so a quote preceded by an odd number of backslashes
// is passed as escaped, as stringEnd passes it. b may go on past the
// string: an escape or a rune read at its end cannot take in the closing
// quote, which is neither a hex digit nor a continuation byte.
func measureString(b []byte, i int) (end, n int, ok bool) {
	start, saved := i, 0 // saved: bytes the escapes so far take beyond what they stand for
	for {
		// The runs of text between escapes and runes are a few words
		// long (30 to 90 bytes in real logs), so the scan for the next
		// special byte is inline, two words a step, not a call per run.
		for i+16 <= len(b) {
			if masks.Vector && i-start >= vectorAfter && len(b)-i >= 64 {
				// A long string: on a block at a time.
				j, sv, stop := walkString(b, i)
				i, saved = j, saved+sv
				switch stop {
				case walkEnd:
					return i, i - start - saved, true
				case walkInvalid:
					return 0, 0, false
				case walkSpot:
					goto special
				}
				continue // walkShort: the last bytes a word at a time
			}
			w := b[i : i+16 : i+16]
			f1 := specialBits(binary.LittleEndian.Uint64(w))
			f2 := specialBits(binary.LittleEndian.Uint64(w[8:]))
			if f1|f2 != 0 {
				if f1 != 0 {
					i += bits.TrailingZeros64(f1) >> 3
				} else {
					i += 8 + bits.TrailingZeros64(f2)>>3
				}
				goto special
			}
			i += 16
		}
		for ; i < len(b); i++ {
			if c := b[i]; c == '"' || c == '\\' || c >= utf8.RuneSelf {
				goto special
			}
		}
		return 0, 0, false
	special:
		switch c := b[i]; {
		case c == '\\':
			if i+1 < len(b) && plainEscape[b[i+1]] {
				i += 2
				saved++
				continue
			}
			span, out, fine := escape(b[i:])
			if !fine {
				return 0, 0, false
			}
			i += span
			saved += span - out
		case c == '"':
			return i, i - start - saved, true
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

// specialBits is zero when no byte of w is a quote, a backslash or above
// 0x7F; otherwise it has the high bit set of the first such byte (in
// memory order) and maybe of later ones. A byte above 0x7F is flagged by
// w itself, so the subtractions need not mask it out.
func specialBits(w uint64) uint64 {
	q := w ^ ('"' * ones)
	e := w ^ ('\\' * ones)
	return ((q - ones) | (e - ones) | w) & highs
}

// plainEscape marks the bytes that follow a backslash in a two-byte escape.
var plainEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escape measures the escape at the start of s (which begins with a
// backslash): how many bytes it spans and how many it unescapes to.
func escape(s []byte) (span, out int, ok bool) {
	if len(s) < 2 {
		return 0, 0, false // a lone backslash cannot end a parsed string
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, 1, true
	case 'u':
		hi, valid := hex4(s[2:])
		if !valid {
			return 2, 2, true // "\u" kept; what follows is read as text
		}
		if hi < 0xD800 || hi > 0xDFFF {
			return 6, utf8.RuneLen(rune(hi)), true
		}
		if len(s) < 12 || s[6] != '\\' || s[7] != 'u' {
			return 6, 6, true // a surrogate without a partner is kept as written
		}
		if _, valid := hex4(s[8:]); !valid {
			return 6, 6, true
		}
		// A pair decodes to one rune of four bytes, anything else to U+FFFD.
		lo, _ := hex4(s[8:])
		if hi < 0xDC00 && lo >= 0xDC00 && lo <= 0xDFFF {
			return 12, 4, true
		}
		return 12, 3, true
	}
	if s[1] >= utf8.RuneSelf {
		return 0, 0, false // kept as written, but the byte must be checked as UTF-8
	}
	return 2, 2, true // an unknown escape is kept as written
}

// hex4 reads four hex digits at the start of s.
func hex4(s []byte) (uint16, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var v uint16
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint16(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint16(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint16(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
