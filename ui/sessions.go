package ui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/layout"
	"github.com/spillway-dev/spillway/internal/sessions"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
)

type listOrder int

const (
	byTime listOrder = iota
	bySessionCost
	bySaved
)

func (o listOrder) String() string {
	return [...]string{"time, newest first", "cost, highest first", "saved, most first"}[o]
}

// sessionList draws the sessions, one row each, filtered and sorted; the
// root model feeds it rows and savings and moves its cursor.
type sessionList struct {
	ctx           *Context
	width, height int
	top0          int // screen row of its title line
	rows          []sessions.Row
	// savings are the rows' replays under the current policy, by path;
	// a row without one is still being replayed.
	savings map[string]sessions.Savings
	shown   []int // indexes into rows, filtered and sorted
	cursor  int   // index into shown
	offset  int
	order   listOrder
	filter  string
	// live marks the sessions written in the last minute, while following.
	live map[string]bool
	// burning marks the live sessions with a call in the burn rate's
	// window: only theirs is shown.
	burning map[string]bool
	// wide is the widest cell of each figure's column over the rows
	// shown, by title, so that no figure is cut; names, the widest model
	// and agent names: set by refresh.
	wide, names map[string]int
	// expanded are the sessions whose sub-agents are shown under them.
	expanded map[string]bool
}

// parts are the sub-agent lines drawn under shown row i.
func (l *sessionList) parts(i int) int {
	if r := &l.rows[l.shown[i]]; l.expanded[r.Path] {
		return len(r.Parts)
	}
	return 0
}

// toggleParts shows or hides the selected session's sub-agents and says
// what it did.
func (l *sessionList) toggleParts() string {
	p := l.current()
	if p == "" {
		return "no session"
	}
	r := &l.rows[l.shown[l.cursor]]
	if len(r.Parts) == 0 {
		return "this session ran no sub-agent"
	}
	if l.expanded == nil {
		l.expanded = map[string]bool{}
	}
	l.expanded[p] = !l.expanded[p]
	l.clamp()
	if !l.expanded[p] {
		return "sub-agents hidden"
	}
	return plural(len(r.Parts), "sub-agent", "sub-agents") + " under the session, counted in it"
}

func (l *sessionList) setSize(w, h int) {
	l.width, l.height = w, h
	l.clamp()
}

// current is the path of the selected session, "" when none is shown.
func (l *sessionList) current() string {
	if l.cursor < 0 || l.cursor >= len(l.shown) {
		return ""
	}
	return l.rows[l.shown[l.cursor]].Path
}

// refresh filters and sorts again, keeping the selected session.
func (l *sessionList) refresh() { l.show(l.current()) }

// show filters and sorts the rows, the cursor on session selected.
func (l *sessionList) show(selected string) {
	l.shown = l.shown[:0]
	q := strings.ToLower(l.filter)
	for i := range l.rows {
		if q == "" || strings.Contains(strings.ToLower(searchText(&l.rows[i])), q) {
			l.shown = append(l.shown, i)
		}
	}
	slices.SortStableFunc(l.shown, func(a, b int) int { return l.compare(&l.rows[a], &l.rows[b]) })
	l.cursor = 0
	if i := slices.IndexFunc(l.shown, func(i int) bool { return l.rows[i].Path == selected }); i >= 0 {
		l.cursor = i
	}
	l.clamp()
	l.wide = map[string]int{}
	for _, c := range l.columns() {
		if !c.right {
			continue
		}
		for _, i := range l.shown {
			l.wide[c.title] = max(l.wide[c.title], termtext.Width(stripStyles(c.cell(&l.rows[i]))))
		}
	}
	// The model and agent columns widen, where there is room, to their
	// names.
	l.names = map[string]int{}
	for _, i := range l.shown {
		r := &l.rows[i]
		l.names["model"] = max(l.names["model"], termtext.Width(modelName(r, maxNameWidth)))
		l.names["agent"] = max(l.names["agent"], termtext.Width(agentName(r)))
	}
}

// searchText is what the filter looks in: the file's name, the project,
// the agent and its version, the models.
func searchText(r *sessions.Row) string {
	return strings.Join(append([]string{filepath.Base(r.Path), r.Project, r.Agent, r.Version}, r.Models...), "\x00")
}

