package ui

import (
	"errors"
	"fmt"
	"io/fs"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/export"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/internal/claudesettings"
	"github.com/spillway-dev/spillway/internal/safefile"
)

// writeFormats are what w writes: spillway's own policy file (read back
// with --policy), then the configuration of each harness export knows.
// Where the inspector can install spillway's hook, a last one does that.
var writeFormats = append([]string{"spillway"}, export.TargetNames()...)

// hookFormat names the format that installs the hook.
const hookFormat = "Claude Code hook"

// formats are the formats w offers.
func (m *Model) formats() []string {
	if m.opt.InstallHook == nil {
		return writeFormats
	}
	return append(writeFormats[:len(writeFormats):len(writeFormats)], hookFormat)
}

// installing tells whether w installs the hook rather than write a file.
func (m *Model) installing() bool { return m.formats()[m.writeFormat] == hookFormat }

// writeFormatPath is the file a format is written to unless another is
// typed: for the hook, the settings file it is installed in.
func (m *Model) writeFormatPath(format int) string {
	switch {
	case format == 0:
		return "spillway-policy.json"
	case m.formats()[format] == hookFormat:
		return m.opt.HookSettings
	}
	return "spillway-policy." + export.Targets[format-1].Ext()
}

// writePrompt asks where to write, naming the format and the key that
// changes it; in fewer words where the full ones would leave the path
// fewer than pathCells cells (at 80 columns, the hook's left it 9: its
// settings file could not be seen).
func (m *Model) writePrompt() string {
	next := m.ctx.Keys.WriteFormat.Help().Key
	long := fmt.Sprintf("write policy as %s (%s: next format) to: ", m.formats()[m.writeFormat], next)
	short := fmt.Sprintf("write %s (%s: format) to: ", m.formats()[m.writeFormat], next)
	if m.installing() {
		long = fmt.Sprintf("install policy as Claude Code hook (%s: next format) in settings file: ", next)
		short = fmt.Sprintf("install as hook (%s: format) in: ", next)
	}
	if m.ctx.Width-ansi.StringWidth(long) < pathCells {
		return short
	}
	return long
}

// pathCells is the room a write prompt leaves for the path at least.
const pathCells = 40

// nextWriteFormat moves the open write prompt to the next format; the
// offered file follows it unless another one was chosen before.
func (m *Model) nextWriteFormat() {
	next := (m.writeFormat + 1) % len(m.formats())
	if m.writePath == m.writeFormatPath(m.writeFormat) {
		m.writePath = m.writeFormatPath(next)
	}
	m.writeFormat = next
	m.input.Prompt, m.input.Placeholder = m.writePrompt(), m.writePath
	m.sizeInput()
}

// writeCmd writes the policy to path in the chosen format; unless
// overwrite, a file that is there already is left alone and reported.
func (m *Model) writeCmd(path string, overwrite bool) tea.Cmd {
	if m.installing() {
		return m.installCmd(path, overwrite)
	}
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

// installCmd installs the hook with the policy shown into the settings
// file path, once confirmed: it changes what every Claude Code session
// started from then on runs. Before asking, the file is read as the
// install will read it, so a link, a folder or a file that is not
// settings is refused at once, as the other formats refuse theirs.
func (m *Model) installCmd(path string, confirmed bool) tea.Cmd {
	if !confirmed {
		return func() tea.Msg {
			if _, err := claudesettings.Load(path); err != nil {
				return wroteMsg{path: path, as: hookFormat, err: fmt.Errorf("install spillway's hook: %w", err)}
			}
			return wroteMsg{path: path, as: hookFormat, exists: true}
		}
	}
	install, p := m.opt.InstallHook, m.policy
	return func() tea.Msg {
		said, err := install(p, path)
		if err != nil {
			err = fmt.Errorf("install spillway's hook: %w", err)
		}
		return wroteMsg{path: path, as: hookFormat, said: said, err: err}
	}
}

// confirmQuestion is what y or n answers: whether to overwrite a file w
// found there, or to install the hook.
func (m *Model) confirmQuestion() string {
	if m.installing() {
		return "install spillway's hook with policy " + m.policy.Name + " in " + m.confirm + "?"
	}
	return m.confirm + " exists: overwrite it?"
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
	if msg.as == hookFormat {
		return m.ctx.flash(msg.said)
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
