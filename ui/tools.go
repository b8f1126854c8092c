package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// toolsView sums the session's results by tool under the policy shown:
// how many, their bytes and tokens before and after, what carrying them
// cost before and after and its share of the session's cost, and how many
// the policy shaped. It keeps the replay's sums until a new replay.
type toolsView struct {
	ctx   *Context
	rp    *replay.Run
	tools []replay.ToolTotals
}

// set takes the replay shown; the sums are made once per replay.
func (v *toolsView) set(rp *replay.Run) {
	if rp != v.rp {
		v.rp, v.tools = rp, nil
		if rp != nil {
			v.tools = rp.ByTool()
		}
	}
}

// toolColumn is one column of the tools view; lower priority drops first.
type toolColumn struct {
	title    string
	width    int
	priority int
	cell     func(t *replay.ToolTotals) string
}

// head is the view's title line.
func (v *toolsView) head() string {
	st := v.ctx.Styles
	k := v.ctx.Keys
	hint := fmt.Sprintf(" · costliest to carry first · j/k scroll · %s or %s to close", k.Tools.Help().Key, k.Back.Help().Key)
	if v.rp != nil {
		hint = fmt.Sprintf(" · under %s", termtext.Escape(v.rp.Policy.Name)) + hint
	}
	return termtext.Truncate(st.Title.Render("results by tool")+st.Muted.Render(hint), v.ctx.Width)
}

// lines are the view's lines under its head: a title row, a row a tool,
// and the sum.
func (v *toolsView) lines() []string {
	st := v.ctx.Styles
	if v.rp == nil {
		return []string{st.Muted.Render("replaying…")}
	}
	if len(v.tools) == 0 {
		return []string{st.Muted.Render("no tool result in this session")}
	}
	cost, costAfter := v.rp.Totals.Cost, v.rp.Totals.CostAfter
	share := func(usd float64, of *float64) string {
		if of == nil || *of <= 0 {
			return "?"
		}
		return fmt.Sprintf("%.1f%%", 100*usd / *of)
	}
	known := func(t *replay.ToolTotals) bool { return t.Tokens >= 0 }
	cols := []toolColumn{
		{"calls", 5, 0, func(t *replay.ToolTotals) string { return fmt.Sprint(t.Results) }},
		{"carry cost → after", 19, 1, func(t *replay.ToolTotals) string {
			if !known(t) || cost == nil {
				return "?"
			}
			return human.Money(&t.CarryCost) + "→" + moneyAfter(&t.CarryCostAfter, &t.CarryCost)
		}},
		{"share → after", 13, 2, func(t *replay.ToolTotals) string {
			if !known(t) {
				return "?"
			}
			return share(t.CarryCost, cost) + "→" + share(t.CarryCostAfter, costAfter)
		}},
		{"shaped", 6, 3, func(t *replay.ToolTotals) string { return fmt.Sprint(t.Shaped) }},
		{"bytes → after", 13, 4, func(t *replay.ToolTotals) string {
			return human.ShortBytes(t.Bytes) + "→" + human.ShortBytes(t.BytesAfter)
		}},
		{"tokens → after", 14, 5, func(t *replay.ToolTotals) string {
			if !known(t) {
				return "?"
			}
			return human.Compact(t.Tokens) + "→" + human.Compact(t.TokensAfter)
		}},
		{"repeats", 7, 6, func(t *replay.ToolTotals) string { return fmt.Sprint(t.Suppressed) }},
	}
	// The name column keeps 12 cells at least; the rest drop by priority.
	const nameMin = 12
	fits := func() bool {
		used := nameMin
		for _, c := range cols {
			used += 1 + c.width
		}
		return used <= v.ctx.Width
	}
	for !fits() && len(cols) > 1 {
		worst := 0
		for i, c := range cols {
			if c.priority > cols[worst].priority {
				worst = i
			}
		}
		cols = slices.Delete(cols, worst, worst+1)
	}
	nameWidth := v.ctx.Width
	for _, c := range cols {
		nameWidth -= 1 + c.width
	}
	// As wide as the longest name, so that the figures stay beside it.
	widest := len("all tools")
	for i := range v.tools {
		widest = max(widest, termtext.Width(termtext.Escape(v.tools[i].Tool))+3+termtext.Width(termtext.Escape(v.tools[i].Server)))
	}
	nameWidth = max(nameMin, min(nameWidth, widest))
	row := func(name string, cells []string) string {
		out := termtext.Fit(name, nameWidth)
		for i, c := range cols {
			out += " " + termtext.FitLeft(cells[i], c.width)
		}
		return out
	}
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	lines := []string{st.TableHeader.Render(termtext.Truncate(row("tool", titles), v.ctx.Width))}
	sum := replay.ToolTotals{Tool: "all tools"}
	for i := range v.tools {
		t := &v.tools[i]
		cells := make([]string, len(cols))
		for j, c := range cols {
			cells[j] = c.cell(t)
		}
		name := termtext.Escape(t.Tool)
		if name == "" {
			name = "(unnamed)"
		}
		if t.Server != "" {
			name += st.Muted.Render(" · " + termtext.Escape(t.Server))
		}
		lines = append(lines, termtext.Truncate(row(name, cells), v.ctx.Width))
		sum.Results += t.Results
		sum.Bytes += t.Bytes
		sum.BytesAfter += t.BytesAfter
		sum.Shaped += t.Shaped
		sum.Suppressed += t.Suppressed
		if sum.Tokens >= 0 && known(t) {
			sum.Tokens += t.Tokens
			sum.TokensAfter += t.TokensAfter
			sum.CarryCost += t.CarryCost
			sum.CarryCostAfter += t.CarryCostAfter
		} else {
			sum.Tokens, sum.TokensAfter = -1, -1
		}
	}
	// Each MCP server's tools together, under the tools.
	for _, server := range mcpServers(v.tools) {
		cells := make([]string, len(cols))
		for j, c := range cols {
			cells[j] = c.cell(&server)
		}
		lines = append(lines, st.Muted.Render(termtext.Truncate(row("mcp "+termtext.Escape(server.Server), cells), v.ctx.Width)))
	}
	cells := make([]string, len(cols))
	for j, c := range cols {
		cells[j] = c.cell(&sum)
	}
	lines = append(lines, st.Label.Render(termtext.Truncate(row("all tools", cells), v.ctx.Width)))
	note := "carry cost: what a tool's results cost, as recorded, over the calls that sent them; share: of the session's cost " +
		human.Money(cost) + " → " + moneyAfter(costAfter, cost)
	return append(lines, "", st.Muted.Render(strings.TrimSpace(note)))
}

