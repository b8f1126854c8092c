package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/layout"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
)

type sortOrder int

const (
	byOrder sortOrder = iota
	byCost
	byDelta
)

func (o sortOrder) String() string {
	return [...]string{"call order", "cost, highest first", "tokens saved, most first"}[o]
}

// tableRow is a call, or a separator (compaction, sidechain) between calls.
type tableRow struct {
	call int // -1 for a separator
	sep  string
}

// callInfo is what a row shows of one call, but for its time and tools:
// those are drawn from the call for the rows on screen alone, not made
// for every call of a session each time its figures change.
type callInfo struct {
	resultBytes         int64
	prompt, promptAfter int64 // -1 when unknown
	saved               int64
	cost, costAfter     *float64
	recorded            bool
	copied              bool    // another session counts this response
	marks               [6]bool // by themes.Marker
	// cause names the call's largest cost part; costly marks it among the
	// costliest calls.
	cause  string
	costly bool
	// pending: the texts are still being read, so the figures after the
	// policy are not known yet; cost is as recorded.
	pending bool
}

// logPart is one log of the session shown, as the table and the detail
// pane read it: the session's own, or a sub-agent's, each read, counted
// and replayed on its own as report does, its calls shown after those of
// the logs before it.
type logPart struct {
	name    string // the sub-agent log's file name; "" for the session's own
	session *transcript.Session
	prep    *replay.Prepared // nil until counted
	replay  *replay.Run      // nil until replayed
	first   int              // its first call's index among all the calls shown
}

// callTable draws the calls: one row each, columns dropped by priority
// when the terminal is narrow; a session's sub-agents' calls come after
// its own, each log under a line that names it.
type callTable struct {
	ctx           *Context
	width, height int
	top0          int // screen row of the table's title line
	rows          []tableRow
	info          []callInfo
	cursor        int // index into rows, always on a call
	offset        int
	order         sortOrder
	bookmarks     []int
	parts         []logPart
	calls         []*transcript.Call // every call shown, by its index
	// costly marks the costliest calls of costlyOf: recorded costs do not
	// change with the policy, so they are ranked once per prepared session.
	costly   []bool
	costlyOf *replay.Prepared
	// recorded prices the calls as recorded while the session shown was
	// read for its sizes alone and its texts are still coming.
	recorded *replay.Recorded
}

func (t *callTable) setSize(w, h int) {
	t.width, t.height = w, h
	t.clamp()
}

// setParts rebuilds the rows of the logs shown, keeping the selected call.
func (t *callTable) setParts(parts []logPart) {
	selected := t.current()
	t.parts = parts
	t.calls = t.calls[:0]
	t.info = t.info[:0]
	for _, p := range parts {
		if p.session == nil {
			continue
		}
		for i := range p.session.Calls {
			t.calls = append(t.calls, &p.session.Calls[i])
		}
		t.info = append(t.info, buildInfo(p.session, p.replay)...)
	}
	if len(parts) > 0 && parts[0].replay != nil && parts[0].replay.Prepared != t.costlyOf {
		t.costly, t.costlyOf = costliestCalls(t.info), parts[0].replay.Prepared
	}
	for i := range t.info {
		t.info[i].costly = i < len(t.costly) && t.costly[i]
	}
	if len(parts) > 0 && parts[0].replay == nil && t.recorded != nil {
		pricedAsRecorded(t.info, t.recorded)
	}
	t.rebuild()
	if selected >= 0 && selected < len(t.calls) {
		t.selectCall(selected)
	} else {
		t.cursor = t.firstCallRow()
	}
	t.clamp()
}

// billed counts the calls shown that the session bills: all but the
// copies of responses another session counts, as its row in the list and
// report count them.
func (t *callTable) billed() int {
	n := 0
	for i := range t.info {
		if !t.info[i].copied {
			n++
		}
	}
	return n
}

// pricedAsRecorded fills in each call's recorded cost from rec and marks
// the figures after the policy pending.
func pricedAsRecorded(info []callInfo, rec *replay.Recorded) {
	for i := range info {
		info[i].pending = true
		if i < len(rec.Calls) {
			info[i].cost = rec.Calls[i].Cost
		}
	}
}

