package spillview

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

const (
	glyphSeen   = "│"
	glyphUnseen = "┆"
	glyphPart   = "╎"
	glyphMore   = "›" // the line goes on past the right edge
)

// layout is the rows the pane gives to each part.
type layout struct {
	title, note, status bool
	win                 int
}

// layout favours the text window, then the status line, the title and
// the note, as the height shrinks.
func (m Model) layout() layout {
	var l layout
	rest := m.height
	if rest >= 2 {
		l.status = true
		rest--
	}
	if rest >= 2 {
		l.title = true
		rest--
	}
	if m.src.Note != "" && rest >= 4 {
		l.note = true
		rest--
	}
	l.win = rest
	return l
}

// separators reports whether gap separator rows are drawn: not in a
// window too short to show a separator and text.
func (m Model) separators() bool { return m.layout().win >= 3 }

// rowRef is one window row: a line, or the separator before a gap.
type rowRef struct {
	line int
	sep  bool
	gap  gap
}

func (m Model) rows(top, n int) []rowRef {
	if m.doc == nil || n <= 0 {
		return nil
	}
	seps := m.separators()
	out := make([]rowRef, 0, n)
	for l := top; l < m.doc.Lines() && len(out) < n; l++ {
		if g, ok := m.seen.gapAt(l); ok && seps {
			out = append(out, rowRef{line: l, sep: true, gap: g})
			if len(out) == n {
				break
			}
		}
		out = append(out, rowRef{line: l})
	}
	return out
}

// gutter is the line-number column and the seen marker before the text.
type gutter struct {
	numW           int
	number, marker bool
}

func (m Model) gutter() gutter {
	g := gutter{numW: 1}
	if m.doc != nil {
		g.numW = len(strconv.Itoa(m.doc.Lines()))
	}
	switch {
	case m.width >= g.numW+3+10:
		g.number, g.marker = true, true
	case m.width >= 6:
		g.marker = true
	}
	return g
}

func (g gutter) width() int {
	w := 0
	if g.number {
		w += g.numW + 1
	}
	if g.marker {
		w += 2
	}
	return w
}

func (m Model) textWidth() int { return max(m.width-m.gutter().width(), 0) }

// View draws the pane in exactly width×height cells.
func (m Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.help {
		return m.helpView()
	}
	l := m.layout()
	win := m.rows(m.top, l.win)
	out := make([]string, 0, m.height)
	if l.title {
		out = append(out, termtext.Fit(m.titleRow(win), m.width))
	}
	if l.note {
		out = append(out, termtext.Fit(m.noteRow(), m.width))
	}
	out = append(out, m.windowRows(win, l.win)...)
	if l.status {
		out = append(out, termtext.Fit(m.statusRow(win), m.width))
	}
	return strings.Join(out, "\n")
}

// titleRow is the title, then the size and the lines shown, then the
// legend unless the note row has room for it. The title is cut first.
func (m Model) titleRow(win []rowRef) string {
	s := m.styles
	title := s.Title.Render(termtext.Line(m.src.Title))
	if m.doc == nil {
		return termtext.Truncate(title, m.width)
	}
	lines := human.Count(int64(m.doc.Lines()))
	info := fmt.Sprintf("%s bytes · %s %s", human.Count(m.doc.Size()), lines, plural(m.doc.Lines(), "line", "lines"))
	if first, last, ok := shownLines(win); ok {
		info = fmt.Sprintf("%s bytes · lines %s–%s of %s", human.Count(m.doc.Size()), human.Count(int64(first+1)), human.Count(int64(last+1)), lines)
	}
	right := s.Subtitle.Render(info)
	if legend := m.legend(); legend != "" && !m.legendOnNote() {
		right += "  " + legend
	}
	if m.src.Title == "" {
		return termtext.Truncate(right, m.width)
	}
	tw, rw := termtext.Width(title), termtext.Width(right)
	if room := m.width - rw - 2; room < tw && room < 16 {
		// Too narrow for both: the title first, then what fits.
		return termtext.Truncate(title+s.Subtitle.Render(" · ")+right, m.width)
	} else if room < tw {
		title = termtext.Truncate(title, room)
	}
	return title + strings.Repeat(" ", max(m.width-termtext.Width(title)-rw, 2)) + right
}

// legend explains the seen markers; empty when the model saw everything.
func (m Model) legend() string {
	if m.doc == nil || m.seen.all {
		return ""
	}
	s := m.styles
	return s.Seen.Render(glyphSeen) + s.Subtitle.Render("seen ") +
		s.Unseen.Render(glyphUnseen) + s.Subtitle.Render("unseen ") +
		s.Seen.Render(glyphPart) + s.Subtitle.Render("part")
}

