package ui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/transcript"
)

// contextAxis is the width of the chart's token axis.
const contextAxis = 8

// contextScreen draws the prompt's size at every call over the session,
// as recorded and under the policy, with the compactions marked: the
// whole screen, each column one call (or, with more calls than columns,
// the largest of the calls it spans).
func (v *sessionScreen) contextScreen() []string {
	st := v.ctx.Styles
	w, h := v.ctx.Width, v.ctx.Height
	k := v.ctx.Keys
	head := termtext.Truncate(st.Title.Render("context over time")+
		st.Muted.Render(fmt.Sprintf(" · prompt tokens per call · %s or %s to close", k.Context.Help().Key, k.Back.Help().Key)), w)
	s, rp := v.session, v.replay
	if s == nil || rp == nil {
		return []string{head, st.Muted.Render("replaying…")}
	}
	series := contextSeries(s, rp)
	if series.peak <= 0 {
		return []string{head, st.Muted.Render("no call records its usage: there are no prompt sizes to chart")}
	}
	rows := h - 5 // the head, the axis, its labels and the legend's two lines
	plot := w - contextAxis
	if rows < 2 || plot < 8 {
		return []string{head, st.Muted.Render("the terminal is too small for the chart")}
	}
	win := sessionWindow(s, rp)
	top := chartTop(series.peak, win.tokens)
	lineRow := -1 // the row the window's line is drawn on
	if win.tokens > 0 && win.tokens <= top {
		lineRow = windowRow(win.tokens, top, rows)
	}
	cols := bucketCalls(series, plot)
	out := []string{head}
	for r := range rows {
		label := ""
		switch r {
		case lineRow:
			label = human.Compact(win.tokens)
		case 0:
			label = human.Compact(top)
		case rows / 2:
			label = human.Compact(top / 2)
		}
		line := st.Muted.Render(termtext.FitLeft(label, contextAxis-2) + " ┤")
		var run strings.Builder
		var runStyle *lipgloss.Style
		flush := func() {
			if run.Len() > 0 {
				line += runStyle.Render(run.String())
				run.Reset()
			}
		}
		floor := int64(rows-1-r) * 8 // eighths below this row
		for _, c := range cols {
			b := eighthsIn(c.before, top, rows, floor)
			a := eighthsIn(c.after, top, rows, floor)
			glyph, style := " ", &st.Faint
			switch {
			case a > 0 && a < 8 && b > a && !st.Palette.Mono:
				// The recorded bar goes on above: no gap of the
				// terminal's background between the two.
				glyph, style = eighthGlyph(a), &st.ChartAfterInBar
			case a > 0:
				glyph, style = eighthGlyph(a), &st.ChartAfter
			case b > 0 && st.Palette.Mono:
				// Without colour the two series differ by their glyph: the
				// recorded prompt above the policy's is shaded.
				glyph, style = recordedShade, &st.ChartBar
			case b > 0:
				glyph, style = eighthGlyph(b), &st.ChartBar
			case c.compaction:
				glyph, style = "┊", &st.ChartEvent
			case r == lineRow:
				glyph, style = "┄", &st.Warning
			}
			if style != runStyle {
				flush()
				runStyle = style
			}
			run.WriteString(glyph)
		}
		flush()
		out = append(out, line)
	}
	axis := st.Muted.Render(termtext.FitLeft("0", contextAxis-2) + " └")
	for _, c := range cols {
		if c.compaction {
			axis += st.ChartEvent.Render("▲")
		} else {
			axis += st.Muted.Render("─")
		}
	}
	out = append(out, axis)
	first, last := "call 0", fmt.Sprintf("call %d", len(s.Calls)-1)
	out = append(out, st.Muted.Render(strings.Repeat(" ", contextAxis)+first+
		strings.Repeat(" ", max(1, len(cols)-len(first)-len(last)))+last))
	recordedGlyph := "█"
	if st.Palette.Mono {
		recordedGlyph = recordedShade
	}
	legend := st.ChartBar.Render(recordedGlyph) + st.Muted.Render(fmt.Sprintf(" as recorded, peak %s at call %d · ", human.Compact(series.peak), series.peakCall)) +
		st.ChartAfter.Render("█") + st.Muted.Render(fmt.Sprintf(" under %s, peak %s · ", termtext.Escape(rp.Policy.Name), human.Compact(series.peakAfter))) +
		st.ChartEvent.Render("▲") + st.Muted.Render(fmt.Sprintf(" %d compaction(s)", series.compactions))
	var window string
	switch model := termtext.Escape(win.model); {
	case win.model == "":
		window = st.Muted.Render("no price table: no context window to draw")
	case win.tokens <= 0:
		window = st.Muted.Render(fmt.Sprintf("no context window in the price table for %s: no line", model))
	case lineRow < 0:
		window = st.Warning.Render("┄") + st.Muted.Render(fmt.Sprintf(" %s's context window %s is %.0f× the peak: above the chart",
			model, human.Compact(win.tokens), float64(win.tokens)/float64(series.peak)))
	default:
		window = st.Warning.Render("┄") + st.Muted.Render(fmt.Sprintf(" %s's context window %s; the peak fills %s of it",
			model, human.Compact(win.tokens), pct(float64(series.peak)/float64(win.tokens))))
	}
	return append(out, termtext.Truncate(legend, w), termtext.Truncate(window, w))
}

