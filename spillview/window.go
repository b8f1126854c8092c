package spillview

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// The lines around the window are read and converted by a Cmd and held in
// the model, so that neither View nor Update reads the file, and a line
// scrolled far to the right is converted once rather than on every frame.

// LinesMsg brings lines read for the window; the model drops it unless it
// is the latest read of the document it shows.
type LinesMsg struct {
	doc  *Document
	read int
	held heldLines
}

// shownLine is one line converted for display.
type shownLine struct {
	pieces []piece // the text read of it, whole, or why it could not be
	width  int     // of pieces
	note   *piece  // what is left unread, after the text; nil when none
}

// heldLines are the converted lines [first, first+len(lines)).
type heldLines struct {
	first int
	lines []shownLine
}

func (h heldLines) get(i int) (*shownLine, bool) {
	if i < h.first || i >= h.first+len(h.lines) {
		return nil, false
	}
	return &h.lines[i-h.first], true
}

func (h heldLines) holds(from, to int) bool {
	return from >= h.first && to <= h.first+len(h.lines)
}

// heldBudget bounds the text held beyond the lines on screen: a line is
// up to 64 KiB read, and escaped (tabs, control bytes) up to four times
// that, so three windows of such lines could hold 150 MB. Tests lower it.
var heldBudget = 16 << 20

// readLines reads and converts lines [from, to) of d, those on screen
// ([shown, shownEnd)) first, then those around them while their text
// stays within heldBudget; lines already held (never changed once
// converted) are taken as they are. I/O: it runs in a Cmd.
func readLines(d *Document, seen seenMap, read, from, to, shown, shownEnd int, held heldLines) LinesMsg {
	size := 0
	get := func(i int) shownLine {
		l, ok := held.get(i)
		if !ok {
			c := convertLine(d, seen, i)
			l = &c
		}
		for _, p := range l.pieces {
			size += len(p.text)
		}
		return *l
	}
	var lines []shownLine
	for i := shown; i < shownEnd; i++ {
		lines = append(lines, get(i))
	}
	first, last := shown, shownEnd // held: [first, last)
	var above []shownLine          // in reverse
	for size < heldBudget && (first > from || last < to) {
		if last < to {
			lines = append(lines, get(last))
			last++
		}
		if first > from && size < heldBudget {
			first--
			above = append(above, get(first))
		}
	}
	slices.Reverse(above)
	return LinesMsg{doc: d, read: read, held: heldLines{first: first, lines: append(above, lines...)}}
}

// convertLine reads line i and converts all that is read of it.
func convertLine(d *Document, seen seenMap, i int) shownLine {
	raw, from, rest, err := d.readLine(i)
	if err != nil {
		msg := termtext.Line(err.Error())
		w := termtext.Width(msg)
		return shownLine{pieces: []piece{{msg, w, toneError}}, width: w}
	}
	pieces := convert(raw, seen.clip(from, from+int64(len(raw))))
	l := shownLine{pieces: pieces, width: piecesWidth(pieces)}
	if rest > 0 {
		text := fmt.Sprintf(" … %s more bytes of this line not shown", human.Count(rest))
		l.note = &piece{text, termtext.Width(text), toneNote}
	}
	return l
}

// fill asks for the lines around the window when those it shows, and
// half a window either side, are not held or being read: a window each
// side, so that scrolling a line or a page shows lines already held.
func (m *Model) fill() tea.Cmd {
	if m.doc == nil || m.doc.Lines() == 0 {
		return nil
	}
	win := max(m.layout().win, 1)
	n := m.doc.Lines()
	shown, shownEnd := m.top, min(m.top+win, n)
	lo, hi := max(m.top-win/2, 0), min(m.top+win+win/2, n)
	asked := lo >= m.asked[0] && hi <= m.asked[1]
	switch {
	case m.held.holds(lo, hi):
		return nil
	case asked && m.reading:
		return nil // on its way
	case asked && m.held.holds(shown, shownEnd):
		return nil // it came back short (heldBudget): asked again when the screen leaves it
	}
	from, to := max(m.top-win, 0), min(m.top+2*win, n)
	m.reads++
	m.asked, m.reading = [2]int{from, to}, true
	d, seen, read, held := m.doc, m.seen, m.reads, m.held
	return func() tea.Msg { return readLines(d, seen, read, from, to, shown, shownEnd, held) }
}

// takeLines keeps lines read for the document shown by the latest read,
// unless they are for where the window was and what is held is for
// where it is: a move back needs no read, and the read of the move away
// would blank the screen.
func (m *Model) takeLines(msg LinesMsg) {
	if msg.doc != m.doc || m.doc == nil || msg.read != m.reads {
		return
	}
	m.reading = false
	lo, hi := m.top, min(m.top+max(m.layout().win, 1), m.doc.Lines())
	if !msg.held.holds(lo, hi) && m.held.holds(lo, hi) {
		return
	}
	m.held = msg.held
	m.revealColumn()
}
