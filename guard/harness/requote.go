package harness

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Requoted is the start of a result's serialization quoted once more,
// which is how harness-rs's truncation shows its head: kept per result, so
// that a new ceiling cuts it instead of escaping the text twice again.
// Safe for concurrent use.
type Requoted struct {
	mu sync.Mutex
	// inner is serdeString(serdeString(text)[:covered]) without its quotes;
	// covered ends at a character boundary.
	inner   string
	covered int
	whole   bool // covered is all of the serialization
}

// head cuts the serialization of text at keep bytes, back to a character
// boundary, and returns how many bytes it kept and those bytes quoted,
// without the quotes.
func (q *Requoted) head(text string, keep int) (kept int, inner string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	// The character after the cut must be there to know if it is one.
	if !q.whole && q.covered < keep+utf8.UTFMax {
		q.extend(text, max(keep+utf8.UTFMax, 2*q.covered))
	}
	// Walk the escapes ('\\' then '"' or '\\', one byte of the
	// serialization each) up to the cut.
	d, s, i := q.inner, 0, 0
	for s < keep {
		j := strings.IndexByte(d[i:], '\\')
		if j < 0 || s+j >= keep {
			i += min(keep-s, len(d)-i)
			s = keep
			break
		}
		s, i = s+j+1, i+j+2
	}
	if i >= len(d) {
		return q.covered, d
	}
	for i > 0 && !utf8.RuneStart(d[i]) { // never an escape
		i--
		s--
	}
	return s, d[:i]
}

// extend quotes at least n bytes of the serialization of text, or all.
func (q *Requoted) extend(text string, n int) {
	// Each byte of text gives at least one of the serialization, after
	// the opening quote.
	cut := min(len(text), n)
	for cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut++
	}
	serialized := serdeString(text[:cut])
	if cut < len(text) {
		serialized = serialized[:len(serialized)-1] // not the end: no closing quote
	}
	quoted := serdeString(serialized)
	q.inner, q.covered, q.whole = quoted[1:len(quoted)-1], len(serialized), cut == len(text)
}
