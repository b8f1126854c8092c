package statusline

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
)

// view is everything the line shows, worked out before it is drawn.
type view struct {
	Cost      float64
	Recorded  int // calls with usage
	Unpriced  []string
	Reading   float64  // the share of the log read, below 1 while catching up
	ClaudeUSD *float64 // Claude Code's own cost, when it sent it
	Policy    string   // "" without a policy that changes results
	Predicted *Prediction
	Stale     bool // the prediction is older than the logs
	Unkept    bool // the cache folder cannot be written: no prediction is made
	Last      *LastCall
	TTL       string
	Cache     bool  // the log is Claude Code's: the cache timer follows Anthropic's rules
	Window    int64 // the model's context window, 0 when unknown
	Now       time.Time
}

// part is one item of the line: its long and short wording, and how much
// it matters (higher stays longer when the line is narrow).
type part struct {
	prio        int
	long, short string
	style       func(*themes.Styles) lipgloss.Style
}

// The parts' priorities: the cost goes last, then the saving (or what the
// hook cut), the cache timer, the context, where the hook and the replay
// part, the hazards, Claude Code's own cost (and "as predicted") and the
// reading progress.
const (
	prioReading = iota + 1
	prioClaude
	prioHazards
	prioDiffer
	prioContext
	prioCache
	prioSaves
	prioCost
)

// separator goes between parts.
const separator = " · "

// parts are the line's items in the order they are shown.
func (v *view) parts() []part {
	var ps []part
	if v.Recorded == 0 {
		// Nothing to price: a log that records no usage, or none yet.
		ps = append(ps, part{prio: prioCost, long: "no usage recorded", short: "no usage", style: muted})
		return append(ps, v.rest()...)
	}
	cost := human.Money(&v.Cost)
	if len(v.Unpriced) > 0 {
		cost += "+?"
	}
	costPart := part{prio: prioCost, long: cost, short: cost, style: func(s *themes.Styles) lipgloss.Style { return s.Value.Bold(true) }}
	if len(v.Unpriced) > 0 {
		costPart.long = cost + " (no price for " + termtext.Escape(strings.Join(v.Unpriced, ", ")) + ")"
	}
	ps = append(ps, costPart)
	if v.ClaudeUSD != nil && math.Abs(*v.ClaudeUSD-v.Cost) > 0.01 {
		cc := human.Money(v.ClaudeUSD)
		ps = append(ps, part{prio: prioClaude, long: "Claude Code says " + cc, short: "cc " + cc, style: muted})
	}
	return append(ps, v.rest()...)
}

// rest are the parts after the cost.
func (v *view) rest() []part {
	var ps []part
	if v.Reading < 1 {
		r := fmt.Sprintf("reading %d%%", int(v.Reading*100))
		ps = append(ps, part{prio: prioReading, long: r + " of the log", short: r, style: muted})
	}
	if v.Policy != "" {
		if p := v.Predicted; p != nil && p.Err == "" && p.Realized != nil {
			ps = append(ps, v.realizedParts()...)
		} else {
			ps = append(ps, v.savesPart())
		}
		if p := v.Predicted; p != nil && p.Err == "" {
			n := p.Hazards.Total()
			text := fmt.Sprintf("%d hazards", n)
			if n == 1 {
				text = "1 hazard"
			}
			style := muted
			if n > 0 {
				style = func(s *themes.Styles) lipgloss.Style { return s.Marker[themes.Hazard] }
			}
			ps = append(ps, part{prio: prioHazards, long: text, short: text, style: style})
		}
	}
	if l := v.Last; l != nil {
		ps = append(ps, v.contextPart(l))
		if c, ok := v.cachePart(l); ok && v.Cache {
			ps = append(ps, c)
		}
	}
	return ps
}

func muted(s *themes.Styles) lipgloss.Style { return s.Muted }

