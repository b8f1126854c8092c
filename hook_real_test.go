package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/realharness"
)

// The policy of the real runs: harness-rs 0.0.50's spill at 8 KiB of
// UTF-8, with repeats of read-only calls suppressed.
var realPolicy = []string{"--preset", "harness-rs-0.0.50", "--dedupe", "--max-bytes", "8KiB", "--unit", "utf8_bytes"}

// lines is n lines "%04d " and width-5 copies of fill, joined by "\n".
func lines(n, width int, fill string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%04d %s", i, strings.Repeat(fill, width-5))
	}
	return b.String()
}

// TestRealHook runs the real Claude Code through a script of tool calls
// whose outputs sit around the policy's ceiling, without spillway's hook
// and with it installed by spillway hook install, and checks that what the
// hook made the model receive is, byte for byte, what spillway report
// says it would receive replaying the log of the run without it; that the
// ledger holds what was cut; and that the hook fails open.
func TestRealHook(t *testing.T) {
	bin := realharness.ClaudeBin(t)
	work := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(work, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Numbered by Claude Code as "N\t" from line 1, each file grows by its
	// numbers: 9×2 + 90×3 + 900×4 + (n−999)×5 bytes for n lines.
	big := write("big.txt", lines(1500, 50, "x"))  // 76,499 bytes; 82,892 numbered
	mid := write("mid.txt", lines(100, 70, "y"))   // 7,099 bytes; 7,391 numbered: kept
	over := write("over.txt", lines(111, 70, "z")) // 7,880 bytes; 8,216 numbered: over 8,192
	for i := range 30 {
		write(fmt.Sprintf("tree/a/f%02d.go", i), strings.Repeat("func needle() {}\nother\n", 20))
	}
	mcp := realharness.MCPConfig(t, "srv", []realharness.MCPTool{
		{Name: "big", Text: lines(400, 49, "m") + "\n"}, // 20,000 bytes
		{Name: "small", Text: "two\n"},
	})
	read := func(id, path string) realharness.Call {
		return realharness.Call{ID: id, Name: "Read", Input: map[string]any{"file_path": path}}
	}
	bash := func(id, cmd string) realharness.Call {
		return realharness.Call{ID: id, Name: "Bash", Input: map[string]any{"command": cmd, "description": "run"}}
	}
	script := []realharness.Turn{
		{Calls: []realharness.Call{read("toolu_r1", mid),
			{ID: "toolu_g1", Name: "Grep", Input: map[string]any{"pattern": "needle", "path": filepath.Join(work, "tree"), "output_mode": "content"}},
			{ID: "toolu_l1", Name: "Glob", Input: map[string]any{"pattern": "**/*.go", "path": filepath.Join(work, "tree")}}}},
		{Calls: []realharness.Call{read("toolu_r2", big)}},
		{Calls: []realharness.Call{read("toolu_r3", over)}},
		{Calls: []realharness.Call{read("toolu_r4", mid)}},           // a repeat of r1's: suppressed
		{Calls: []realharness.Call{bash("toolu_b1", "seq 1 40000")}}, // 228,894 bytes: Claude Code persists it
		{Calls: []realharness.Call{bash("toolu_b2", "for i in 1 2 3; do echo line $i; echo warn $i >&2; done")}},
		{Calls: []realharness.Call{read("toolu_r5", mid)}}, // after a Bash, not a repeat
		{Calls: []realharness.Call{{ID: "toolu_m1", Name: "mcp__srv__big", Input: map[string]any{}},
			{ID: "toolu_m2", Name: "mcp__srv__small", Input: map[string]any{}}}},
		{Calls: []realharness.Call{bash("toolu_b3", "head -c 8000 /dev/zero | tr '\\0' q")}}, // 8,000 bytes: kept
	}
	// Files Claude Code notes as not UTF-8 text after their lines, over the
	// ceiling: left as they are, with Claude Code's note.
	notUTF8 := write("latin1.txt", strings.Repeat("abc\xff\xfe def \xc3\x28 ghi\n", 600))
	withNUL := write("nul.txt", strings.Repeat("abc\x00def ghi jkl\n", 600))
	script = append(script, realharness.Turn{Calls: []realharness.Call{read("toolu_u1", notUTF8)}},
		realharness.Turn{Calls: []realharness.Call{read("toolu_n1", withNUL)}})
	// Claude Code decides from the whole file: lines of plain text read
	// from one whose first line is not UTF-8 are noted too.
	cafe := write("cafe.txt", "caf\xe9\n"+lines(2000, 60, "c"))
	script = append(script, realharness.Turn{Calls: []realharness.Call{{ID: "toolu_u2", Name: "Read",
		Input: map[string]any{"file_path": cafe, "offset": 500, "limit": 400}}}})
	// A Glob Claude Code cuts at 100 files, saying so in a last line: left
	// as it is, over the ceiling and as a repeat.
	for i := range 130 {
		write(fmt.Sprintf("many/a-long-file-name-so-that-a-hundred-of-them-pass-the-ceiling-%03d.go", i), "package many\n")
	}
	glob := realharness.Call{Name: "Glob", Input: map[string]any{"pattern": "**/*.go", "path": filepath.Join(work, "many")}}
	glob.ID = "toolu_l2"
	script = append(script, realharness.Turn{Calls: []realharness.Call{glob}})
	glob.ID = "toolu_l3"
	script = append(script, realharness.Turn{Calls: []realharness.Call{glob}})
	// The same file read twice by one response: neither is a repeat of the
	// other. Claude Code writes its transcript every 100 ms, so the hook of
	// a fast Read often runs before the response's line is there.
	for i := range 3 {
		pair := write(fmt.Sprintf("pair%d.txt", i), lines(50, 60, "p"))
		script = append(script, realharness.Turn{Calls: []realharness.Call{
			read(fmt.Sprintf("toolu_p%da", i), pair), read(fmt.Sprintf("toolu_p%db", i), pair)}})
	}
	tools := []string{"Read", "Bash", "Grep", "Glob", "mcp__srv__big", "mcp__srv__small"}
	claude := func(settings []byte, cache string, s []realharness.Turn) *realharness.Run {
		return realharness.RunClaude(t, bin, s, realharness.ClaudeOptions{Work: work, Settings: settings,
			AllowedTools: tools, Args: []string{"--mcp-config", mcp}, Env: []string{"XDG_CACHE_HOME=" + cache}})
	}

	// The settings spillway's hook goes into: the user's own, kept.
	const userSettings = `{
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "env": {"SPILLWAY_TEST": "a && b"},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]
  }
}
`
	settingsFile := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(settingsFile, []byte(userSettings), 0o600)
	if code, out, errs := runCLI(t, "", append([]string{"hook", "install", "--settings", settingsFile}, realPolicy...)...); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errs)
	}
	installed, _ := os.ReadFile(settingsFile)

	raw := claude([]byte(userSettings), t.TempDir(), script)
	cache := t.TempDir()
	hooked := claude(installed, cache, script)

	// What report predicts from the log of the run without the hook.
	predicted := reportTexts(t, raw.Transcript)
	sent := hooked.Standin.Results()
	shaped := 0
	for _, turn := range script {
		for _, c := range turn.Calls {
			p, ok := predicted[c.ID]
			if !ok {
				t.Errorf("%s: not in the report of the run without the hook", c.ID)
				continue
			}
			if got := sent[c.ID].Text; got != p.TextAfter {
				t.Errorf("%s (%s, %s): the hook sent\n%.300q\nreport predicted\n%.300q", c.ID, c.Name, p.Action, got, p.TextAfter)
			}
			if p.Action != "keep" {
				shaped++
			}
		}
	}
	wantActions := map[string]string{"toolu_r1": "keep", "toolu_g1": "spill", "toolu_l1": "keep", "toolu_r2": "spill",
		"toolu_r3": "spill", "toolu_r4": "suppress", "toolu_b1": "spill", "toolu_b2": "keep", "toolu_r5": "keep",
		"toolu_m1": "spill", "toolu_m2": "keep", "toolu_b3": "keep",
		"toolu_u1": "keep", "toolu_n1": "keep", "toolu_u2": "keep", "toolu_l2": "keep", "toolu_l3": "keep",
		"toolu_p0a": "keep", "toolu_p0b": "keep", "toolu_p1a": "keep", "toolu_p1b": "keep", "toolu_p2a": "keep", "toolu_p2b": "keep"}
	for id, want := range wantActions {
		if got := predicted[id].Action; got != want {
			t.Errorf("%s: %s, want %s (%s)", id, got, want, predicted[id].Reason)
		}
	}

	// The ledger: what Claude Code alone would have sent, what was sent.
	entries, skipped, err := ledger.Read(filepath.Join(cache, "spillway", "ledger"), sessionOf(t, hooked.Transcript))
	if err != nil || skipped != 0 {
		t.Fatal(err, skipped)
	}
	byID := ledger.ByID(entries)
	if len(entries) != shaped || len(byID) != shaped {
		t.Errorf("%d ledger entries, want one per shaped result (%d)", len(entries), shaped)
	}
	wantBytes := map[string]int64{
		"toolu_r2": 82_892, "toolu_r3": 8_216, "toolu_r4": 7_391, "toolu_m1": 20_000,
		// Claude Code's message: 19 + 50 + the path + 2 + 21, a preview of
		// lines 1 to 527 (1,999 bytes), 5 + 19.
		"toolu_b1": 2_115 + int64(len(hookedPersisted(t, hooked, "toolu_b1"))),
		"toolu_g1": int64(len(raw.Standin.Results()["toolu_g1"].Text)),
	}
	for id, want := range wantBytes {
		e := byID[id]
		if e.Bytes != want || e.BytesAfter != int64(len(sent[id].Text)) || e.Action != wantActions[id] {
			t.Errorf("%s: ledger %s %d → %d bytes, want %s %d → %d", id, e.Action, e.Bytes, e.BytesAfter, wantActions[id], want, len(sent[id].Text))
		}
		// Claude Code's own 2 KB preview of the persisted output is less
		// than the policy's spill notice with its 4 KiB preview.
		if (e.Tokens <= e.TokensAfter) != (id == "toolu_b1") || e.Encoding != "o200k_base" || e.Policy != "harness-rs-0.0.50+custom" {
			t.Errorf("%s: ledger %+v", id, e)
		}
	}
	if e := byID["toolu_r2"]; e.SpillPath != filepath.Join(work, ".harness", "spill", "toolu_r2-Read.txt") {
		t.Errorf("spill file %q", e.SpillPath)
	} else if data, _ := os.ReadFile(e.SpillPath); string(data) != lines(1500, 50, "x") {
		t.Error("the spill file does not hold the file's content")
	}

	// report of the run with the hook shows what it realized.
	t.Setenv("XDG_CACHE_HOME", cache)
	code, out, errs := runCLI(t, "", append([]string{"report", "--spill-dir", t.TempDir(), hooked.Transcript}, realPolicy...)...)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("realized by spillway's hook (harness-rs-0.0.50+custom): %d results shaped", shaped)) {
		t.Errorf("report of the hooked run: %d %s\n%s", code, errs, out)
	}

	// Nothing else in the settings file changed: uninstalling gives it
	// back as it was, byte for byte.
	if code, _, errs := runCLI(t, "", "hook", "uninstall", "--settings", settingsFile); code != 0 {
		t.Fatal(errs)
	}
	if got, _ := os.ReadFile(settingsFile); string(got) != userSettings {
		t.Errorf("after uninstalling:\n%s", got)
	}

	// Fail open: a policy file that is not one (the Read's hook), and a
	// cache folder the hook cannot write its ledger in (the Grep's). Both
	// go through as they came.
	garbage := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(garbage, []byte("{not a policy"), 0o600)
	var entry struct {
		Hooks struct {
			PostToolUse []json.RawMessage
		} `json:"hooks"`
	}
	json.Unmarshal(installed, &entry)
	exe, _ := os.Executable()
	failing := fmt.Sprintf(`{"hooks":{"PostToolUse":[
		{"matcher":"Read","hooks":[{"type":"command","command":%q}]},
		%s]}}`, exe+" hook claude-code --policy "+garbage, strings.Replace(string(entry.Hooks.PostToolUse[0]), `"*"`, `"Grep"`, 1))
	blocked := t.TempDir()
	os.MkdirAll(filepath.Join(blocked, "spillway"), 0o700)
	os.WriteFile(filepath.Join(blocked, "spillway", "ledger"), nil, 0o600) // a file where its folder should be
	failed := claude([]byte(failing), blocked, []realharness.Turn{script[1], {Calls: script[0].Calls[1:2]}}).Standin.Results()
	log, _ := os.ReadFile(filepath.Join(blocked, "spillway", "hook.log"))
	for id, why := range map[string]string{
		"toolu_r2": "tool=Read: policy " + garbage + ": invalid character",
		"toolu_g1": "tool=Grep: ledger not written: mkdir " + filepath.Join(blocked, "spillway", "ledger") + ": not a directory",
	} {
		if got, want := failed[id].Text, raw.Standin.Results()[id].Text; got != want {
			t.Errorf("%s reached the model as %.100q, want it unchanged", id, got)
		}
		if !bytes.Contains(log, []byte("tool_use_id="+id+" "+why)) {
			t.Errorf("the log does not say %q:\n%s", why, log)
		}
	}
	if n := bytes.Count(log, []byte("; the output went through unchanged\n")); n != 2 {
		t.Errorf("%d lines say the output went through unchanged:\n%s", n, log)
	}
}

