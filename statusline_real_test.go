package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/internal/realharness"
	"github.com/spillway-dev/spillway/internal/statusline"
)

// statuslineInputEnv names a file the test binary, run as Claude Code's
// status line, appends each input it was given to, one a line.
const statuslineInputEnv = "SPILLWAY_TEST_STATUSLINE_INPUT"

// runStatuslineForTest is spillway statusline, run by Claude Code as the
// test binary, keeping what it was given.
func runStatuslineForTest(args []string) int {
	in, _ := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if path := os.Getenv(statuslineInputEnv); path != "" && !strings.Contains(strings.Join(args, " "), "--predict") {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			f.Write(append(bytes.ReplaceAll(in, []byte("\n"), nil), '\n'))
			f.Close()
		}
	}
	return run(args, bytes.NewReader(in), os.Stdout, os.Stderr)
}

// TestRealStatusline installs spillway's hook and status line with one
// policy, runs a short session in the real Claude Code's terminal (it
// runs a status line only there, never with -p), and checks that Claude
// Code ran the line with the input the status line reads, and that the
// line it drew says what the hook cut, as predicted.
func TestRealStatusline(t *testing.T) {
	bin := realharness.ClaudeBin(t)
	work := t.TempDir()
	big := filepath.Join(work, "big.txt")
	if err := os.WriteFile(big, []byte(lines(1500, 50, "x")), 0o644); err != nil { // 82,892 bytes numbered: spilled at 8 KiB
		t.Fatal(err)
	}
	settings := filepath.Join(t.TempDir(), "settings.json")
	for _, cmd := range []string{"hook", "statusline"} {
		if code, out, errs := runCLI(t, "", append([]string{cmd, "install", "--settings", settings}, realPolicy...)...); code != 0 {
			t.Fatalf("%s install: %d %s %s", cmd, code, out, errs)
		}
	}
	installed, _ := os.ReadFile(settings)
	cache, inputs := t.TempDir(), filepath.Join(t.TempDir(), "inputs.jsonl")
	script := []realharness.Turn{
		{Calls: []realharness.Call{{ID: "toolu_r1", Name: "Read", Input: map[string]any{"file_path": big}}}},
		{Calls: []realharness.Call{{ID: "toolu_b1", Name: "Bash", Input: map[string]any{"command": "seq 1 3", "description": "count"}}}},
	}
	term := realharness.StartClaudeTerminal(t, bin, script, realharness.ClaudeOptions{Work: work, Settings: installed,
		Env: []string{"XDG_CACHE_HOME=" + cache, statuslineInputEnv + "=" + inputs}}, 120)

	// Before the first prompt Claude Code draws the line for a session
	// whose log is not written yet.
	if screen, ok := term.WaitFor(time.Minute, func(s string) bool { return strings.Contains(s, "spillway: no transcript yet") }, nil); !ok {
		t.Fatalf("no status line before the first prompt:\n%s", screen)
	}
	term.Type("go")
	// The Read spilled, the Bash kept; "as predicted" is short of "…
	// under harness-rs-0.0.50+custom" in 116 columns.
	want, agree := "hook saved ", " on 1 result · as predicted · 0 hazards · "
	// The line is run again every 5 seconds (refreshInterval): the first
	// run after the session's last call starts the replay, a later one
	// shows it.
	screen, ok := term.WaitFor(time.Minute, func(s string) bool { return strings.Contains(s, want) && strings.Contains(s, agree) }, nil)
	if !ok {
		log, _ := os.ReadFile(filepath.Join(cache, "spillway", "statusline", "statusline.log"))
		t.Fatalf("the line does not show what the hook cut, as predicted:\n%s\nlog:\n%s", screen, log)
	}
	t.Logf("the terminal:\n%s", screen)
	if strings.Contains(screen, "≠ predicted") {
		t.Errorf("the line says the hook and the replay part")
	}

	// Claude Code ran the line with the input it reads.
	data, err := os.ReadFile(inputs)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Split(strings.TrimSpace(string(data)), "\n")
	var in statusline.Input
	if err := json.Unmarshal([]byte(all[len(all)-1]), &in); err != nil {
		t.Fatal(err)
	}
	if in.TranscriptPath != term.Transcript() || in.SessionID != sessionOf(t, term.Transcript()) || in.Version != realharness.ClaudeVersion ||
		in.Model.ID == "" || in.Cost.TotalCostUSD == nil || in.ContextWindow.Size <= 0 {
		t.Errorf("the last status input: %s", all[len(all)-1])
	}
	// Wait for a replay still running, which writes under the test's folders.
	term.WaitFor(30*time.Second, func(string) bool {
		locks, _ := filepath.Glob(filepath.Join(cache, "spillway", "statusline", "*.lock"))
		return len(locks) == 0
	}, nil)
}