func (v *view) savesPart() part {
	p := v.Predicted
	under := " under " + termtext.Escape(v.Policy)
	switch {
	case p == nil && v.Unkept:
		return part{prio: prioSaves, long: "saves ? (its cache folder cannot be written)", short: "saves ?", style: muted}
	case p == nil:
		return part{prio: prioSaves, long: "saves … (replaying" + under + ")", short: "saves …", style: muted}
	case p.Err != "":
		return part{prio: prioSaves, long: "saves ? (the replay failed: see the log)", short: "saves ?", style: muted}
	}
	usd, share, ok := p.Saved()
	switch {
	case !ok && p.Recorded == 0:
		return part{prio: prioSaves, long: "saves ? (no usage recorded)", short: "saves ?", style: muted}
	case !ok:
		return part{prio: prioSaves, long: "saves ? (a model has no price)", short: "saves ?", style: muted}
	}
	mark := ""
	if v.Stale {
		mark = "~" // the last prediction, made before the latest calls
	}
	style := func(s *themes.Styles) lipgloss.Style { return s.Gain(usd) }
	if usd < 0 { // replacements longer than their results
		more := -usd
		amount := human.Money(&more)
		return part{prio: prioSaves, long: fmt.Sprintf("costs %s more (+%.0f%%)%s", mark+amount, -100*share, under), short: "costs " + mark + "+" + amount, style: style}
	}
	amount := mark + human.Money(&usd)
	return part{prio: prioSaves, long: fmt.Sprintf("saves %s (%.0f%%)%s", amount, 100*share, under), short: "saves " + amount, style: style}
}

// realizedParts say what spillway's hook cut as the session ran, from its
// ledger, and whether that is what the replay under the line's policy
// predicts: the replay leaves the results the hook shaped as the log holds
// them, so where the hook enforced the policy it finds nothing more to cut,
// every shaped result's size in the log is the ledger's, and the hook ran
// the same policy. Otherwise the line says where they part.
func (v *view) realizedParts() []part {
	p, r := v.Predicted, v.Predicted.Realized
	mark := ""
	if v.Stale {
		mark = "~"
	}
	results := fmt.Sprintf("%d results", r.Results)
	if r.Results == 1 {
		results = "1 result"
	}
	cut, gain := part{prio: prioSaves}, float64(r.Tokens-r.TokensAfter)
	switch {
	case r.SavedUSD != nil && *r.SavedUSD < 0:
		more := -*r.SavedUSD
		usd := human.Money(&more)
		gain = *r.SavedUSD
		cut.long, cut.short = "hook added "+mark+usd+" on "+results, "hook "+mark+"+"+usd
	case r.SavedUSD != nil:
		usd := mark + human.Money(r.SavedUSD)
		gain = *r.SavedUSD
		cut.long, cut.short = "hook saved "+usd+" on "+results, "hook "+usd
	case gain < 0:
		tokens := human.Compact(r.TokensAfter - r.Tokens)
		cut.long, cut.short = "hook added "+mark+tokens+" tokens on "+results, "hook "+mark+"+"+tokens+" tok"
	default:
		tokens := human.Compact(r.Tokens - r.TokensAfter)
		cut.long, cut.short = "hook cut "+mark+tokens+" tokens on "+results, "hook "+mark+"−"+tokens+" tok"
	}
	cut.style = func(s *themes.Styles) lipgloss.Style { return s.Gain(gain) }
	var differ []string
	if p.Acted > 0 {
		more := fmt.Sprintf("%d more", p.Acted)
		switch usd, _, ok := p.Saved(); {
		case ok && usd < 0: // what it cuts is longer than what it replaces
			usd = -usd
			more += " (costing " + human.Money(&usd) + " more)"
		case ok:
			more += " (" + human.Money(&usd) + ")"
		}
		differ = append(differ, "the replay cuts "+more)
	}
	if r.Differ > 0 {
		differ = append(differ, fmt.Sprintf("%d differ from the log", r.Differ))
	}
	if len(r.Policies) != 1 || r.Policies[0] != v.Policy {
		differ = append(differ, "the hook ran "+termtext.Escape(strings.Join(r.Policies, ", ")))
	}
	under := " under " + termtext.Escape(v.Policy)
	if len(differ) == 0 {
		return []part{cut, {prio: prioClaude, long: "as predicted" + under, short: "as predicted", style: muted}}
	}
	return []part{cut, {prio: prioDiffer, long: "≠ predicted" + under + ": " + strings.Join(differ, ", "), short: "≠ predicted",
		style: func(s *themes.Styles) lipgloss.Style { return s.Warning }}}
}

func (v *view) contextPart(l *LastCall) part {
	used := l.Prompt()
	if v.Window <= 0 {
		text := "ctx " + human.Compact(used)
		return part{prio: prioContext, long: text, short: text, style: value}
	}
	share := float64(used) / float64(v.Window)
	pct := fmt.Sprintf("%.0f%%", 100*share)
	style := value
	switch {
	case share >= 0.95:
		style = func(s *themes.Styles) lipgloss.Style { return s.Error }
	case share >= 0.8:
		style = func(s *themes.Styles) lipgloss.Style { return s.Warning }
	}
	return part{prio: prioContext, long: fmt.Sprintf("ctx %s/%s (%s)", human.Compact(used), human.Compact(v.Window), pct),
		short: "ctx " + pct, style: style}
}