type predictedResult struct {
	Action, Reason, Text, TextAfter string
}

// reportTexts is report --texts --format json of a log under realPolicy,
// by call id.
func reportTexts(t *testing.T, path string) map[string]predictedResult {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"report", "--texts", "--format", "json", "--spill-dir", t.TempDir(), path}, realPolicy...)...)
	if code != 0 {
		t.Fatalf("report: %d %s", code, errs)
	}
	var doc struct {
		Sessions []struct {
			Results []struct {
				CallID    string `json:"call_id"`
				Action    string `json:"action"`
				Reason    string `json:"reason"`
				Text      string `json:"text"`
				TextAfter string `json:"text_after"`
			} `json:"results"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sessions) != 1 {
		t.Fatalf("%v: %d sessions", err, len(doc.Sessions))
	}
	m := map[string]predictedResult{}
	for _, r := range doc.Sessions[0].Results {
		m[r.CallID] = predictedResult{r.Action, r.Reason, r.Text, r.TextAfter}
	}
	return m
}

// sessionOf is the session id of a Claude Code log: its file's name.
func sessionOf(t *testing.T, transcript string) string {
	return strings.TrimSuffix(filepath.Base(transcript), ".jsonl")
}

// hookedPersisted is the file Claude Code persisted a Bash output to in a
// run with the hook, which its log no longer names: the one file of the
// session's tool-results folder.
func hookedPersisted(t *testing.T, run *realharness.Run, id string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(run.Transcript, ".jsonl"), "tool-results", "*"))
	if len(files) != 1 {
		t.Fatalf("tool-results of the hooked run: %v", files)
	}
	return files[0]
}
