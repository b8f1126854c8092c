package prompt

import (
	"testing"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// TestDeleteWordForward: alt+d, alt+delete and ctrl+delete delete from the
// cursor to the end of its word, never past it and never panicking, with
// the cursor anywhere (textinput alone panics on a value's last rune).
func TestDeleteWordForward(t *testing.T) {
	keys := map[string]tea.KeyPressMsg{
		"alt+d":       {Code: 'd', Mod: tea.ModAlt},
		"alt+delete":  {Code: tea.KeyDelete, Mod: tea.ModAlt},
		"ctrl+delete": {Code: tea.KeyDelete, Mod: tea.ModCtrl},
	}
	tests := []struct {
		value  string
		cursor int
		want   string
		masked string // the value when the input is masked
	}{
		{"ab", 1, "a", "a"},
		{"ab", 0, "", ""},
		{"ab", 2, "ab", "ab"},
		{"", 0, "", ""},
		{"ab c", 1, "a c", "a"},
		{"abc d", 1, "a d", "a"},
		{"ab  cd ef", 2, "ab ef", "ab"},
		{"a ", 1, "a", "a"},
		{"é日本 語", 1, "é 語", "é"},
		{"x   ", 1, "x", "x"},
	}
	for name, k := range keys {
		for _, tt := range tests {
			for _, masked := range []bool{false, true} {
				in := New()
				if masked {
					in.EchoMode = textinput.EchoPassword
				}
				in.Focus()
				in.SetValue(tt.value)
				in.SetCursor(tt.cursor)
				in, _ = in.Update(k)
				want := tt.want
				if masked {
					want = tt.masked
				}
				if got := in.Value(); got != want || in.Position() != min(tt.cursor, len([]rune(want))) {
					t.Errorf("%s on %q at %d (masked %v): %q, cursor %d; want %q, cursor %d",
						name, tt.value, tt.cursor, masked, got, in.Position(), want, tt.cursor)
				}
			}
		}
	}
}

// TestBlurredTakesNoKeys: a blurred input changes with no key, as
// textinput's.
func TestBlurredTakesNoKeys(t *testing.T) {
	in := New()
	in.SetValue("ab")
	in.SetCursor(1)
	in, _ = in.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt})
	if in.Value() != "ab" {
		t.Errorf("blurred input took alt+d: %q", in.Value())
	}
}
