package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/spillview"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
)

// detailPane shows the selected call: its tool calls, each result's size
// and outcome, and its text as recorded and under the policy.
type detailPane struct {
	ctx           *Context
	width, height int
	top           int // screen row of the pane
	offset        int
	result        int // selected result among the call's
	stacked       bool

	// lines caches the rendered content.
	lines []string
	key   string
	// first and name are those of the log the call shown is of: the
	// index of its first call among all those shown, and, for a
	// sub-agent's, its file's name.
	first int
	name  string
	// hazardAt is the first line to show of the selected result when it
	// has a hazard (its summary if the hazard's lines fit below it, else
	// the hazard's first), -1 for none;
	// toHazard, set by H, scrolls there once the pane is drawn.
	hazardAt int
	toHazard bool
	// files says which agent spill files exist, as far as they were looked
	// up; agentFile is the one the result shown names, "" when none.
	files     map[string]bool
	agentFile string
	// held keeps the texts of results read again from the session file
	// (replay.Prepared.TextsOnDemand), a few at a time; want is the one
	// the pane shows and lacks, for the model to read in a command, and
	// heldN counts those read, so that the pane is drawn again.
	held  map[*transcript.ToolResult]string
	want  *transcript.ToolResult
	heldN int
}

// maxHeldTexts bounds the texts read again kept for the pane.
const maxHeldTexts = 16

// original is r's text as recorded; ok is false while it is to be read
// from the session file, which want then names.
func (d *detailPane) original(rp *replay.Run, r *replay.Result) (text string, ok bool) {
	if !rp.Prepared.TextsOnDemand() || r.Source.DroppedBytes == 0 {
		return r.Source.Text, true
	}
	if t, ok := d.held[r.Source]; ok {
		return t, true
	}
	d.want = r.Source
	return "", false
}

// hold keeps a text read again for r.
func (d *detailPane) hold(r *transcript.ToolResult, text string) {
	if d.held == nil || len(d.held) >= maxHeldTexts {
		d.held = map[*transcript.ToolResult]string{}
	}
	d.held[r] = text
	d.heldN++
}

func (d *detailPane) setSize(w, h int) {
	d.width, d.height = w, h
	d.key = ""
}

func (d *detailPane) reset() {
	d.offset, d.result = 0, 0
	d.key, d.toHazard = "", false
}

// scroll moves the window; refresh keeps it within the content.
func (d *detailPane) scroll(n int) {
	d.offset = max(0, d.offset+n)
}

// selectResult moves the selection among a call's n results.
func (d *detailPane) selectResult(step, n int) {
	d.result = max(0, min(d.result+step, n-1))
	d.offset = 0
	d.key = ""
}

// results lists the replayed results of call.
func callResults(rp *replay.Run, call int) []*replay.Result {
	if rp == nil {
		return nil
	}
	var out []*replay.Result
	for i := range rp.Results {
		if rp.Results[i].Arrival == call {
			out = append(out, &rp.Results[i])
		}
	}
	return out
}

// refresh renders the pane for call when what it shows changed, and keeps
// the offset within the content (the last page stays full). Update calls
// it after every message; View only reads. files says which agent spill
// files exist; answers, the count of its answers so far, draws the pane
// again when a new one may change it.
func (d *detailPane) refresh(p logPart, call int, files map[string]bool, answers int) {
	if d.height <= 0 || d.width <= 0 {
		return
	}
	s, rp := p.session, p.replay
	key := fmt.Sprintf("%p/%p/%d/%d/%v/%d/%p/%d/%d", s, rp, call, d.result, d.stacked, d.width, d.ctx.Styles, answers, d.heldN)
	if key != d.key {
		d.files, d.agentFile, d.want = files, "", nil
		d.first, d.name = p.first, p.name
		d.hazardAt = -1
		d.lines = d.render(s, rp, call)
		d.key = key
	}
	if d.toHazard && d.hazardAt >= 0 {
		d.offset = d.hazardAt
		d.toHazard = false
	}
	d.offset = max(0, min(d.offset, len(d.lines)-(d.height-1)))
}

