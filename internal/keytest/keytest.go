// Package keytest builds the key presses a terminal sends, by the names
// the key maps use ("enter", "pgdown", "ctrl+u", "j"), for the tests of
// the inspector and the spill viewer.
package keytest

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

var special = map[string]rune{
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
	"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "backspace": tea.KeyBackspace,
	"delete": tea.KeyDelete,
}

// Press is the key press named k; it panics on a name it does not know.
// "alt+" and "ctrl+" go before a key of one character or a named one
// ("alt+d", "ctrl+delete").
func Press(k string) tea.KeyPressMsg {
	for prefix, mod := range map[string]tea.KeyMod{"alt+": tea.ModAlt, "ctrl+": tea.ModCtrl} {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			if code, ok := special[rest]; ok {
				return tea.KeyPressMsg{Code: code, Mod: mod}
			}
		}
	}
	if rest, ok := strings.CutPrefix(k, "alt+"); ok && len([]rune(rest)) == 1 {
		return tea.KeyPressMsg{Code: []rune(rest)[0], Mod: tea.ModAlt}
	}
	if code, ok := special[k]; ok {
		return tea.KeyPressMsg{Code: code}
	}
	if k == "space" {
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	if rest, ok := strings.CutPrefix(k, "ctrl+"); ok && len(rest) == 1 {
		return tea.KeyPressMsg{Code: rune(rest[0]), Mod: tea.ModCtrl}
	}
	if r := []rune(k); len(r) == 1 {
		return tea.KeyPressMsg{Code: r[0], Text: k}
	}
	panic("keytest: unknown key " + k)
}
