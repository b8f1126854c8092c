package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/transcript"
	"github.com/spillway-dev/spillway/ui"
)

// TestHelp checks that each way of asking for help prints that command's
// flags on stdout and exits 0.
func TestHelp(t *testing.T) {
	policyFlags := []string{"--preset", "--policy", "--max-bytes", "--unit", "--dedupe", "--dedupe-from", "--no-dedupe",
		"--spill", "--no-spill", "--spill-dir", "--preview-head", "--preview-tail", "--exclude", "--encoding",
		"--input-format", "--prices"}
	tests := []struct {
		args []string
		has  []string
		lack []string
	}{
		{args: []string{"--help"}, has: append([]string{"--theme", "-f --follow", "--no-follow", "report", "sweep", "presets", "completion", "spillway report"}, policyFlags...)},
		{args: []string{"-h"}, has: []string{"--theme", "-f --follow", "--no-follow"}},
		{args: []string{"help"}, has: []string{"--theme", "report"}},
		{args: []string{"help", "report"}, has: append([]string{"--format", "recorded", "Per-call token costs"}, policyFlags...), lack: []string{"--theme", "--follow"}},
		{args: []string{"report", "-h"}, has: append([]string{"--format", "(none)"}, policyFlags...), lack: []string{"--theme"}},
		{args: []string{"report", "--help", "whatever.jsonl"}, has: []string{"--format"}},
		{args: []string{"sweep", "-h"}, has: append([]string{"--format", "(harness-rs-0.0.50)", "2 KiB to 256 KiB"}, policyFlags...), lack: []string{"--theme"}},
		{args: []string{"help", "presets"}, has: []string{"--format"}, lack: []string{"--preset "}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			for _, want := range tt.has {
				if !strings.Contains(stdout, want) {
					t.Errorf("help lacks %q:\n%s", want, stdout)
				}
			}
			for _, unwanted := range tt.lack {
				if strings.Contains(stdout, unwanted) {
					t.Errorf("help shows %q, which is not this command's:\n%s", unwanted, stdout)
				}
			}
		})
	}
}

func TestVersionOf(t *testing.T) {
	const rev = "e15eacf7630b5b32c6a5f4e28bce02361876abd3"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-01T12:54:00Z"}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install at a tag", debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "v0.3.0"},
		{"built in a clone", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201125400-e15eacf7630b"}, Settings: vcs("false")},
			"v0.0.0-20261201125400-e15eacf7630b, revision " + rev + " of 2026-12-01T12:54:00Z"},
		{"with local changes", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201125400-e15eacf7630b+dirty"}, Settings: vcs("true")},
			"v0.0.0-20261201125400-e15eacf7630b+dirty, revision " + rev + " of 2026-12-01T12:54:00Z, with uncommitted changes"},
		{"no version control", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel), built without version control information"},
	}
	for _, tt := range tests {
		if got := versionOf(&tt.info); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-v"} {
		code, stdout, stderr := runCLI(t, "", arg)
		if want := "spillway version " + version() + "\n"; code != 0 || stdout != want || stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and %q", arg, code, stdout, stderr, want)
		}
	}
}

func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "# bash completion V2 for spillway",
		"zsh":  "#compdef spillway",
		"fish": "# fish completion for spillway",
	} {
		code, stdout, stderr := runCLI(t, "", "completion", shell)
		if code != 0 || !strings.HasPrefix(stdout, want) {
			t.Errorf("completion %s: exit %d, stderr %q, output starts %q; want %q", shell, code, stderr, stdout[:min(len(stdout), 60)], want)
		}
	}
	// A shell cobra has no script for is refused, not answered with help.
	code, stdout, stderr := runCLI(t, "", "completion", "tcsh")
	if code == 0 || stdout != "" || stderr != "spillway: no completion script for \"tcsh\": spillway completes bash, zsh, fish or powershell\n" {
		t.Errorf("completion tcsh: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The values a flag takes are offered, as the shell asks for them.
	code, stdout, _ = runCLI(t, "", "__complete", "report", "--preset", "")
	if code != 0 || !strings.Contains(stdout, "harness-rs-0.0.50\n") || !strings.Contains(stdout, "claude-code\n") {
		t.Errorf("exit %d, preset completions:\n%s", code, stdout)
	}
}

// TestManPage checks the man page's header, which man lays out in three
// fields (fang's put the whole description in the manual's name and the
// day it was made in the date), and that it lists the inspector's keys.
func TestManPage(t *testing.T) {
	code, page, stderr := runCLI(t, "", "man")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	first, _, _ := strings.Cut(page, "\n")
	if want := `.TH SPILLWAY 1 "" "spillway (devel)" "User Commands"`; first != want && !strings.HasPrefix(first, `.TH SPILLWAY 1 "" "spillway v`) {
		t.Errorf("man page header %q, want %q", first, want)
	}
	for _, want := range []string{"\n.SH NAME\n", "report", "--max-bytes", "--follow",
		"\n.SH KEYS\n", "\\fBT\\fP\nresults by tool\n", "\\fB+\\fP\ndouble ceiling\n", "\\fB\\-\\fP\nhalve ceiling\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("man page lacks %q:\n%.2000s", want, page)
		}
	}
}

