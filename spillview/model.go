package spillview

import (
	"context"
	"errors"
	"slices"
	"sort"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/internal/prompt"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
)

// OpenedMsg reports the document OpenCmd opened, or why it could not.
type OpenedMsg struct {
	Doc *Document
	Src Source
	Err error
}

// SearchedMsg reports a search's matching lines (0-based, in order).
type SearchedMsg struct {
	Query string
	Lines []int
	Err   error
	doc   *Document // the document searched; results for another are dropped
}

// CloseMsg is sent when the user leaves the viewer (q / esc).
type CloseMsg struct{}

// OpenCmd opens src and returns an OpenedMsg; ctx done gives it up.
func OpenCmd(ctx context.Context, src Source) tea.Cmd {
	return func() tea.Msg {
		d, err := OpenContext(ctx, src)
		return OpenedMsg{Doc: d, Src: src, Err: err}
	}
}

func searchCmd(d *Document, query string) tea.Cmd {
	return func() tea.Msg {
		lines, err := d.Search(query)
		return SearchedMsg{Query: query, Lines: lines, Err: err, doc: d}
	}
}

const wheelLines = 3

// promptHint names the prompt's keys.
func (k KeyMap) promptHint() string {
	p := k.Prompt
	return p.Submit.Help().Key + " search · " + p.Cancel.Help().Key + " cancel · " + p.Clear.Help().Key + " clear"
}

// Model is the viewer pane. It owns its document: a new one given to
// SetDocument closes the old, and Close closes the current.
type Model struct {
	styles        *themes.Styles
	paint         *painter
	keys          KeyMap
	width, height int

	doc     *Document
	src     Source
	seen    seenMap
	err     error
	loading bool
	// stopOpen gives up the open Load began; closed: the viewer was left,
	// and what an open still running brings is let go.
	stopOpen context.CancelFunc
	closed   bool

	top int // first line shown
	x   int // first column shown

	// held are the converted lines around the window; asked is the range
	// of the latest read, and reads counts the reads asked for.
	held    heldLines
	asked   [2]int
	reads   int
	reading bool // the latest read has not come back

	input     prompt.Input
	help      bool   // the help is shown
	helpTop   int    // the help's first line shown below its title
	searching bool   // the prompt is open
	pending   string // query whose search is running
	query     string // query whose matches are shown
	lastQuery string // the last query asked for, which enter alone asks again
	matchPast bool   // the current match is past the part of its line shown
	revealing bool   // the current match's column is sought once its line is held
	matches   []int
	cur       int // index into matches
	searchErr error
}

// New returns an empty viewer; give it a size and a document.
func New(styles *themes.Styles, keys KeyMap) Model {
	in := prompt.New()
	in.Prompt = "/"
	m := Model{keys: keys, input: in}
	m.SetStyles(styles)
	return m
}

// SetSize sets the cells the pane fills; the Cmd reads the lines a
// larger window shows.
func (m *Model) SetSize(width, height int) tea.Cmd {
	m.width, m.height = max(width, 0), max(height, 0)
	w := m.width - 2 // the prompt and the cursor
	if hint := termtext.Width(m.keys.promptHint()); m.width >= 40+hint {
		w -= hint + 1
	}
	m.input.SetWidth(max(w, 1))
	m.setTop(m.top)
	return m.fill()
}

// SetStyles changes the theme.
func (m *Model) SetStyles(styles *themes.Styles) {
	if styles == nil {
		styles = themes.New(themes.Mono)
	}
	m.styles, m.paint = styles, newPainter(styles)
	st := textinput.StyleState{Text: styles.Value, Placeholder: styles.Faint, Suggestion: styles.Faint, Prompt: styles.Title}
	m.input.SetStyles(textinput.Styles{
		Focused: st, Blurred: st,
		Cursor: textinput.CursorStyle{Color: styles.Palette.Accent, Shape: tea.CursorBlock},
	})
}