func value(s *themes.Styles) lipgloss.Style { return s.Value }

// cacheLeft is how long the prompt cache the main chain's last call used
// has to live, and for how long each use keeps it: ok is false when that
// call neither read nor wrote the cache.
//
// Anthropic: "The cache has a minimum lifetime (TTL) of 5 minutes. This
// lifetime is refreshed each time the cached content is used", and the
// same of entries written with the 1-hour TTL
// (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
// So a call that only read the cache restarts its clock too, at the
// lifetime the entries were written with: Claude Code 2.1.328 keeps the
// lifetime of the last write for such a call, 5 minutes when the call
// wrote any 5-minute entries (they go first), else an hour when it wrote
// 1-hour ones. The clock runs from the call's time in the log, when its
// response was written: the request, and so the cache's refresh, came up
// to the time to write its first block earlier. A call the log gives no
// time has no timer.
func cacheLeft(l *LastCall, ttl string, now time.Time) (left, life time.Duration, ok bool) {
	if l == nil || l.Time.IsZero() || l.CacheRead+l.CacheWrite5m+l.CacheWrite1h == 0 {
		return 0, 0, false
	}
	life = 5 * time.Minute
	if ttl == "1h" {
		life = time.Hour
	}
	return l.Time.Add(life).Sub(now), life, true
}

func (v *view) cachePart(l *LastCall) (part, bool) {
	left, _, ok := cacheLeft(l, v.TTL, v.Now)
	if !ok {
		return part{}, false
	}
	if left <= 0 {
		long := "cache cold"
		if -left < time.Hour {
			long += " for " + duration(-left)
		}
		return part{prio: prioCache, long: long, short: "cache cold", style: muted}, true
	}
	text := duration(left)
	style := value
	if left < time.Minute {
		style = func(s *themes.Styles) lipgloss.Style { return s.Warning }
	}
	return part{prio: prioCache, long: "cache " + text + " left", short: "cache " + text, style: style}, true
}

// duration writes a time left: 38s, 4m12s, 52m, 1h05m.
func duration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 10*60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// shown is a part kept on the line and its wording.
type shown struct {
	part int
	text string
}

// fit chooses each part's wording for a line of width cells (0: any
// width): while the line is too wide, the least important part still in
// its long wording takes its short one, then the least important part
// goes. It returns the parts kept, in order; a lone part still too wide
// is cut.
func fit(ps []part, width int) []shown {
	texts := make([]string, len(ps))
	short := make([]bool, len(ps))
	gone := make([]bool, len(ps))
	for i, p := range ps {
		texts[i] = p.long
	}
	total := func() int {
		w, n := 0, 0
		for i := range ps {
			if !gone[i] {
				w += termtext.Width(texts[i])
				n++
			}
		}
		return w + max(n-1, 0)*termtext.Width(separator)
	}
	least := func(ok func(i int) bool) int {
		at := -1
		for i, p := range ps {
			if ok(i) && (at < 0 || p.prio < ps[at].prio) {
				at = i
			}
		}
		return at
	}
	for width > 0 && total() > width {
		if i := least(func(i int) bool { return !gone[i] && !short[i] && ps[i].short != ps[i].long }); i >= 0 {
			short[i], texts[i] = true, ps[i].short
			continue
		}
		left := 0
		for i := range ps {
			if !gone[i] {
				left++
			}
		}
		if left <= 1 {
			break
		}
		gone[least(func(i int) bool { return !gone[i] })] = true
	}
	var out []shown
	for i := range ps {
		if !gone[i] {
			out = append(out, shown{i, texts[i]})
		}
	}
	if width > 0 && len(out) == 1 && termtext.Width(out[0].text) > width {
		out[0].text = termtext.Truncate(out[0].text, width)
	}
	return out
}

// render draws the line in width cells, in styles (nil: plain text).
func (v *view) render(width int, styles *themes.Styles) string {
	ps := v.parts()
	var b strings.Builder
	for k, s := range fit(ps, width) {
		text, sep := s.text, separator
		if styles != nil {
			text, sep = ps[s.part].style(styles).Render(text), styles.Separator.Render(sep)
		}
		if k > 0 {
			b.WriteString(sep)
		}
		b.WriteString(text)
	}
	return b.String()
}
