package ui

import (
	"errors"
	"fmt"
	"io/fs"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/export"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/internal/safefile"
)

// writeFormats are what w writes: spillway's own policy file (read back
// with --policy), then the configuration of each harness export knows.
var writeFormats = append([]string{"spillway"}, export.TargetNames()...)

// writeFormatPath is the file a format is written to unless another is
// typed.
func writeFormatPath(format int) string {
	if format == 0 {
		return "spillway-policy.json"
	}
	return "spillway-policy." + export.Targets[format-1].Ext()
}

// writePrompt asks where to write, naming the format and the key that
// changes it.
func (m *Model) writePrompt() string {
	return fmt.Sprintf("write policy as %s (%s: next format) to: ", writeFormats[m.writeFormat], m.ctx.Keys.WriteFormat.Help().Key)
}

// nextWriteFormat moves the open write prompt to the next format; the
// offered file follows it unless another one was chosen before.
func (m *Model) nextWriteFormat() {
	next := (m.writeFormat + 1) % len(writeFormats)
	if m.writePath == writeFormatPath(m.writeFormat) {
		m.writePath = writeFormatPath(next)
	}
	m.writeFormat = next
	m.input.Prompt, m.input.Placeholder = m.writePrompt(), m.writePath
	m.sizeInput()
}

// writeCmd writes the policy to path in the chosen format; unless
// overwrite, a file that is there already is left alone and reported.
func (m *Model) writeCmd(path string, overwrite bool) tea.Cmd {
	if m.writeFormat == 0 {
		return writePolicyCmd(path, m.policy, overwrite)
	}
	target, p := export.Targets[m.writeFormat-1], m.policy
	return func() tea.Msg {
		err := writeExport(path, p, target, overwrite)
		return wroteMsg{path: path, as: string(target), exists: errors.Is(err, fs.ErrExist), err: err}
	}
}

func writeExport(path string, p policy.Policy, target export.Target, overwrite bool) error {
	text, err := export.Render(p, target)
	if err == nil {
		err = safefile.WriteFile(path, []byte(text), 0o644, overwrite)
	}
	if err != nil {
		return fmt.Errorf("write %s configuration: %w", target, err)
	}
	return nil
}

// wrote takes a policy written, or a file that is there already, and
// writes the spill files of the session shown.
func (m *Model) wrote(msg wroteMsg) tea.Cmd {
	if msg.exists {
		m.confirm = msg.path
		return nil
	}
	if msg.err != nil {
		return m.ctx.flash(msg.err.Error()) // it says "write policy: …" itself
	}
	note := wroteNotice(msg)
	cmd := m.ctx.flash(note)
	if s := m.sess; s != nil {
		// The spill files' notice, when there are some, says both.
		cmd = tea.Batch(cmd, m.toSession(s, s.writeAllSpills(note)))
	}
	return cmd
}

// wroteNotice says what was written where.
func wroteNotice(msg wroteMsg) string {
	if msg.as != "" {
		return "policy written to " + msg.path + " as " + msg.as + " configuration"
	}
	return "policy written to " + msg.path + " (read it back with --policy)"
}