// legendOnNote reports that the legend fits after the note.
func (m Model) legendOnNote() bool {
	return m.layout().note && termtext.Width(termtext.Line(m.src.Note))+2+termtext.Width(m.legend()) <= m.width
}

func (m Model) noteRow() string {
	note := m.styles.Muted.Render(termtext.Line(m.src.Note))
	if m.legendOnNote() {
		return spread(note, m.legend(), m.width)
	}
	return termtext.Truncate(note, m.width)
}

func shownLines(win []rowRef) (first, last int, ok bool) {
	for _, r := range win {
		if !r.sep {
			if !ok {
				first, ok = r.line, true
			}
			last = r.line
		}
	}
	return first, last, ok
}

func (m Model) windowRows(win []rowRef, n int) []string {
	if n <= 0 {
		return nil
	}
	s := m.styles
	out := make([]string, 0, n)
	switch {
	case m.err != nil:
		out = append(out, s.Error.Render(termtext.Truncate(termtext.Line(m.err.Error()), m.width)))
	case m.doc == nil && m.loading:
		out = append(out, s.Muted.Render(termtext.Truncate("opening…", m.width)))
	case m.doc == nil:
		out = append(out, s.Muted.Render(termtext.Truncate("nothing to show", m.width)))
	case m.doc.Lines() == 0:
		out = append(out, s.Muted.Render(termtext.Truncate("(empty)", m.width)))
	}
	for i := range out {
		out[i] = termtext.Fit(out[i], m.width)
	}
	g := m.gutter()
	for _, r := range win {
		if r.sep {
			out = append(out, termtext.Fit(m.separatorRow(r.gap), m.width))
		} else {
			out = append(out, m.lineRow(r.line, g))
		}
	}
	for len(out) < n {
		out = append(out, strings.Repeat(" ", m.width))
	}
	return out[:n]
}

func (m Model) separatorRow(g gap) string {
	n := g.last - g.first + 1
	label := fmt.Sprintf("── %s %s the model would not see under the policy ", human.Count(int64(n)), plural(n, "line", "lines"))
	if w := termtext.Width(label); w < m.width {
		label += strings.Repeat("─", m.width-w)
	}
	return m.styles.Separator.Render(termtext.Truncate(label, m.width))
}

// lineRow draws line i, padded to the width.
func (m Model) lineRow(i int, g gutter) string {
	p := m.paint
	current := len(m.matches) > 0 && m.matches[m.cur] == i
	var b strings.Builder
	if g.number {
		num := p.number
		if current {
			num = p.current
		}
		n := strconv.Itoa(i + 1)
		b.WriteString(num.render(strings.Repeat(" ", max(g.numW-len(n), 0)) + n))
		b.WriteByte(' ')
	}
	if g.marker {
		from, _, next := m.doc.span(i)
		switch m.seen.kind(from, next) {
		case seenAll:
			b.WriteString(p.tone[toneSeen].render(glyphSeen))
		case seenNone:
			b.WriteString(p.tone[toneUnseen].render(glyphUnseen))
		case seenPart:
			b.WriteString(p.tone[toneSeen].render(glyphPart))
		}
		b.WriteByte(' ')
	}
	tw := max(m.width-g.width(), 0)
	var pieces []piece // blank until the line is read
	if l, ok := m.held.get(i); ok {
		seq, at := l.pieces, 0 // seq begins at column at
		if m.isMatch(i) {
			// Only around the window: a match reaching into it is whole
			// within the margin, and a 256 KiB line is not searched again
			// on every frame.
			margin := termtext.Width(m.query) + 1
			at = max(m.x-margin, 0)
			seq = highlight(cut(l.pieces, at, m.x-at+tw+margin), m.query, m.matchTone(i))
		}
		if l.note != nil && at+piecesWidth(seq) == l.width { // the note follows the line's end
			seq = append(seq[:len(seq):len(seq)], *l.note)
		}
		if at+piecesWidth(seq) > m.x+tw && tw > 1 {
			// The line goes on past the right edge: its last column says
			// so, as less marks a chopped line.
			pieces = cut(seq, m.x-at, tw-1)
			if pad := tw - 1 - piecesWidth(pieces); pad > 0 {
				pieces = append(pieces, piece{strings.Repeat(" ", pad), pad, toneNote})
			}
			pieces = append(pieces, piece{glyphMore, 1, toneNote})
		} else {
			pieces = cut(seq, m.x-at, tw)
		}
	}
	pieces = group(pieces)
	exact := p.fast // then every width below is a byte count
	for _, pc := range pieces {
		b.WriteString(p.tone[pc.tone].render(pc.text))
		exact = exact && printableASCII(pc.text)
	}
	if w := g.width() + piecesWidth(pieces); exact && w <= m.width {
		b.WriteString(strings.Repeat(" ", m.width-w))
		return b.String()
	}
	return termtext.Fit(b.String(), m.width)
}

