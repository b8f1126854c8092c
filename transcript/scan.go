package transcript

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"

	"github.com/spillway-dev/spillway/transcript/internal/masks"
)

// scanner walks one JSON text in place: the readers of Claude Code and
// Codex logs read the fields they want as the scanner passes them and skip
// the rest, and the scanner builds nothing.
//
// It reads what the readers have always read: the grammar of fastjson,
// which they were first written on. That is JSON, except that strings may
// hold raw control characters, invalid UTF-8 and unknown escapes (kept as
// written when unescaped), and a number is any run of digits, signs,
// points and exponents, or inf or nan in any case, with a sign or not;
// values nest at most maxScanDepth deep. FuzzScanner holds it to fastjson
// on any text, and jsonError gives fastjson's reason for a text it does
// not read.
type scanner struct {
	buf   []byte
	pos   int
	depth int
	bad   bool
	// opened is set by enter and cleared by the first more after it.
	opened bool
	// spaced is set whenever whitespace is passed over (see compact).
	spaced bool
	// keyBuf holds the last key read that had an escape, unescaped.
	keyBuf []byte
}

// maxScanDepth is how deeply values nest at most, the outermost at depth
// 1: fastjson's MaxDepth.
const maxScanDepth = 300

func (s *scanner) reset(b []byte) { *s = scanner{buf: b, keyBuf: s.keyBuf[:0]} }

// fail marks the text unreadable here. It moves to the end, so every
// method after it finds nothing and returns zero values.
func (s *scanner) fail() { s.bad, s.pos = true, len(s.buf) }

func (s *scanner) ws() {
	// Claude Code writes no whitespace between tokens: the common case is
	// one comparison, whitespace being at most ' '.
	if s.pos < len(s.buf) && s.buf[s.pos] > ' ' {
		return
	}
	s.spaces()
}

func (s *scanner) spaces() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
			s.spaced = true
		default:
			return
		}
	}
}

// peek returns the first byte of the next value, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.buf) {
		return s.buf[s.pos]
	}
	return 0
}

// enter consumes open ('{' or '['). A container at the deepest depth
// read must be empty.
func (s *scanner) enter(open byte) bool {
	if s.peek() != open || s.depth >= maxScanDepth-1 && !s.emptyAt(s.pos+1) {
		s.fail()
		return false
	}
	s.pos++
	s.depth++
	s.opened = true
	return true
}

// emptyAt tells whether only whitespace and a closing bracket follow i.
func (s *scanner) emptyAt(i int) bool {
	for ; i < len(s.buf); i++ {
		switch s.buf[i] {
		case ' ', '\t', '\n', '\r':
		case '}', ']':
			return true
		default:
			return false
		}
	}
	return false
}

// more reports whether the object or array entered last has another
// member, consuming the comma before it, or the closing byte after the
// last.
func (s *scanner) more(close byte) bool {
	if s.bad {
		return false
	}
	first := s.opened
	s.opened = false
	c := s.peek()
	if c == ',' && !first {
		s.pos++
		if s.pos < len(s.buf) {
			if c := s.buf[s.pos]; c > ' ' && c != close {
				return true
			}
		}
		s.ws()
		if s.pos < len(s.buf) && s.buf[s.pos] != close {
			return true
		}
		s.fail()
		return false
	}
	switch {
	case c == close:
		s.pos++
		s.depth--
		return false
	case first:
		return true
	case c == ',':
		s.pos++
		s.ws()
		if s.pos < len(s.buf) && s.buf[s.pos] != close {
			return true
		}
	}
	s.fail()
	return false
}