// View draws the window of the pane.
func (d *detailPane) View(focused bool) string {
	if d.height <= 0 || d.width <= 0 {
		return ""
	}
	st := d.ctx.Styles
	title := "detail"
	if focused {
		title += " · ←/→ result · esc back"
	} else {
		title += " · tab to scroll"
	}
	out := []string{st.Separator.Render(termtext.Truncate("── "+title+" "+strings.Repeat("─", d.width), d.width))}
	for i := d.offset; i < len(d.lines) && len(out) < d.height; i++ {
		out = append(out, d.lines[i])
	}
	return strings.Join(out, "\n")
}

// render builds every line of the pane for call.
func (d *detailPane) render(s *transcript.Session, rp *replay.Run, call int) []string {
	st := d.ctx.Styles
	w := d.width
	if s == nil || call < 0 || call >= len(s.Calls) {
		return []string{st.Muted.Render("no call selected")}
	}
	c := &s.Calls[call]
	var lines []string
	add := func(line string) { lines = append(lines, line) }
	// The call's figures, and beside them (or under them when narrow) why
	// it cost what it did.
	costs, right := d.costLines(s, rp, call, w < sideBySideCosts)
	if w >= sideBySideCosts && len(costs) > 0 {
		right = min(right, w/2) // the title and notes wrap to the rows' width
		left := w - right - 3
		info := d.infoLines(c, rp, call, left)
		costs = wordWrap(costs, right)
		for i := 0; i < max(len(info), len(costs)); i++ {
			var l, r string
			if i < len(info) {
				l = info[i]
			}
			if i < len(costs) {
				r = costs[i]
			}
			add(termtext.Fit(l, left) + st.Separator.Render(" │ ") + r)
		}
	} else {
		lines = append(lines, d.infoLines(c, rp, call, w)...)
		lines = append(lines, wordWrap(costs, w)...)
	}
	results := callResults(rp, call)
	if rp == nil {
		for _, r := range c.Results {
			add(st.Muted.Render(termtext.Truncate(fmt.Sprintf("result %s · %s · replaying…", termtext.Escape(r.Tool), human.ShortBytes(int64(r.Bytes()))), w)))
		}
		return lines
	}
	if len(results) == 0 {
		add(st.Muted.Render("no tool result came back after this call"))
		return lines
	}
	sel := min(d.result, len(results)-1)
	selAt := 0 // the first line of the selected result's summary
	for i, r := range results {
		prefix := "  "
		if i == sel {
			prefix = "› "
			selAt = len(lines)
		}
		// Wrapped, not cut: the carry cost and a repeat's reason come last.
		for j, l := range wordWrap([]string{d.resultLine(r, len(s.Calls), rp.Calibration.Source())}, w-2) {
			if j > 0 {
				prefix = "  "
			}
			add(prefix + l)
		}
	}
	r := results[sel]
	hazardFrom := len(lines)
	for _, l := range hazardLines(st, r, len(s.Calls), d.first, w) {
		add(l)
	}
	if r.Hazard != nil {
		// From its summary, as far as the hazard's last line lets: the
		// other results' summaries may stand between them.
		d.hazardAt = max(min(selAt, hazardFrom), min(hazardFrom, len(lines)-(d.height-1)))
	}
	if r.Warning != "" {
		add(st.Warning.Render(termtext.Truncate("warning: "+termtext.Escape(r.Warning), w)))
	}
	original, read := d.original(rp, r)
	if r.SpillPath != "" {
		add(st.Muted.Render(termtext.Truncate("spill file: "+termtext.Escape(r.SpillPath)+" (enter opens the result it holds)", w)))
	} else if p := harness.AgentSpillPath(original); p != "" {
		d.agentFile = p
		state := " (looking for it…)"
		if exists, known := d.files[p]; known && exists {
			state = " (enter opens it)"
		} else if known {
			state = ", missing here (enter shows what the transcript holds)"
		}
		add(st.Muted.Render(termtext.Truncate("the agent spilled this itself: "+termtext.Escape(p)+state, w)))
	}
	add("")
	before := termtext.Lines(original)
	if !read {
		before = []string{st.Muted.Render("(reading its text from the session file…)")}
	}
	after := termtext.Lines(r.Text)
	if r.Outcome == replay.Kept || r.Outcome == replay.Excluded {
		after = []string{st.Muted.Render("(the same text: the policy leaves this result as it is)")}
	}
	half := splitWidth(before, w)
	if r.Outcome != replay.Kept && r.Outcome != replay.Excluded && len(r.Text) <= 64<<10 {
		// A replacement is small but often one long line (a JSON marker):
		// wrap it to its column so all of it can be read.
		width := w
		if !d.stacked && w >= 60 {
			width = w - half - 3
		}
		after = wrapLines(after, width)
	}
	leftTitle := fmt.Sprintf("as recorded · %s", human.ShortBytes(r.Bytes))
	rightTitle := fmt.Sprintf("under %s · %s", termtext.Escape(rp.Policy.Name), human.ShortBytes(r.BytesAfter))
	if r.Outcome == replay.Kept || r.Outcome == replay.Excluded {
		rightTitle = fmt.Sprintf("under %s · unchanged", termtext.Escape(rp.Policy.Name))
	}
	limit := 2000 // lines of each side; enter opens the whole result
	if d.stacked || w < 60 {
		add(st.Label.Render(termtext.Truncate("── "+leftTitle+" "+strings.Repeat("─", w), w)))
		for i, l := range before {
			if i == limit {
				add(st.Muted.Render(fmt.Sprintf("… %d more lines (enter opens all)", len(before)-limit)))
				break
			}
			add(termtext.Truncate(l, w))
		}
		add(st.Label.Render(termtext.Truncate("── "+rightTitle+" "+strings.Repeat("─", w), w)))
		for i, l := range after {
			if i == limit {
				break
			}
			add(st.Seen.Render(termtext.Truncate(l, w)))
		}
		return lines
	}
	add(st.Label.Render(termtext.Fit(leftTitle, half)) + st.Separator.Render(" │ ") + st.Label.Render(termtext.Truncate(rightTitle, w-half-3)))
	for i := 0; i < max(len(before), len(after)) && i < limit; i++ {
		var l, rr string
		if i < len(before) {
			l = before[i]
		}
		if i < len(after) {
			rr = after[i]
		}
		add(termtext.Fit(l, half) + st.Separator.Render(" │ ") + st.Seen.Render(termtext.Truncate(rr, w-half-3)))
	}
	return lines
}

