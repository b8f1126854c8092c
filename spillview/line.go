package spillview

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
)

// tone is how a piece of text is styled.
type tone uint8

const (
	toneSeen tone = iota
	toneUnseen
	toneMatch
	toneCurrent
	toneNote
	toneError
	toneCount
)

// paint applies a style. Most styles only set attributes and colours: for
// those the escape sequences around a probe are kept and wrapped around any
// text, which is much cheaper per frame than Style.Render.
type paint struct {
	pre, suf string
	style    lipgloss.Style
	slow     bool // a style that lays out or transforms: always Render
}

func newPaint(st lipgloss.Style) paint {
	const probe = "x"
	p := paint{style: st, slow: true}
	if st.GetTransform() != nil || st.GetHorizontalFrameSize() != 0 || st.GetVerticalFrameSize() != 0 ||
		st.GetWidth() != 0 || st.GetHeight() != 0 || st.GetMaxWidth() != 0 || st.GetMaxHeight() != 0 {
		return p
	}
	out := st.Render(probe)
	i := strings.Index(out, probe)
	if i < 0 || strings.Count(out, probe) != 1 || ansi.StringWidth(out) != 1 {
		return p
	}
	p.pre, p.suf, p.slow = out[:i], out[i+len(probe):], false
	return p
}

func (p paint) render(s string) string {
	if p.slow {
		return p.style.Render(s)
	}
	if s == "" {
		return ""
	}
	return p.pre + s + p.suf
}

// painter holds the paints of the styles drawn once per line.
type painter struct {
	tone            [toneCount]paint
	number, current paint
	// fast: no paint adds cells, so a row's width is its text's.
	fast bool
}

func newPainter(s *themes.Styles) *painter {
	p := &painter{number: newPaint(s.LineNumber), current: newPaint(s.Current)}
	for t, st := range map[tone]lipgloss.Style{
		toneSeen: s.Seen, toneUnseen: s.Unseen, toneMatch: s.Match, toneCurrent: s.Current, toneNote: s.Faint, toneError: s.Error,
	} {
		p.tone[t] = newPaint(st)
	}
	p.fast = !p.number.slow && !p.current.slow
	for _, t := range p.tone {
		p.fast = p.fast && !t.slow
	}
	return p
}

// piece is safe (escaped) text of one tone and its width in cells.
type piece struct {
	text  string
	width int
	tone  tone
}

// convertChunk bounds the bytes escaped into one piece, so that cutting a
// long line at the window's edges measures little of it again.
const convertChunk = 1 << 10

// cells is the width of a piece that may be absent.
func (p *piece) cells() int {
	if p == nil {
		return 0
	}
	return p.width
}

// matchColumn is the column where query first matches in the pieces'
// text, as highlight marks it.
func matchColumn(pieces []piece, query string) (col int, found bool) {
	for _, p := range highlight(pieces, query, toneCurrent) {
		if p.tone == toneCurrent { // convert makes none of this tone
			return col, true
		}
		col += p.width
	}
	return 0, false
}

// convert escapes raw into pieces split where the seen ranges (relative to
// raw) begin and end, expanding tabs itself so that tab stops stay right
// across pieces. A piece holds about convertChunk bytes of raw at most, of
// one tone: a piece per tab made a 64 KiB line of tabs 3 MB of pieces.
func convert(raw []byte, seen []Range) []piece {
	seen = snapRanges(raw, seen)
	var pieces []piece
	var run strings.Builder // the piece being made
	runW, runRaw := 0, 0
	runTone := toneSeen
	flush := func() {
		if run.Len() > 0 {
			pieces = append(pieces, piece{run.String(), runW, runTone})
		}
		run, runW, runRaw = strings.Builder{}, 0, 0
	}
	col, pos, ri := 0, 0, 0
	var marks termtext.Marks // carried across pieces: a mark's run may span them
	for pos < len(raw) {
		for ri < len(seen) && seen[ri].To <= int64(pos) {
			ri++
		}
		in := ri < len(seen) && seen[ri].From <= int64(pos)
		t := toneUnseen
		if in {
			t = toneSeen
		}
		if t != runTone || runRaw >= convertChunk {
			flush()
			runTone = t
		}
		end := len(raw)
		if ri < len(seen) {
			end = int(seen[ri].From)
			if in {
				end = int(seen[ri].To)
			}
		}
		if raw[pos] == '\t' {
			n := termtext.TabWidth - col%termtext.TabWidth
			run.WriteString("        "[:n])
			runW += n
			runRaw++
			col += n
			pos++
			marks = 0
			continue
		}
		if k := bytes.IndexByte(raw[pos:end], '\t'); k >= 0 {
			end = pos + k
		}
		room := convertChunk - runRaw
		if room < utf8.UTFMax { // too little for a rune: a piece of its own
			flush()
			room = convertChunk
		}
		if end-pos > room {
			end = backToRune(raw, pos, pos+room)
		}
		text := marks.Line(string(raw[pos:end]))
		w := len(text)
		if !printableASCII(text) {
			w = termtext.Width(text)
		}
		run.WriteString(text)
		runW += w
		runRaw += end - pos
		col += w
		pos = end
	}
	flush()
	return pieces
}

