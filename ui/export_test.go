package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/export"
	"github.com/spillway-dev/spillway/guard/policy"
)

// writeFormatIs checks the write prompt's format and the file it offers.
func writeFormatIs(format int, path string) func(*Model) string {
	return func(m *Model) string {
		return want(m.inputMode == writeInput && m.writeFormat == format && m.writePath == path && m.input.Placeholder == path &&
			strings.Contains(m.input.Prompt, "as "+writeFormats[format]+" "),
			"prompt %v %q, format %d, path %q", m.inputMode, m.input.Prompt, m.writeFormat, m.writePath)
	}
}

// TestWriteFormats: tab in w's prompt goes through spillway's own file and
// every export target and back, the offered file following the format;
// enter writes the tuned policy as that harness's configuration, the text
// spillway policy export prints for it.
func TestWriteFormats(t *testing.T) {
	data := demoData(t)
	dir := t.TempDir()
	m := newModel(t, data, "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "-", "d") // tuned: 12,288 bytes, no repeat suppression
	press(t, m, "w")
	if msg := writeFormatIs(0, "spillway-policy.json")(m); msg != "" {
		t.Fatal(msg)
	}
	for i, target := range export.Targets {
		press(t, m, "tab")
		if msg := writeFormatIs(i+1, "spillway-policy."+target.Ext())(m); msg != "" {
			t.Fatal(msg)
		}
		if line := ansi.Strip(screen(m)); !strings.Contains(line, "write policy as "+string(target)+" (tab: next format) to:") {
			t.Errorf("the prompt does not show the format %s:\n%s", target, line)
		}
	}
	press(t, m, "tab")
	if msg := writeFormatIs(0, "spillway-policy.json")(m); msg != "" {
		t.Fatal(msg)
	}
	for i, target := range export.Targets {
		press(t, m, "tab")
		path := filepath.Join(dir, "out."+target.Ext())
		m.input.SetValue(path)
		press(t, m, "enter")
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		wantText, err := export.Render(m.policy, target)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantText, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", target, diff)
		}
		if want := "policy written to " + path + " as " + string(target) + " configuration"; m.ctx.notice != want {
			t.Errorf("notice %q, want %q", m.ctx.notice, want)
		}
		if !strings.Contains(string(got), "max_bytes: Some(12288)") && target == export.HarnessRS {
			t.Errorf("harness-rs text lacks the tuned ceiling:\n%s", got)
		}
		// The typed file stays offered, in the format written.
		press(t, m, "w")
		if msg := writeFormatIs(i+1, path)(m); msg != "" {
			t.Fatal(msg)
		}
	}
	press(t, m, "tab") // back to spillway's own file, at the typed path
	if msg := writeFormatIs(0, filepath.Join(dir, "out."+export.Targets[len(export.Targets)-1].Ext()))(m); msg != "" {
		t.Fatal(msg)
	}
	press(t, m, "esc")

	// Writing over a file asks first, then writes the configuration.
	m.writeFormat, m.writePath = 4, filepath.Join(dir, "out.toml") // codex
	press(t, m, "w", "enter")
	if m.confirm != m.writePath {
		t.Fatalf("no question before overwriting: confirm %q", m.confirm)
	}
	press(t, m, "y")
	got, _ := os.ReadFile(m.writePath)
	if !strings.Contains(string(got), "\ntool_output_token_limit = 2560\n") {
		t.Errorf("codex: 12,288 bytes are 3,072 tokens, 2,560 after Codex's 1.2 allowance:\n%s", got)
	}
	// spillway's own file still reads back.
	m.writeFormat, m.writePath = 0, filepath.Join(dir, "p.json")
	press(t, m, "w", "enter")
	if p, err := policy.Load(m.writePath); err != nil || p.Ceiling != 12288 {
		t.Errorf("read back %v, ceiling %d", err, p.Ceiling)
	}
}

// TestWriteInstallsHook: where the inspector can install spillway's hook,
// tab in w's prompt reaches it after the exports, offering Claude Code's
// user settings file; enter asks first, n installs nothing, y installs
// the policy shown and the footer says what was done.
func TestWriteInstallsHook(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.50", 120, 40, "dark")
	var installed []string
	m.opt.InstallHook = func(p policy.Policy, settings string) (string, error) {
		installed = append(installed, p.Name+" "+settings)
		return "installed spillway's hook in " + settings, nil
	}
	m.opt.HookSettings = "/home/u/.claude/settings.json"
	press(t, m, "-", "w")
	for range export.Targets {
		press(t, m, "tab")
	}
	press(t, m, "tab")
	if !m.installing() || m.writePath != m.opt.HookSettings {
		t.Fatalf("format %d, path %q: not the hook", m.writeFormat, m.writePath)
	}
	if line := screenText(m); !strings.Contains(line, "install policy as Claude Code hook (tab: next format) in settings file:") {
		t.Errorf("the prompt does not say it installs:\n%s", line)
	}
	press(t, m, "enter")
	if line := screenText(m); !strings.Contains(line, "install spillway's hook with policy harness-rs-0.0.50+custom in /home/u/.claude/settings.json? y yes · n no") {
		t.Errorf("no question before installing:\n%s", line)
	}
	press(t, m, "n")
	if len(installed) != 0 {
		t.Fatalf("installed after n: %v", installed)
	}
	press(t, m, "w", "enter", "y")
	if diff := cmp.Diff([]string{"harness-rs-0.0.50+custom /home/u/.claude/settings.json"}, installed); diff != "" {
		t.Errorf("installed (-want +got):\n%s", diff)
	}
	if m.ctx.notice != "installed spillway's hook in /home/u/.claude/settings.json" {
		t.Errorf("notice %q", m.ctx.notice)
	}
	press(t, m, "w", "tab")
	if m.writeFormat != 0 {
		t.Errorf("tab after the hook: format %d, want spillway's own file", m.writeFormat)
	}
}

// TestWriteHookRefusesLink: a link where the settings file should be is
// refused when enter is pressed, before any question, as the exports
// refuse theirs; nothing is installed.
func TestWriteHookRefusesLink(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	if err := os.Symlink(filepath.Join(dir, "elsewhere.json"), settings); err != nil {
		t.Skip("no links here:", err)
	}
	m := newModel(t, demoData(t), "harness-rs-0.0.50", 120, 40, "dark")
	m.opt.InstallHook = func(p policy.Policy, settings string) (string, error) {
		t.Errorf("installed in %s", settings)
		return "", nil
	}
	m.opt.HookSettings = settings
	press(t, m, "w")
	for range export.Targets {
		press(t, m, "tab")
	}
	press(t, m, "tab", "enter")
	if m.confirm != "" {
		t.Errorf("asked about %s", m.confirm)
	}
	want := "install spillway's hook: " + settings + " is a link: spillway does not write through one (give its target with --settings)"
	if m.ctx.notice != want {
		t.Errorf("notice %q\nwant   %q", m.ctx.notice, want)
	}
}

// TestWritePromptNarrow: at 80 columns the hook's prompt says what it does
// in few words, leaving the settings file it offers seen; it left it 9
// cells.
func TestWritePromptNarrow(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.50", 80, 24, "dark")
	m.opt.InstallHook = func(policy.Policy, string) (string, error) { return "", nil }
	m.opt.HookSettings = "/home/u/.claude/settings.json"
	press(t, m, "w")
	for range len(export.Targets) + 1 {
		press(t, m, "tab")
	}
	if line := screenText(m); !m.installing() || !strings.Contains(line, "install as hook (tab: format) in: /home/u/.claude/settings.json") {
		t.Errorf("at 80 columns:\n%s", line)
	}
}