// buildInfo is what the rows of one log show of its calls under its replay
// (nil: not replayed yet).
func buildInfo(s *transcript.Session, rp *replay.Run) []callInfo {
	if s == nil {
		return nil
	}
	info := make([]callInfo, len(s.Calls))
	for i := range s.Calls {
		c := &s.Calls[i]
		ci := &info[i]
		ci.prompt, ci.promptAfter = -1, -1
		for _, r := range c.Results {
			ci.resultBytes += int64(r.Bytes())
		}
		if c.Usage != nil {
			ci.recorded = true
			ci.prompt, ci.promptAfter = c.Usage.Prompt(), c.Usage.Prompt()
		}
		ci.copied = c.CountedIn != ""
		if rp == nil || i >= len(rp.Calls) {
			continue
		}
		rc := rp.Calls[i]
		ci.cost, ci.costAfter, ci.saved = rc.Cost, rc.CostAfter, rc.Saved()
		if rc.UsageAfter != nil {
			ci.promptAfter = rc.UsageAfter.Prompt()
		}
	}
	if rp != nil {
		parts := rp.Prepared.CostParts()
		for i := range info {
			if i < len(parts) && parts[i] != nil {
				info[i].cause = parts[i].Cause()
			}
		}
		for _, r := range rp.Results {
			if r.Arrival < 0 || r.Arrival >= len(info) {
				continue
			}
			marks := &info[r.Arrival].marks
			switch r.Outcome {
			case replay.Truncated:
				marks[themes.Truncated] = true
			case replay.Spilled:
				marks[themes.Spilled] = true
			case replay.Suppressed:
				marks[themes.Suppressed] = true
			case replay.Excluded:
				marks[themes.Excluded] = true
			}
			if r.Stale {
				marks[themes.Stale] = true
			}
			if r.Hazard != nil {
				marks[themes.Hazard] = true
			}
		}
	}
	return info
}

// callTime is the clock time c started at, in this machine's zone, as
// report gives it; "" when unknown.
func callTime(c *transcript.Call) string {
	if c.Time.IsZero() {
		return ""
	}
	return c.Time.Local().Format(time.TimeOnly)
}

// callTools names the tools c called, each once, in the order called.
func callTools(c *transcript.Call) string {
	var names []string
	for _, tc := range c.ToolCalls {
		if !slices.Contains(names, tc.Name) {
			names = append(names, tc.Name)
		}
	}
	return termtext.Escape(strings.Join(names, ","))
}

// rebuild orders the rows: in call order, each log's calls with its
// compactions and sidechains between them, a sub-agent's under a line
// that names it; sorted, every call by the order's key.
func (t *callTable) rebuild() {
	t.rows = t.rows[:0]
	if len(t.calls) == 0 {
		return
	}
	if t.order == byOrder {
		for k, p := range t.parts {
			if p.session == nil {
				continue
			}
			s := p.session
			t.rows = slices.Grow(t.rows, len(s.Calls)+len(s.Events)+1)
			if k > 0 {
				t.rows = append(t.rows, tableRow{call: -1, sep: subagentLabel(p)})
			}
			ev := 0
			for i := range s.Calls {
				for ; ev < len(s.Events) && s.Events[ev].BeforeCall <= i; ev++ {
					t.rows = append(t.rows, tableRow{call: -1, sep: eventLabel(s.Events[ev])})
				}
				t.rows = append(t.rows, tableRow{call: p.first + i})
			}
			for ; ev < len(s.Events); ev++ {
				t.rows = append(t.rows, tableRow{call: -1, sep: eventLabel(s.Events[ev])})
			}
		}
		return
	}
	for i := range t.calls {
		t.rows = append(t.rows, tableRow{call: i})
	}
	key := func(i int) float64 {
		ci := t.info[i]
		if t.order == byDelta {
			return float64(ci.saved)
		}
		if ci.cost == nil {
			return -1
		}
		return *ci.cost
	}
	slices.SortStableFunc(t.rows, func(a, b tableRow) int {
		ka, kb := key(a.call), key(b.call)
		switch {
		case ka > kb:
			return -1
		case ka < kb:
			return 1
		}
		return a.call - b.call // ties in call order
	})
}

// subagentLabel heads a sub-agent's calls.
func subagentLabel(p logPart) string {
	noun := "calls"
	if len(p.session.Calls) == 1 {
		noun = "call"
	}
	return fmt.Sprintf("sub-agent %s: its %d %s, counted in the session", termtext.Escape(p.name), len(p.session.Calls), noun)
}

func eventLabel(e transcript.Event) string {
	switch e.Kind {
	case transcript.EventCompaction:
		label := "compaction"
		if e.Trigger != "" {
			label += " (" + termtext.Escape(e.Trigger) + ")"
		}
		if e.PreTokens > 0 {
			label += fmt.Sprintf(" · %s tokens before", human.Count(e.PreTokens))
		}
		return label + " · earlier results leave the context"
	case transcript.EventSidechainStart:
		return "sidechain: a sub-agent's calls"
	case transcript.EventSidechainEnd:
		return "end of sidechain"
	}
	return string(e.Kind)
}

