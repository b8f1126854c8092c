package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// Run shows the inspector until the user quits.
func Run(opt Options) error {
	m := New(opt)
	if _, err := tea.NewProgram(m).Run(); err != nil {
		return fmt.Errorf("inspector: %w", err)
	}
	if m.fleet != nil {
		if m.fleet.err != nil && !m.fleet.scanned {
			return m.fleet.err
		}
		return nil
	}
	if s := m.sess; s != nil && s.err != nil && s.session == nil {
		return s.err
	}
	return nil
}
