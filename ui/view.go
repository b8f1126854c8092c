package ui

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
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
	if m.inputMode != noInput && m.overlay == noOverlay && (m.sess == nil || m.sess.overlay == noOverlay) && m.ctx.Height >= 6 {
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
	switch {
	case m.overlay == helpOverlay:
		out = m.helpScreen()
	case m.overlay == warningsOverlay:
		out = m.warningsScreen()
	case m.sess != nil && m.sess.overlay != noOverlay:
		out = m.sess.overlayView()
	default:
		out = append(out, m.header()...)
		body := h - chromeLines(h)
		if m.sess != nil {
			out = append(out, m.sess.body(body)...)
		} else {
			out = append(out, pad(m.fleet.listLines(), body)...)
		}
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

// header names what is shown, then the policy.
func (m *Model) header() []string {
	st := m.ctx.Styles
	w := m.ctx.Width
	head := ""
	if m.sess != nil {
		head = m.sess.header()
	} else {
		head = m.fleet.header()
	}
	lines := []string{termtext.Truncate(head, w)}
	if headerLines(m.ctx.Height) > 1 {
		pol := m.policy
		if m.sess != nil {
			pol = m.sess.applied() // the ceiling the version applied, which the chart marks
		}
		lines = append(lines, st.Subtitle.Render(policyLine(pol, w)))
	}
	return lines
}

// shortName is the most cells a file's name takes in a header too narrow
// for it whole: enough to tell the shared logs apart.
const shortName = 32

// header names the file, its format, models and title, and the live
// state, the least of them left out first where they do not fit.
func (v *sessionScreen) header() string {
	st := v.ctx.Styles
	name := v.src.Name
	if name == "" {
		name = v.src.Path
	}
	base := termtext.Escape(filepath.Base(name))
	parts := []linePart{{text: st.Title.Render("spillway"), priority: 10}, {text: base, priority: 8, short: termtext.Truncate(base, shortName)}}
	if s := v.session; s != nil {
		f := string(s.Format)
		if s.Version != "" {
			f += " " + termtext.Escape(s.Version)
		}
		parts = append(parts, linePart{text: f, priority: 7})
		if len(s.Models) > 0 {
			parts = append(parts, linePart{text: termtext.Escape(strings.Join(s.Models, ", ")), priority: 4})
		}
		if s.Title != "" {
			parts = append(parts, linePart{text: "“" + termtext.Escape(s.Title) + "”", priority: 3})
		}
		if len(v.subs) > 0 {
			parts = append(parts, linePart{text: plural(len(v.subs), "sub-agent", "sub-agents"), priority: 6})
		}
	}
	if v.table.order != byOrder {
		parts = append(parts, linePart{text: "sorted by " + v.table.order.String(), priority: 9})
	}
	if v.following {
		parts = append(parts, linePart{text: st.Live.Render("● live"), priority: 9})
	}
	return fitLine(parts, st.Muted.Render(" · "), v.ctx.Width)
}

// body is the table and the detail pane, or how the reading goes, in h
// lines.
func (v *sessionScreen) body(h int) []string {
	tableLines := splitLines(v.table.View())
	detailLines := splitLines(v.detail.View(v.focus == focusDetail))
	if v.session == nil {
		tableLines = v.loadingLines()
		detailLines = nil
	}
	return append(pad(tableLines, v.table.height), pad(detailLines, h-v.table.height)...)
}

// overlayView is what covers the screen: the spill viewer, the tools or
// the context chart.
func (v *sessionScreen) overlayView() []string {
	switch v.overlay {
	case spillOverlay:
		return strings.Split(v.spill.View(), "\n")
	case toolsOverlay:
		return scrolled([]string{v.tools.head()}, v.toolsLines(), v.overlayScroll, v.ctx.Height)
	}
	return v.contextScreen()
}

// ceilingText names the policy's ceiling, or says there is none.
func ceilingText(p policy.Policy) string {
	if p.Ceiling <= 0 {
		return "no ceiling"
	}
	return "ceiling " + policy.FormatSize(p.Ceiling, p.Unit)
}

// policyLine states the policy's key knobs in at most width cells, the
// least of them left out first.
func policyLine(p policy.Policy, width int) string {
	if p.FollowVersion {
		return termtext.Truncate("policy "+termtext.Escape(p.Name)+" · as the version that recorded each session did", width)
	}
	ceiling := ceilingText(p)
	parts := []linePart{{text: "policy " + termtext.Escape(p.Name), priority: 10}, {text: ceiling, priority: 9, short: strings.TrimPrefix(ceiling, "ceiling ")}}
	if len(p.PerTool) > 0 {
		parts = append(parts, linePart{text: "per-tool ceilings", priority: 5})
	}
	parts = append(parts, linePart{text: string(p.Action), priority: 7})
	if p.Dedupe.Enabled {
		from := human.Ordinal(p.Dedupe.From)
		parts = append(parts, linePart{text: "dedupe from the " + from + " identical call", priority: 6, short: "dedupe from " + from})
	} else {
		parts = append(parts, linePart{text: "no dedupe", priority: 6})
	}
	if len(p.Exclude) > 0 {
		parts = append(parts, linePart{text: plural(len(p.Exclude), "tool", "tools") + " excluded", priority: 4})
	}
	return fitLine(parts, " · ", width)
}

// loadingLines show progress while the session is read.
func (v *sessionScreen) loadingLines() []string {
	st := v.ctx.Styles
	if v.err != nil {
		return []string{st.Error.Render(termtext.Truncate("spillway: "+termtext.Escape(v.err.Error()), v.ctx.Width))}
	}
	if v.waiting && v.waitedBytes > 0 {
		return []string{st.Muted.Render(fmt.Sprintf("the file holds no session yet: none of its %d bytes is a record of a known format; waiting for more lines", v.waitedBytes))}
	}
	if v.waiting && v.src.Folder && v.session == nil && v.src.Name == v.src.Path {
		return []string{st.Muted.Render("the folder holds no session yet; waiting for one to be written")}
	}
	if v.waiting {
		return []string{st.Muted.Render("the file holds no session now; waiting for its first lines")}
	}
	return []string{st.Muted.Render(v.progressText())}
}

// progressText describes loading or counting under way.
func (v *sessionScreen) progressText() string {
	p := v.progress
	if p.phase == "" {
		if v.loading {
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
	totals, chart := "", ""
	if s := m.sess; s != nil {
		totals, chart = s.totalsLine(), s.chartLine()
	} else {
		totals, chart = m.fleet.totalsLine(), m.fleet.chartLine()
	}
	lines = append(lines, termtext.Truncate(totals, w))
	if h >= 12 {
		lines = append(lines, termtext.Truncate(chart, w))
	}
	if h >= 6 {
		var last string
		s := m.sess
		switch {
		case m.inputMode != noInput:
			last = m.input.View()
			if m.promptHintShown() {
				last += "  " + st.Faint.Render(m.ctx.Keys.promptHint())
			}
		case m.confirm != "":
			k := m.ctx.Keys
			last = st.Alert.Render(termtext.Truncate(termtext.Escape(m.confirmQuestion())+" "+k.Yes.Help().Key+" yes · "+k.No.Help().Key+" no", w))
		case s != nil && s.alert != "":
			last = st.Alert.Render(termtext.Truncate("⚑ "+s.alert, w))
		case m.ctx.notice != "":
			notice := termtext.Escape(m.ctx.notice)
			last = st.Warning.Render(termtext.Truncate(notice, w))
			if h >= 12 && termtext.Width(notice) > w {
				// A long notice takes the chart's line too, to be read whole.
				wrapped := wordWrap([]string{notice}, w)
				lines[len(lines)-1] = st.Warning.Render(wrapped[0])
				last = st.Warning.Render(termtext.Truncate(strings.Join(wrapped[1:], " "), w))
			}
		case s != nil && s.newBelow > 0:
			noun := "calls"
			if s.newBelow == 1 {
				noun = "call"
			}
			text := fmt.Sprintf("%d new %s below · %s to go there", s.newBelow, noun, m.ctx.Keys.Bottom.Keys()[0])
			if s.table.order != byOrder {
				// Sorted, they are among the rows, not below them.
				text = fmt.Sprintf("%d new %s, sorted in · %s for call order", s.newBelow, noun, m.ctx.Keys.Sort.Keys()[0])
			}
			last = st.Warning.Render(termtext.Truncate(text, w))
		case s != nil && s.problem() != nil && s.session != nil:
			last = st.Error.Render(termtext.Truncate(termtext.Escape(s.problem().Error()), w))
		case s == nil:
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

// copied counts the calls of the session and its sub-agents that copy
// responses another log counts, and names the first such log.
func (v *sessionScreen) copied() (n int, in string) {
	count := func(s *transcript.Session) {
		for i := range s.Calls {
			if c := s.Calls[i].CountedIn; c != "" {
				n++
				in = cmp.Or(in, c)
			}
		}
	}
	count(v.session)
	for _, sub := range v.subs {
		count(sub.session)
	}
	return n, in
}

// totalsLine sums the session before and after.
func (v *sessionScreen) totalsLine() string {
	st := v.ctx.Styles
	if v.session == nil {
		return v.progressText()
	}
	rp := v.replay
	if rp == nil && v.recorded != nil {
		return v.recordedTotalsLine()
	}
	calls := v.table.billed()
	if rp == nil {
		if t := v.progressText(); t != "" {
			return st.Muted.Render(fmt.Sprintf("%d calls · %s", calls, t))
		}
		return st.Muted.Render(fmt.Sprintf("%d calls · replaying…", calls))
	}
	t := rp.Totals
	warnings := v.session.WarningCount + len(rp.Warnings)
	for _, sub := range v.subs {
		if sub.replay != nil {
			t = t.Plus(sub.replay.Totals)
			warnings += sub.session.WarningCount + len(sub.replay.Warnings)
		}
	}
	parts := []linePart{{text: plural(calls, "call", "calls"), priority: 5}}
	if t.RecordedCalls > 0 {
		// The prompts as recorded, and after the policy: less what it
		// takes out, calibrated against the recorded usage or estimated.
		tok := fmt.Sprintf("tokens %s → %s", human.Compact(t.Prompt), human.Compact(t.PromptAfter))
		if t.PromptAfter != t.Prompt {
			tok += " " + rp.Calibration.Source()
		}
		cost := "cost ? (a model has no price)"
		if t.Cost != nil && t.CostAfter != nil {
			cost = fmt.Sprintf("cost %s → %s", human.Money(t.Cost), moneyAfter(t.CostAfter, t.Cost)) + " " + st.Gain(*t.Cost-*t.CostAfter).Render(human.Change(*t.Cost, *t.CostAfter))
		}
		parts = append(parts, linePart{text: tok, priority: 4}, linePart{text: cost, priority: 10})
	} else {
		what := "no usage recorded"
		if n, in := v.copied(); n > 0 {
			// Its responses are another log's: their usage counts there.
			what = fmt.Sprintf("usage counted in %s (%s copied)", termtext.Escape(filepath.Base(in)), plural(n, "call", "calls"))
		}
		parts = append(parts, linePart{text: fmt.Sprintf("%s · result tokens %s → %s %s", what, human.Compact(t.Tokens), human.Compact(t.TokensAfter), rp.Calibration.Source()), priority: 10})
	}
	if r := v.realized; r != nil {
		// What the hook cut when it ran in this session, beside what the
		// policy above would.
		verb := "cut"
		if r.TokensAfter > r.Tokens {
			verb = "grew" // replacements longer than the outputs
		}
		parts = append(parts, linePart{text: st.Gain(float64(r.Tokens - r.TokensAfter)).Render(fmt.Sprintf("hook %s %s → %s tokens in %d", verb, human.Compact(r.Tokens), human.Compact(r.TokensAfter), r.Results)), priority: 7})
	}
	for _, mk := range themes.Markers() {
		n := markerCount(t, mk)
		priority := 3
		switch {
		case n == 0:
			priority = 1 // a count of nothing goes first
		case mk == themes.Hazard:
			priority = 9
		}
		parts = append(parts, linePart{text: st.Marker[mk].Render(mk.Glyph()) + fmt.Sprintf("%d", n), priority: priority})
	}
	if warnings > 0 {
		parts = append(parts, linePart{text: st.Warning.Render(plural(warnings, "warning", "warnings") + " (W)"), priority: 9})
	}
	if p := v.progressText(); p != "" && v.session != nil {
		parts = append(parts, linePart{text: st.Muted.Render(p), priority: 6})
	}
	return fitLine(parts, st.Muted.Render(" · "), v.ctx.Width)
}

// plural is n and the noun for it: "1 call", "2 calls".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return human.Count(int64(n)) + " " + many
}

// linePart is a part of a header or footer line; when the line does not
// fit, the parts of the lowest priority are left out first.
type linePart struct {
	text     string
	priority int
	// short, where set, says the part in fewer cells: taken, lowest
	// priority first, before any part is left out.
	short string
}

// fitLine joins parts with sep in at most width cells, saying parts
// shortly (lowest priority first), then leaving out the parts of the
// lowest priority (of equals, the last) until the rest fit, and cutting
// what is left when one part alone is too wide: a line keeps what matters
// most, wherever it stands.
func fitLine(parts []linePart, sep string, width int) string {
	join := func() string {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.text
		}
		return strings.Join(texts, sep)
	}
	line := join()
	if ansi.StringWidth(line) > width {
		parts = slices.Clone(parts) // the caller's are not changed
	}
	for ansi.StringWidth(line) > width {
		at := -1
		for i, p := range parts {
			if p.short != "" && (at < 0 || p.priority < parts[at].priority) {
				at = i
			}
		}
		if at < 0 {
			break
		}
		parts[at].text, parts[at].short = parts[at].short, ""
		line = join()
	}
	for len(parts) > 1 && ansi.StringWidth(line) > width {
		drop := 0
		for i, p := range parts {
			if p.priority <= parts[drop].priority {
				drop = i
			}
		}
		parts = slices.Delete(parts, drop, drop+1)
		line = join()
	}
	return termtext.Truncate(line, width)
}

// recordedTotalsLine sums the session as recorded while its texts are
// read: what the policy saves is not known until they are in.
func (v *sessionScreen) recordedTotalsLine() string {
	st := v.ctx.Styles
	t := v.recorded.Totals
	calls := plural(len(v.session.Calls), "call", "calls")
	if v.partial {
		calls = "so far " + calls // of the file's first part: the rest is being read
	}
	parts := []linePart{{text: calls, priority: 8}}
	if t.RecordedCalls > 0 {
		cost := "cost ? (a model has no price)"
		if t.Cost != nil {
			cost = "cost " + human.Money(t.Cost) + " → …"
		}
		parts = append(parts, linePart{text: "tokens " + human.Compact(t.Prompt) + " → …", priority: 4}, linePart{text: cost, priority: 10})
	}
	if n := v.session.WarningCount; n > 0 {
		parts = append(parts, linePart{text: st.Warning.Render(plural(n, "warning", "warnings") + " (W)"), priority: 9})
	}
	if p := v.progressText(); p != "" {
		parts = append(parts, linePart{text: st.Muted.Render(p), priority: 9})
	}
	return fitLine(parts, st.Muted.Render(" · "), v.ctx.Width)
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
func (v *sessionScreen) chartLine() string {
	st := v.ctx.Styles
	applied := v.applied()
	if err := v.chart.err(applied); err != nil {
		return st.Muted.Render("savings by ceiling: " + termtext.Escape(err.Error()))
	}
	if v.session == nil && !v.loading {
		return st.Muted.Render("savings by ceiling: no session to chart")
	}
	points, missing := v.chart.curve(applied)
	if len(points) == 0 {
		return st.Muted.Render("savings by ceiling: computing…")
	}
	var prompt int64
	for _, rp := range v.replays() {
		prompt += rp.Totals.Prompt
	}
	return drawChart(v.ctx, applied, points, missing, prompt, v.ctx.Width)
}

// drawChart draws the savings at each ceiling of points, under pol, in at
// most width cells: a bar a point scaled to the best point, whose figure
// the head states, the one at the ceiling applied marked and its figure
// printed, a dot for each of missing; prompt is the prompt tokens the
// savings are a share of when a cost is not known. Every ceiling is
// labelled alike, in K of 1,024 of the policy's unit, which the head says.
func drawChart(ctx *Context, pol policy.Policy, points []replay.SweepPoint, missing int, prompt int64, width int) string {
	st := ctx.Styles
	bars := []rune("▁▂▃▄▅▆▇█")
	share, figure, what := savedShare(points, prompt)
	best, at, adds := 0.0, -1, false
	for i, p := range points {
		v := share(p)
		if v > best {
			best, at = v, i
		}
		adds = adds || v < 0
	}
	marked := -1 // the point at the ceiling applied, or the nearest to it
	if pol.Ceiling > 0 {
		marked = 0
		for i, p := range points {
			if abs64(p.Ceiling-pol.Ceiling) < abs64(points[marked].Ceiling-pol.Ceiling) {
				marked = i
			}
		}
	}
	cells := make([]string, 0, len(points)+1)
	for i, p := range points {
		v, label := share(p), ceilingLabel(p.Ceiling)
		if v < 0 { // the ceiling costs more than none: replacements longer than their results
			if i == marked {
				cells = append(cells, st.ChartCurrent.Render("▸"+label)+st.Warning.Render("− "+figure(p)))
			} else {
				cells = append(cells, st.ChartBar.Render(label)+st.Warning.Render("−"))
			}
			continue
		}
		bar := " " // nothing saved
		if v > 0 && best > 0 {
			bar = string(bars[min(len(bars)-1, int(math.Ceil(v/best*float64(len(bars))))-1)])
		}
		if i == marked {
			cells = append(cells, st.ChartCurrent.Render("▸"+label+bar+" "+figure(p)))
		} else {
			cells = append(cells, st.ChartBar.Render(label+bar))
		}
	}
	if missing > 0 {
		cells = append(cells, st.Muted.Render(strings.Repeat("·", missing)))
	}
	unit := "K = " + policy.FormatSize(1024, pol.Unit)
	key := unit
	if adds {
		key = "− adds, " + unit
	}
	heads := []string{
		fmt.Sprintf("%s saved by ceiling, █ = best %s at %s (%s):", what, figure(pointAt(points, at)), ceilingLabel(pointAt(points, at).Ceiling), key),
		fmt.Sprintf("saved, █ = %s (%s):", figure(pointAt(points, at)), unit),
		fmt.Sprintf("saved, █ = %s:", figure(pointAt(points, at))),
	}
	if best <= 0 {
		heads = []string{fmt.Sprintf("%s saved by ceiling: none at any (%s):", what, key), "saved: none (" + unit + "):", "saved: none:"}
	}
	body := strings.Join(cells, " ")
	legend := make([]string, 0, 6)
	for _, mk := range themes.Markers() {
		legend = append(legend, st.Marker[mk].Render(mk.Glyph())+" "+mk.Name())
	}
	tail := st.Muted.Render("  ·  ") + strings.Join(legend, st.Muted.Render(", "))
	for _, head := range heads {
		if line := st.Muted.Render(head) + " " + body; ansi.StringWidth(line) <= width || head == heads[len(heads)-1] {
			if ansi.StringWidth(line+tail) <= width {
				return line + tail
			}
			return line
		}
	}
	return ""
}

// pointAt is points[i], or none when i is out of them.
func pointAt(points []replay.SweepPoint, i int) replay.SweepPoint {
	if i < 0 || i >= len(points) {
		return replay.SweepPoint{}
	}
	return points[i]
}

// savedShare says how much of the session each point saves, as a share
// the bars are scaled by, with the figure printed for a point and what
// the savings are of: the cost, when every point has one; else the prompt
// tokens; else, with nothing to take a share of, the tokens saved.
func savedShare(points []replay.SweepPoint, prompt int64) (share func(replay.SweepPoint) float64, figure func(replay.SweepPoint) string, what string) {
	priced := true
	for _, p := range points {
		priced = priced && p.Cost != nil && p.CostAfter != nil && *p.Cost > 0
	}
	switch {
	case priced:
		share = func(p replay.SweepPoint) float64 {
			if p.Cost == nil || p.CostAfter == nil || *p.Cost <= 0 {
				return 0
			}
			return (*p.Cost - *p.CostAfter) / *p.Cost
		}
		what = "cost"
	case prompt > 0:
		share = func(p replay.SweepPoint) float64 { return float64(p.Saved) / float64(prompt) }
		what = "prompt"
	default:
		share = func(p replay.SweepPoint) float64 { return float64(p.Saved) }
		return share, func(p replay.SweepPoint) string {
			if p.Saved < 0 {
				return "adds " + human.Compact(-p.Saved) + " tok"
			}
			return human.Compact(p.Saved) + " tok"
		}, "tokens"
	}
	return share, func(p replay.SweepPoint) string {
		if v := share(p); v < 0 {
			return "adds " + pct(-v)
		}
		return pct(share(p))
	}, what
}

// ceilingLabel is a chart's ceiling in K of 1,024 of its unit (M of
// 1,024 K): 24K, 48.8K for 50,000, 512 under 1,024.
func ceilingLabel(n int64) string {
	const k, m = 1 << 10, 1 << 20
	switch {
	case n >= m && n%m == 0:
		return fmt.Sprintf("%dM", n/m)
	case n >= m:
		return strconv.FormatFloat(float64(n)/m, 'f', 1, 64) + "M"
	case n >= k && n%k == 0:
		return fmt.Sprintf("%dK", n/k)
	case n >= k:
		return strconv.FormatFloat(float64(n)/k, 'f', 1, 64) + "K"
	}
	return strconv.FormatInt(n, 10)
}

// helpScreen is the full help, from the key map.
func (m *Model) helpScreen() []string {
	st := m.ctx.Styles
	head := []string{st.Title.Render("spillway keys") + st.Muted.Render(" · j/k scroll · ? or esc to close"), ""}
	return scrolled(head, m.helpLines(), m.overlayScroll, m.ctx.Height)
}

// helpLines are the help's lines under its head.
func (m *Model) helpLines() []string {
	st := m.ctx.Styles
	var lines []string
	// Columns that do not fit side by side go on a second block.
	groups := m.ctx.Keys.FullHelp()
	switch {
	case m.onList():
		groups = m.ctx.Keys.ListFullHelp()
	case m.fleet != nil:
		groups = m.ctx.Keys.SessionFullHelp()
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
	lines = append(lines, "")
	caveat := "After figures assume the agent would have made the same calls and written the same output."
	for _, l := range strings.Split(ansi.Wordwrap(caveat, max(1, m.ctx.Width), ""), "\n") {
		lines = append(lines, st.Muted.Render(l))
	}
	return lines
}

// Overlay heads: the help's takes two lines, the warnings' one.
const (
	helpHead     = 2
	warningsHead = 1
)

// scrolled is an overlay's screen, height lines: its head, then the
// window of lines that fits under it from offset (which is kept within
// the lines, so that scrolling back starts at once).
func scrolled(head, lines []string, offset, height int) []string {
	room := max(1, height-len(head))
	from := min(offset, len(lines))
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
	goes := "enter goes to its call"
	if m.sess == nil {
		goes = "enter opens its session" // the list's: a line per session
	}
	hint := st.Muted.Render(" · j/k select · " + goes + " · W or esc to close")
	if m.ctx.notice != "" {
		hint = st.Muted.Render(" · ") + st.Warning.Render(termtext.Escape(m.ctx.notice)) // the footer is not drawn
	}
	head := []string{termtext.Truncate(st.Title.Render("warnings")+hint, m.ctx.Width)}
	return scrolled(head, m.warningLines(), m.overlayScroll, m.ctx.Height)
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
	path  string // on the list, the session the warnings are of
}

// warningEntries lists the reader's warnings, each with the call its line
// is filed under (the last call that starts at or before it), then the
// records skipped, then the replay's warnings with their results' calls.
func (m *Model) warningEntries() []warningEntry {
	var all []warningEntry
	if m.sess == nil {
		for _, w := range m.fleet.warnings {
			all = append(all, warningEntry{text: termtext.Escape(w), call: -1})
		}
		// The sessions whose logs the reader warned of: enter opens one.
		l := &m.fleet.list
		for _, i := range l.shown {
			if r := &l.rows[i]; r.Warnings > 0 {
				all = append(all, warningEntry{text: fmt.Sprintf("%s: %s of the reader (enter opens it; W there lists them)",
					termtext.Escape(filepath.Base(r.Path)), plural(r.Warnings, "warning", "warnings")), call: -1, path: r.Path})
			}
		}
		return all
	}
	return append(all, m.sess.warningEntries()...)
}

// warningEntries lists the reader's warnings, each with the call its line
// is filed under (the last call that starts at or before it), then the
// records skipped, then the replay's warnings with their results' calls.
func (v *sessionScreen) warningEntries() []warningEntry {
	var all []warningEntry
	if s := v.session; s != nil {
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
	if rp := v.replay; rp != nil {
		for _, w := range rp.Warnings {
			all = append(all, warningEntry{text: termtext.Escape(w), call: resultWarningCall(rp, w)})
		}
	}
	// A sub-agent's, named by its log, with the calls shown.
	for _, p := range v.logParts()[1:] {
		name := termtext.Escape(p.name)
		for _, w := range p.session.Warnings {
			all = append(all, warningEntry{text: fmt.Sprintf("%s line %d: %s", name, w.Line, termtext.Escape(w.Message)), call: shownCall(p, callAtLine(p.session, w.Line))})
		}
		if n := p.session.WarningCount - len(p.session.Warnings); n > 0 {
			all = append(all, warningEntry{text: fmt.Sprintf("%s: … and %d more", name, n), call: -1})
		}
		if p.replay != nil {
			for _, w := range p.replay.Warnings {
				all = append(all, warningEntry{text: name + ": " + termtext.Escape(w), call: shownCall(p, resultWarningCall(p.replay, w))})
			}
		}
	}
	return all
}

// shownCall is call of p's log among the calls shown; -1 stays -1.
func shownCall(p logPart, call int) int {
	if call < 0 {
		return -1
	}
	return p.first + call
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