// sideBySideCosts is the narrowest pane that shows a call's figures and
// its cost parts side by side.
const sideBySideCosts = 110

// splitWidth sizes the recorded side of a side-by-side result by its
// content: as wide as its widest line among the first screenful, between
// a third and half of the pane, so that the policy's side, which wraps,
// gets what is left.
func splitWidth(before []string, w int) int {
	widest := 0
	for i, l := range before {
		if i == 200 {
			break
		}
		widest = max(widest, ansi.StringWidth(l))
	}
	return max((w-3)/3, min(widest, (w-3)/2))
}

// infoLines are the call's head, usage, prompt and cost, text and tool
// calls, each on a line of its own.
func (d *detailPane) infoLines(c *transcript.Call, rp *replay.Run, call, w int) []string {
	st := d.ctx.Styles
	var lines []string
	// Figures wrap, so that none is cut off; the model's text and the
	// tool calls' inputs are cut to a line each.
	add := func(line string) { lines = append(lines, wordWrap([]string{line}, w)...) }
	cut := func(line string) { lines = append(lines, termtext.Truncate(line, w)) }
	head := fmt.Sprintf("call %d", d.first+call)
	if d.name != "" {
		head += fmt.Sprintf(" · sub-agent %s, its call %d", termtext.Escape(d.name), call)
	}
	if !c.Time.IsZero() {
		head += " · " + c.Time.Local().Format(time.DateTime+" MST")
	}
	if c.Model != "" {
		head += " · " + termtext.Escape(c.Model)
	}
	if c.Sidechain {
		head += " · sidechain"
	}
	add(st.Title.Render(head))
	if c.Usage != nil {
		u := *c.Usage
		line := fmt.Sprintf("recorded: input %s · cache write %s · cache read %s · output %s",
			human.Count(u.Input), human.Count(u.CacheCreation), human.Count(u.CacheRead), human.Count(u.Output))
		if u.OutputLowerBound {
			line += " (≥: written as the response began)"
		}
		add(st.Value.Render(line))
		if c.CountedIn != "" {
			add(st.Muted.Render("a copy: " + termtext.Escape(c.CountedIn) + " counts this response; added to no total here"))
		}
		if rp != nil && call < len(rp.Calls) {
			rc := rp.Calls[call]
			after := u
			if rc.UsageAfter != nil {
				after = *rc.UsageAfter
			}
			add(st.Value.Render(fmt.Sprintf("prompt %s → %s tokens (recorded → %s) · cost %s → %s", human.Count(u.Prompt()), human.Count(after.Prompt()),
				rp.Calibration.Source(), human.USD(rc.Cost), human.USD(rc.CostAfter))))
			if saved := rc.Saved(); saved != 0 {
				// Each part by its own sign: a call may carry one result
				// made shorter and another made longer.
				cached := u.CacheRead - after.CacheRead
				part := func(n int64, what string) string {
					if n < 0 || n == 0 && saved < 0 {
						return human.Count(-n) + " more " + what
					}
					return human.Count(n) + " fewer " + what
				}
				add(st.Gain(float64(saved)).Render(human.Less(saved, human.Count) + " tokens: " + part(saved-cached, "new") + ", " + part(cached, "cached")))
			}
		}
	} else {
		note := "no usage recorded for this call"
		if rp != nil && call < len(rp.Calls) {
			switch saved := rp.Calls[call].Saved(); {
			case saved > 0:
				note += fmt.Sprintf("; the policy would take out about %s tokens, estimated from its results (~ in the table)", human.Count(saved))
			case saved < 0:
				note += fmt.Sprintf("; the policy would add about %s tokens, estimated from its results (~ in the table)", human.Count(-saved))
			}
		}
		add(st.Muted.Render(note))
	}
	if t := strings.TrimSpace(c.Text); t != "" {
		cut(st.Muted.Render("“" + termtext.Escape(t) + "”"))
	}
	for _, tc := range c.ToolCalls {
		cut("▸ " + termtext.Escape(tc.Name) + "  " + termtext.Escape(summarize(tc.Input)))
	}
	return lines
}