// snapRanges moves range ends that fall inside a UTF-8 sequence back to
// its first byte, so that no rune is split into two replacement marks.
func snapRanges(raw []byte, rs []Range) []Range {
	snap := func(b int64) int64 {
		for k := 0; k < utf8.UTFMax-1 && b > 0 && b < int64(len(raw)) && !utf8.RuneStart(raw[b]); k++ {
			b--
		}
		return b
	}
	out := rs[:0:0]
	for _, r := range rs {
		r.From, r.To = snap(r.From), snap(r.To)
		if r.From < r.To {
			out = append(out, r)
		}
	}
	return out
}

// backToRune moves end back to a rune start, if one is near.
func backToRune(raw []byte, pos, end int) int {
	for e := end; e > pos && e > end-utf8.UTFMax; e-- {
		if utf8.RuneStart(raw[e]) {
			return e
		}
	}
	return end
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// highlight splits pieces where query matches (case-insensitively) in
// their text and gives the matches tone t.
func highlight(pieces []piece, query string, t tone) []piece {
	var all strings.Builder
	for _, p := range pieces {
		all.WriteString(p.text)
	}
	spans := findFold(all.String(), query)
	if len(spans) == 0 {
		return pieces
	}
	out := make([]piece, 0, len(pieces)+2*len(spans))
	emit := func(text string, t tone) {
		w := len(text)
		if !printableASCII(text) {
			w = termtext.Width(text)
		}
		out = append(out, piece{text, w, t})
	}
	off, si := 0, 0
	for _, p := range pieces {
		a, b := off, off+len(p.text)
		off = b
		for pos := a; pos < b; {
			for si < len(spans) && spans[si][1] <= pos {
				si++
			}
			if si < len(spans) && spans[si][0] <= pos {
				e := min(spans[si][1], b)
				emit(p.text[pos-a:e-a], t)
				pos = e
				continue
			}
			e := b
			if si < len(spans) {
				e = min(b, spans[si][0])
			}
			emit(p.text[pos-a:e-a], p.tone)
			pos = e
		}
	}
	return out
}

// findFold returns the byte spans of s where query occurs, comparing
// lowercased runes as Document.Search does.
func findFold(s, query string) [][2]int {
	q := []rune(strings.ToLower(query))
	if len(q) == 0 {
		return nil
	}
	rs := make([]rune, 0, len(s))
	offs := make([]int, 0, len(s)+1)
	for i, r := range s {
		rs = append(rs, unicode.ToLower(r))
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	var spans [][2]int
	for i := 0; i+len(q) <= len(rs); {
		if runesEqual(rs[i:i+len(q)], q) {
			spans = append(spans, [2]int{offs[i], offs[i+len(q)]})
			i += len(q)
			continue
		}
		i++
	}
	return spans
}

func runesEqual(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// cut keeps the cells [x, x+w) of the pieces.
func cut(pieces []piece, x, w int) []piece {
	var out []piece
	col := 0
	for _, p := range pieces {
		a, b := col, col+p.width
		col = b
		if b <= x || p.width == 0 {
			continue
		}
		if a >= x+w {
			break
		}
		if a >= x && b <= x+w {
			out = append(out, p)
			continue
		}
		l, r := max(x-a, 0), min(p.width, x+w-a)
		out = append(out, piece{cutCells(p.text, l, r), r - l, p.tone})
	}
	return out
}

// cutCells keeps the cells [l, r) of safe text s, blanking the part of a
// wide character that straddles an edge so the columns stay put.
func cutCells(s string, l, r int) string {
	var b strings.Builder
	for col := 0; s != "" && col < r; {
		c, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		s = s[len(c):]
		switch {
		case col >= l && col+w <= r:
			b.WriteString(c)
		case col+w > l:
			b.WriteString(strings.Repeat(" ", min(col+w, r)-max(col, l)))
		}
		col += w
	}
	return b.String()
}

// group joins neighbouring pieces of one tone, so each run is styled once.
func group(pieces []piece) []piece {
	var out []piece
	for _, p := range pieces {
		if n := len(out); n > 0 && out[n-1].tone == p.tone {
			out[n-1].text += p.text
			out[n-1].width += p.width
			continue
		}
		out = append(out, p)
	}
	return out
}

func piecesWidth(pieces []piece) int {
	w := 0
	for _, p := range pieces {
		w += p.width
	}
	return w
}