// TestHelpNotPadded checks that help written where there is no terminal
// has no line padded with spaces (fang pads them to 120 columns).
func TestHelpNotPadded(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"report", "--help"}, {"completion"}} {
		code, stdout, _ := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(stdout, "USAGE") {
			t.Fatalf("%q: exit %d, help:\n%s", args, code, stdout)
		}
		for i, line := range strings.Split(stdout, "\n") {
			if strings.HasSuffix(line, " ") {
				t.Errorf("%q: line %d ends in spaces: %q", args, i+1, line)
			}
		}
	}
}

// TestPolicyFlagDefault checks that a policy flag without --preset adjusts
// the same preset in report, sweep and the inspector: one figure, however
// it is asked for. Without a policy flag report stays recorded-only.
func TestPolicyFlagDefault(t *testing.T) {
	demo := filepath.Join("testdata", "demo.jsonl")
	spill := t.TempDir()
	// --max-bytes 8KiB over harness-rs-0.0.50 shapes 7 of the demo's results,
	// as sweep's own row says; none's defaults, which report used to adjust,
	// printed $0.216937. (Replayed as spillway's hook enforces it in Claude
	// Code, the Reads' spilled contents are numbered again: $0.179312 when
	// they were not.)
	const line = "  cost: $0.398306 → $0.177525 under harness-rs-0.0.50+custom (−$0.220780, −55.4%); prompt tokens 619,430 → 221,561\n"
	for _, args := range [][]string{
		{"report", "--max-bytes", "8KiB", "--spill-dir", spill, demo},
		{"report", "--preset", "harness-rs-0.0.50", "--max-bytes", "8KiB", "--spill-dir", spill, demo},
		{"--max-bytes", "8KiB", "--spill-dir", spill, demo}, // the inspector, printing its report
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(stdout, line) {
			t.Errorf("%q: exit %d, stderr %q, stdout lacks %q:\n%s", args, code, stderr, line, stdout)
		}
	}
	code, stdout, _ := runCLI(t, "", "sweep", "--max-bytes", "8KiB", "--format", "csv", demo)
	if want := "harness-rs-0.0.50+custom,8192,json_bytes,true,7,0,397869,0.398305500,0.177525150,0,0,0,0\n"; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("sweep: exit %d, stdout lacks %q:\n%s", code, want, stdout)
	}
	code, stdout, _ = runCLI(t, "", "report", demo)
	if want := "  cost: $0.398306\n"; code != 0 || !strings.Contains(stdout, want) || strings.Contains(stdout, "→") {
		t.Errorf("report without a policy flag: exit %d, want recorded costs only (%q):\n%s", code, want, stdout)
	}
}

// hostileNames are file names that would retitle the window (OSC 0), clear
// the screen (CSI 2J), start a CSI as a C1 control, in UTF-8 and as a raw
// byte, and reverse the text after it (RLO), were they printed as they are;
// each with the way spillway prints it. File systems that hold only UTF-8
// names (macOS) refuse the first.
var hostileNames = []struct{ name, shown string }{
	{"x\x1b]0;title\x07\x1b[2J\u009b\x9b\u202ey", `x\x1b]0;title\x07\x1b[2J\x9b` + "\ufffd" + `\u202ey`},
	{"x\x1b]0;title\x07\x1b[2J\u009b\u202ey", `x\x1b]0;title\x07\x1b[2J\x9b\u202ey`},
}

// rawControl finds a byte a terminal would act on, or show as other than
// it is: C0 and C1 controls but newline and tab, DEL, bidirectional
// controls, and bytes that are not UTF-8.
func rawControl(s string) (string, bool) {
	for i, r := range s {
		bad := r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
		if r == utf8.RuneError {
			_, size := utf8.DecodeRuneInString(s[i:])
			bad = size == 1
		}
		if bad {
			return s[max(0, i-20):min(len(s), i+20)], true
		}
	}
	return "", false
}

