package harness

import (
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/internal/validutf8"
)

// serdeString quotes s as serde_json's compact writer does: only '"', '\\'
// and control characters are escaped (\b \f \n \r \t, else \u00xx in
// lower-case hex); non-ASCII, '<', '>', '&', U+2028 and U+2029 stay raw.
// Invalid UTF-8 becomes U+FFFD, as no Rust string can hold it.
func serdeString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2 + len(s)/16)
	writeSerde(&b, s)
	return b.String()
}

// writeSerde writes serdeString(s) to b.
func writeSerde(b *strings.Builder, s string) {
	b.WriteByte('"')
	const hex = "0123456789abcdef"
	valid := validutf8.String(s)
	run := 0 // start of the bytes not yet written, which need no escape
	for i := 0; i < len(s); {
		i = skipPlain(s, i, valid)
		if i == len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size > 1 {
				i += size
				continue
			}
		}
		b.WriteString(s[run:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteString("\uFFFD") // an invalid byte
			}
		}
		i++
		run = i
	}
	b.WriteString(s[run:])
	b.WriteByte('"')
}

// Sizes is a text's length in the units a ceiling may be set in, but
// for its UTF-8 bytes (len) and tokens.
type Sizes struct {
	JSON  int64 // len(serdeString(s))
	UTF16 int64 // UTF-16 code units, as Java and JavaScript count a string
	Runes int64 // code points, an invalid byte one (utf8.RuneCountInString)
}

// Measure finds all of s's Sizes in one pass after utf8.ValidString's,
// eight bytes at a time: a list measures every result it reads, and a pass
// per unit was a twentieth of its first replay. In valid UTF-8 a character
// has one leading byte, and takes two UTF-16 units when that byte starts
// four; the escapes of eight bytes are counted from exact per-byte flags,
// not a byte at a time, as a log's texts hold a newline every few dozen
// bytes (BenchmarkMeasure: 420-430 MB/s a byte at a time, 820-880 so; the
// generated 1 GiB log's texts 420-510 and 600-700).
func Measure(s string) Sizes {
	if !validutf8.String(s) {
		return measureInvalid(s)
	}
	n := int64(len(s))
	jsonBytes, units, runes := n+2, n, n
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := eightAt(s, i)
		if x&highs != 0 {
			continuing := int64(bits.OnesCount64(x &^ (x << 1) & highs))                    // 10xxxxxx
			fourByte := int64(bits.OnesCount64(x & (x << 1) & (x << 2) & (x << 3) & highs)) // 1111xxxx
			runes -= continuing
			units -= continuing - fourByte
		}
		if !escaped(x, true) {
			continue
		}
		ascii := x &^ highs
		control := ^((ascii + 0x60*ones) | x) & highs // below 0x20
		// \b \t \n \f \r, 8 to 13 but 11, are escaped in two bytes;
		// the other control characters in six (\u00XX).
		short := control & (ascii + 0x78*ones) &^ (ascii + 0x72*ones) &^ zeroBytes(x^(0x0B*ones))
		twoOrMore := control | zeroBytes(x^('"'*ones)) | zeroBytes(x^('\\'*ones))
		jsonBytes += int64(bits.OnesCount64(twoOrMore)) + 4*int64(bits.OnesCount64(control&^short))
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			jsonBytes++
		case c < 0x20:
			jsonBytes += 5
		case c&0xC0 == 0x80:
			runes--
			units--
		case c >= 0xF0:
			units++
		}
	}
	return Sizes{JSON: jsonBytes, UTF16: units, Runes: runes}
}