// compare orders two rows, the first to show first; ties go by time, then
// by path, so that the order never depends on the order of the scan.
func (l *sessionList) compare(a, b *sessions.Row) int {
	desc := func(x, y float64, okX, okY bool) int {
		switch {
		case okX != okY:
			if okX {
				return -1
			}
			return 1
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	}
	byTimeDesc := func() int {
		return desc(float64(l.shownTime(a).UnixNano()), float64(l.shownTime(b).UnixNano()), true, true)
	}
	var c int
	switch l.order {
	case byTime:
		// By the time the column shows, the newest first: a live session
		// shows when it was written, so that one that starts is at the
		// top, whatever times its log holds, and the column stays in
		// order (a log copied in is live, and shows its copy's time).
		c = byTimeDesc()
	case bySessionCost:
		c = desc(deref(a.Cost), deref(b.Cost), a.Cost != nil, b.Cost != nil)
	case bySaved:
		sa, okA := l.saved(a)
		sb, okB := l.saved(b)
		c = desc(sa, sb, okA, okB)
	}
	if c == 0 && l.order != byTime {
		c = byTimeDesc() // ties by time, the newest first
	}
	if c != 0 {
		return c
	}
	return strings.Compare(a.Path, b.Path)
}

// shownTime is the time the list shows of a row: when a live session's log
// was written, else when the session was last active.
func (l *sessionList) shownTime(r *sessions.Row) time.Time {
	if l.live[r.Path] {
		return r.Modified
	}
	return lastTime(r)
}

// lastTime is when the session was last active: its last call, else when
// its log was written.
func lastTime(r *sessions.Row) time.Time {
	if !r.Last.IsZero() {
		return r.Last
	}
	return r.Modified
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// after is a row's cost under the policy; ok is false while it is being
// replayed or when it is not known.
func (l *sessionList) after(r *sessions.Row) (after float64, ok bool) {
	s, done := l.savings[r.Path]
	if !done || s.Point.CostAfter == nil || r.Cost == nil {
		return 0, false
	}
	return *s.Point.CostAfter, true
}

// saved is the dollars a row's policy saves.
func (l *sessionList) saved(r *sessions.Row) (float64, bool) {
	after, ok := l.after(r)
	if !ok {
		return 0, false
	}
	return *r.Cost - after, true
}

// selectPath selects the session of path, when it is shown.
func (l *sessionList) selectPath(path string) {
	if i := slices.IndexFunc(l.shown, func(i int) bool { return l.rows[i].Path == path }); i >= 0 {
		l.cursor = i
		l.clamp()
	}
}

func (l *sessionList) cycleSort() {
	l.order = (l.order + 1) % 3
	l.refresh()
	l.cursor, l.offset = 0, 0
}

func (l *sessionList) setFilter(q string) {
	l.filter = q
	l.refresh()
}

func (l *sessionList) move(n int) {
	l.cursor += n
	l.clamp()
}

func (l *sessionList) top()    { l.cursor = 0; l.clamp() }
func (l *sessionList) bottom() { l.cursor = len(l.shown) - 1; l.clamp() }

// visible is the number of rows shown under the title line.
func (l *sessionList) visible() int { return max(0, l.height-1) }

func (l *sessionList) clamp() {
	l.cursor = max(0, min(l.cursor, len(l.shown)-1))
	v := l.visible()
	if v == 0 {
		l.offset = l.cursor
		return
	}
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+v {
		l.offset = l.cursor - v + 1
	}
	l.offset = max(0, min(l.offset, len(l.shown)-v))
	// Sub-agent lines take room: the cursor's row and its own stay shown.
	for l.offset < l.cursor && l.linesUpTo(l.cursor) > v {
		l.offset++
	}
}

// linesUpTo counts the lines from the first row shown through row i and
// its sub-agents.
func (l *sessionList) linesUpTo(i int) int {
	n := 0
	for k := l.offset; k <= i && k < len(l.shown); k++ {
		n += 1 + l.parts(k)
	}
	return n
}

// clickRow selects the row at screen row y.
func (l *sessionList) clickRow(y int) bool {
	if y <= l.top0 {
		return false
	}
	line := y - l.top0 - 1
	for i := l.offset; i < len(l.shown); i++ {
		n := 1 + l.parts(i)
		if line < n { // the row, or one of its sub-agents
			l.cursor = i
			l.clamp()
			return true
		}
		line -= n
	}
	return false
}

// sessionWarnings counts the reader's warnings of the sessions shown.
func (l *sessionList) sessionWarnings() int {
	n := 0
	for _, i := range l.shown {
		n += l.rows[i].Warnings
	}
	return n
}

// fleetTotals sums the sessions shown.
type fleetTotals struct {
	sessions, calls int
	// cost sums the known costs; unpriced counts the sessions without one.
	cost     float64
	unpriced int
	// after sums the priced sessions' costs under the policy; pending
	// counts those still being replayed; failed, those whose replay is
	// done without a cost after.
	after   float64
	pending int
	failed  int
	saved   int64 // prompt tokens
	hazards int   // over the sessions replayed
	// hazardsLater counts the sessions replayed whose hazards are not
	// looked for yet (replay.SweepPoint.HazardsLater).
	hazardsLater int
}

func (l *sessionList) totals() fleetTotals {
	var t fleetTotals
	for _, i := range l.shown {
		r := &l.rows[i]
		t.sessions++
		t.calls += r.Calls
		if s, ok := l.savings[r.Path]; ok {
			t.saved += s.Point.Saved
			t.hazards += s.Point.Hazards.Total()
			if s.Point.HazardsLater {
				t.hazardsLater++
			}
		}
		if r.Cost == nil {
			t.unpriced++
			continue
		}
		t.cost += *r.Cost
		if after, ok := l.after(r); ok {
			t.after += after
		} else if _, done := l.savings[r.Path]; done {
			t.failed++
		} else {
			t.pending++
		}
	}
	return t
}

// listColumn is one column of the list; a lower priority drops first.
type listColumn struct {
	title    string
	width    int
	priority int
	right    bool
	cell     func(r *sessions.Row) string
}

func (c listColumn) fit(s string) string {
	if c.right {
		return termtext.FitLeft(s, c.width)
	}
	return termtext.Fit(s, c.width)
}

// agentName shortens the format for a column: "claude 2.1.126".
func agentName(r *sessions.Row) string {
	name := strings.TrimSuffix(r.Agent, "-code")
	if r.Version != "" {
		name += " " + r.Version
	}
	return termtext.Escape(name)
}

// modelName is the session's first model, "+N" for the others, in
// width cells: the first model's name is cut, never the count.
func modelName(r *sessions.Row, width int) string {
	if len(r.Models) == 0 {
		return "–"
	}
	s := termtext.Escape(r.Models[0])
	if len(r.Models) > 1 {
		more := fmt.Sprintf(" +%d", len(r.Models)-1)
		s = termtext.Truncate(s, width-termtext.Width(more)) + more
	}
	return s
}

// modelWidth is the model column's width.
const modelWidth = 17

// columns lays out what fits the width; the project takes the rest.
func (l *sessionList) columns() []listColumn {
	st := l.ctx.Styles
	timeFormat, timeWidth := "2006-01-02 15:04", 16
	if l.width < 100 {
		timeFormat, timeWidth = time.DateOnly, 10 // the year tells sessions apart more than the hour
	}
	all := []listColumn{
		{title: " ", width: 1, priority: 0, cell: func(r *sessions.Row) string {
			if l.live[r.Path] {
				return st.Live.Render("●")
			}
			return " "
		}},
		{title: zoneTitle(time.Local), width: timeWidth, priority: 2, cell: func(r *sessions.Row) string {
			if t := l.shownTime(r); !t.IsZero() {
				return t.Local().Format(timeFormat)
			}
			return "–"
		}},
		{title: "project", width: projectWidth, priority: 1, cell: func(r *sessions.Row) string { return l.projectCell(r, projectWidth) }},
		{title: "agent", width: 14, priority: 6, cell: agentName},
		{title: "model", width: modelWidth, priority: 4, cell: func(r *sessions.Row) string { return modelName(r, modelWidth) }},
		{title: "calls", width: 5, priority: 3, right: true, cell: func(r *sessions.Row) string { return human.Count(int64(r.Calls)) }},
		{title: "cost → after", width: 17, priority: 1, right: true, cell: func(r *sessions.Row) string {
			if r.Cost == nil {
				return st.Muted.Render("?")
			}
			after := "…"
			if a, ok := l.after(r); ok {
				after = human.MoneyLike(&a, *r.Cost)
			} else if s, ok := l.savings[r.Path]; ok && (s.Err != nil || s.Point.CostAfter == nil) {
				after = "?"
			}
			return human.Money(r.Cost) + "→" + after
		}},
		{title: "saved", width: 8, priority: 2, right: true, cell: func(r *sessions.Row) string {
			s, ok := l.saved(r)
			switch {
			case !ok:
				if _, done := l.savings[r.Path]; !done && r.Cost != nil {
					return st.Muted.Render("…")
				}
				return ""
			case s == 0:
				return st.Muted.Render("$0")
			}
			return st.Gain(s).Render(human.MoneyLike(&s, *r.Cost)) // to the cents of its cost
		}},
		{title: "largest", width: 7, priority: 5, right: true, cell: func(r *sessions.Row) string {
			if r.LargestResult == 0 {
				return ""
			}
			return human.ShortBytes(r.LargestResult)
		}},
	}
	// Hazards have a column once a replay has found one.
	if l.anyHazards() {
		all = append(all, listColumn{title: "hazards", width: 7, priority: 4, right: true, cell: func(r *sessions.Row) string {
			s, ok := l.savings[r.Path]
			switch {
			case ok && s.Point.HazardsLater:
				return st.Muted.Render("…")
			case !ok || s.Point.Hazards.Total() == 0:
				return ""
			}
			return st.Marker[themes.Hazard].Render(themes.Hazard.Glyph() + human.Count(int64(s.Point.Hazards.Total())))
		}})
	}
	if len(l.live) > 0 {
		all = append(all,
			listColumn{title: "burn", width: 8, priority: 3, right: true, cell: func(r *sessions.Row) string {
				switch {
				case !l.live[r.Path]:
					return ""
				case !l.burning[r.Path]:
					return st.Muted.Render("–")
				case r.Cost == nil:
					return st.Muted.Render("?")
				}
				return st.Live.Render(burnText(r.Burn))
			}},
			listColumn{title: "ctx", width: 4, priority: 3, right: true, cell: func(r *sessions.Row) string {
				if !l.live[r.Path] {
					return ""
				}
				return contextText(r)
			}})
	}
	for i := range all {
		all[i].width = max(all[i].width, l.wide[all[i].title])
	}
	cols := layout.Fit(all, l.width, 1, func(c *listColumn) (*int, int, bool) { return &c.width, c.priority, c.title == "project" })
	// What the project took beyond its own width goes first to the model
	// and the agent, as far as their names need: at 200 columns no name
	// is cut.
	at := func(title string) int {
		return slices.IndexFunc(cols, func(c listColumn) bool { return c.title == title })
	}
	if p := at("project"); p >= 0 {
		for _, title := range []string{"model", "agent"} {
			if k := at(title); k >= 0 {
				give := max(0, min(l.names[title]-cols[k].width, cols[p].width-projectWidth))
				cols[k].width += give
				cols[p].width -= give
			}
		}
	}
	for i := range cols {
		width := cols[i].width
		switch cols[i].title {
		case "model":
			cols[i].cell = func(r *sessions.Row) string { return modelName(r, width) }
		case "project":
			cols[i].cell = func(r *sessions.Row) string { return l.projectCell(r, width) }
		}
	}
	return cols
}

// projectCell is the row's project in width cells, and its sub-agents'
// mark: the mark stays whole, short where the name needs the room, and
// the name gives way to it.
func (l *sessionList) projectCell(r *sessions.Row, width int) string {
	st := l.ctx.Styles
	name := termtext.Escape(r.Project)
	if r.Project == "" {
		name = st.Muted.Render(termtext.Escape(filepath.Base(r.Path)))
	}
	n := len(r.Parts)
	if n == 0 {
		return name
	}
	glyph := "▸"
	if l.expanded[r.Path] {
		glyph = "▾"
	}
	mark := fmt.Sprintf(" %s%d sub", glyph, n)
	if termtext.Width(name)+termtext.Width(mark) > width {
		mark = fmt.Sprintf(" %s%d", glyph, n)
	}
	if room := width - termtext.Width(mark); termtext.Width(name) > room {
		name = termtext.Truncate(name, max(room, 1))
	}
	return name + st.Muted.Render(mark)
}

// projectWidth is the project column's least width; maxNameWidth bounds a
// model's name in its column.
const (
	projectWidth = 10
	maxNameWidth = 40
)

// burnText is dollars per hour: "$12.30/h".
func burnText(usd float64) string {
	if usd >= 100 {
		return fmt.Sprintf("$%.0f/h", usd)
	}
	return fmt.Sprintf("$%.2f/h", usd)
}

// contextText is how full the last call's context was: "45%"; "?" when
// the model's window is not known.
func contextText(r *sessions.Row) string {
	if r.ContextMax <= 0 {
		return "?"
	}
	return fmt.Sprintf("%d%%", int(100*float64(r.Context)/float64(r.ContextMax)+0.5))
}

// View draws the title line and the visible rows.
func (l *sessionList) View() string {
	if l.height <= 0 || l.width <= 0 {
		return ""
	}
	st := l.ctx.Styles
	cols := l.columns()
	var head []string
	for _, c := range cols {
		head = append(head, c.fit(c.title))
	}
	var b strings.Builder
	b.WriteString(st.TableHeader.Render(termtext.Truncate(strings.Join(head, " "), l.width)))
	if len(l.shown) == 0 && l.visible() > 0 {
		b.WriteString("\n")
		msg := "no sessions"
		if l.filter != "" {
			msg = fmt.Sprintf("no session matches \"%s\" (esc clears the filter)", termtext.Escape(l.filter))
		}
		b.WriteString(st.Muted.Render(termtext.Truncate(msg, l.width)))
	}
	lines := 0
	for i := l.offset; i < len(l.shown) && lines < l.visible(); i++ {
		r := &l.rows[l.shown[i]]
		cells := make([]string, len(cols))
		for k, c := range cols {
			cells[k] = c.fit(c.cell(r))
		}
		line := strings.Join(cells, " ")
		b.WriteString("\n")
		lines++
		if i == l.cursor {
			b.WriteString(st.Selected.Render(termtext.Fit(stripStyles(line), l.width)))
		} else {
			b.WriteString(line)
		}
		for k := 0; k < l.parts(i) && lines < l.visible(); k++ {
			b.WriteString("\n")
			b.WriteString(st.Muted.Render(partLine(cols, &r.Parts[k], k == len(r.Parts)-1)))
			lines++
		}
	}
	return b.String()
}

// partLine is a sub-agent's line under its session: its file, calls, cost
// and largest result in the session's columns, no policy figures (its
// session's include them).
func partLine(cols []listColumn, p *sessions.Part, last bool) string {
	cells := make([]string, len(cols))
	for k, c := range cols {
		s := ""
		switch c.title {
		case "project":
			branch := "├ "
			if last {
				branch = "└ "
			}
			s = "  " + branch + termtext.Escape(filepath.Base(p.Path))
		case "calls":
			s = human.Count(int64(p.Calls))
		case "cost → after":
			s = "?"
			if p.Cost != nil {
				s = human.Money(p.Cost)
			}
		case "largest":
			if p.LargestResult > 0 {
				s = human.ShortBytes(p.LargestResult)
			}
		}
		cells[k] = c.fit(s)
	}
	return strings.Join(cells, " ")
}

// anyHazards tells whether a replay found a hazard in any session.
func (l *sessionList) anyHazards() bool {
	for _, s := range l.savings {
		if s.Point.Hazards.Total() > 0 {
			return true
		}
	}
	return false
}

// zoneTitle is the head of a column of times in zone: an abbreviation
// such as EST would be wrong for the summer's rows, so a zone with any
// offset is "local" (the call detail gives each time's abbreviation).
func zoneTitle(zone *time.Location) string {
	y := time.Now().Year()
	_, winter := time.Date(y, 1, 1, 0, 0, 0, 0, zone).Zone()
	_, summer := time.Date(y, 7, 1, 0, 0, 0, 0, zone).Zone()
	if winter == 0 && summer == 0 {
		return "time (UTC)"
	}
	return "time (local)"
}