// SetDocument shows doc (from an OpenedMsg); a nil doc shows src as still
// opening. The previous document is closed.
func (m *Model) SetDocument(doc *Document, src Source) {
	if m.doc != nil && m.doc != doc {
		m.doc.Close()
	}
	m.doc, m.src, m.closed = doc, src, false
	if doc != nil {
		m.src = doc.Source() // an agent's spill file resolved, or why not
	}
	m.err, m.loading = nil, doc == nil
	m.seen = newSeenMap(doc, m.src.Seen) // the document's: none for a file whose text is not the result's
	m.top, m.x = 0, 0
	m.held, m.asked, m.reading = heldLines{}, [2]int{}, false
	m.searching = false
	m.input.Blur()
	m.clearSearch()
}

// Load shows src as opening and returns the Cmd that opens it; hand the
// OpenedMsg it yields to Update.
func (m *Model) Load(src Source) tea.Cmd {
	m.stop()
	m.SetDocument(nil, src)
	ctx, cancel := context.WithCancel(context.Background())
	m.stopOpen = cancel
	return OpenCmd(ctx, src)
}

// SetError shows err in place of the text (an open that failed).
func (m *Model) SetError(err error) {
	m.err, m.loading = err, false
}

// Close closes the document.
func (m *Model) Close() error {
	m.stop()
	err := m.doc.Close()
	m.doc, m.closed, m.loading = nil, true, false
	m.held, m.asked, m.reading = heldLines{}, [2]int{}, false
	m.clearSearch() // the matches of a large file are not kept either
	return err
}

// stop gives up an open still running.
func (m *Model) stop() {
	if m.stopOpen != nil {
		m.stopOpen()
		m.stopOpen = nil
	}
}

// Searching reports that the search prompt is open: the root must then
// route every key here, including q and esc.
func (m Model) Searching() bool { return m.searching }

// Position is the first line shown (0-based) and the number of lines.
func (m Model) Position() (top, lines int) {
	if m.doc == nil {
		return 0, 0
	}
	return m.top, m.doc.Lines()
}