// recordedShade draws, without colour, the prompt as recorded above what
// the policy leaves of it.
const recordedShade = "░"

// contextWindow is a model's context window, 0 when the table gives none.
type contextWindow struct {
	model  string
	tokens int64
}

// sessionWindow is the context window of the model of the session's last
// call with usage: the model its context is held to now.
func sessionWindow(s *transcript.Session, rp *replay.Run) contextWindow {
	for i := len(s.Calls) - 1; i >= 0; i-- {
		c := &s.Calls[i]
		if c.Usage == nil {
			continue
		}
		if rp.Prepared == nil || rp.Prepared.Prices == nil {
			return contextWindow{}
		}
		e, _, _ := rp.Prepared.Prices.Lookup(c.Model) // an unknown model has no window either
		return contextWindow{model: c.Model, tokens: int64(e.MaxInputTokens)}
	}
	return contextWindow{}
}

// windowReach is how far above the peak the chart's top goes to show the
// context window: beyond it the bars would be too short to read.
const windowReach = 4

// chartTop is the value at the top of the chart: the peak, raised to the
// window when the window is at most windowReach times the peak.
func chartTop(peak, window int64) int64 {
	if window > peak && window <= windowReach*peak {
		return window
	}
	return peak
}

// windowRow is the row, from the top of a chart rows high with top at
// its top, whose cells hold the value window.
func windowRow(window, top int64, rows int) int {
	above := (window*int64(rows) + top - 1) / top // rows from the bottom, rounded up
	return min(max(rows-int(above), 0), rows-1)
}

// contextPoints are the prompt sizes of every call, before and after.
type contextPoints struct {
	before, after         []int64
	compactionBefore      []bool // a compaction came just before the call
	peak, peakAfter       int64
	peakCall, compactions int
}

func contextSeries(s *transcript.Session, rp *replay.Run) contextPoints {
	n := len(s.Calls)
	p := contextPoints{before: make([]int64, n), after: make([]int64, n), compactionBefore: make([]bool, n+1)}
	for i := range s.Calls {
		if u := s.Calls[i].Usage; u != nil {
			p.before[i], p.after[i] = u.Prompt(), u.Prompt()
		}
		if i < len(rp.Calls) && rp.Calls[i].UsageAfter != nil {
			p.after[i] = rp.Calls[i].UsageAfter.Prompt()
		}
		if p.before[i] > p.peak {
			p.peak, p.peakCall = p.before[i], i
		}
		p.peakAfter = max(p.peakAfter, p.after[i])
	}
	for _, e := range s.Events {
		if e.Kind == transcript.EventCompaction {
			p.compactions++
			p.compactionBefore[min(max(e.BeforeCall, 0), n)] = true
		}
	}
	return p
}

// contextColumn is one column of the chart.
type contextColumn struct {
	before, after int64
	compaction    bool
}

// bucketCalls spreads the calls over width columns: with a third as many
// calls as columns or fewer each call takes as many whole columns as it
// can, the last a gap; with fewer calls than columns, one or two each, over
// the whole width; else a column holds the largest of its calls; a compaction marks the column of the
// first call after it (the last column for one after every call).
func bucketCalls(p contextPoints, width int) []contextColumn {
	n := len(p.before)
	if n == 0 {
		return nil
	}
	if n < width && width/n < 3 {
		// One or two columns a call, spread over the whole width.
		cols := make([]contextColumn, width)
		for x := range cols {
			i := x * n / width
			cols[x] = contextColumn{before: p.before[i], after: p.after[i], compaction: p.compactionBefore[i] && (x == 0 || (x-1)*n/width != i)}
		}
		cols[width-1].compaction = cols[width-1].compaction || p.compactionBefore[n]
		return cols
	}
	if n <= width {
		each := width / n
		cols := make([]contextColumn, 0, each*n+1)
		for i := range n {
			for j := range each {
				c := contextColumn{before: p.before[i], after: p.after[i], compaction: j == 0 && p.compactionBefore[i]}
				if each >= 3 && j == each-1 {
					c.before, c.after = 0, 0 // a gap between wide bars
				}
				cols = append(cols, c)
			}
		}
		if p.compactionBefore[n] {
			if len(cols) < width {
				cols = append(cols, contextColumn{compaction: true})
			} else {
				cols[len(cols)-1].compaction = true
			}
		}
		return cols
	}
	cols := make([]contextColumn, width)
	for x := range cols {
		lo, hi := x*n/width, (x+1)*n/width
		for i := lo; i < hi; i++ {
			cols[x].before = max(cols[x].before, p.before[i])
			cols[x].after = max(cols[x].after, p.after[i])
			cols[x].compaction = cols[x].compaction || p.compactionBefore[i]
		}
	}
	cols[width-1].compaction = cols[width-1].compaction || p.compactionBefore[n]
	return cols
}

// eighthsIn is how many eighths of a row's cell a bar of v fills, the
// chart being rows high with peak at its top and floor eighths below the
// row.
func eighthsIn(v, peak int64, rows int, floor int64) int {
	if peak <= 0 || v <= 0 {
		return 0
	}
	filled := (v*int64(rows)*8 + peak/2) / peak
	return int(min(max(filled-floor, 0), 8))
}

// eighthGlyph is a cell filled e eighths from the bottom.
func eighthGlyph(e int) string { return string([]rune(" ▁▂▃▄▅▆▇█")[e]) }
