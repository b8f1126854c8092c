package guard

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// serdePrefix is the start of serdeString(s), at least n bytes of it
// (or all): quoting only the part of a long text that a cut keeps.
func serdePrefix(s string, n int64) string {
	// Each input byte yields at most 6 output bytes; a margin covers the
	// opening quote and a multi-byte character at the cut.
	cut := min(int64(len(s)), n+8)
	for cut < int64(len(s)) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	q := serdeString(s[:cut])
	if cut < int64(len(s)) {
		q = q[:len(q)-1] // not the end of the text: drop the closing quote
	}
	return q
}

// serdeString quotes s as serde_json's compact writer does: only '"', '\\'
// and control characters are escaped (\b \f \n \r \t, else \u00xx in
// lower-case hex); non-ASCII, '<', '>', '&', U+2028 and U+2029 stay raw.
// Invalid UTF-8 becomes U+FFFD, as no Rust string can hold it.
func serdeString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2 + len(s)/16)
	b.WriteByte('"')
	const hex = "0123456789abcdef"
	run := 0 // start of the bytes not yet written, which need no escape
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
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
	return b.String()
}

// serdeLen is len(serdeString(s)) without building it.
func serdeLen(s string) int64 {
	n := int64(2)
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				n += 3
			} else {
				n += int64(size)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20:
			n += 6
		default:
			n++
		}
		i++
	}
	return n
}

// utf16Len is the length of s in UTF-16 code units, as Java and JavaScript
// count a string.
func utf16Len(s string) int64 {
	var n int64
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// utf16Slice returns code units [from, to) of s. A cut through a surrogate
// pair leaves half a pair, which becomes U+FFFD when sent as UTF-8.
func utf16Slice(s string, from, to int64) string {
	units := utf16.Encode([]rune(s))
	from, to = min(max(from, 0), int64(len(units))), min(max(to, 0), int64(len(units)))
	if from >= to {
		return ""
	}
	return string(utf16.Decode(units[from:to]))
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

// headRunes keeps the first n code points of s.
func headRunes(s string, n int64) string {
	for i := range s {
		if n <= 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// tailRunes keeps the last n code points of s.
func tailRunes(s string, n int64) string {
	i := len(s)
	for ; i > 0 && n > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// approxTokens is Codex's estimate: a token per four bytes, rounded up.
func approxTokens(bytes int64) int64 { return (bytes + 3) / 4 }