// TestHostileNames drives every error path with a file name made of
// terminal controls and checks that stdout and stderr hold none of them
// raw, while the messages still name the file.
func TestHostileNames(t *testing.T) {
	dir := t.TempDir()
	demo, err := os.ReadFile(filepath.Join("testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	hostile, hostileShown := "", ""
	for _, h := range hostileNames {
		if os.WriteFile(filepath.Join(dir, h.name), nil, 0o600) == nil {
			hostile, hostileShown = h.name, h.shown
			break
		}
	}
	if hostile == "" {
		t.Skip("this file system refuses names with control characters")
	}
	at := func(name string) string { return filepath.Join(dir, name) }
	write := func(name, text string) string {
		if err := os.MkdirAll(filepath.Dir(at(name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(at(name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return at(name)
	}
	notes := write(hostile+".jsonl", "hello\nworld\n")
	badJSON := write("p"+hostile+".json", "{bad")
	session := write("s"+hostile+"/"+hostile+".jsonl", string(demo))
	write("e"+hostile+"/notes.txt", "hello\n")
	noSessions := at("e" + hostile)
	missing := at("gone" + hostile)
	demoPath := filepath.Join("testdata", "demo.jsonl")
	spill := t.TempDir()
	hookSettings := write("h"+hostile+"/settings.json", "{}")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())

	type tcase struct {
		name     string
		args     []string
		code     int
		terminal bool // as if stdout were a terminal, the inspector's own error paths
		shown    bool // stderr names the file, escaped
	}
	tests := []tcase{
		{name: "report: not a transcript", args: []string{"report", notes}, code: 2, shown: true},
		{name: "sweep: not a transcript", args: []string{"sweep", notes}, code: 2, shown: true},
		{name: "inspector, no terminal: not a transcript", args: []string{notes}, code: 2, shown: true},
		{name: "inspector: not a transcript", args: []string{"--no-follow", notes}, code: 2, shown: true, terminal: true},
		{name: "report: missing path", args: []string{"report", missing}, code: 1, shown: true},
		{name: "sweep: missing path", args: []string{"sweep", missing}, code: 1, shown: true},
		{name: "inspector, no terminal: missing path", args: []string{missing}, code: 1, shown: true},
		{name: "inspector: missing path", args: []string{missing}, code: 1, shown: true, terminal: true},
		{name: "report: folder without sessions", args: []string{"report", noSessions}, code: 1, shown: true},
		{name: "inspector, no terminal: folder without sessions", args: []string{noSessions}, code: 1, shown: true},
		{name: "inspector: folder without sessions", args: []string{"--no-follow", noSessions}, code: 1, shown: true, terminal: true},
		{name: "report: a session of that name", args: []string{"report", "--preset", "harness-rs-0.0.40", filepath.Dir(session)}},
		{name: "inspector, no terminal: a session of that name", args: []string{"--spill-dir", spill, filepath.Dir(session)}},
		{name: "inspector: a session of that name", args: []string{"--no-follow", "--spill-dir", spill, filepath.Dir(session)}, terminal: true},
		{name: "report: --policy", args: []string{"report", "--policy", badJSON, demoPath}, code: 2, shown: true},
		{name: "sweep: --policy", args: []string{"sweep", "--policy", badJSON, demoPath}, code: 2, shown: true},
		{name: "inspector, no terminal: --policy", args: []string{"--policy", badJSON, demoPath}, code: 2, shown: true},
		{name: "inspector: --policy", args: []string{"--policy", badJSON, demoPath}, code: 2, shown: true, terminal: true},
		{name: "inspector: missing --policy", args: []string{"--policy", missing, demoPath}, code: 2, shown: true, terminal: true},
		{name: "report: --prices", args: []string{"report", "--prices", badJSON, demoPath}, code: 2, shown: true},
		{name: "report: missing --prices", args: []string{"report", "--prices", missing, demoPath}, code: 2, shown: true},
		{name: "inspector, no terminal: --prices", args: []string{"--prices", badJSON, demoPath}, code: 2, shown: true},
		{name: "inspector: --prices", args: []string{"--prices", badJSON, demoPath}, code: 2, shown: true, terminal: true},
		{name: "unknown flag", args: []string{"report", "--" + hostile}, code: 2, shown: true},
		{name: "unknown flag, on a terminal", args: []string{"--" + hostile}, code: 2, shown: true, terminal: true},
		{name: "bad flag value", args: []string{"report", "--format", hostile, demoPath}, code: 2},
		{name: "bad theme", args: []string{"--theme", hostile, demoPath}, code: 2},
		{name: "presets takes no arguments", args: []string{"presets", hostile}, code: 2},
		{name: "help on a path", args: []string{"help", hostile}},
		{name: "hook install: settings that do not parse", args: []string{"hook", "install", "--settings", badJSON}, code: 1, shown: true},
		{name: "hook install: --policy", args: []string{"hook", "install", "--settings", hookSettings, "--policy", badJSON}, code: 2, shown: true},
		{name: "hook install: settings of that name", args: []string{"hook", "install", "--settings", hookSettings}},
		{name: "hook status: settings of that name", args: []string{"hook", "status", "--settings", hookSettings}},
		{name: "hook uninstall: settings of that name", args: []string{"hook", "uninstall", "--settings", hookSettings}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.terminal {
				// The inspector's view is not drawn: its stand-in ends as the
				// inspector does, with the error reading the session gave.
				terminal, run := isTerminal, runUI
				t.Cleanup(func() { isTerminal, runUI = terminal, run })
				isTerminal = func(io.Writer) bool { return true }
				runUI = func(o ui.Options) error {
					_, err := transcript.ReadFile(o.Source.Path, o.Read)
					return err
				}
			}
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tt.code, stderr)
			}
			for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if at, ok := rawControl(out); ok {
					t.Errorf("%s holds a raw control near %q:\n%q", name, at, out)
				}
			}
			if tt.shown && !strings.Contains(stderr, hostileShown) {
				t.Errorf("stderr does not name the file as %q:\n%s", hostileShown, stderr)
			}
		})
	}
}
