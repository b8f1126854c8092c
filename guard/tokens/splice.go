package tokens

import (
	"sort"
	"strings"
	"sync"
)

// A text cut at a split point, a position b where text[b-1] is an ASCII
// letter or digit and text[b] is a space, has as many tokens as its two
// halves together, whatever surrounds it: no alternative of either split
// pattern matches a letter or digit followed by a space, none scans past
// that space, and none looks behind. So a replacement made of parts of a
// long text (a truncated head, a preview's tail) can be counted from the
// counts remembered at split points inside those parts, tokenizing only
// the few bytes around each cut.

// markGap is the least distance between remembered split points: what is
// counted afresh around a cut is about twice this, and the marks cost 8
// bytes per gap of text.
const markGap = 192

// Index remembers token counts at split points of one text. It is built
// as parts of the text are counted, and is safe for concurrent use.
type Index struct {
	mu   sync.Mutex
	text string // the whole text, or "" when only prefixes are counted
	fwd  marks  // n: tokens of text[:pos]
	bwd  marks  // n: tokens of text[pos:], positions decreasing
}

type mark struct{ pos, n int32 }

type marks struct {
	list []mark
	// scanned: every split point the list could take is found below this
	// position (forward) or at or above it (backward).
	scanned int
	ready   bool
}

// NewIndex returns an empty index of text. Pass "" for a text only ever
// counted by its prefixes, which then carry the bytes themselves.
func NewIndex(text string) *Index { return &Index{text: text} }

// Part is a piece of a replacement: literal text, or Text taken from an
// indexed text at offset Off (Index non-nil).
type Part struct {
	Text  string
	Index *Index
	Off   int
}

// Lit is a literal part.
func Lit(s string) Part { return Part{Text: s} }

// Slice is the part text[off:off+len(s)] of the text ix indexes, s being
// those bytes.
func Slice(ix *Index, off int, s string) Part { return Part{Text: s, Index: ix, Off: off} }

// CountParts returns Count of the parts joined, counting the stretches
// between remembered split points from the index instead of the bytes.
func (c *Counter) CountParts(parts ...Part) int {
	var glue strings.Builder
	n := 0
	for _, p := range parts {
		lo, hi, inner, ok := p.Index.inner(c, p)
		if !ok {
			glue.WriteString(p.Text)
			continue
		}
		glue.WriteString(p.Text[:lo-p.Off])
		n += c.Count(glue.String()) + inner
		glue.Reset()
		glue.WriteString(p.Text[hi-p.Off:])
	}
	return n + c.Count(glue.String())
}

// inner finds the first and last remembered split points strictly inside
// part p and the tokens between them.
func (ix *Index) inner(c *Counter, p Part) (lo, hi, n int, ok bool) {
	if ix == nil || len(p.Text) < 2*markGap || p.Off+len(p.Text) >= 1<<31 {
		return 0, 0, 0, false
	}
	end := p.Off + len(p.Text)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	switch {
	case p.Off == 0:
		ix.fwd.forward(c, p.Text, end)
		return ix.fwd.between(p.Off, end, false)
	case ix.text != "" && end == len(ix.text):
		ix.bwd.backward(c, ix.text, p.Off)
		return ix.bwd.between(p.Off, end, true)
	case ix.text != "":
		ix.fwd.forward(c, ix.text, end)
		return ix.fwd.between(p.Off, end, false)
	}
	return 0, 0, 0, false
}

// forward extends the marks of text from its start until they reach the
// last split point before end; text holds at least text[:end].
func (m *marks) forward(c *Counter, text string, end int) {
	for {
		last, n := 0, int32(0)
		if k := len(m.list); k > 0 {
			last, n = int(m.list[k-1].pos), m.list[k-1].n
		}
		if end-last < 2*markGap {
			return
		}
		b := nextSplit(text, max(m.scanned, last+markGap), end)
		if b < 0 {
			m.scanned = max(m.scanned, end)
			return
		}
		m.list = append(m.list, mark{int32(b), n + int32(c.Count(text[last:b]))})
		m.scanned = b + 1
	}
}

// backward extends the marks of text from its end until they reach the
// first split point after start.
func (m *marks) backward(c *Counter, text string, start int) {
	if !m.ready {
		m.scanned, m.ready = len(text), true
	}
	for {
		last, n := len(text), int32(0)
		if k := len(m.list); k > 0 {
			last, n = int(m.list[k-1].pos), m.list[k-1].n
		}
		if last-start < 2*markGap {
			return
		}
		b := prevSplit(text, start+1, min(m.scanned, last-markGap))
		if b < 0 {
			m.scanned = min(m.scanned, start+1)
			return
		}
		m.list = append(m.list, mark{int32(b), n + int32(c.Count(text[b:last]))})
		m.scanned = b
	}
}

// between returns the outermost marks strictly inside (start, end) and the
// tokens between them. Forward marks rise and backward marks fall.
func (m *marks) between(start, end int, backward bool) (lo, hi, n int, ok bool) {
	l := m.list
	if !backward {
		i := sort.Search(len(l), func(i int) bool { return int(l[i].pos) > start })
		j := sort.Search(len(l), func(i int) bool { return int(l[i].pos) >= end }) - 1
		if i > j {
			return 0, 0, 0, false
		}
		return int(l[i].pos), int(l[j].pos), int(l[j].n - l[i].n), true
	}
	i := sort.Search(len(l), func(i int) bool { return int(l[i].pos) < end })
	j := sort.Search(len(l), func(i int) bool { return int(l[i].pos) <= start }) - 1
	if i > j {
		return 0, 0, 0, false
	}
	return int(l[j].pos), int(l[i].pos), int(l[j].n - l[i].n), true
}

// nextSplit returns the first split point b of text with from <= b < end,
// or -1.
func nextSplit(text string, from, end int) int {
	from = max(from, 1)
	for b := from; b < end; {
		i := strings.IndexByte(text[b:end], ' ')
		if i < 0 {
			return -1
		}
		b += i
		if alnum(text[b-1]) {
			return b
		}
		b++
	}
	return -1
}

// prevSplit returns the last split point b of text with from <= b < end,
// or -1.
func prevSplit(text string, from, end int) int {
	from = max(from, 1)
	for e := end; e > from; {
		i := strings.LastIndexByte(text[from:e], ' ')
		if i < 0 {
			return -1
		}
		b := from + i
		if alnum(text[b-1]) {
			return b
		}
		e = b
	}
	return -1
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
