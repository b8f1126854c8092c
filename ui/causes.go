package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/transcript"
)

// costliestShare is the share of the priced calls the table marks as the
// costliest: the ⌈n/20⌉ of them that cost most.
const costliestShare = 20

// costliestCalls marks the ⌈n/20⌉ costliest of the n priced calls shown
// that the session counts (copies of another session's responses are
// not).
func costliestCalls(info []callInfo) []bool {
	var priced []int
	for i, c := range info {
		if c.cost != nil && !c.copied {
			priced = append(priced, i)
		}
	}
	slices.SortStableFunc(priced, func(a, b int) int { return cmp.Compare(*info[b].cost, *info[a].cost) })
	marked := make([]bool, len(info))
	for _, i := range priced[:(len(priced)+costliestShare-1)/costliestShare] {
		marked[i] = true
	}
	return marked
}

// causeLabel is a cause as the table's column shows it: in full when wide,
// else in at most six cells.
func causeLabel(cause string, wide bool) string {
	if wide {
		return cause
	}
	switch cause {
	case replay.CauseNewContext:
		return "new"
	case replay.CauseNewResults:
		return "result" // new context, mostly tool results
	case replay.CauseCarried:
		return "read"
	case replay.CauseCacheRewrite:
		return "miss" // the cache missed, and was written again
	case replay.CauseLongContext:
		return "tier"
	}
	return cause
}

// costLines explain call's cost: a title, each of its five causes with
// its tokens, dollars, share and a bar, then a note of the cost by token
// kind, of the tool results' tokens and of the pause before the call. The
// caller wraps them to its width; rows is the width of the part rows,
// which the rest can wrap to. Compact, the parts share one line, for a
// pane too narrow for both.
func (d *detailPane) costLines(s *transcript.Session, rp *replay.Run, call int, compact bool) (lines []string, rows int) {
	st := d.ctx.Styles
	if rp == nil || call >= len(rp.Calls) {
		return nil, 0
	}
	parts := rp.Prepared.CostParts()
	if call >= len(parts) || parts[call] == nil {
		note := "no price for this call's model: its cost has no parts"
		if s.Calls[call].Usage == nil {
			note = "no usage recorded: no cost to split"
		}
		return []string{st.Muted.Render(note)}, len(note)
	}
	p := parts[call]
	cs := &p.Causes
	total := p.Sum()
	share := func(v float64) float64 {
		if total <= 0 {
			return 0
		}
		return v / total
	}
	cause := p.Cause()
	// The parts, summed, can be a micro-dollar off the call's cost as the
	// rest of the screen shows it: the title shows that cost.
	cost := total
	if c := rp.Calls[call].Cost; c != nil {
		cost = *c
	}
	lines = []string{st.Label.Render(fmt.Sprintf("why %s: %s, %s of it", human.USD(&cost), cause, pct(share(causeUSD(p, cause)))))}
	marked := cause // the row of the cause
	if cause == replay.CauseNewResults {
		marked = replay.CauseNewContext
	}
	var inline []string
	row := func(name string, tokens string, usd float64) {
		if compact {
			part := fmt.Sprintf("%s %s %s %s", name, tokens, human.USD(&usd), pct(share(usd)))
			if name == marked {
				part = st.Costly.Render(part)
			}
			inline = append(inline, part)
			return
		}
		line := fmt.Sprintf("  %-13s %9s %9s %6s ", name, tokens, human.USD(&usd), pct(share(usd)))
		if name == marked {
			line = st.Costly.Render(line)
		}
		lines = append(lines, line+st.ChartBar.Render(termtext.Fit(shareBar(share(usd), 10), 10)))
	}
	tok := func(n int64) string { return human.Count(n) }
	row(replay.CauseNewContext, tok(cs.NewTokens), cs.NewContext)
	row(replay.CauseCarried, tok(cs.CarriedTokens), cs.Carried)
	row(replay.CauseCacheRewrite, tok(cs.RewriteTokens), cs.CacheRewrite)
	row(replay.CauseLongContext, "–", cs.LongContext) // a premium on the tokens above, none of its own
	row(replay.CauseOutput, tok(s.Calls[call].Usage.Output), cs.Output)
	notes := []string{fmt.Sprintf("by kind: cache write %s, cache read %s, input %s, output %s",
		human.USD(&p.CacheWrite), human.USD(&p.CacheRead), human.USD(&p.Input), human.USD(&p.Output))}
	if p.ToolResultsKnown {
		notes = append(notes, fmt.Sprintf("tool results %s: %s tokens sent new, %s carried",
			human.USD(&p.ToolResults), human.Count(p.NewResultTokens), human.Count(p.CarriedResultTokens)))
	}
	if gap := pauseLine(s, call, d.first, p); gap != "" {
		notes = append(notes, gap)
	}
	if compact {
		lines = append(lines, strings.Join(inline, st.Muted.Render(" · ")))
	}
	rows = ansi.StringWidth(lines[1])
	lines = append(lines, st.Muted.Render(strings.Join(notes, "; ")))
	return lines, rows
}