// member is more('}') and, when there is another member, key: the
// object's members one by one, each with its key read. A member written
// as Claude Code writes it, comma, key and colon without whitespace and a
// key without escapes, is read in one step.
func (s *scanner) member() (key []byte, ok bool) {
	if b, i := s.buf, s.pos; !s.bad && i < len(b) {
		q := i // where the key's opening quote should be
		if b[i] == ',' && !s.opened {
			q++
		}
		if q < len(b) && b[q] == '"' && (q > i || s.opened) && len(b)-q > 17 {
			// The first quote or backslash among the next 16 bytes (at is
			// 16 if there is none), without a branch: keys end in either
			// word as often.
			rest := b[q+1:]
			t1 := bits.TrailingZeros64(quoteOrBackslashBits(binary.LittleEndian.Uint64(rest)))
			t2 := bits.TrailingZeros64(quoteOrBackslashBits(binary.LittleEndian.Uint64(rest[8:])))
			at := t1/8 + t1/64*(t2/8)
			if at == 16 {
				// A longer key (usage's cache_creation_input_tokens and
				// its kin, on every response line): the search goes on.
				if at = quoteOrBackslash(rest, 16); at < 0 {
					at = len(rest)
				}
			}
			if at+1 < len(rest) && rest[at] == '"' && rest[at+1] == ':' {
				s.opened = false
				s.pos = q + 1 + at + 2
				return rest[:at], true
			}
		}
	}
	if !s.more('}') {
		return nil, false
	}
	return s.key(), true
}

// key reads the next object key and the colon after it. A key with an
// escape is unescaped into s.keyBuf, which holds it until the next such key.
func (s *scanner) key() []byte {
	k, esc := s.raw()
	if esc {
		s.keyBuf = unescape(s.keyBuf[:0], k)
		k = s.keyBuf
	}
	if s.pos < len(s.buf) && s.buf[s.pos] == ':' {
		s.pos++
		return k
	}
	s.colon()
	return k
}

func (s *scanner) colon() {
	if s.peek() != ':' {
		s.fail()
		return
	}
	s.pos++
}

// str reads a string and returns its text, unescaped as fastjson
// unescapes it: the line's own bytes where it has no escape, else a copy.
// Like fastjson, str does not check UTF-8.
func (s *scanner) str() []byte {
	raw, esc := s.raw()
	if esc {
		return unescape(nil, raw)
	}
	return raw
}

// raw reads a string and returns its contents as written, and whether
// they hold an escape.
func (s *scanner) raw() (raw []byte, esc bool) {
	if s.peek() != '"' {
		s.fail()
		return nil, false
	}
	// quoteOrBackslash's first steps, here: most strings end in them.
	b, start := s.buf, s.pos+1
	from := start // where the search for the end goes on
	if rest := b[start:]; len(rest) >= 16 {
		f1 := quoteOrBackslashBits(binary.LittleEndian.Uint64(rest))
		f2 := quoteOrBackslashBits(binary.LittleEndian.Uint64(rest[8:]))
		if f1|f2 != 0 {
			at := bits.TrailingZeros64(f1) / 8
			if f1 == 0 {
				at = 8 + bits.TrailingZeros64(f2)/8
			}
			if rest[at] == '"' {
				s.pos = start + at + 1
				return rest[:at], false
			}
			return s.escaped(start, start+at)
		}
		from += 16 // ids and times: the search goes on past what was read
	}
	end := quoteOrBackslash(b, from)
	if end >= 0 && b[end] == '"' {
		s.pos = end + 1
		return b[start:end], false
	}
	if end < 0 {
		s.fail()
		return nil, false
	}
	return s.escaped(start, end)
}

// escaped is raw for a string whose contents start at start and hold a
// backslash at at.
func (s *scanner) escaped(start, at int) ([]byte, bool) {
	end := s.stringEnd(at)
	if end < 0 {
		s.fail()
		return nil, false
	}
	s.pos = end + 1
	return s.buf[start:end], true
}

// stringEnd is stringEnd from at, which is not inside an escape, a block
// at a time where the rest of the text is long.
func (s *scanner) stringEnd(at int) int {
	if masks.Vector && len(s.buf)-at >= 128 {
		return stringEndBlocks(s.buf, at)
	}
	return stringEnd(s.buf, at)
}