// measureInvalid is Measure of a text that is not valid UTF-8, each
// invalid byte one U+FFFD.
func measureInvalid(s string) Sizes {
	jsonBytes, units, runes := int64(2), int64(0), int64(0)
	for i := 0; i < len(s); {
		for ; i+8 <= len(s); i += 8 {
			if x := eightAt(s, i); escaped(x, false) {
				break
			}
			jsonBytes += 8 // ASCII
			runes += 8
			units += 8
		}
		// The eight bytes that hold one to escape, one at a time.
		for end := min(i+8, len(s)); i < end; {
			c := s[i]
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				jsonBytes += 2
			case c < 0x20:
				jsonBytes += 6
			case c < utf8.RuneSelf:
				jsonBytes++
			default:
				r, size := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && size == 1 {
					jsonBytes += 3 // written as U+FFFD
				} else {
					jsonBytes += int64(size)
					if r >= 0x10000 {
						units++
					}
				}
				units, runes, i = units+1, runes+1, i+size
				continue
			}
			units, runes, i = units+1, runes+1, i+1
		}
	}
	return Sizes{JSON: jsonBytes, UTF16: units, Runes: runes}
}

// JSONLen is len(serdeString(s)) without building it.
func JSONLen(s string) int64 { return Measure(s).JSON }

const ones, highs = 0x0101010101010101, 0x8080808080808080

// zeroBytes has 0x80 in each byte of x that is zero and nothing else:
// exact, unlike the borrow trick, as no byte carries into the next.
func zeroBytes(x uint64) uint64 { return ^(((x &^ highs) + 0x7F*ones) | x) & highs }

// eightAt is s[i:i+8] as a number, its first byte lowest.
func eightAt(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// escaped tells whether any of the eight bytes x holds is one serde_json
// escapes: below 0x20, a quote or a backslash (per byte, below 0x20 or
// zero after the XORs: exact about whether any matches, which is all
// that is asked); or, where the text is not valid UTF-8, non-ASCII.
func escaped(x uint64, valid bool) bool {
	quote, slash := x^('"'*ones), x^('\\'*ones)
	special := (x-0x20*ones)&^x | (quote-ones)&^quote | (slash-ones)&^slash
	if !valid {
		special |= x
	}
	return special&highs != 0
}

// skipPlain returns the index of the first byte at or after i that
// serde_json escapes ('"', '\\', a control character) or, when s is not
// valid UTF-8, of the first non-ASCII byte; len(s) when there is none. It
// tests eight bytes at a time: most text needs no escape.
func skipPlain(s string, i int, valid bool) int {
	for ; i+8 <= len(s) && !escaped(eightAt(s, i), valid); i += 8 {
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf && !valid {
			return i
		}
	}
	return i
}

// UTF16Len is the length of s in UTF-16 code units, as Java and JavaScript
// count a string.
//
// Counted apart from Measure, eight bytes at a time whatever they hold: a
// cut result's marker is JSON quoted twice, whose escapes send Measure a
// byte at a time, and measuring them was a sixth of a tuning key's
// processor time under spillway's hook in Claude Code. In valid UTF-8 a
// character has one leading byte, and takes two units when it starts four.
func UTF16Len(s string) int64 {
	if !validutf8.String(s) {
		return Measure(s).UTF16 // an invalid byte is one U+FFFD
	}
	n, i := int64(len(s)), 0
	for ; i+8 <= len(s); i += 8 {
		if x := eightAt(s, i); x&highs != 0 {
			n -= int64(bits.OnesCount64(x &^ (x << 1) & highs))                      // 10xxxxxx
			n += int64(bits.OnesCount64(x & (x << 1) & (x << 2) & (x << 3) & highs)) // 1111xxxx
		}
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c&0xC0 == 0x80:
			n--
		case c >= 0xF0:
			n++
		}
	}
	return n
}

// UTF16Over tells whether s is over n UTF-16 units. A string has no more
// units than bytes (an invalid byte is one U+FFFD), so one no longer than
// n bytes is not counted.
func UTF16Over(s string, n int64) bool {
	return int64(len(s)) > n && UTF16Len(s) > n
}

// headBytes cuts s to at most n bytes, back to a character boundary.
func headBytes(s string, n int64) string {
	if int64(len(s)) <= n {
		return s
	}
	end := int(max(n, 0))
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}

// tailBytes keeps at most the last n bytes of s, forward to a character boundary.
func tailBytes(s string, n int64) string {
	if int64(len(s)) <= n {
		return s
	}
	start := len(s) - int(max(n, 0))
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}

// ApproxTokens is Codex's estimate: a token per four bytes, rounded up.
func ApproxTokens(bytes int64) int64 { return (bytes + 3) / 4 }