// Update handles keys, the mouse wheel, OpenedMsg, SearchedMsg and
// LinesMsg. The search, and the reading of the lines a move brings into
// view, run in the returned Cmd.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	m, cmd := m.update(msg)
	if fill := m.fill(); fill != nil {
		cmd = tea.Batch(cmd, fill)
	}
	return m, cmd
}

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case LinesMsg:
		m.takeLines(msg)
		return m, nil
	case OpenedMsg:
		// Dropped: what comes after the viewer was left, an open given up
		// (the same result may be opening again), one superseded.
		if m.closed || errors.Is(msg.Err, context.Canceled) || !sameSource(m.src, msg.Src) && (m.loading || m.doc != nil || m.err != nil) {
			msg.Doc.Close() // an open superseded by a later Load
			return m, nil
		}
		m.SetDocument(msg.Doc, msg.Src)
		if msg.Err != nil {
			m.SetError(msg.Err)
			return m, nil
		}
		if msg.Src.Find != "" && m.doc != nil {
			m.pending, m.lastQuery = msg.Src.Find, msg.Src.Find
			return m, searchCmd(m.doc, msg.Src.Find)
		}
		return m, nil
	case SearchedMsg:
		m.searched(msg)
		return m, nil
	case tea.KeyPressMsg:
		if m.searching {
			return m.promptKey(msg)
		}
		return m.key(msg)
	case tea.MouseWheelMsg:
		m.revealing = false
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			m.setTop(m.top - wheelLines)
		case tea.MouseWheelDown:
			m.setTop(m.top + wheelLines)
		case tea.MouseWheelLeft:
			m.scrollLeft()
		case tea.MouseWheelRight:
			m.scrollRight()
		}
		return m, nil
	}
	if m.searching { // cursor and paste messages
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m Model) key(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	win := max(m.layout().win, 1)
	k := m.keys
	m.revealing = false // the user moves on: a match's line arriving later does not pull the view back
	if m.help {
		// It scrolls where the terminal is shorter than it; helpView
		// keeps the offset within its lines.
		switch {
		case key.Matches(msg, k.Help, k.Close):
			m.help = false
		case key.Matches(msg, k.Down):
			m.helpTop++
		case key.Matches(msg, k.Up):
			m.helpTop = max(0, m.helpTop-1)
		case key.Matches(msg, k.PageDown):
			m.helpTop += max(1, m.height-2)
		case key.Matches(msg, k.PageUp):
			m.helpTop = max(0, m.helpTop-max(1, m.height-2))
		}
		m.helpTop = min(m.helpTop, max(0, len(m.helpLines())-m.height+1))
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Help):
		m.help, m.helpTop = true, 0
	case key.Matches(msg, k.Close):
		return m, func() tea.Msg { return CloseMsg{} }
	case key.Matches(msg, k.Up):
		m.setTop(m.top - 1)
	case key.Matches(msg, k.Down):
		m.setTop(m.top + 1)
	case key.Matches(msg, k.PageUp):
		// The page ending just above this one: separator rows mean it
		// may hold fewer lines than the window has rows.
		if m.top > 0 {
			m.setTop(m.fillBack(m.top - 1))
		}
	case key.Matches(msg, k.PageDown):
		m.setTop(m.top + m.visibleLines(m.top))
	case key.Matches(msg, k.HalfUp):
		m.setTop(m.top - max(win/2, 1))
	case key.Matches(msg, k.HalfDown):
		m.setTop(m.top + max(win/2, 1))
	case key.Matches(msg, k.Top):
		m.setTop(0)
	case key.Matches(msg, k.Bottom):
		m.setTop(m.maxTop())
	case key.Matches(msg, k.Left):
		m.scrollLeft()
	case key.Matches(msg, k.Right):
		m.scrollRight()
	case key.Matches(msg, k.Search):
		if m.doc == nil {
			return m, nil
		}
		// As the inspector's prompts: empty, the last query in its
		// place, which enter alone searches again.
		m.searching = true
		m.input.Reset()
		m.input.Placeholder = m.lastQuery
		return m, m.input.Focus()
	case key.Matches(msg, k.Next):
		m.stepMatch(1)
	case key.Matches(msg, k.Prev):
		m.stepMatch(-1)
	}
	return m, nil
}

