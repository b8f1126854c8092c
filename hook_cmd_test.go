package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/internal/claudesettings"
)

// The matcher names the tools a policy may act on, in the forms Claude
// Code reads: a list of names, or an anchored pattern for MCP tools.
func TestHookMatcher(t *testing.T) {
	preset := func(name string, adjust func(*policy.Policy)) policy.Policy {
		p, err := policy.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if adjust != nil {
			adjust(&p)
		}
		return p
	}
	for _, c := range []struct {
		name string
		p    policy.Policy
		want string
	}{
		{"every tool with a ceiling", preset("harness-rs-0.0.50", nil), "^(Read|Bash|Grep|Glob|WebFetch|mcp__.*)$"},
		{"a write forgets every repeat", preset("harness-rs-0.0.50-dedupe", nil), "*"},
		{"AgentScope spares read_file, not Read", preset("agentscope", nil), "^(Read|Bash|Grep|Glob|WebFetch|mcp__.*)$"},
		{"Bash alone", preset("harness-rs-0.0.50", func(p *policy.Policy) { p.Ceiling, p.PerTool = 0, map[string]int64{"Bash": 20_000} }), "Bash"},
		{"excluded", preset("harness-rs-0.0.50", func(p *policy.Policy) {
			p.Ceiling, p.PerTool, p.Exclude = 0, map[string]int64{"Bash": 20_000, "Read": 9_000}, []string{"Read"}
		}), "Bash"},
		{"repeats of Reads cleared by edits", preset("harness-rs-0.0.50", func(p *policy.Policy) {
			p.Ceiling, p.PerTool = 0, map[string]int64{"mcp__gh__*": 5_000}
			p.Dedupe = policy.Dedupe{Enabled: true, From: 2, Key: policy.KeyReadPath, Tools: []string{"Read"}, Clear: policy.ClearSamePath}
		}), "^(Read|Edit|MultiEdit|Write|NotebookEdit|mcp__.*)$"},
	} {
		got, err := hookMatcher(c.p)
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
	p := preset("harness-rs-0.0.50", func(p *policy.Policy) { p.Ceiling, p.PerTool = 0, map[string]int64{"Task": 5_000} })
	if _, err := hookMatcher(p); err == nil {
		t.Error("a policy that limits only Task got a matcher")
	}
}

// install writes spillway's entry into the settings file given, once, and
// replaces it with another policy's; uninstall takes it out and nothing
// else; status says what is where.
func TestHookInstall(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	original := "{\n  \"model\": \"opus\",\n  \"hooks\": {\"PostToolUse\": [{\"matcher\": \"Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"gofmt\"}]}]}\n}\n"
	os.WriteFile(settings, []byte(original), 0o600)
	exe, _ := os.Executable()
	hooks := func() []claudesettings.Hook {
		f, err := claudesettings.Load(settings)
		if err != nil {
			t.Fatal(err)
		}
		return f.Hooks(isHookCommand)
	}

	code, out, errs := runCLI(t, "", "hook", "install", "--settings", settings, "--preset", "harness-rs-0.0.50", "--max-bytes", "20KiB", "--unit", "utf8_bytes")
	if code != 0 || !strings.Contains(out, "policy harness-rs-0.0.50+custom, tools ^(Read|Bash|Grep|Glob|WebFetch|mcp__.*)$") {
		t.Fatalf("%d %s %s", code, out, errs)
	}
	want := claudesettings.Hook{Matcher: "^(Read|Bash|Grep|Glob|WebFetch|mcp__.*)$",
		Command: shellQuote(exe) + " hook claude-code --preset=harness-rs-0.0.50 --max-bytes=20KiB --unit=utf8_bytes", Timeout: hookTimeout}
	if got := hooks(); len(got) != 1 || got[0] != want {
		t.Errorf("installed %+v, want %+v", got, want)
	}
	if backup, _ := os.ReadFile(settings + claudesettings.BackupSuffix); string(backup) != original {
		t.Error("no backup of the file as it was")
	}
	code, out, _ = runCLI(t, "", "hook", "install", "--settings", settings, "--preset", "harness-rs-0.0.50", "--max-bytes", "20KiB", "--unit", "utf8_bytes")
	if code != 0 || !strings.Contains(out, "installed already") {
		t.Errorf("installing again: %s", out)
	}

	// Another policy, from a file: copied into spillway's config folder,
	// with the knobs given applied, and in spillway's entry's place.
	policyFile := filepath.Join(dir, "tuned.json")
	os.WriteFile(policyFile, []byte(`{"name":"tuned","style":"harness-rs","unit":"utf8_bytes","ceiling":10000,"action":"truncate_head","dedupe":{"enabled":false}}`), 0o600)
	if code, out, errs := runCLI(t, "", "hook", "install", "--settings", settings, "--policy", policyFile, "--max-bytes", "9000"); code != 0 {
		t.Fatal(out, errs)
	}
	got := hooks()
	if len(got) != 1 || !strings.Contains(got[0].Command, " hook claude-code --policy="+filepath.Join(config, "spillway", "hook-policy-")) {
		t.Fatalf("after installing a policy file: %+v", got)
	}
	copied, err := policy.Load(strings.TrimPrefix(got[0].Command[strings.Index(got[0].Command, "--policy="):], "--policy="))
	if err != nil || copied.Name != "tuned+custom" || copied.Ceiling != 9000 {
		t.Errorf("the copy: %+v %v", copied, err)
	}
	code, out, _ = runCLI(t, "", "hook", "status", "--settings", settings)
	if code != 0 || !strings.Contains(out, "installed in "+settings) || !strings.Contains(out, "policy  tuned+custom · harness-rs · ceiling 9,000 bytes · truncate_head\n") ||
		!strings.Contains(out, "ledger: 0 results shaped in 0 sessions") {
		t.Errorf("status:\n%s", out)
	}

	// Out again: the file as it was, byte for byte.
	if code, out, errs := runCLI(t, "", "hook", "uninstall", "--settings", settings); code != 0 || !strings.Contains(out, "removed") {
		t.Fatal(out, errs)
	}
	if data, _ := os.ReadFile(settings); string(data) != original {
		t.Errorf("after uninstalling:\n%s", data)
	}
	if code, out, _ := runCLI(t, "", "hook", "uninstall", "--settings", settings); code != 0 || !strings.Contains(out, "not in") {
		t.Errorf("uninstalling again: %s", out)
	}

	// Refused: Claude Code's own style, a policy that changes nothing,
	// and both a scope and a file.
	for args, why := range map[string]string{
		"--preset claude-code":                       "Claude Code's own style",
		"--preset none":                              "never changes a result",
		"--scope project --preset harness-rs-0.0.50": "give one",
		"--scope nowhere":                            `unknown scope "nowhere"`,
	} {
		a := append([]string{"hook", "install", "--settings", settings}, strings.Fields(args)...)
		if strings.HasPrefix(args, "--scope nowhere") {
			a = []string{"hook", "install", "--scope", "nowhere"}
		}
		if code, _, errs := runCLI(t, "", a...); code != exitUsage || !strings.Contains(errs, why) {
			t.Errorf("%s: %d %s", args, code, errs)
		}
	}
	var parsed any
	if data, _ := os.ReadFile(settings); json.Unmarshal(data, &parsed) != nil {
		t.Error("a refused install touched the file")
	}
}

// shellWords reads back what shellQuote wrote.
func TestShellQuote(t *testing.T) {
	for _, s := range []string{"/usr/bin/spillway", "/Users/a b/it's/spillway", "--exclude=Read,Bash", ""} {
		words, err := shellWords(shellQuote(s) + " x")
		if err != nil || len(words) != 2 || words[0] != s {
			t.Errorf("%q: %q %v", s, words, err)
		}
	}
}

// TestInspectorInstallsHook: the inspector's w installs the policy tuned
// there as `spillway hook install --policy FILE` installs that policy
// saved: the same entry, byte for byte, naming the same copy of it.
func TestInspectorInstallsHook(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	original := "{\n  \"model\": \"opus\"\n}\n"
	fromCLI, fromInspector := filepath.Join(dir, "cli.json"), filepath.Join(dir, "inspector.json")
	os.WriteFile(fromCLI, []byte(original), 0o600)
	os.WriteFile(fromInspector, []byte(original), 0o600)

	p, err := policy.Preset("harness-rs-0.0.50")
	if err != nil {
		t.Fatal(err)
	}
	p.SetCeiling(12_288)
	if err := p.SetDedupe(3); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "tuned.json")
	if err := policy.Save(saved, p, false); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "", "hook", "install", "--settings", fromCLI, "--policy", saved); code != 0 {
		t.Fatal(out, errs)
	}
	said, err := inspectorHookInstaller(&policyFlags{})(p, fromInspector)
	if err != nil {
		t.Fatal(err)
	}
	if want := "installed spillway's hook in " + fromInspector + ": policy " + p.Name + ", tools *; the file as it was: " + fromInspector + claudesettings.BackupSuffix + "; Claude Code reads it"; !strings.HasPrefix(said, want) {
		t.Errorf("said %q, want it to start %q", said, want)
	}
	cli, _ := os.ReadFile(fromCLI)
	inspector, _ := os.ReadFile(fromInspector)
	if diff := cmp.Diff(string(cli), string(inspector)); diff != "" {
		t.Errorf("settings (-hook install +inspector):\n%s", diff)
	}
	if again, err := inspectorHookInstaller(&policyFlags{})(p, fromInspector); err != nil || !strings.Contains(again, "installed already") {
		t.Errorf("installing again: %q %v", again, err)
	}
	os.WriteFile(fromInspector, []byte("{\n  \"model\": \n"), 0o600)
	if _, err := inspectorHookInstaller(&policyFlags{})(p, fromInspector); err == nil || !strings.Contains(err.Error(), "line") {
		t.Errorf("a settings file that is not JSON: %v", err)
	}
}