// matchTone is the tone of line i's matches: the current match's line
// stands out.
func (m Model) matchTone(i int) tone {
	if len(m.matches) > 0 && m.matches[m.cur] == i {
		return toneCurrent
	}
	return toneMatch
}

func (m Model) isMatch(line int) bool {
	_, ok := slices.BinarySearch(m.matches, line)
	return ok && m.query != ""
}

func (m Model) statusRow(win []rowRef) string {
	s := m.styles
	if m.searching {
		right := ""
		if hint := m.keys.promptHint(); m.width >= 40+termtext.Width(hint) {
			right = s.Faint.Render(hint)
		}
		return spread(m.input.View(), right, m.width)
	}
	left := ""
	if m.doc != nil && m.doc.Lines() > 0 {
		n := m.doc.Lines()
		pos := "all"
		if _, last, ok := shownLines(win); ok && (m.top > 0 || last < n-1) {
			pos = fmt.Sprintf("%d%%", (last+1)*100/n)
		}
		left = fmt.Sprintf("line %s of %s · %s", human.Count(int64(m.top+1)), human.Count(int64(n)), pos)
		if m.x > 0 {
			left += fmt.Sprintf(" · col %d", m.x+1)
		}
		left = s.Muted.Render(left)
	}
	var right string
	q := strconv.Quote(m.query)
	switch {
	case m.pending != "":
		right = s.Muted.Render(termtext.Line(fmt.Sprintf("searching %q…", m.pending)))
	case m.searchErr != nil:
		right = s.Error.Render(termtext.Line(m.searchErr.Error()))
	case m.query != "" && len(m.matches) == 0:
		right = s.Warning.Render(termtext.Line("no match for " + q))
	case m.query != "":
		right = s.Muted.Render(termtext.Line(fmt.Sprintf("%s match %s of %s", q, human.Count(int64(m.cur+1)), human.Count(int64(len(m.matches))))))
		if m.matchPast {
			right += s.Warning.Render(" past the " + human.Bytes(maxLineRead) + " of its line shown")
		}
		right += s.Faint.Render(" · n/N")
	default:
		right = s.Faint.Render(m.keys.Help.Help().Key + " " + m.keys.Help.Help().Desc)
	}
	return spread(left, right, m.width)
}

// spread puts left and right at the two ends of a row; when both do not
// fit, right keeps its place while left has room for ten cells.
func spread(left, right string, width int) string {
	lw, rw := termtext.Width(left), termtext.Width(right)
	switch {
	case right == "":
		return termtext.Truncate(left, width)
	case lw+1+rw <= width:
		return left + strings.Repeat(" ", width-lw-rw) + right
	case lw == 0:
		return termtext.Truncate(right, width)
	case width-rw-1 >= 10:
		left = termtext.Truncate(left, width-rw-1)
		return left + strings.Repeat(" ", width-termtext.Width(left)-rw) + right
	}
	return termtext.Truncate(left, width)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// helpLines are the help's lines under its title.
func (m Model) helpLines() []string {
	h := help.New()
	h.Styles = m.styles.Help
	lines := []string{""}
	// Columns that do not fit side by side go on a block of their own.
	groups := m.keys.FullHelp()
	for len(groups) > 0 {
		n := len(groups)
		for n > 1 && ansi.StringWidth(strings.Split(h.FullHelpView(groups[:n]), "\n")[0]) > m.width {
			n--
		}
		lines = append(lines, strings.Split(h.FullHelpView(groups[:n]), "\n")...)
		lines = append(lines, "")
		groups = groups[n:]
	}
	return lines
}

// helpView lists every key, from the key map, in exactly width×height
// cells: the title, then the lines from helpTop, saying when more follow.
func (m Model) helpView() string {
	s := m.styles
	body := m.helpLines()
	top := min(m.helpTop, max(0, len(body)-m.height+1))
	hint := " · ? or esc to close"
	if len(body)+1 > m.height {
		hint = " · j/k scroll" + hint
	}
	title := s.Title.Render("viewer keys") + s.Muted.Render(hint)
	lines := append([]string{title}, body[top:]...)
	out := make([]string, 0, m.height)
	for _, l := range lines {
		if len(out) == m.height {
			break
		}
		l = ansi.Truncate(l, m.width, "")
		out = append(out, l+strings.Repeat(" ", m.width-ansi.StringWidth(l)))
	}
	for len(out) < m.height {
		out = append(out, strings.Repeat(" ", m.width))
	}
	return strings.Join(out, "\n")
}