// cycleSort moves to the next order: sorted by cost or by tokens saved,
// the table shows the top of the new order, its costliest call selected;
// back in call order, the call that was selected stays so.
func (t *callTable) cycleSort() {
	selected := t.current()
	t.order = (t.order + 1) % 3
	t.rebuild()
	if t.order == byOrder {
		t.selectCall(selected)
		return
	}
	t.offset = 0
	t.top()
}

// current is the selected call, -1 when there is none.
func (t *callTable) current() int {
	if t.cursor < 0 || t.cursor >= len(t.rows) {
		return -1
	}
	return t.rows[t.cursor].call
}

func (t *callTable) firstCallRow() int {
	for i, r := range t.rows {
		if r.call >= 0 {
			return i
		}
	}
	return 0
}

func (t *callTable) selectCall(call int) {
	for i, r := range t.rows {
		if r.call == call {
			t.cursor = i
			t.clamp()
			return
		}
	}
}

// move moves the cursor by n call rows, skipping separators.
func (t *callTable) move(n int) {
	if len(t.rows) == 0 {
		return
	}
	dir := 1
	if n < 0 {
		dir, n = -1, -n
	}
	for ; n > 0; n-- {
		next := t.cursor + dir
		for next >= 0 && next < len(t.rows) && t.rows[next].call < 0 {
			next += dir
		}
		if next < 0 || next >= len(t.rows) {
			break
		}
		t.cursor = next
	}
	t.clamp()
}

func (t *callTable) top() {
	t.cursor = t.firstCallRow()
	t.clamp()
}

func (t *callTable) bottom() {
	for i := len(t.rows) - 1; i >= 0; i-- {
		if t.rows[i].call >= 0 {
			t.cursor = i
			break
		}
	}
	t.clamp()
}

// atEnd tells whether the cursor is on the last call: then a followed
// session's new calls scroll into view.
func (t *callTable) atEnd() bool {
	for i := len(t.rows) - 1; i >= 0; i-- {
		if t.rows[i].call >= 0 {
			return t.cursor >= i
		}
	}
	return true
}

// seek moves to the next call in direction dir that ok accepts.
func (t *callTable) seek(dir int, ok func(call int) bool) bool {
	for i := t.cursor + dir; i >= 0 && i < len(t.rows); i += dir {
		if c := t.rows[i].call; c >= 0 && ok(c) {
			t.cursor = i
			t.clamp()
			return true
		}
	}
	return false
}

// clickRow selects the row at screen row y.
func (t *callTable) clickRow(y int) bool {
	i := t.offset + (y - t.top0 - 1)
	if y <= t.top0 || i < 0 || i >= len(t.rows) || t.rows[i].call < 0 {
		return false
	}
	t.cursor = i
	return true
}

// visible is the number of rows the table shows under its title line.
func (t *callTable) visible() int { return max(0, t.height-1) }

