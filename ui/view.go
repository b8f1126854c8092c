package ui

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
)

// headerLines and chromeLines size the fixed parts for a height.
func headerLines(h int) int {
	if h >= 12 {
		return 2
	}
	return 1
}

func chromeLines(h int) int {
	switch {
	case h >= 12:
		return headerLines(h) + 3
	case h >= 6:
		return headerLines(h) + 2
	}
	return headerLines(h) + 1
}

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	if m.inputMode != noInput && m.overlay == noOverlay && m.ctx.Height >= 6 {
		if c := m.input.Cursor(); c != nil {
			c.Y += m.ctx.Height - 1
			v.Cursor = c
		}
	}
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "spillway"
	return v
}

// render draws everything as one string of at most Width×Height cells.
func (m *Model) render() string {
	w, h := m.ctx.Width, m.ctx.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	var out []string
	switch m.overlay {
	case spillOverlay:
		out = strings.Split(m.spill.View(), "\n")
	case helpOverlay:
		out = m.helpScreen()
	case warningsOverlay:
		out = m.warningsScreen()
	case toolsOverlay:
		out = m.scrolled([]string{m.tools.head()}, m.toolsLines())
	case contextOverlay:
		out = m.contextScreen()
	default:
		out = append(out, m.header()...)
		body := h - chromeLines(h)
		if m.onList() {
			out = append(out, pad(m.listLines(), body)...)
			out = append(out, m.footer()...)
			break
		}
		tableLines := splitLines(m.table.View())
		detailLines := splitLines(m.detail.View(m.focus == focusDetail))
		if m.session == nil {
			tableLines = m.loadingLines(body)
			detailLines = nil
		}
		out = append(out, pad(tableLines, m.table.height)...)
		out = append(out, pad(detailLines, body-m.table.height)...)
		out = append(out, m.footer()...)
	}
	return clip(out, w, h)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// pad makes exactly n lines.
func pad(lines []string, n int) []string {
	if n <= 0 {
		return nil
	}
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

// clip cuts every line to w cells and the whole to h lines.
func clip(lines []string, w, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	return strings.Join(lines, "\n")
}

// header names the file, format, models, policy and live state.
func (m *Model) header() []string {
	st := m.ctx.Styles
	w := m.ctx.Width
	if m.onList() {
		lines := []string{termtext.Truncate(m.fleetHeader(), w)}
		if headerLines(m.ctx.Height) > 1 {
			lines = append(lines, st.Subtitle.Render(termtext.Truncate(policyLine(m.policy), w)))
		}
		return lines
	}
	name := m.opt.Source.Name
	if name == "" {
		name = m.opt.Source.Path
	}
	parts := []string{st.Title.Render("spillway"), termtext.Escape(filepath.Base(name))}
	if s := m.session; s != nil {
		f := string(s.Format)
		if s.Version != "" {
			f += " " + termtext.Escape(s.Version)
		}
		parts = append(parts, f)
		if len(s.Models) > 0 {
			parts = append(parts, termtext.Escape(strings.Join(s.Models, ", ")))
		}
		if s.Title != "" {
			parts = append(parts, "“"+termtext.Escape(s.Title)+"”")
		}
	}
	if m.following {
		parts = append(parts, st.Live.Render("● live"))
	}
	lines := []string{termtext.Truncate(strings.Join(parts, st.Muted.Render(" · ")), w)}
	if headerLines(m.ctx.Height) > 1 {
		lines = append(lines, st.Subtitle.Render(termtext.Truncate(policyLine(m.policy), w)))
	}
	return lines
}

// ceilingText names the policy's ceiling, or says there is none.
func ceilingText(p policy.Policy) string {
	if p.Ceiling <= 0 {
		return "no ceiling"
	}
	return "ceiling " + policy.FormatSize(p.Ceiling, p.Unit)
}

// policyLine states the policy's key knobs.
func policyLine(p policy.Policy) string {
	parts := []string{"policy " + termtext.Escape(p.Name), ceilingText(p)}
	if len(p.PerTool) > 0 {
		parts = append(parts, "per-tool ceilings")
	}
	parts = append(parts, string(p.Action))
	if p.Dedupe.Enabled {
		parts = append(parts, fmt.Sprintf("dedupe from call %d", p.Dedupe.From))
	} else {
		parts = append(parts, "no dedupe")
	}
	if len(p.Exclude) > 0 {
		parts = append(parts, fmt.Sprintf("%d tools excluded", len(p.Exclude)))
	}
	return strings.Join(parts, " · ")
}

// loadingLines show progress while the session is read.
func (m *Model) loadingLines(n int) []string {
	st := m.ctx.Styles
	if m.err != nil {
		return []string{st.Error.Render(termtext.Truncate("spillway: "+termtext.Escape(m.err.Error()), m.ctx.Width))}
	}
	if m.waiting && m.waitedBytes > 0 {
		return []string{st.Muted.Render(fmt.Sprintf("the file holds no session yet: none of its %d bytes is a record of a known format; waiting for more lines", m.waitedBytes))}
	}
	if m.waiting {
		return []string{st.Muted.Render("the file holds no session now; waiting for its first lines")}
	}
	return []string{st.Muted.Render(m.progressText())}
}

// progressText describes loading or counting under way.
func (m *Model) progressText() string {
	p := m.progress
	if p.phase == "" {
		if m.loading {
			return "reading…"
		}
		return ""
	}
	if p.total <= 0 {
		return p.phase + "…"
	}
	frac := float64(p.done) / float64(p.total)
	width := 20
	filled := int(frac * float64(width))
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	return fmt.Sprintf("%s %s %3.0f%%", p.phase, bar, 100*frac)
}

// footer draws the totals, the savings chart with action counts, and the
// help, prompt or notice line.
func (m *Model) footer() []string {
	st := m.ctx.Styles
	w := m.ctx.Width
	h := m.ctx.Height
	var lines []string
	lines = append(lines, termtext.Truncate(m.totalsLine(), w))
	if h >= 12 {
		lines = append(lines, termtext.Truncate(m.chartLine(), w))
	}
	if h >= 6 {
		var last string
		switch {
		case m.inputMode != noInput:
			last = m.input.View()
			if m.promptHintShown() {
				last += "  " + st.Faint.Render(m.ctx.Keys.promptHint())
			}
		case m.confirm != "":
			k := m.ctx.Keys
			last = st.Alert.Render(termtext.Truncate(termtext.Escape(m.confirm)+" exists: overwrite it? "+k.Yes.Help().Key+" yes · "+k.No.Help().Key+" no", w))
		case m.alert != "":
			last = st.Alert.Render(termtext.Truncate("⚑ "+m.alert, w))
		case m.notice != "":
			last = st.Warning.Render(termtext.Truncate(termtext.Escape(m.notice), w))
		case m.newBelow > 0:
			noun := "calls"
			if m.newBelow == 1 {
				noun = "call"
			}
			last = st.Warning.Render(termtext.Truncate(fmt.Sprintf("%d new %s below · %s to go there", m.newBelow, noun, m.ctx.Keys.Bottom.Keys()[0]), w))
		case m.err != nil && m.session != nil:
			last = st.Error.Render(termtext.Truncate(termtext.Escape(m.err.Error()), w))
		case m.onList():
			last = m.help.ShortHelpView(m.ctx.Keys.ListShortHelp())
		case m.fleet != nil:
			back := m.ctx.Keys.List.Back
			back.SetHelp(back.Help().Key, "list")
			last = m.help.ShortHelpView(append([]key.Binding{back}, m.ctx.Keys.ShortHelp()...))
		default:
			last = m.help.ShortHelpView(m.ctx.Keys.ShortHelp())
		}
		lines = append(lines, last)
	}
	return lines
}

// totalsLine sums the session before and after.
func (m *Model) totalsLine() string {
	st := m.ctx.Styles
	if m.onList() {
		return m.fleetTotalsLine()
	}
	if m.session == nil {
		return m.progressText()
	}
	rp := m.replay
	if rp == nil && m.recorded != nil {
		return m.recordedTotalsLine()
	}
	if rp == nil {
		if t := m.progressText(); t != "" {
			return st.Muted.Render(fmt.Sprintf("%d calls · %s", len(m.session.Calls), t))
		}
		return st.Muted.Render(fmt.Sprintf("%d calls · replaying…", len(m.session.Calls)))
	}
	t := rp.Totals
	var parts []string
	if t.RecordedCalls > 0 {
		tok := fmt.Sprintf("tokens %s → %s", human.Compact(t.Prompt), human.Compact(t.PromptAfter))
		cost := "cost ? (a model has no price)"
		if t.Cost != nil && t.CostAfter != nil {
			cost = fmt.Sprintf("cost %s → %s", human.Money(t.Cost), human.Money(t.CostAfter)) + " " + st.Saved.Render("−"+human.Percent(*t.Cost, *t.CostAfter))
		}
		parts = append(parts, tok, cost)
	} else {
		parts = append(parts, fmt.Sprintf("no usage recorded · result tokens %s → %s (%s)", human.Compact(t.Tokens), human.Compact(t.TokensAfter), rp.Calibration.Source()))
	}
	if r := m.realized; r != nil {
		// What the hook cut when it ran in this session, beside what the
		// policy above would.
		parts = append(parts, st.Saved.Render(fmt.Sprintf("hook cut %s → %s tokens in %d", human.Compact(r.Tokens), human.Compact(r.TokensAfter), r.Results)))
	}
	for _, mk := range themes.Markers() {
		n := markerCount(t, mk)
		parts = append(parts, st.Marker[mk].Render(mk.Glyph())+fmt.Sprintf("%d", n))
	}
	warnings := m.session.WarningCount + len(rp.Warnings)
	if warnings > 0 {
		noun := "warnings"
		if warnings == 1 {
			noun = "warning"
		}
		parts = append(parts, st.Warning.Render(fmt.Sprintf("%d %s (W)", warnings, noun)))
	}
	if p := m.progressText(); p != "" && m.session != nil {
		parts = append(parts, st.Muted.Render(p))
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// recordedTotalsLine sums the session as recorded while its texts are
// read: what the policy saves is not known until they are in.
func (m *Model) recordedTotalsLine() string {
	st := m.ctx.Styles
	t := m.recorded.Totals
	parts := []string{fmt.Sprintf("%d calls", len(m.session.Calls))}
	if t.RecordedCalls > 0 {
		cost := "cost ? (a model has no price)"
		if t.Cost != nil {
			cost = "cost " + human.Money(t.Cost) + " → …"
		}
		parts = append(parts, "tokens "+human.Compact(t.Prompt)+" → …", cost)
	}
	if m.session.WarningCount > 0 {
		noun := "warnings"
		if m.session.WarningCount == 1 {
			noun = "warning"
		}
		parts = append(parts, st.Warning.Render(fmt.Sprintf("%d %s (W)", m.session.WarningCount, noun)))
	}
	if p := m.progressText(); p != "" {
		parts = append(parts, st.Muted.Render(p))
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

func markerCount(t replay.Totals, mk themes.Marker) int {
	switch mk {
	case themes.Truncated:
		return t.Actions[replay.Truncated]
	case themes.Spilled:
		return t.Actions[replay.Spilled]
	case themes.Suppressed:
		return t.Actions[replay.Suppressed]
	case themes.Stale:
		return t.Stale
	case themes.Hazard:
		return t.Hazards.Total()
	}
	return t.Actions[replay.Excluded]
}

// chartLine draws savings against the ceiling, the current one marked;
// points still being computed show as a dot.
func (m *Model) chartLine() string {
	st := m.ctx.Styles
	if m.onList() {
		return m.fleetChartLine()
	}
	if err := m.chart.err(m.policy); err != nil {
		return st.Muted.Render("savings by ceiling: " + termtext.Escape(err.Error()))
	}
	if m.session == nil && !m.loading {
		return st.Muted.Render("savings by ceiling: no session to chart")
	}
	points, missing := m.chart.curve(m.policy)
	if len(points) == 0 {
		return st.Muted.Render("savings by ceiling: computing…")
	}
	var prompt int64
	if m.replay != nil {
		prompt = m.replay.Totals.Prompt
	}
	return m.drawChart(points, missing, prompt)
}

// drawChart draws points, a dot for each of missing; prompt is the
// prompt tokens the savings are a share of when a cost is not known.
func (m *Model) drawChart(points []replay.SweepPoint, missing int, prompt int64) string {
	st := m.ctx.Styles
	bars := []rune("▁▂▃▄▅▆▇█")
	share, scale := savedShare(points, prompt)
	parts := []string{st.Muted.Render(scale)}
	// The marker goes on the point nearest the current ceiling.
	nearest := 0
	for i, p := range points {
		if abs64(p.Ceiling-m.policy.Ceiling) < abs64(points[nearest].Ceiling-m.policy.Ceiling) {
			nearest = i
		}
	}
	for i, p := range points {
		level := int(float64(len(bars)-1) * min(max(share(p), 0), 1))
		label := compactCeiling(p.Ceiling, m.policy.Unit)
		cell := label + string(bars[level])
		if i == nearest && m.policy.Ceiling > 0 {
			parts = append(parts, st.ChartCurrent.Render("▸"+cell))
		} else {
			parts = append(parts, st.ChartBar.Render(cell))
		}
	}
	if missing > 0 {
		parts = append(parts, st.Muted.Render(strings.Repeat("·", missing)))
	}
	legend := make([]string, 0, 5)
	for _, mk := range themes.Markers() {
		legend = append(legend, st.Marker[mk].Render(mk.Glyph())+" "+mk.Name())
	}
	return strings.Join(parts, " ") + st.Muted.Render("  ·  ") + strings.Join(legend, st.Muted.Render(", "))
}

// savedShare says how much of the session each point saves, as a fraction
// that a full bar is 1 of, and labels the chart with that scale.
// A full bar is the whole cost (or, unpriced, every prompt token), never
// the best point: a curve that saves 0.2% at best draws low bars.
func savedShare(points []replay.SweepPoint, prompt int64) (share func(replay.SweepPoint) float64, scale string) {
	priced := true
	for _, p := range points {
		priced = priced && p.Cost != nil && p.CostAfter != nil && *p.Cost > 0
	}
	best := math.Inf(-1)
	switch {
	case priced:
		share = func(p replay.SweepPoint) float64 { return (*p.Cost - *p.CostAfter) / *p.Cost }
		scale = "cost saved"
	case prompt > 0:
		share = func(p replay.SweepPoint) float64 { return float64(p.Saved) / float64(prompt) }
		scale = "prompt tokens saved"
	default:
		// Nothing to take a share of: bars against the best point, whose
		// figure the label states.
		var top int64
		for _, p := range points {
			top = max(top, p.Saved)
		}
		share = func(p replay.SweepPoint) float64 {
			if top <= 0 {
				return 0
			}
			return float64(p.Saved) / float64(top)
		}
		return share, "tokens saved (█ " + human.Compact(top) + ")"
	}
	for _, p := range points {
		best = max(best, share(p))
	}
	return share, fmt.Sprintf("%s (█ 100%%, best %.1f%%)", scale, 100*best)
}

func compactCeiling(n int64, u policy.Unit) string {
	if u == policy.ApproxTokens || u == policy.Tokens {
		return human.Compact(n)
	}
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n%1024 == 0:
		return fmt.Sprintf("%dK", n>>10)
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return human.Compact(n)
}

// helpScreen is the full help, from the key map.
func (m *Model) helpScreen() []string {
	st := m.ctx.Styles
	head := []string{st.Title.Render("spillway keys") + st.Muted.Render(" · j/k scroll · ? or esc to close"), ""}
	return m.scrolled(head, m.helpLines())
}

// helpLines are the help's lines under its head.
func (m *Model) helpLines() []string {
	st := m.ctx.Styles
	var lines []string
	// Columns that do not fit side by side go on a second block.
	groups := m.ctx.Keys.FullHelp()
	if m.onList() {
		groups = m.ctx.Keys.ListFullHelp()
	}
	unlimited := m.help
	unlimited.SetWidth(0)
	for len(groups) > 0 {
		n := len(groups)
		for n > 1 && ansi.StringWidth(strings.Split(unlimited.FullHelpView(groups[:n]), "\n")[0]) > m.ctx.Width {
			n--
		}
		lines = append(lines, strings.Split(unlimited.FullHelpView(groups[:n]), "\n")...)
		lines = append(lines, "")
		groups = groups[n:]
	}
	lines = append(lines, st.Label.Render("row marks"))
	for _, mk := range themes.Markers() {
		lines = append(lines, "  "+st.Marker[mk].Render(mk.Glyph())+"  "+mk.Name())
	}
	lines = append(lines, "", st.Muted.Render("After figures assume the agent would have made the same calls and written the same output."))
	return lines
}

// Overlay heads: the help's takes two lines, the warnings' one.
const (
	helpHead     = 2
	warningsHead = 1
)

// scrolled is an overlay's screen: its head, then the window of lines
// that fits under it from overlayScroll (which clampOverlay keeps within
// the lines, so that scrolling back starts at once).
func (m *Model) scrolled(head, lines []string) []string {
	room := max(1, m.ctx.Height-len(head))
	from := min(m.overlayScroll, len(lines))
	return append(head, lines[from:min(len(lines), from+room)]...)
}

// clampOverlay keeps the help's or the warnings' scroll within their lines.
func (m *Model) clampOverlay() {
	var n, head int
	switch m.overlay {
	case helpOverlay:
		n, head = len(m.helpLines()), helpHead
	case warningsOverlay:
		n, head = len(m.warningLines()), warningsHead
	case toolsOverlay:
		n, head = len(m.toolsLines()), 1
	default:
		return
	}
	room := max(1, m.ctx.Height-head)
	if m.overlay == warningsOverlay {
		// The selected warning stays in view.
		m.warningCursor = max(0, min(m.warningCursor, n-1))
		m.overlayScroll = min(m.overlayScroll, m.warningCursor)
		m.overlayScroll = max(m.overlayScroll, m.warningCursor-room+1)
	}
	m.overlayScroll = max(0, min(m.overlayScroll, n-room))
}

// warningsScreen lists the reader's and the replay's warnings, the one
// selected highlighted.
func (m *Model) warningsScreen() []string {
	st := m.ctx.Styles
	hint := st.Muted.Render(" · j/k select · enter goes to its call · W or esc to close")
	if m.notice != "" {
		hint = st.Muted.Render(" · ") + st.Warning.Render(termtext.Escape(m.notice)) // the footer is not drawn
	}
	head := []string{termtext.Truncate(st.Title.Render("warnings")+hint, m.ctx.Width)}
	return m.scrolled(head, m.warningLines())
}

// warningLines are the warnings' lines under their head.
func (m *Model) warningLines() []string {
	st := m.ctx.Styles
	entries := m.warningEntries()
	if len(entries) == 0 {
		return []string{st.Muted.Render("no warnings")}
	}
	lines := make([]string, len(entries))
	for i, e := range entries {
		switch {
		case i == m.warningCursor:
			lines[i] = st.Selected.Render(termtext.Fit(stripStyles(e.text), m.ctx.Width))
		case e.muted:
			lines[i] = st.Muted.Render(e.text)
		default:
			lines[i] = e.text
		}
	}
	return lines
}

// warningEntry is a line of the warnings list and the call it belongs to,
// -1 for none (a line before the first call, a count, a skipped kind).
type warningEntry struct {
	text  string
	call  int
	muted bool
}

// warningEntries lists the reader's warnings, each with the call its line
// is filed under (the last call that starts at or before it), then the
// records skipped, then the replay's warnings with their results' calls.
func (m *Model) warningEntries() []warningEntry {
	var all []warningEntry
	if m.onList() {
		for _, w := range m.fleet.warnings {
			all = append(all, warningEntry{text: termtext.Escape(w), call: -1})
		}
		return all
	}
	if s := m.session; s != nil {
		for _, w := range s.Warnings {
			all = append(all, warningEntry{text: fmt.Sprintf("line %d: %s", w.Line, termtext.Escape(w.Message)), call: callAtLine(s, w.Line)})
		}
		if s.WarningCount > len(s.Warnings) {
			all = append(all, warningEntry{text: fmt.Sprintf("… and %d more", s.WarningCount-len(s.Warnings)), call: -1})
		}
		kinds := make([]string, 0, len(s.Skipped))
		for kind := range s.Skipped {
			kinds = append(kinds, kind)
		}
		slices.Sort(kinds)
		for _, kind := range kinds {
			all = append(all, warningEntry{text: fmt.Sprintf("skipped %d %s record(s)", s.Skipped[kind], termtext.Escape(kind)), call: -1, muted: true})
		}
	}
	if rp := m.replay; rp != nil {
		for _, w := range rp.Warnings {
			all = append(all, warningEntry{text: termtext.Escape(w), call: resultWarningCall(rp, w)})
		}
	}
	return all
}

// callAtLine is the call whose rows hold transcript line: the last call
// that starts at or before it; -1 when the line comes before every call.
func callAtLine(s *transcript.Session, line int) int {
	call := -1
	for i := range s.Calls {
		if l := s.Calls[i].Line; l <= line && (call < 0 || l >= s.Calls[call].Line) {
			call = i
		}
	}
	return call
}

// resultWarningCall is the call after which the result a replay warning
// is about came back: the replay words each as "result N (tool): " and
// the result's own warning.
func resultWarningCall(rp *replay.Run, w string) int {
	for i := range rp.Results {
		r := &rp.Results[i]
		if r.Warning != "" && strings.HasPrefix(w, fmt.Sprintf("result %d (", r.Index)) && strings.HasSuffix(w, "): "+r.Warning) {
			return r.Arrival
		}
	}
	return -1
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
