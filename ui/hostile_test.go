package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestPromptsDeleteWordForward: alt+d, alt+delete and ctrl+delete with the
// cursor on the last rune, in each of the five prompts, delete that rune;
// textinput alone panics there (bubbles issue 1056).
func TestPromptsDeleteWordForward(t *testing.T) {
	data := demoData(t)
	fleet := fleetFixture(t)
	for _, del := range []string{"alt+d", "alt+delete", "ctrl+delete"} {
		for _, tt := range []struct {
			name  string
			open  []string
			value func(*Model) string
		}{
			{"search", []string{"/"}, func(m *Model) string { return m.input.Value() }},
			{"ceiling", []string{"e"}, func(m *Model) string { return m.input.Value() }},
			{"write", []string{"w"}, func(m *Model) string { return m.input.Value() }},
			{"spill viewer search", []string{"enter", "/"}, func(m *Model) string {
				// The prompt is the viewer's last line.
				lines := strings.Split(ansi.Strip(screen(m)), "\n")
				return strings.Fields(strings.TrimPrefix(lines[len(lines)-1], "/"))[0]
			}},
			{"session filter", []string{"/"}, func(m *Model) string { return m.input.Value() }},
		} {
			var m *Model
			if tt.name == "session filter" {
				m = newListModel(t, []string{fleet}, "claude-code", 100, 30, longAgo)
			} else {
				m = newModel(t, data, "harness-rs-0.0.50", 100, 30, "dark")
			}
			press(t, m, tt.open...)
			press(t, m, "a", "b", "left", del)
			if got := tt.value(m); got != "a" {
				t.Errorf("%s, %s on the last rune of %q: %q, want %q", tt.name, del, "ab", got, "a")
			}
		}
	}
}