// causeUSD is the dollars of the part named cause.
func causeUSD(p *replay.CostParts, cause string) float64 {
	cs := &p.Causes
	switch cause {
	case replay.CauseNewContext, replay.CauseNewResults:
		return cs.NewContext
	case replay.CauseCarried:
		return cs.Carried
	case replay.CauseCacheRewrite:
		return cs.CacheRewrite
	case replay.CauseLongContext:
		return cs.LongContext
	}
	return cs.Output
}

// pauseLine says how long after the previous call of its chain call ran,
// whether it starts a new context (after a compaction or on another
// model) and, when it wrote its cache again (replay.Rewrite), how many
// tokens, what they cost and why. The calls of s are shown from first.
func pauseLine(s *transcript.Session, call, first int, p *replay.CostParts) string {
	c := &s.Calls[call]
	prev := -1
	for i := call - 1; i >= 0; i-- {
		if s.Calls[i].Sidechain == c.Sidechain && s.Calls[i].Usage != nil {
			prev = i
			break
		}
	}
	if prev < 0 || c.Usage == nil {
		return ""
	}
	pc := &s.Calls[prev]
	timed := !c.Time.IsZero() && !pc.Time.IsZero() && !c.Time.Before(pc.Time)
	line := fmt.Sprintf("after call %d", first+prev)
	if timed {
		line = fmt.Sprintf("%s after call %d", c.Time.Sub(pc.Time).Round(time.Second), first+prev)
	}
	if p.Causes.After < 0 {
		why := "a compaction came between"
		if c.Segment == pc.Segment {
			why = fmt.Sprintf("the model changed from %s, and each model has a cache of its own", termtext.Escape(pc.Model))
		}
		return fmt.Sprintf("%s; %s: a new context, its whole prompt new", line, why)
	}
	rw := p.Rewrite
	if rw == nil {
		return line
	}
	lifetime := lifetimeText(replay.Lifetime(*c.Usage))
	var why string
	switch {
	case rw.Why == replay.RewriteExpired:
		why = fmt.Sprintf("the cache had expired, %s being past its %s", rw.Pause.Round(time.Second), lifetime)
	case c.Usage.CacheRead == 0:
		why = "the prompt changed from its start, none of it read from the cache"
	default:
		why = fmt.Sprintf("the prompt changed after its first %s tokens, those read from the cache", human.Count(c.Usage.CacheRead))
	}
	if timed && rw.Why != replay.RewriteExpired {
		why += ", within the cache's " + lifetime
	}
	return fmt.Sprintf("%s; cache rewrite: %s tokens written again (the prompt grew %s), %s: %s",
		line, human.Count(rw.Tokens), human.Count(rw.Grew), human.USD(&rw.USD), why)
}

func lifetimeText(d time.Duration) string {
	if d == time.Hour {
		return "hour"
	}
	return "five minutes"
}

// pct is a share as a percentage with one decimal.
func pct(share float64) string { return fmt.Sprintf("%.1f%%", 100*share) }

// shareBar draws share (0 to 1) as a bar of up to cells cells, in eighths.
func shareBar(share float64, cells int) string {
	eighths := int(min(max(share, 0), 1)*float64(cells*8) + 0.5)
	bar := strings.Repeat("█", eighths/8)
	if r := eighths % 8; r > 0 {
		bar += string([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	return bar
}
