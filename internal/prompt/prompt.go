// Package prompt is the one-line text input of every prompt in the
// inspector and the spill viewer: bubbles' textinput, with the keys it
// gets wrong handled here.
package prompt

import (
	"unicode"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// Input is a textinput.Model whose Update is safe for every key.
type Input struct {
	textinput.Model
}

// New is an empty, blurred input.
func New() Input { return Input{textinput.New()} }

// Update is textinput's Update, but for deleting a word forward (alt+d,
// alt+delete, ctrl+delete), which textinput v2.2.1 gets wrong: it panics
// with the cursor on the value's last rune, and with the cursor on a
// word's last rune it deletes the next word too (bubbles issue 1056).
func (in Input) Update(msg tea.Msg) (Input, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && in.Focused() && key.Matches(k, in.KeyMap.DeleteWordForward) {
		in.deleteWordForward()
		return in, nil
	}
	var cmd tea.Cmd
	in.Model, cmd = in.Model.Update(msg)
	return in, cmd
}

// deleteWordForward deletes from the cursor to the end of the word it is
// in, or of the next word when it is on spaces; masked input, whose words
// must not show, loses everything after the cursor.
func (in *Input) deleteWordForward() {
	v, pos := []rune(in.Value()), in.Position()
	if pos >= len(v) {
		return
	}
	end := len(v)
	if in.EchoMode == textinput.EchoNormal {
		end = pos
		for end < len(v) && unicode.IsSpace(v[end]) {
			end++
		}
		for end < len(v) && !unicode.IsSpace(v[end]) {
			end++
		}
	}
	in.SetValue(string(v[:pos]) + string(v[end:]))
	in.SetCursor(pos)
}
