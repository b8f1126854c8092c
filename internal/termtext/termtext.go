// Package termtext makes untrusted text (anything read from a transcript or
// a spill file) safe to draw in a terminal: control characters and escape
// sequences become visible escapes, invalid UTF-8 becomes U+FFFD, tabs are
// expanded, and widths are measured in terminal cells.
package termtext

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// TabWidth is the tab stop used when expanding tabs.
const TabWidth = 4

// Escape renders s on one line: newlines and tabs as \n and \t, every other
// control character (ESC starting a CSI or OSC sequence, BEL, C1 controls,
// DEL) as \xNN, bidirectional overrides, invisible format characters and
// combining marks past maxMarks in a row as \uNNNN (\UNNNNNNNN above
// U+FFFF), invalid bytes as U+FFFD.
func Escape(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	var marks Marks
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteString(`\n`)
			marks = 0
		case r == '\t':
			b.WriteString(`\t`)
			marks = 0
		case marks.over(r):
			writeEscaped(&b, r)
		default:
			writeRune(&b, r, size)
		}
		i += size
	}
	return b.String()
}

// maxMarks is how many combining marks in a row are drawn on one
// character; those past it are escaped. Written scripts stack a few (a
// vowel and a tone, cantillation); hundreds, as in "zalgo" text, draw over
// the rows around in terminals that stack them.
const maxMarks = 4

// Marks counts the combining marks in a row, across the pieces of a line
// made safe one at a time (Marks.Line).
type Marks int

// over tells whether r is a combining mark past maxMarks in a row.
func (n *Marks) over(r rune) bool {
	if r < 0x300 || !unicode.In(r, unicode.Mn, unicode.Me) {
		*n = 0
		return false
	}
	*n++
	return *n > maxMarks
}

// Clipboard makes s safe to paste into a terminal, as a text of many
// lines: line breaks ("\r\n" as "\n") and tabs are kept, and so are the
// invisible format characters (zero-width joiners and non-joiners, the
// soft hyphen, tag characters), which act on no terminal and belong to the
// text (emoji sequences, Persian words); every other control and the
// bidirectional controls are escaped as Escape does, so that it carries no
// escape sequence a shell or terminal would act on when pasted.
func Clipboard(s string) string {
	if plain(s) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case invisible(r) && !bidi(r):
			b.WriteString(s[i : i+size])
		default:
			writeRune(&b, r, size)
		}
		i += size
	}
	return b.String()
}

// Lines splits s into display lines: tabs expanded to TabWidth stops,
// "\r\n" and "\n" as breaks, every other control character escaped.
func Lines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	raw := strings.Split(s, "\n")
	out := make([]string, len(raw))
	for i, line := range raw {
		out[i] = Line(line)
	}
	return out
}

// Line makes one line safe, expanding tabs (a lone \r is escaped).
func Line(s string) string {
	var marks Marks
	return marks.Line(s)
}

// Line is Line for s, the next piece of a line: the marks that ended the
// piece before count with those s begins with.
func (marks *Marks) Line(s string) string {
	if plain(s) {
		if s != "" {
			*marks = 0
		}
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	col := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\t' {
			*marks = 0
			n := TabWidth - col%TabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
		} else {
			before := b.Len()
			if marks.over(r) {
				writeEscaped(&b, r)
			} else {
				writeRune(&b, r, size)
			}
			col += ansi.StringWidth(b.String()[before:])
		}
		i += size
	}
	return b.String()
}

// writeEscaped writes r as a \u or \U escape.
func writeEscaped(b *strings.Builder, r rune) {
	if r > 0xffff {
		fmt.Fprintf(b, `\U%08x`, r)
	} else {
		fmt.Fprintf(b, `\u%04x`, r)
	}
}

// writeRune writes r safely.
func writeRune(b *strings.Builder, r rune, size int) {
	switch {
	case r == utf8.RuneError && size == 1:
		b.WriteRune(unicode.ReplacementChar)
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		const hex = "0123456789abcdef"
		b.WriteString(`\x`)
		b.WriteByte(hex[r>>4])
		b.WriteByte(hex[r&0xf])
	case bidi(r) || invisible(r):
		writeEscaped(b, r)
	default:
		b.WriteRune(r)
	}
}

// JSON rewrites DEL, C1 controls, bidirectional controls and invisible
// format characters in JSON text as \uXXXX escapes (a surrogate pair above
// U+FFFF); JSON encoders escape only the C0 controls. JSON's
// structure is ASCII, so such runes can only stand inside strings, where
// the escape decodes to the same rune: the document means the same, but a
// terminal shown it acts on nothing. b is returned as is when it has none.
func JSON(b []byte) []byte {
	var out []byte // nil until something needs rewriting
	copied := 0    // b[:copied] is in out
	for i := 0; i < len(b); {
		// Eight bytes at a time while all are below DEL.
		if i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			if (w|(w+0x0101010101010101))&0x8080808080808080 == 0 {
				i += 8
				continue
			}
		}
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		if r == 0x7f || r >= 0x80 && r < 0xa0 || bidi(r) || invisible(r) {
			if out == nil {
				out = make([]byte, 0, len(b)+64)
			}
			out = append(out, b[copied:i]...)
			if hi, lo := utf16.EncodeRune(r); hi != unicode.ReplacementChar {
				out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
			copied = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[copied:]...)
}

// bidi reports the invisible characters that reorder text (Trojan Source).
func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// invisible reports the format characters a terminal draws as nothing, so
// that "Ba\u200bsh" would read as "Bash": zero-width spaces and joiners,
// word joiner and invisible operators, the byte order mark, the soft
// hyphen, the Mongolian vowel separator and the tag characters. Escaping
// the zero-width joiner also splits emoji sequences into emoji every
// terminal draws at the same width, which keeps columns aligned.
func invisible(r rune) bool {
	return r >= 0x200b && r <= 0x200f || r >= 0x2060 && r <= 0x2064 || r == 0xfeff ||
		r == 0x00ad || r == 0x180e || r >= 0xe0000 && r <= 0xe007f
}

// plain reports whether s needs no escaping: printable ASCII only.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// Width is the number of terminal cells a safe string takes.
func Width(s string) int { return ansi.StringWidth(s) }

// Truncate cuts a safe string to width cells, ending it with "…" when cut.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// Fit truncates or pads a safe string to exactly width cells.
func Fit(s string, width int) string {
	s = Truncate(s, width)
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// FitLeft is Fit with the padding on the left (right-aligned).
func FitLeft(s string, width int) string {
	s = Truncate(s, width)
	if w := ansi.StringWidth(s); w < width {
		s = strings.Repeat(" ", width-w) + s
	}
	return s
}
