package ui

import (
	"errors"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/spill"
)

// The inspector replays a session at every key; its spill files are
// planned by each replay and written only when needed: the one of a
// result opened in the viewer, and all of them when the policy is written
// (its files are then what a harness under it would leave).

// spillsWrittenMsg reports spill files written in the background.
type spillsWrittenMsg struct {
	path string // the one file, or "" for all of them
	n    int
	err  error
	note string // what was written with them: the policy, where
}

// writeShownSpill writes the spill file of the result the viewer opens,
// when the policy spilled it.
func (v *sessionScreen) writeShownSpill() tea.Cmd {
	p, call := v.at(v.currentCall())
	results := callResults(p.replay, call)
	planned := v.spills
	if k := slices.IndexFunc(v.subs, func(s *subLog) bool { return s.session == p.session }); k >= 0 {
		planned = v.subs[k].spills
	}
	if planned == nil || len(results) == 0 {
		return nil
	}
	path := results[min(v.detail.result, len(results)-1)].SpillPath
	if path == "" {
		return nil
	}
	return writeSpillsCmd([]*spill.Planned{planned}, path)
}

// writeAllSpills writes every spill file of the replays shown, with the
// policy note says was written: the notice says both.
func (v *sessionScreen) writeAllSpills(note string) tea.Cmd {
	all := []*spill.Planned{v.spills}
	for _, sub := range v.subs {
		all = append(all, sub.spills)
	}
	all = slices.DeleteFunc(all, func(p *spill.Planned) bool { return p == nil || p.Len() == 0 })
	if len(all) == 0 {
		return nil
	}
	cmd := writeSpillsCmd(all, "")
	return func() tea.Msg {
		msg := cmd().(spillsWrittenMsg)
		msg.note = note
		return msg
	}
}

// writeSpillsCmd writes the file at path of planned, or all of them.
func writeSpillsCmd(planned []*spill.Planned, path string) tea.Cmd {
	return func() tea.Msg {
		if path != "" {
			return spillsWrittenMsg{path: path, n: 1, err: planned[0].WriteOne(path)}
		}
		var n int
		var errs []error
		for _, p := range planned {
			k, err := p.WriteAll()
			n += k
			errs = append(errs, err)
		}
		return spillsWrittenMsg{n: n, err: errors.Join(errs...)}
	}
}

// spillsWritten says what could not be written, and how many files were
// when the policy was.
func (v *sessionScreen) spillsWritten(msg spillsWrittenMsg) tea.Cmd {
	switch {
	case msg.err != nil && msg.path != "":
		return v.ctx.flash(fmt.Sprintf("spill file not written: %v", msg.err))
	case msg.err != nil:
		return v.ctx.flash(fmt.Sprintf("%s; %d of its spill files written under %s, the others not: %v", msg.note, msg.n, v.opt.SpillRoot, msg.err))
	case msg.path == "":
		return v.ctx.flash(fmt.Sprintf("%s; its %s written under %s", msg.note, plural(msg.n, "spill file", "spill files"), v.opt.SpillRoot))
	}
	return nil
}
