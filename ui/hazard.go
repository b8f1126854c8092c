package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
)

// jumpHazard moves to the next call whose results have a hazard, from the
// first again after the last.
func (v *sessionScreen) jumpHazard() tea.Cmd {
	if v.replay == nil {
		return v.ctx.flash("still replaying")
	}
	calls := v.callsWith(func(r *replay.Result) bool { return r.Hazard != nil })
	if len(calls) == 0 {
		return v.ctx.flash("no hazard under this policy")
	}
	if v.table.seek(1, func(call int) bool { return calls[call] }) {
		v.showHazard()
		return nil
	}
	v.table.top()
	if calls[v.currentCall()] || v.table.seek(1, func(call int) bool { return calls[call] }) {
		v.showHazard()
		return v.ctx.flash("first hazard again")
	}
	return nil
}

// showHazard selects the call's first result with a hazard and opens the
// detail pane at its lines, whole.
func (v *sessionScreen) showHazard() {
	v.detail.toHazard = v.selectFirst(func(r *replay.Result) bool { return r.Hazard != nil })
}

// hazardLines say what the policy hid of r that the agent went on to use,
// and where: the later call (of calls in its log, the first of them shown
// as first) and the evidence from its output.
func hazardLines(st *themes.Styles, r *replay.Result, calls, first, w int) []string {
	z := r.Hazard
	if z == nil {
		return nil
	}
	mark := st.Marker[themes.Hazard].Render(themes.Hazard.Glyph() + " " + string(z.Kind))
	head := mark + " " + termtext.Escape(z.Why)
	if z.Evidence == "" {
		if z.CallIndex < calls {
			head += fmt.Sprintf(" · call %d got the repeat's stub", first+z.CallIndex)
		} else {
			head += " · no later call got the stub"
		}
		return wordWrap([]string{head}, w)
	}
	head += fmt.Sprintf(" · used at call %d (%s)", first+z.CallIndex, termtext.Escape(z.From))
	if z.Retrievable {
		head += fmt.Sprintf(" · retrievable: one more call, ~%s tok", human.Count(z.ExtraTokens))
	}
	// Wrapped, not cut: where it was used and the evidence are its point;
	// the evidence indented as a quote on every line.
	quote := wordWrap([]string{"“" + termtext.Escape(z.Evidence) + "”"}, max(w-2, 1))
	for i := range quote {
		quote[i] = "  " + quote[i]
	}
	return append(wordWrap([]string{head}, w), quote...)
}

// hazardFind is what the spill viewer searches for when it opens r: the
// first line of the hidden string the agent went on to use, as the
// result holds it.
func hazardFind(r *replay.Result, original string) string {
	z := r.Hazard
	if z == nil || z.MatchFrom < 0 || z.MatchTo > len(original) {
		return ""
	}
	used := original[z.MatchFrom:z.MatchTo]
	if i := strings.IndexByte(used, '\n'); i >= 0 {
		used = used[:i]
	}
	return used
}
