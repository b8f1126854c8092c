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
func (m *Model) selectedResult() *replay.Result {
	results := callResults(m.replay, m.currentCall())
	if len(results) == 0 {
		return nil
	}
	return results[min(m.detail.result, len(results)-1)]
}

// copyText puts the selected result's text as recorded on the clipboard
// (OSC 52: the terminal gets it base64-encoded, never as escapes), or the
// call's own text when no result came back after it; its controls and
// escape sequences escaped (termtext.Text), so that pasting it acts on
// nothing.
func (m *Model) copyText() tea.Cmd {
	call := m.currentCall()
	if m.session == nil || call < 0 {
		return m.flash("no call selected")
	}
	text, what := m.session.Calls[call].Text, fmt.Sprintf("call %d's text", call)
	if r := m.selectedResult(); r != nil {
		original, read := m.detail.original(m.replay, r)
		if !read {
			return m.flash(fmt.Sprintf("result %d's text is still being read from the session file: copy it again in a moment", r.Index))
		}
		text, what = original, fmt.Sprintf("result %d's text as recorded", r.Index)
	}
	if text == "" {
		return m.flash(what + " is empty (or the log kept only its size): nothing copied")
	}
	safe, escaped := termtext.Text(text), ""
	if safe != text {
		escaped = ", its control characters escaped"
	}
	return tea.Batch(tea.SetClipboard(safe),
		m.flash(fmt.Sprintf("copied %s, %s%s, to the clipboard (through the terminal: OSC 52 must be allowed)", what, human.ShortBytes(int64(len(safe))), escaped)))
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
func (m *Model) openPager() tea.Cmd {
	r := m.selectedResult()
	if r == nil {
		return m.flash("this call has no tool result to open")
	}
	original, read := m.detail.original(m.replay, r)
	if !read {
		return m.flash(fmt.Sprintf("result %d's text is still being read from the session file: open it again in a moment", r.Index))
	}
	src := spillview.Source{Text: original, Path: r.SpillPath}
	if p := m.detail.agentFile; src.Path == "" && p != "" && m.agentFiles[p] {
		src.Path, src.Roots = p, spillview.AgentRoots(m.replay.Prepared.Session.Path)
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
func (m *Model) pagerReady(msg pagerReadyMsg) tea.Cmd {
	if msg.err != nil {
		return m.flash(msg.err.Error())
	}
	c := exec.Command(msg.pager[0], append(msg.pager[1:], msg.path)...)
	return execProcess(c, func(err error) tea.Msg { return pagerDoneMsg{path: msg.path, err: err} })
}

// pagerDone removes the file, in a command, and says when the pager failed.
func (m *Model) pagerDone(msg pagerDoneMsg) tea.Cmd {
	remove := func() tea.Msg {
		os.Remove(msg.path)
		return nil
	}
	if msg.err != nil {
		return tea.Batch(remove, m.flash("pager: "+msg.err.Error()))
	}
	return remove
}