// quoteOrBackslash returns the index of the first quote or backslash at or
// after b[i], -1 if there is none. It reads two words a step: most
// strings of a record are ids and keys a few words long.
func quoteOrBackslash(b []byte, i int) int {
	rest := b[i:]
	for step := 0; len(rest) >= 16; step++ {
		if step == 2 && masks.Vector && len(rest) >= 128 {
			// A long string (a signature, a file written): on a block
			// at a time.
			return quoteOrBackslashBlocks(b, len(b)-len(rest))
		}
		w1, w2 := binary.LittleEndian.Uint64(rest), binary.LittleEndian.Uint64(rest[8:])
		f1, f2 := quoteOrBackslashBits(w1), quoteOrBackslashBits(w2)
		if f1|f2 != 0 {
			if f1 != 0 {
				return len(b) - len(rest) + bits.TrailingZeros64(f1)/8
			}
			return len(b) - len(rest) + 8 + bits.TrailingZeros64(f2)/8
		}
		rest = rest[16:]
	}
	if len(rest) >= 8 {
		if f := quoteOrBackslashBits(binary.LittleEndian.Uint64(rest)); f != 0 {
			return len(b) - len(rest) + bits.TrailingZeros64(f)/8
		}
		rest = rest[8:]
	}
	for j, c := range rest {
		if c == '"' || c == '\\' {
			return len(b) - len(rest) + j
		}
	}
	return -1
}

// quoteOrBackslashBits has the high bit set of the first byte of w (in
// memory order) that is a quote or a backslash, and maybe of later bytes.
func quoteOrBackslashBits(w uint64) uint64 {
	q := w ^ ('"' * ones)
	e := w ^ ('\\' * ones)
	return ((q-ones)&^q | (e-ones)&^e) & highs
}

// stringEnd returns the index of the quote that ends the string whose
// contents start at b[i], -1 if none does. As in fastjson, a quote ends
// the string unless an odd number of backslashes precedes it.
func stringEnd(b []byte, i int) int {
	for from := i; ; {
		q := bytes.IndexByte(b[from:], '"')
		if q < 0 {
			return -1
		}
		q += from
		j := q
		for j > i && b[j-1] == '\\' {
			j--
		}
		if (q-j)%2 == 0 {
			return q
		}
		from = q + 1
	}
}

// strLen reads a string and returns its length once unescaped and the
// string as written, quotes included; measured is false where
// measureString does not measure it (invalid UTF-8, a rare escape), and
// the caller then unescapes it.
func (s *scanner) strLen() (n int, quoted []byte, measured bool) {
	if s.peek() != '"' {
		s.fail()
		return 0, nil, false
	}
	start := s.pos
	end, n, ok := measureString(s.buf, start+1)
	if !ok {
		if end = s.stringEnd(start + 1); end < 0 {
			s.fail()
			return 0, nil, false
		}
		n = 0
	}
	s.pos = end + 1
	return n, s.buf[start:s.pos], ok
}

// countState is what a token count's value is, as the readers take it.
type countState uint8

const (
	countNone countState = iota // absent or null: 0
	countOK                     // an integer from 0 to maxTokens
	countBad                    // not a non-negative integer
	countHigh                   // an integer above maxTokens, not counted
)

// count reads a token count: a value of any kind.
func (s *scanner) count() (int64, countState) {
	c := s.peek()
	if c >= '0' && c <= '9' {
		// The common case: a few digits and the end of the number.
		b, i := s.buf, s.pos
		var n int64
		for i < len(b) && i-s.pos < 18 && b[i] >= '0' && b[i] <= '9' {
			n = n*10 + int64(b[i]-'0')
			i++
		}
		if i == len(b) || !numberByte[b[i]] {
			s.pos = i
			if n > maxTokens {
				return n, countHigh
			}
			return n, countOK
		}
	}
	v := s.skip()
	switch {
	case s.bad:
		return 0, countNone
	case string(v) == "null":
		return 0, countNone
	}
	return parseCount(v)
}