func (t *callTable) clamp() {
	if t.cursor >= len(t.rows) {
		t.cursor = len(t.rows) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	v := t.visible()
	if v == 0 {
		t.offset = t.cursor
		return
	}
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	// On the last call, the separators after it (a compaction that no
	// call has followed yet) come into view with it.
	end := t.cursor
	if t.atEnd() {
		end = max(t.cursor, min(len(t.rows)-1, t.cursor+v-1))
	}
	if end >= t.offset+v {
		t.offset = end - v + 1
	}
	t.offset = max(0, min(t.offset, len(t.rows)-v))
}

// column is one table column; lower priority drops first.
type column struct {
	title    string
	width    int
	priority int
	right    bool
	cell     func(call int, ci *callInfo) string
}

// fit pads a (possibly styled) cell to the column's width, on the left
// when the column is right-aligned.
func (c column) fit(s string) string {
	if c.right {
		return termtext.FitLeft(s, c.width)
	}
	return termtext.Fit(s, c.width)
}

// columns lays out the columns that fit the width; tools takes the rest.
// The time goes before the tools, the tools before the cause: which tools
// a call ran tells its row apart, its clock time seldom does.
func (t *callTable) columns() []column {
	st := t.ctx.Styles
	// The call column holds a bookmark mark and the largest index.
	callWidth := 5
	if len(t.calls) > 0 {
		callWidth = max(callWidth, 1+len(fmt.Sprint(len(t.calls)-1)))
	}
	// The cause in full where there is room, else in six cells.
	wide := t.width >= 100
	causeWidth := 6
	if wide {
		causeWidth = len(replay.CauseCacheRewrite)
	}
	all := []column{
		{title: "call", width: callWidth, priority: 0, right: true, cell: func(call int, _ *callInfo) string {
			mark := " "
			if slices.Contains(t.bookmarks, call) {
				mark = "•"
			}
			return fmt.Sprintf("%s%d", mark, call)
		}},
		{title: "marks", width: 6, priority: 1, cell: func(_ int, ci *callInfo) string {
			var b strings.Builder
			for _, mk := range themes.Markers() {
				if ci.marks[mk] {
					b.WriteString(st.Marker[mk].Render(mk.Glyph()))
				} else {
					b.WriteString(" ")
				}
			}
			return b.String()
		}},
		{title: "cost → after", width: 17, priority: 2, right: true, cell: func(_ int, ci *callInfo) string {
			if !ci.recorded {
				return "–"
			}
			if ci.copied {
				return st.Muted.Render("copy")
			}
			if ci.pending {
				return human.Money(ci.cost) + "→…"
			}
			if ci.costly {
				return st.Costly.Render(human.Money(ci.cost)) + "→" + moneyAfter(ci.costAfter, ci.cost)
			}
			return human.Money(ci.cost) + "→" + moneyAfter(ci.costAfter, ci.cost)
		}},
		{title: "cause", width: causeWidth, priority: 6, cell: func(_ int, ci *callInfo) string {
			if ci.costly {
				return st.Costly.Render(causeLabel(ci.cause, wide))
			}
			return causeLabel(ci.cause, wide)
		}},
		{title: "Δ tokens", width: 9, priority: 3, right: true, cell: func(_ int, ci *callInfo) string {
			switch {
			case ci.saved == 0:
				return ""
			case !ci.recorded:
				// No usage recorded: an estimate from the results' sizes,
				// not a prompt that shrank.
				return st.Muted.Render("~" + human.Less(ci.saved, human.Compact))
			}
			return st.Gain(float64(ci.saved)).Render(human.Less(ci.saved, human.Compact))
		}},
		{title: "prompt → after", width: 15, priority: 4, right: true, cell: func(_ int, ci *callInfo) string {
			if ci.prompt < 0 {
				return "–"
			}
			if ci.pending {
				return human.Compact(ci.prompt) + "→…"
			}
			return human.Compact(ci.prompt) + "→" + human.Compact(ci.promptAfter)
		}},
		{title: "results", width: 8, priority: 5, right: true, cell: func(_ int, ci *callInfo) string {
			if ci.resultBytes == 0 {
				return ""
			}
			return human.ShortBytes(ci.resultBytes)
		}},
		{title: "time", width: 8, priority: 8, cell: func(call int, _ *callInfo) string { return callTime(t.calls[call]) }},
		{title: "tools", width: 7, priority: 7, cell: func(call int, _ *callInfo) string { return callTools(t.calls[call]) }},
	}
	// The column sorted by carries the mark of the order.
	sorted := map[sortOrder]string{byCost: "cost → after", byDelta: "Δ tokens"}[t.order]
	for i := range all {
		if all[i].title == sorted {
			all[i].title += " ▾"
			all[i].width = max(all[i].width, termtext.Width(all[i].title))
		}
	}
	return layout.Fit(all, t.width, 1, func(c *column) (*int, int, bool) { return &c.width, c.priority, c.title == "tools" })
}

// View draws the title line and the visible rows.
func (t *callTable) View() string {
	if t.height <= 0 || t.width <= 0 {
		return ""
	}
	st := t.ctx.Styles
	cols := t.columns()
	var b strings.Builder
	var head []string
	for _, c := range cols {
		head = append(head, c.fit(c.title))
	}
	b.WriteString(st.TableHeader.Render(termtext.Truncate(strings.Join(head, " "), t.width)))
	for i := t.offset; i < len(t.rows) && i < t.offset+t.visible(); i++ {
		b.WriteString("\n")
		r := t.rows[i]
		if r.call < 0 {
			b.WriteString(st.Separator.Render(termtext.Truncate("── "+r.sep+" "+strings.Repeat("─", t.width), t.width)))
			continue
		}
		ci := &t.info[r.call]
		var cells []string
		for _, c := range cols {
			cells = append(cells, c.fit(c.cell(r.call, ci)))
		}
		line := strings.Join(cells, " ")
		if i == t.cursor {
			b.WriteString(st.Selected.Render(termtext.Fit(stripStyles(line), t.width)))
		} else {
			b.WriteString(line)
		}
	}
	return b.String()
}