// toolsLines are the tools view's lines, wrapped to the screen.
func (v *sessionScreen) toolsLines() []string { return wordWrap(v.tools.lines(), v.ctx.Width) }

// viewKey handles a key in the tools view or the context chart: the tools
// scroll (the chart fits the screen), and their own key, esc or q close
// them.
func (v *sessionScreen) viewKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.ctx.Keys
	scrolls := v.overlay == toolsOverlay
	switch {
	case !scrolls && key.Matches(msg, k.Down, k.Up, k.PageDown, k.PageUp, k.HalfDown, k.HalfUp):
	case key.Matches(msg, k.Down):
		v.overlayScroll++
	case key.Matches(msg, k.Up):
		v.overlayScroll = max(0, v.overlayScroll-1)
	case key.Matches(msg, k.PageDown):
		v.overlayScroll += max(1, v.ctx.Height-2)
	case key.Matches(msg, k.PageUp):
		v.overlayScroll = max(0, v.overlayScroll-max(1, v.ctx.Height-2))
	case key.Matches(msg, k.HalfDown):
		v.overlayScroll += max(1, v.ctx.Height/2)
	case key.Matches(msg, k.HalfUp):
		v.overlayScroll = max(0, v.overlayScroll-max(1, v.ctx.Height/2))
	case key.Matches(msg, k.Quit, k.Back):
		v.overlay = noOverlay
	case v.overlay == toolsOverlay && key.Matches(msg, k.Tools):
		v.overlay = noOverlay
	case v.overlay == contextOverlay && key.Matches(msg, k.Context):
		v.overlay = noOverlay
	case key.Matches(msg, k.Tools):
		v.overlay, v.overlayScroll = toolsOverlay, 0
	case key.Matches(msg, k.Context):
		v.overlay, v.overlayScroll = contextOverlay, 0
	}
	return nil
}

// mcpServers sums the tools of each MCP server, in the order the tools
// come (the costliest to carry first).
func mcpServers(tools []replay.ToolTotals) []replay.ToolTotals {
	var out []replay.ToolTotals
	index := map[string]int{}
	for _, t := range tools {
		if t.Server == "" {
			continue
		}
		k, ok := index[t.Server]
		if !ok {
			k = len(out)
			index[t.Server] = k
			out = append(out, replay.ToolTotals{Server: t.Server})
		}
		o := &out[k]
		o.Results += t.Results
		o.Bytes += t.Bytes
		o.BytesAfter += t.BytesAfter
		o.Shaped += t.Shaped
		o.Suppressed += t.Suppressed
		if o.Tokens >= 0 && t.Tokens >= 0 {
			o.Tokens += t.Tokens
			o.TokensAfter += t.TokensAfter
			o.CarryCost += t.CarryCost
			o.CarryCostAfter += t.CarryCostAfter
		} else {
			o.Tokens, o.TokensAfter = -1, -1
		}
	}
	return out
}
