package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/replay"
)

// setRows shows a session read for its sizes, its calls priced as
// recorded, while its texts are read: nothing is counted or replayed
// until they are in.
func (v *sessionScreen) setRows(msg rowsMsg) tea.Cmd {
	first := v.session == nil
	v.session, v.recorded, v.partial = msg.session, msg.recorded, msg.partial
	v.table.recorded = msg.recorded
	v.showParts()
	if first {
		v.detail.reset()
	}
	v.progress = progressMsg{phase: "reading texts"}
	if msg.partial {
		v.progress = progressMsg{phase: "reading"}
	}
	return msg.next
}

// closeTexts lets the session file texts were read from go.
func (v *sessionScreen) closeTexts() {
	if v.texts != nil {
		v.texts.Close()
		v.texts, v.textAsked = nil, nil
	}
}

// textSource is v.texts as the replay takes it: nil when there is none.
func (v *sessionScreen) textSource() replay.TextSource {
	if v.texts == nil {
		return nil
	}
	return v.texts
}

// readShownText reads, in a command, the text the detail pane shows and
// the session was read without.
func (v *sessionScreen) readShownText() tea.Cmd {
	want := v.detail.want
	if want == nil || want == v.textAsked || v.prep == nil {
		return nil
	}
	v.textAsked = want
	return readTextCmd(v.prep, want)
}

// textRead takes a text read again for the detail pane; one that could
// not be read says the file changed.
func (v *sessionScreen) textRead(msg textReadMsg) tea.Cmd {
	if msg.prep != v.prep {
		return nil
	}
	if v.textAsked == msg.result {
		v.textAsked = nil
	}
	if msg.err != nil {
		v.err = msg.err
	}
	v.detail.hold(msg.result, msg.text)
	return nil
}
