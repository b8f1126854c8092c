package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/replay"
)

// setRows shows a session read for its sizes, its calls priced as
// recorded, while its texts are read: nothing is counted or replayed
// until they are in.
func (m *Model) setRows(msg rowsMsg) tea.Cmd {
	m.session, m.recorded = msg.session, msg.recorded
	m.table.recorded = msg.recorded
	m.table.setSession(msg.session, nil)
	m.detail.reset()
	m.progress = progressMsg{phase: "reading texts"}
	return msg.next
}

// closeTexts lets the session file texts were read from go.
func (m *Model) closeTexts() {
	if m.texts != nil {
		m.texts.Close()
		m.texts, m.textAsked = nil, nil
	}
}

// textSource is m.texts as the replay takes it: nil when there is none.
func (m *Model) textSource() replay.TextSource {
	if m.texts == nil {
		return nil
	}
	return m.texts
}

// readShownText reads, in a command, the text the detail pane shows and
// the session was read without.
func (m *Model) readShownText() tea.Cmd {
	want := m.detail.want
	if want == nil || want == m.textAsked || m.prep == nil {
		return nil
	}
	m.textAsked = want
	return readTextCmd(m.prep, want)
}

// textRead takes a text read again for the detail pane; one that could
// not be read says the file changed.
func (m *Model) textRead(msg textReadMsg) tea.Cmd {
	if msg.prep != m.prep {
		return nil
	}
	if m.textAsked == msg.result {
		m.textAsked = nil
	}
	if msg.err != nil {
		m.err = msg.err
	}
	m.detail.hold(msg.result, msg.text)
	return nil
}