// resultLine summarizes one result on one line: its tokens as the
// tokenizer counts them, and what the policy saves as source says
// (calibrated against the recorded usage, or estimated).
func (d *detailPane) resultLine(r *replay.Result, calls int, source string) string {
	st := d.ctx.Styles
	action := string(r.Outcome)
	switch r.Outcome {
	case replay.Truncated:
		action = st.Marker[themes.Truncated].Render(action)
	case replay.Spilled:
		action = st.Marker[themes.Spilled].Render(action)
	case replay.Suppressed:
		action = st.Marker[themes.Suppressed].Render(action)
		if r.Stale {
			action += " " + st.Marker[themes.Stale].Render("stale")
		}
	case replay.Excluded:
		action = st.Marker[themes.Excluded].Render(action)
	}
	line := fmt.Sprintf("result %d · %s · %s → %s", r.Index, termtext.Escape(r.Source.Tool), human.ShortBytes(r.Bytes), human.ShortBytes(r.BytesAfter))
	if r.Tokens >= 0 {
		line += fmt.Sprintf(" · %s → %s tok counted", human.Count(r.Tokens), human.Count(r.TokensAfter))
	}
	line += " · " + action + " (" + termtext.Escape(r.Reason) + ")"
	if r.Saved != 0 {
		line += " · " + st.Gain(float64(r.Saved)).Render(human.Less(r.Saved, human.Count)+" tok "+source)
	}
	switch {
	case r.CarryCalls > 0:
		noun := "calls"
		if r.CarryCalls == 1 {
			noun = "call"
		}
		line += fmt.Sprintf(" · carried by %d %s, %s as recorded", r.CarryCalls, noun, human.USD(&r.CarryCost))
	case r.SentAt >= calls:
		line += " · never sent on: the session compacted or ended first"
	}
	if r.Source.IsError {
		line += " · error"
	}
	if r.Source.Images > 0 {
		line += fmt.Sprintf(" · %d image(s)", r.Source.Images)
	}
	if r.Source.Clipped {
		line += " · clipped by the log"
	}
	return line
}

