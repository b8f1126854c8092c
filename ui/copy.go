package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/spillview"
)

// selectedResult is the result the detail pane shows, nil when the call
// has none.
func (v *sessionScreen) selectedResult() *replay.Result {
	p, call := v.at(v.currentCall())
	results := callResults(p.replay, call)
	if len(results) == 0 {
		return nil
	}
	return results[min(v.detail.result, len(results)-1)]
}

// copyText puts the selected result's text as recorded on the clipboard
// (OSC 52: the terminal gets it base64-encoded, never as escapes), or the
// call's own text when no result came back after it; its controls and
// escape sequences escaped (termtext.Clipboard), so that pasting it acts
// on nothing.
func (v *sessionScreen) copyText() tea.Cmd {
	call := v.currentCall()
	if v.session == nil || call < 0 {
		return v.ctx.flash("no call selected")
	}
	p, local := v.at(call)
	text, what := p.session.Calls[local].Text, fmt.Sprintf("call %d's text", call)
	if r := v.selectedResult(); r != nil {
		original, read := v.detail.original(p.replay, r)
		if !read {
			return v.ctx.flash(fmt.Sprintf("result %d's text is still being read from the session file: copy it again in a moment", r.Index))
		}
		text, what = original, fmt.Sprintf("result %d's text as recorded", r.Index)
	}
	if text == "" {
		return v.ctx.flash(what + " is empty (or the log kept only its size): nothing copied")
	}
	safe, escaped := termtext.Clipboard(text), ""
	if safe != text {
		escaped = ", its control characters escaped"
	}
	return tea.Batch(tea.SetClipboard(safe),
		v.ctx.flash(fmt.Sprintf("copied %s, %s%s, to the clipboard (through the terminal: OSC 52 must be allowed)", what, human.ShortBytes(int64(len(safe))), escaped)))
}

// pagerReadyMsg carries the file written for the pager, and the pager.
type pagerReadyMsg struct {
	path  string
	pager []string
	err   error
}

// pagerDoneMsg says the pager has quit.
type pagerDoneMsg struct {
	path string
	err  error
}

// execProcess runs a program on the terminal; tests stand in for it.
var execProcess = tea.ExecProcess

// openPager writes the selected result, escaped for the terminal, to a
// temporary file in a command and opens it in $PAGER ("less" when unset):
// the file spillway spilled it to, or the one its agent did when that is
// here and where the agent spills, else the transcript's text.
func (v *sessionScreen) openPager() tea.Cmd {
	r := v.selectedResult()
	if r == nil {
		return v.ctx.flash("this call has no tool result to open")
	}
	part, _ := v.at(v.currentCall())
	original, read := v.detail.original(part.replay, r)
	if !read {
		return v.ctx.flash(fmt.Sprintf("result %d's text is still being read from the session file: open it again in a moment", r.Index))
	}
	src := spillview.Source{Text: original, Path: r.SpillPath}
	if p := v.detail.agentFile; src.Path == "" && p != "" && v.agentFiles[p] {
		src.Path, src.Roots = p, spillview.AgentRoots(part.session.Path)
	}
	title := fmt.Sprintf("result %d · %s", r.Index, r.Source.Tool)
	return pagerFileCmd(src, title, os.Getenv("PAGER"))
}

// pagerFileCmd writes src's lines, escaped, to a temporary file for the
// pager, a piece at a time and at most pagerBytes of them.
func pagerFileCmd(src spillview.Source, title, pager string) tea.Cmd {
	return func() tea.Msg {
		argv := strings.Fields(pager)
		if len(argv) == 0 {
			argv = []string{"less"}
		}
		doc, err := spillview.Open(src)
		if errors.Is(err, fs.ErrNotExist) {
			doc, err = spillview.Open(spillview.Source{Text: src.Text}) // as the viewer does: the transcript's text
		}
		if err != nil {
			return pagerReadyMsg{err: fmt.Errorf("open in pager: %w", err)}
		}
		defer doc.Close()
		f, err := os.CreateTemp("", "spillway-result-*.txt")
		if err != nil {
			return pagerReadyMsg{err: fmt.Errorf("open in pager: %w", err)}
		}
		err = doc.WriteText(f, title, pagerBytes)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(f.Name())
			return pagerReadyMsg{err: fmt.Errorf("open in pager: %w", err)}
		}
		return pagerReadyMsg{path: f.Name(), pager: argv}
	}
}

// pagerBytes bounds the copy the pager is given of one file: a copy of a
// spill file of gigabytes would fill the temporary folder, and take
// minutes to escape.
var pagerBytes int64 = 64 << 20

// pagerReady runs the pager on the file; the inspector resumes when it quits.
func (v *sessionScreen) pagerReady(msg pagerReadyMsg) tea.Cmd {
	if msg.err != nil {
		return v.ctx.flash(msg.err.Error())
	}
	c := exec.Command(msg.pager[0], append(msg.pager[1:], msg.path)...)
	return execProcess(c, func(err error) tea.Msg { return pagerDoneMsg{path: msg.path, err: err} })
}

// pagerDone removes the file, in a command, and says when the pager
// failed. The root takes it, whatever screen is shown: Bubble Tea hands
// the callback's message to Update as it is, outside any screen's
// envelope, and the file must go however the pager ended.
func (m *Model) pagerDone(msg pagerDoneMsg) tea.Cmd {
	remove := func() tea.Msg {
		os.Remove(msg.path)
		return nil
	}
	if msg.err != nil {
		return tea.Batch(remove, m.ctx.flash("pager: "+msg.err.Error()))
	}
	return remove
}