// go run's build is deleted when it exits: a hook or status line naming it
// would run nothing from the next tool call on.
func TestGoRunBuild(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build2963418217/b001/exe/spillway":      true,
		"/var/folders/x/T/go-build123/b001/exe/spillway": true,
		"/tmp/go-build2963418217/b001/spillway.test":     false, // go test's binary
		"/home/a/go/bin/spillway":                        false,
		"/opt/exe/spillway":                              false,
	} {
		if got := goRunBuild(exe); got != want {
			t.Errorf("%s: %v, want %v", exe, got, want)
		}
	}
}

// hook status says which identical call repeats are suppressed from, not
// "call 2", which reads as the call of index 2.
func TestDescribeHookPolicy(t *testing.T) {
	got := describeHookPolicy("/bin/spillway hook claude-code --preset=harness-rs-0.0.50 --max-bytes=20KiB --dedupe")
	want := "harness-rs-0.0.50+custom · harness-rs · ceiling 20,480 JSON bytes · spill · repeats suppressed from the 2nd identical call"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Only spillway's own entries are spillway's: another tool's command that
// contains the same words, or a program named like spillway, is left to
// its owner by install, uninstall and status.
func TestSpillwayCommands(t *testing.T) {
	exe, _ := os.Executable()
	link := filepath.Join(t.TempDir(), "sw")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd        string
		hook, line bool
	}{
		{shellQuote(exe) + " hook claude-code --preset=codex", true, false},
		{shellQuote(link) + " hook claude-code", true, false}, // this spillway under another name
		{"/usr/local/bin/spillway hook claude-code --max-bytes=1", true, false},
		{"'/opt/my tools/spillway' statusline --preset=codex", false, true},
		{shellQuote(exe) + " statusline", false, true},
		{"other-tool hook claude-code --foo", false, false},
		{"spillway-wrapper hook claude-code", false, false},
		{"spillway-wrapper statusline --my-own", false, false},
		{"echo spillway hook claude-code", false, false},
		{"spillway report hook claude-code", false, false},
		{"spillway 'hook claude-code'", false, false},
		{"SPILLWAY_CACHE_DIR=/x /usr/local/bin/spillway hook claude-code", true, false},
		{`"/opt/my tools/spillway" statusline`, false, true},
		{`env SPILLWAY_CACHE_DIR="/a b" spillway hook claude-code --preset=codex`, true, false},
		{`FOO=1 other-tool hook claude-code`, false, false},
	} {
		if got := isHookCommand(c.cmd); got != c.hook {
			t.Errorf("isHookCommand(%q) = %v", c.cmd, got)
		}
		if got := isSpillwayCommand(c.cmd, "statusline"); got != c.line {
			t.Errorf("a status line %q: ours = %v", c.cmd, got)
		}
	}

	// Installed beside another tool's hook with the same words, and taken
	// out, spillway's leaves the other as it was.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	settings := filepath.Join(t.TempDir(), "settings.json")
	original := `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"other-tool hook claude-code --foo"}]}]}}` + "\n"
	os.WriteFile(settings, []byte(original), 0o600)
	if code, out, errs := runCLI(t, "", "hook", "install", "--settings", settings); code != 0 {
		t.Fatal(out, errs)
	}
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), "other-tool hook claude-code --foo") {
		t.Fatalf("install took out the other tool's hook:\n%s", data)
	}
	if code, out, errs := runCLI(t, "", "hook", "uninstall", "--settings", settings); code != 0 {
		t.Fatal(out, errs)
	}
	if data, _ := os.ReadFile(settings); string(data) != original {
		t.Errorf("after uninstalling:\n%s", data)
	}
}

// TestHookStatusOnce: run in the home folder, where the user's settings
// and the project's are one file, status names it once.
func TestHookStatusOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(home)
	code, out, errs := runCLI(t, "", "hook", "status")
	if path := filepath.Join(home, ".claude", "settings.json"); code != 0 || strings.Count(out, path) != 1 {
		t.Errorf("exit %d, %s names %s other than once:\n%s", code, errs, path, out)
	}
}