// parseCount classifies a count written v, as fastjson's Int64 reads a
// number: an optional minus and decimal digits that fit an int64.
func parseCount(v []byte) (int64, countState) {
	digits := v
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return 0, countBad
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, countBad
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	switch {
	case err != nil || n < 0:
		return 0, countBad
	case n > maxTokens:
		return n, countHigh
	}
	return n, countOK
}

// intOf is fastjson's GetInt64 of v: the integer v is written as, 0 for
// anything else.
func intOf(v []byte) int64 {
	digits := v
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return 0
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// isTrue reads a value of any kind and tells whether it is true.
func (s *scanner) isTrue() bool {
	if s.peek() == 't' {
		return s.literal() == 't'
	}
	s.skip()
	return false
}

// literal reads true, false or null (or nan, a number fastjson reads
// where null is misspelled) and returns its first byte.
func (s *scanner) literal() byte {
	c := s.peek()
	var word string
	switch c {
	case 't':
		word = "true"
	case 'f':
		word = "false"
	case 'n':
		word = "null"
	default:
		s.fail()
		return 0
	}
	if len(s.buf)-s.pos < len(word) || string(s.buf[s.pos:s.pos+len(word)]) != word {
		if c == 'n' && len(s.buf)-s.pos >= 3 && equalFold3(s.buf[s.pos:], "nan") {
			s.pos += 3
			return '0'
		}
		s.fail()
		return 0
	}
	s.pos += len(word)
	return c
}

// kind is the kind of the next value, by its first byte: '{', '[', '"',
// 't', 'f', 'n' for null, '0' for a number; 0 at the end.
func (s *scanner) kind() byte {
	switch c := s.peek(); c {
	case '{', '[', '"', 't', 'f', 0:
		return c
	case 'n':
		if len(s.buf)-s.pos >= 4 && string(s.buf[s.pos:s.pos+4]) == "null" {
			return 'n'
		}
	}
	return '0'
}

// skip reads past one value of any kind and returns its bytes.
func (s *scanner) skip() []byte {
	c := s.peek()
	start := s.pos
	switch c {
	case '{':
		s.enter('{')
		for s.more('}') {
			s.skipString() // a key, unread, so escapes are fine
			s.colon()
			s.skip()
		}
	case '[':
		s.enter('[')
		for s.more(']') {
			s.skip()
		}
	case '"':
		s.skipString()
	case 't', 'f', 'n':
		s.literal()
	default:
		s.number()
	}
	if s.bad {
		return nil
	}
	return s.buf[start:s.pos]
}

// skipString reads past a string, escapes and all.
func (s *scanner) skipString() {
	if s.peek() != '"' {
		s.fail()
		return
	}
	end := quoteOrBackslash(s.buf, s.pos+1)
	if end >= 0 && s.buf[end] == '\\' {
		end = s.stringEnd(end)
	}
	if end < 0 {
		s.fail()
		return
	}
	s.pos = end + 1
}

// numberByte marks the bytes of a number as fastjson reads one.
var numberByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true,
	'8': true, '9': true, '.': true, '-': true, '+': true, 'e': true, 'E': true}

// number reads a number as fastjson does: the bytes up to the first that
// numberByte does not mark, or inf or nan in any case after a sign or
// none.
func (s *scanner) number() {
	b, i := s.buf, s.pos
	for i < len(b) && numberByte[b[i]] {
		i++
	}
	switch n := i - s.pos; {
	case i == len(b) && n > 0:
	case n == 0 || n == 1 && (b[s.pos] == '-' || b[s.pos] == '+'):
		if len(b)-i >= 3 && (equalFold3(b[i:], "inf") || equalFold3(b[i:], "nan")) {
			i += 3
			break
		}
		s.fail()
		return
	}
	s.pos = i
}

// equalFold3 tells whether the first three bytes of b are word in any
// case, word being lower-case letters.
func equalFold3(b []byte, word string) bool {
	for i := range 3 {
		if b[i]|0x20 != word[i] {
			return false
		}
	}
	return true
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.ws()
	return !s.bad && s.pos == len(s.buf)
}
