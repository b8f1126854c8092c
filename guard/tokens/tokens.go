// Package tokens counts the tokens of a text in OpenAI's o200k_base and
// cl100k_base BPE encodings, exactly as tiktoken-go's EncodeOrdinary does but
// in near-linear time and, however long the text's words or runs of spaces,
// in memory a few hundred kilobytes beyond the text.
package tokens

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/internal/validutf8"
)

// Encoding names a BPE encoding.
type Encoding string

// The supported encodings.
const (
	O200kBase  Encoding = "o200k_base"
	Cl100kBase Encoding = "cl100k_base"
)

// ParseEncoding accepts an encoding's full name or its short form
// ("o200k", "cl100k"), in any case.
func ParseEncoding(s string) (Encoding, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "o200k_base", "o200k":
		return O200kBase, nil
	case "cl100k_base", "cl100k":
		return Cl100kBase, nil
	}
	return "", fmt.Errorf("unknown encoding %q (want o200k_base or cl100k_base)", s)
}

// Counter counts tokens of one encoding. It is safe for concurrent use.
type Counter struct {
	enc    Encoding
	t      *tables
	pieces *pieceCache
	short  *shortMemo
	window int // longest piece merged at once
}

type shared struct {
	once sync.Once
	c    *Counter
	err  error
}

var counters = map[Encoding]*shared{
	O200kBase:  {},
	Cl100kBase: {},
}

// Get returns the shared Counter of enc, loading its ranks on first use.
func Get(enc Encoding) (*Counter, error) {
	s, ok := counters[enc]
	if !ok {
		return nil, fmt.Errorf("unknown encoding %q", string(enc))
	}
	s.once.Do(func() {
		t, err := loadTables(enc)
		if err != nil {
			s.err = err
			return
		}
		s.c = newCounter(enc, t)
	})
	return s.c, s.err
}

func newCounter(enc Encoding, t *tables) *Counter {
	return &Counter{enc: enc, t: t, pieces: newPieceCache(), short: new(shortMemo), window: window}
}

// Encoding returns the counter's encoding.
func (c *Counter) Encoding() Encoding { return c.enc }

// Count returns the number of tokens of text. Special tokens such as
// <|endoftext|> are plain text, and each byte of invalid UTF-8 counts as a
// U+FFFD, as in tiktoken-go, which encodes the text's runes.
func (c *Counter) Count(text string) int {
	valid := validutf8.String(text)
	next := c.t.next
	n := 0
	for p := 0; p < len(text); {
		e := next(text, p)
		if e <= p || e > len(text) {
			// Unreachable: every rune starts a piece of some alternative.
			e = p + 1
		}
		piece := text[p:e]
		if !valid && !utf8.ValidString(piece) {
			piece = replaceInvalid(piece)
		}
		n += c.countPiece(piece)
		p = e
	}
	return n
}

// replaceInvalid replaces each byte of an invalid UTF-8 sequence by U+FFFD,
// which is what converting the string to []rune does. The split sees each
// such byte as a rune of U+FFFD's class, one byte wide, so a text splits
// into the same pieces before and after the replacement, and only the
// pieces that have invalid bytes are copied.
func replaceInvalid(s string) string {
	size := len(s)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			size += len("\uFFFD") - 1
		}
		i += w
	}
	var b strings.Builder
	b.Grow(size)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}