func (m Model) promptKey(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	p := m.keys.Prompt
	switch {
	case key.Matches(msg, p.Clear):
		m.input.SetValue("")
		return m, nil
	case key.Matches(msg, p.Cancel):
		m.searching = false
		m.input.Blur()
		return m, nil
	case key.Matches(msg, p.Submit):
		m.searching = false
		m.input.Blur()
		query := m.input.Value()
		if query == "" {
			query = m.lastQuery
		}
		m.clearSearch()
		if query == "" || m.doc == nil {
			return m, nil
		}
		m.pending, m.lastQuery = query, query
		return m, searchCmd(m.doc, query)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

func (m *Model) clearSearch() {
	m.pending, m.query, m.matches, m.cur, m.searchErr, m.matchPast, m.revealing = "", "", nil, 0, nil, false, false
}

func (m *Model) searched(msg SearchedMsg) {
	// Results are dropped when they are for another document or a query
	// the user has since replaced; a message built by hand is taken as is.
	if msg.doc != nil && (msg.doc != m.doc || msg.Query != m.pending) {
		return
	}
	m.pending, m.query, m.matches, m.searchErr = "", msg.Query, msg.Lines, msg.Err
	m.cur = 0
	if len(m.matches) == 0 {
		return
	}
	if i := sort.SearchInts(m.matches, m.top); i < len(m.matches) {
		m.cur = i
	}
	m.revealMatch()
}

// stepMatch goes to the next match (d 1) or the previous (d -1): from the
// current one while it is on screen, else, as less does, from the lines
// the user scrolled to.
func (m *Model) stepMatch(d int) {
	n := len(m.matches)
	if n == 0 {
		return
	}
	top, bottom := m.top, m.top+m.visibleLines(m.top)
	if line := m.matches[m.cur]; line >= top && line < bottom {
		m.cur = ((m.cur+d)%n + n) % n
	} else if d > 0 {
		m.cur = sort.SearchInts(m.matches, top) % n // the first at or below the top, else the first
	} else {
		m.cur = (sort.SearchInts(m.matches, bottom) - 1 + n) % n // the last above the bottom, else the last
	}
	m.revealMatch()
}

// revealMatch brings the current match into view: its line, and sideways
// the match itself, which a long line can hold far past the right edge,
// once that line is held.
func (m *Model) revealMatch() {
	m.reveal(m.matches[m.cur])
	m.matchPast, m.revealing = false, true
	m.revealColumn()
}

// revealColumn scrolls sideways to the current match, as highlight marks
// it, if its line is held and the match still to be revealed.
func (m *Model) revealColumn() {
	if !m.revealing || len(m.matches) == 0 {
		return
	}
	l, ok := m.held.get(m.matches[m.cur])
	if !ok {
		return
	}
	m.revealing = false
	col, found := matchColumn(l.pieces, m.query)
	if !found {
		m.matchPast = l.note != nil // past what is read of the line: the status says so
		return
	}
	tw, qw := m.textWidth(), termtext.Width(m.query)
	if l.width+l.note.cells() > col+qw && tw > 1 {
		tw-- // the line goes on past the match: the edge's column marks it
	}
	if col >= m.x && col+qw <= m.x+tw {
		return
	}
	// No further than the match needs: its end at the right edge (or its
	// start at the left, when it is wider than the pane), so that the
	// lines around it, most of them shorter, are not scrolled out of view.
	m.x = max(0, min(col, col+qw-tw))
}

// reveal scrolls line to the top unless it is already on screen.
func (m *Model) reveal(line int) {
	if line >= m.top && line < m.top+m.visibleLines(m.top) {
		return
	}
	m.setTop(line)
}

func (m *Model) setTop(top int) {
	m.top = max(min(top, m.maxTop()), 0)
}

// maxTop is the top line that shows the last line at the bottom.
func (m Model) maxTop() int {
	if m.doc == nil || m.doc.Lines() == 0 {
		return 0
	}
	return m.fillBack(m.doc.Lines() - 1)
}

// fillBack is the first top line of a window whose last line is end,
// counting separator rows.
func (m Model) fillBack(end int) int {
	win := max(m.layout().win, 1)
	seps := m.separators()
	top, used := end, 0
	for l := end; l >= 0; l-- {
		need := 1
		if _, ok := m.seen.gapAt(l); ok && seps {
			need = 2
		}
		if used+need > win {
			break
		}
		used += need
		top = l
	}
	return top
}

// visibleLines is how many text lines fit from top.
func (m Model) visibleLines(top int) int {
	n := 0
	for _, r := range m.rows(top, m.layout().win) {
		if !r.sep {
			n++
		}
	}
	return max(n, 1)
}

func (m *Model) scrollLeft() {
	m.x = max(m.x-m.hstep(), 0)
}

// scrollRight moves right while some line on screen, of those held, goes
// on past the right edge.
func (m *Model) scrollRight() {
	tw := m.textWidth()
	if m.doc == nil || tw <= 0 {
		return
	}
	widest := 0
	for _, r := range m.rows(m.top, m.layout().win) {
		if l, ok := m.held.get(r.line); ok && !r.sep {
			widest = max(widest, l.width+l.note.cells())
		}
	}
	if widest <= m.x+tw {
		return
	}
	m.x = min(m.x+m.hstep(), widest-tw)
}

// hstep is half the text width, as less scrolls sideways.
func (m Model) hstep() int { return max(m.textWidth()/2, 1) }

func sameSource(a, b Source) bool {
	return a.Path == b.Path && a.Title == b.Title && a.Text == b.Text && a.Note == b.Note && slices.Equal(a.Seen, b.Seen)
}

// Query is the search whose matches the viewer marks, "" for none.
func (m Model) Query() string { return m.query }
