package transcript

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// scanner walks one JSON text in place, for the Claude reader's fast path
// (claudescan.go): the caller reads the fields it wants as the scanner
// passes them and skips the rest, and the scanner builds nothing.
//
// It reads less than fastjson does: strict JSON, except that strings may
// hold raw control characters and unknown escapes, as fastjson lets them.
// It gives up (bad) on some of that too: keys and kept strings with
// escapes, nesting deeper than maxScanDepth, integers that are negative,
// fractional or too long. A line it gives up on is read again by the
// general path. FuzzScanner checks that it accepts nothing fastjson
// refuses; TestSizesOnly and FuzzClaude, that what it reads is what the
// general path reads.
type scanner struct {
	buf   []byte
	pos   int
	depth int
	bad   bool
	// opened is set by enter and cleared by the first more after it.
	opened bool
	// spaced is set whenever whitespace is passed over (see canonical).
	spaced bool
}

const maxScanDepth = 64

func (s *scanner) reset(b []byte) { *s = scanner{buf: b} }

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

// enter consumes open ('{' or '[').
func (s *scanner) enter(open byte) bool {
	if s.peek() != open || s.depth == maxScanDepth {
		s.fail()
		return false
	}
	s.pos++
	s.depth++
	s.opened = true
	return true
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

// key reads the next object key and the colon after it.
func (s *scanner) key() []byte {
	k := s.str()
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

// str reads a string with no escapes and returns its bytes, the line's
// own. A string with escapes makes the scanner give up: the general path
// unescapes it. Like fastjson, str does not check UTF-8.
func (s *scanner) str() []byte {
	if s.peek() != '"' {
		s.fail()
		return nil
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
			if rest[at] != '"' {
				s.fail()
				return nil
			}
			s.pos = start + at + 1
			return rest[:at]
		}
		from += 16 // ids and times: the search goes on past what was read
	}
	end := quoteOrBackslash(b, from)
	if end < 0 || b[end] != '"' {
		s.fail()
		return nil
	}
	s.pos = end + 1
	return b[start:end]
}

// quoteOrBackslash returns the index of the first quote or backslash at or
// after b[i], -1 if there is none. It reads two words a step: most
// strings of a record are ids and keys a few words long.
func quoteOrBackslash(b []byte, i int) int {
	rest := b[i:]
	for step := 0; len(rest) >= 16; step++ {
		if step == 2 && vectorStrings && len(rest) >= 128 {
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

// strLen reads a string and returns its length once unescaped, as the
// general path measures it, and the string as written, quotes included. A
// string measureString does not measure makes the scanner give up.
func (s *scanner) strLen() (n int, quoted []byte) {
	if s.peek() != '"' {
		s.fail()
		return 0, nil
	}
	start := s.pos
	end, n, ok := measureString(s.buf, start+1)
	if !ok {
		s.fail()
		return 0, nil
	}
	s.pos = end + 1
	return n, s.buf[start:s.pos]
}

// int reads a non-negative integer of up to 18 digits, which fits an
// int64.
func (s *scanner) int() int64 {
	s.ws()
	start := s.pos
	var n int64
	for s.pos < len(s.buf) && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
		n = n*10 + int64(s.buf[s.pos]-'0')
		s.pos++
	}
	digits := s.pos - start
	if digits == 0 || digits > 1 && s.buf[start] == '0' || digits > 18 || s.numberGoesOn() {
		s.fail()
		return 0
	}
	return n
}

// numberGoesOn tells whether the byte at pos would continue a number.
func (s *scanner) numberGoesOn() bool {
	if s.pos == len(s.buf) {
		return false
	}
	switch s.buf[s.pos] {
	case '.', 'e', 'E', '+', '-':
		return true
	}
	return s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9'
}

// literal reads true, false or null and returns its first byte.
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
		s.fail()
		return 0
	}
	s.pos += len(word)
	return c
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
		if vectorStrings && len(s.buf)-end >= 128 {
			end = stringEndBlocks(s.buf, end)
		} else {
			end = stringEnd(s.buf, end)
		}
	}
	if end < 0 {
		s.fail()
		return
	}
	s.pos = end + 1
}

// number reads a number in JSON's strict grammar.
func (s *scanner) number() {
	b, i := s.buf, s.pos
	digits := func() int {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch n := digits(); {
	case n == 0, n > 1 && b[i-n] == '0':
		s.fail()
		return
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			s.fail()
			return
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			s.fail()
			return
		}
	}
	s.pos = i
	if s.numberGoesOn() {
		s.fail()
	}
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.ws()
	return !s.bad && s.pos == len(s.buf)
}
