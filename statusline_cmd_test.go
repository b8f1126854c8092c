package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// statusLine runs spillway statusline with args for the log at path, with
// predictions run at once in this process, and returns the line.
func statusLine(t *testing.T, path string, args ...string) string {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": path})
	var out, errb bytes.Buffer
	code := run(append([]string{"statusline", "--color", "never"}, args...), bytes.NewReader(in), &out, &errb)
	if code != 0 || errb.Len() > 0 {
		t.Fatalf("statusline %v: exit %d, stderr %q", args, code, errb.String())
	}
	return strings.TrimSuffix(out.String(), "\n")
}

// predictNow stands in for starting a prediction in the background: it
// runs it in this process, at once.
func predictNow(t *testing.T) {
	t.Helper()
	t.Setenv("SPILLWAY_CACHE_DIR", t.TempDir())
	t.Setenv("COLUMNS", "")
	saved := startPredict
	t.Cleanup(func() { startPredict = saved })
	startPredict = func(args []string, path string) error {
		var out, errb bytes.Buffer
		if code := run(append(args, "--predict", path), nil, &out, &errb); code != 0 {
			return fmt.Errorf("predict: exit %d: %s", code, errb.String())
		}
		return nil
	}
}

// reportTotals are report's figures of the session at path under args.
func reportTotals(t *testing.T, path string, args ...string) (cost, after float64, hazards int) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append(append([]string{"report", "--format", "json"}, args...), path), nil, &out, &errb); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb.String())
	}
	var doc struct {
		Sessions []struct {
			Totals struct {
				Cost    float64 `json:"cost_usd"`
				After   float64 `json:"cost_usd_after"`
				Hazards struct {
					UsedHidden       int `json:"used_hidden"`
					SuppressedUnseen int `json:"suppressed_unseen"`
					Stale            int `json:"stale"`
				} `json:"hazards"`
			} `json:"totals"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Sessions) != 1 {
		t.Fatalf("report: %v, %d sessions", err, len(doc.Sessions))
	}
	tot := doc.Sessions[0].Totals
	return tot.Cost, tot.After, tot.Hazards.UsedHidden + tot.Hazards.SuppressedUnseen + tot.Hazards.Stale
}

// TestStatuslineSaves: the first line starts a replay of the session and
// says so; the next shows what it found, which is what report finds for
// the same policy: the cost, the saving and its share, the hazards.
func TestStatuslineSaves(t *testing.T) {
	policy := []string{"--max-bytes", "4KiB", "--dedupe"}
	for _, name := range []string{"claude-code_scout_*.jsonl", "claude-code_sniffly_*.jsonl"} {
		path := sharedtest.Transcripts(t, name)[0]
		t.Run(filepath.Base(path), func(t *testing.T) {
			predictNow(t)
			first := statusLine(t, path, policy...)
			if !strings.Contains(first, "saves … (replaying under harness-rs-0.0.50+custom)") {
				t.Errorf("first line %q does not say the replay is under way", first)
			}
			cost, after, hazards := reportTotals(t, path, policy...)
			saved := cost - after
			want := fmt.Sprintf("%s · saves %s (%.0f%%) under harness-rs-0.0.50+custom · %d hazard", human.Money(&cost), human.Money(&saved), 100*saved/cost, hazards)
			if got := statusLine(t, path, policy...); !strings.HasPrefix(got, want) {
				t.Errorf("got  %q\nwant %q…", got, want)
			}
		})
	}
}

// TestStatuslineSubagents: the session's cost counts its sub-agents' logs,
// as report's does.
func TestStatuslineSubagents(t *testing.T) {
	predictNow(t)
	dir := t.TempDir()
	line := func(id, ts string, sidechain bool, in, out int64) string {
		return fmt.Sprintf(`{"type":"assistant","uuid":"u-%s","sessionId":"s1","requestId":"r-%s","timestamp":"%s","isSidechain":%t,"version":"2.1.100",`+
			`"message":{"id":"%s","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"ok"}],`+
			`"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":%d}}}`+"\n", id, id, ts, sidechain, id, in, out)
	}
	main := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(main, []byte(line("m1", "2026-03-01T09:00:00Z", false, 1000, 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "s1", "subagents", "agent-a1.jsonl")
	if err := os.MkdirAll(filepath.Dir(sub), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sub, []byte(line("a1", "2026-03-01T09:00:05Z", true, 2000, 300)), 0o600); err != nil {
		t.Fatal(err)
	}
	// $3/M input, $15/M output: the main call 1,000 and 100, $0.0045; the
	// sub-agent's 2,000 and 300, $0.0105. Together $0.0150.
	cost, _, _ := reportTotals(t, main)
	if got, want := strings.Split(statusLine(t, main, "--preset", "none"), " · ")[0], "$0.0150"; got != want || human.Money(&cost) != want {
		t.Errorf("status line %s, report %s, by hand %s", got, human.Money(&cost), want)
	}
}

// TestStatuslineBadPolicy: a policy that cannot be read is said on the
// line itself (Claude Code shows nothing of stderr), and the command
// exits 0.
func TestStatuslineBadPolicy(t *testing.T) {
	t.Setenv("SPILLWAY_CACHE_DIR", t.TempDir())
	bad := filepath.Join(t.TempDir(), "p\x1b]0;x\x07.json")
	if err := os.WriteFile(bad, []byte("{"), 0o600); err != nil {
		t.Skip("this file system refuses names with control characters")
	}
	var out, errb bytes.Buffer
	code := run([]string{"statusline", "--policy", bad}, strings.NewReader(`{"transcript_path":"x"}`), &out, &errb)
	if code != 0 || !strings.HasPrefix(out.String(), "spillway statusline: ") || strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Errorf("exit %d, printed %q", code, out.String())
	}
}

// TestStatuslineBadCommandLine: a flag cobra rejects, or no folder for
// the line's state, is said on the line too, and the command exits 0;
// install still refuses a bad flag as every command does.
func TestStatuslineBadCommandLine(t *testing.T) {
	t.Setenv("SPILLWAY_CACHE_DIR", t.TempDir())
	for _, args := range [][]string{{"statusline", "--bogus\x1b[2J"}, {"statusline", "--width", "abc"}} {
		code, out, errs := runCLI(t, `{"transcript_path":"x"}`, args...)
		if code != 0 || !strings.HasPrefix(out, "spillway statusline: ") || strings.Count(out, "\n") != 1 || strings.Contains(out, "\x1b") || errs != "" {
			t.Errorf("%q: exit %d, printed %q, %q", args, code, out, errs)
		}
	}
	t.Setenv("SPILLWAY_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if code, out, _ := runCLI(t, `{"transcript_path":"x"}`, "statusline"); code != 0 || !strings.Contains(out, "no folder to keep its state in") {
		t.Errorf("without a cache folder: exit %d, printed %q", code, out)
	}
	if code, _, errs := runCLI(t, "", "statusline", "install", "--bogus"); code != exitUsage || !strings.Contains(errs, "--bogus") {
		t.Errorf("install with a bad flag: exit %d, %q", code, errs)
	}
}

// TestStatuslineColors: coloured on a terminal and when Claude Code runs
// it (it draws the line's ANSI colours), in what TERM and COLORTERM
// allow; plain in a pipe, with NO_COLOR or --color never.
func TestStatuslineColors(t *testing.T) {
	saved := isTerminal
	t.Cleanup(func() { isTerminal = saved })
	for _, tt := range []struct {
		name     string
		terminal bool
		env      []string
		color    string
		want     bool
	}{
		{"a pipe", false, []string{"TERM=xterm-256color"}, "auto", false},
		{"Claude Code", false, []string{"TERM=xterm-256color", "CLAUDECODE=1"}, "auto", true},
		{"Claude Code, dumb terminal", false, []string{"TERM=dumb", "CLAUDECODE=1"}, "auto", false},
		{"Claude Code, NO_COLOR", false, []string{"TERM=xterm-256color", "CLAUDECODE=1", "NO_COLOR=1"}, "auto", false},
		{"a terminal", true, []string{"TERM=xterm-256color"}, "auto", true},
		{"never", true, []string{"TERM=xterm-256color"}, "never", false},
		{"always, in a pipe", false, []string{"TERM=xterm-256color"}, "always", true},
	} {
		isTerminal = func(io.Writer) bool { return tt.terminal }
		_, styles, err := statuslineColors(&bytes.Buffer{}, tt.env, "auto", tt.color)
		if err != nil || (styles != nil) != tt.want {
			t.Errorf("%s: coloured %v (%v), want %v", tt.name, styles != nil, err, tt.want)
		}
	}
	if _, _, err := statuslineColors(&bytes.Buffer{}, nil, "auto", "sometimes"); err == nil {
		t.Error("--color sometimes taken")
	}
}

// TestStatuslineWidth: --width, else COLUMNS less the four columns Claude
// Code keeps around its line when it runs it.
func TestStatuslineWidth(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	t.Setenv("CLAUDECODE", "")
	if got := statuslineWidth(0, &bytes.Buffer{}); got != 100 {
		t.Errorf("COLUMNS 100: %d", got)
	}
	t.Setenv("CLAUDECODE", "1")
	if got := statuslineWidth(0, &bytes.Buffer{}); got != 96 {
		t.Errorf("COLUMNS 100 under Claude Code: %d", got)
	}
	if got := statuslineWidth(70, &bytes.Buffer{}); got != 70 {
		t.Errorf("--width 70: %d", got)
	}
	t.Setenv("COLUMNS", "")
	if got := statuslineWidth(0, &bytes.Buffer{}); got != 0 {
		t.Errorf("no COLUMNS, no terminal: %d", got)
	}
}

// TestStatuslineRealized: in a session spillway's hook ran in, the line
// shows what the hook cut, from its ledger, as report prices it, and
// whether the replay under the line's policy agrees: it says so when it
// does, and where they part when they do not.
func TestStatuslineRealized(t *testing.T) {
	demo := filepath.Join("testdata", "demo.jsonl")
	const session = "5f0c9a7e-demo-4c1b-9e55-7d2a61b0c0de"
	when := time.Date(2026, 11, 28, 14, 2, 5, 0, time.UTC)
	ledgerOf := func(policy string, after0, after1 int64) {
		t.Helper()
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		for _, e := range []ledger.Entry{
			{Time: when, Session: session, ToolUseID: "toolu_demo00", Tool: "Read", Action: "spill",
				Bytes: 170_611, BytesAfter: after0, Tokens: 30_182, TokensAfter: 1_100, Encoding: "o200k_base", Policy: policy},
			{Time: when, Session: session, ToolUseID: "toolu_demo01", Tool: "Grep", Action: "spill",
				Bytes: 130_074, BytesAfter: after1, Tokens: 8_038, TokensAfter: 1_000, Encoding: "o200k_base", Policy: policy},
		} {
			if err := ledger.Append(filepath.Join(cache, "spillway", "ledger"), e); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The tokens cut, priced where they were carried as report prices
	// them (TestReportRealized): $0.2249623.
	const saved = "hook saved $0.2250 on 2 results"

	// The hook ran the line's policy, and the log holds what the ledger
	// says it sent (the demo's Read is 70,611 bytes, its Grep 30,074):
	// at a ceiling above every result, the replay finds nothing more.
	predictNow(t)
	ledgerOf("harness-rs-0.0.50+custom", 70_611, 30_074)
	agree := []string{"--preset", "harness-rs-0.0.50", "--max-bytes", "1MiB", "--no-dedupe"}
	statusLine(t, demo, agree...)
	if got, want := statusLine(t, demo, agree...), " · "+saved+" · as predicted under harness-rs-0.0.50+custom · 0 hazards · "; !strings.Contains(got, want) {
		t.Errorf("got  %q\nwant …%q…", got, want)
	}

	// The hook ran another policy, the ledger's sizes are not the log's,
	// and the line's policy cuts results the hook left: report's 3 more,
	// $0.0243 off its cost.
	predictNow(t)
	ledgerOf("harness-rs-0.0.50", 4_795, 4_740)
	other := []string{"--preset", "harness-rs-0.0.40"}
	statusLine(t, demo, other...)
	cost, after, _ := reportTotals(t, demo, other...)
	more := cost - after
	want := fmt.Sprintf(" · %s · ≠ predicted under harness-rs-0.0.40: the replay cuts %d more (%s), 2 differ from the log, the hook ran harness-rs-0.0.50 · ",
		saved, acted(t, demo, other...), human.Money(&more))
	if got := statusLine(t, demo, other...); !strings.Contains(got, want) || !strings.Contains(want, "3 more ($0.0243)") {
		t.Errorf("got  %q\nwant …%q…", got, want)
	}
}

// acted is how many results report says the policy under args changes.
func acted(t *testing.T, path string, args ...string) int {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append(append([]string{"report", "--format", "json"}, args...), path), nil, &out, &errb); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb.String())
	}
	var doc struct {
		Sessions []struct {
			Results []struct {
				Action string `json:"action"`
			} `json:"results"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Sessions) != 1 {
		t.Fatalf("report: %v", err)
	}
	n := 0
	for _, r := range doc.Sessions[0].Results {
		if r.Action != "keep" && r.Action != "exclude" {
			n++
		}
	}
	return n
}

// TestStatuslineInstall: install writes Claude Code's statusLine setting
// and uninstall takes it out, leaving every other byte of the file as it
// was (spillway's hook beside it included); a status line of the user's
// is left unless --force; a file that is not JSON is refused naming its
// line, and a link is not written through.
func TestStatuslineInstall(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	exe, _ := os.Executable()
	ourCommand := exe + " statusline --preset=harness-rs-0.0.50 --max-bytes=8KiB"
	policy := []string{"--preset", "harness-rs-0.0.50", "--max-bytes", "8KiB"}
	install := func(path string, more ...string) (int, string, string) {
		return runCLI(t, "", append(append([]string{"statusline", "install", "--settings", path}, more...), policy...)...)
	}
	read := func(path string) string {
		b, _ := os.ReadFile(path)
		return string(b)
	}
	dir := t.TempDir()

	// A file that is not there, and one that holds an empty object.
	for name, original := range map[string]string{"missing": "", "empty object": "{}"} {
		path := filepath.Join(dir, name+".json")
		if original != "" {
			os.WriteFile(path, []byte(original), 0o600)
		}
		if code, out, errs := install(path); code != 0 || !strings.Contains(out, "installed spillway's status line") {
			t.Fatalf("%s: %d %s %s", name, code, out, errs)
		}
		var got struct{ StatusLine statusLineSetting }
		if err := json.Unmarshal([]byte(read(path)), &got); err != nil || got.StatusLine != (statusLineSetting{"command", ourCommand, 5}) {
			t.Errorf("%s: %v %+v", name, err, got)
		}
		if code, out, _ := install(path); code != 0 || !strings.Contains(out, "installed already") {
			t.Errorf("%s: installing again: %d %s", name, code, out)
		}
	}

	// The user's settings with spillway's hook: the line goes in beside
	// it and comes out leaving the file as it was.
	const user = "{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"x \\u0026\\u0026 y\"}\n}\n"
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(user), 0o600)
	if code, _, errs := runCLI(t, "", append([]string{"hook", "install", "--settings", path}, policy...)...); code != 0 {
		t.Fatal(errs)
	}
	hooked := read(path)
	if code, _, errs := install(path); code != 0 {
		t.Fatal(errs)
	}
	if got := read(path); !strings.HasPrefix(got, strings.TrimSuffix(hooked, "\n}\n")+",\n  \"statusLine\": {\n") {
		t.Errorf("the line is not added after what was there:\n%s", got)
	}
	if code, out, _ := runCLI(t, "", "hook", "status", "--settings", path); code != 0 || !strings.Contains(out, "spillway's status line in "+path+"\n  command "+ourCommand+"\n") {
		t.Errorf("hook status: %d\n%s", code, out)
	}
	if code, out, errs := runCLI(t, "", "statusline", "uninstall", "--settings", path); code != 0 || !strings.Contains(out, "removed spillway's status line") {
		t.Fatal(code, out, errs)
	}
	if got := read(path); got != hooked {
		t.Errorf("after uninstalling:\n%s\nwant\n%s", got, hooked)
	}

	// A status line of the user's.
	const theirs = `{"statusLine": {"type": "command", "command": "~/.claude/line.sh"}, "model": "opus"}`
	os.WriteFile(path, []byte(theirs), 0o600)
	if code, _, errs := install(path); code != 1 || !strings.Contains(errs, "has a status line of its own (~/.claude/line.sh): spillway leaves it as it is; --force replaces it") || read(path) != theirs {
		t.Errorf("%d %s", code, errs)
	}
	if code, out, _ := runCLI(t, "", "statusline", "uninstall", "--settings", path); code != 0 || !strings.Contains(out, "is not spillway's (~/.claude/line.sh): left as it is") || read(path) != theirs {
		t.Errorf("uninstall: %d %s", code, out)
	}
	if code, _, errs := install(path, "--force"); code != 0 || read(path) != `{"statusLine": {"type":"command","command":"`+ourCommand+`","refreshInterval":5}, "model": "opus"}` ||
		read(path+".spillway.bak") != theirs {
		t.Errorf("--force: %d %s\n%s", code, errs, read(path))
	}

	// Not JSON, and a link.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"model\": \"opus\",\n}\n"), 0o600)
	if code, _, errs := install(bad); code != 1 || !strings.Contains(errs, "bad.json: line 3: not JSON") {
		t.Errorf("not JSON: %d %s", code, errs)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(filepath.Join(dir, "empty object.json"), link); err != nil {
		t.Skip(err)
	}
	before := read(link)
	if code, _, errs := install(link, "--preset", "none"); code != 1 || !strings.Contains(errs, "is a link: spillway does not write through one") || read(link) != before {
		t.Errorf("a link: %d %s", code, errs)
	}
}

// TestStatuslineInstallDisplay: install writes the line's --theme, --color
// and --width into its command, refuses values the line would refuse, and
// keeps what else the user set in spillway's setting.
func TestStatuslineInstallDisplay(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	exe, _ := os.Executable()
	path := filepath.Join(t.TempDir(), "settings.json")
	if code, _, errs := runCLI(t, "", "statusline", "install", "--settings", path, "--theme", "light", "--color", "always", "--width", "100"); code != 0 {
		t.Fatal(errs)
	}
	var got struct{ StatusLine map[string]any }
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil || got.StatusLine["command"] != exe+" statusline --theme=light --color=always --width=100" {
		t.Fatalf("%v: %s", err, b)
	}
	// Claude Code's padding, set by the user, stays through a reinstall.
	os.WriteFile(path, []byte(strings.Replace(string(b), `"refreshInterval": 5`, `"refreshInterval": 5, "padding": 2`, 1)), 0o600)
	if code, _, errs := runCLI(t, "", "statusline", "install", "--settings", path, "--theme", "dark"); code != 0 {
		t.Fatal(errs)
	}
	b, _ = os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil || got.StatusLine["padding"] != 2.0 || got.StatusLine["command"] != exe+" statusline --theme=dark" {
		t.Errorf("%v: %s", err, b)
	}
	for _, bad := range [][]string{{"--theme", "neon"}, {"--color", "purple"}, {"--width", "-1"}} {
		if code, _, errs := runCLI(t, "", append([]string{"statusline", "install", "--settings", path}, bad...)...); code != exitUsage || errs == "" {
			t.Errorf("%q: exit %d, %q", bad, code, errs)
		}
	}
}