// summarize shows a tool input on one line: key=value pairs of an object.
func summarize(input []byte) string {
	s := strings.TrimSpace(string(input))
	s = strings.TrimPrefix(strings.TrimSuffix(s, "}"), "{")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// source is the selected result for the spill viewer: the file spillway
// wrote, else the text itself, with what the model would see under the
// policy marked. agentFile
// is the file the agent itself spilled the result to, if it names one:
// whether that exists is asked in a command (withAgentFile).
func (d *detailPane) source(rp *replay.Run, call int) (src spillview.Source, agentFile string, ok bool) {
	results := callResults(rp, call)
	if len(results) == 0 {
		return spillview.Source{}, "", false
	}
	r := results[min(d.result, len(results)-1)]
	original, read := d.original(rp, r)
	if !read {
		return spillview.Source{}, "", false
	}
	src = spillview.Source{
		Title: fmt.Sprintf("result %d · %s · %s under %s", r.Index, termtext.Escape(r.Source.Tool), r.Outcome, termtext.Escape(rp.Policy.Name)),
		Text:  original,
	}
	if seen := rp.Seen(r); seen != nil {
		src.Seen = []spillview.Range{}
		var total int64
		for _, s := range seen {
			src.Seen = append(src.Seen, spillview.Range{From: s.From, To: s.To})
			total += s.To - s.From
		}
		rest := "the rest only in the spill file"
		switch r.Outcome {
		case replay.Truncated:
			rest = "the rest was cut off"
		case replay.Suppressed:
			rest = "a note that it repeats an earlier result stood in its place"
		}
		src.Note = fmt.Sprintf("under %s the model would see %s of %s bytes; %s", termtext.Escape(rp.Policy.Name), human.Count(total), human.Count(r.Bytes), rest)
	}
	if err := rp.Prepared.TextErr(); err != nil && original == "" && r.Bytes > 0 {
		// Read again from a file that changed: say so, not an empty text.
		src.Note = "its text is not shown: " + termtext.Escape(err.Error())
	}
	src.Find = hazardFind(r, original)
	return src, harness.AgentSpillPath(original), true
}

// withAgentFile opens the file the agent spilled src to when it exists on
// this machine and lies where that agent spills (the viewer confines it to
// the agents' spill folders for the transcript at session when it opens
// it), and says so when it does not exist.
func withAgentFile(src spillview.Source, path string, exists bool, session string) spillview.Source {
	if exists {
		src.Path, src.Roots = path, spillview.AgentRoots(session)
	} else {
		src.Note = fmt.Sprintf("the agent spilled this result to %s, which is not on this machine; showing what the transcript holds", termtext.Escape(path))
	}
	return src
}

// wordWrap breaks lines longer than width cells between words where it
// can, styles kept.
func wordWrap(lines []string, width int) []string {
	if width <= 0 {
		return lines
	}
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(ansi.Wrap(l, width, ""), "\n")...)
	}
	return out
}

// wrapLines breaks lines longer than width cells.
func wrapLines(lines []string, width int) []string {
	if width <= 0 {
		return lines
	}
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(ansi.Hardwrap(l, width, true), "\n")...)
	}
	return out
}
