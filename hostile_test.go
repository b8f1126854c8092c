//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOLogs: a FIFO named *.jsonl in a folder, or a link to one or to a
// device, is skipped with a counted warning by report, sweep and
// discovery, which go on with the other logs (each hung forever on it);
// one named on the command line is refused, pointing to standard input.
func TestFIFOLogs(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "claude", "projects", "-work")
	if err := os.MkdirAll(filepath.Join(project, "s", "subagents"), 0o700); err != nil {
		t.Fatal(err)
	}
	claude, err := os.ReadFile(fixture("claude.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(project, "s.jsonl"), claude, 0o600)
	fifo := filepath.Join(project, "fifo.jsonl")
	for _, p := range []string{fifo, filepath.Join(project, "agent-1.jsonl"), filepath.Join(project, "s", "subagents", "agent-2.jsonl")} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
	}
	os.Symlink(fifo, filepath.Join(project, "link.jsonl"))
	os.Symlink("/dev/zero", filepath.Join(project, "zero.jsonl"))
	// The FIFOs newest, so that discovery meets them first.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(project, "s.jsonl"), old, old)
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex"))

	// Each skipped file is a warning and a failed input (exit status 1).
	skipped := []string{"/fifo.jsonl is a FIFO, not a regular file: skipped", "/agent-1.jsonl is a FIFO", "/link.jsonl is a FIFO",
		"/subagents/agent-2.jsonl is a FIFO", "/zero.jsonl is a device, not a regular file: skipped"}
	for _, tt := range []struct {
		args   []string
		warned []string
		stdout string
		code   int
	}{
		{[]string{"report", "--format", "json", project}, skipped, `"session_id":"sess-claude-1"`, 1},
		{[]string{"report", "--format", "json"}, skipped, `"session_id":"sess-claude-1"`, 1},
		{[]string{"sweep", project}, skipped, "over 1 session", 1},
		{[]string{"report", "--format", "json", fifo}, []string{"fifo.jsonl is a FIFO, not a regular file: give it on standard input instead"}, "", 1},
		{[]string{}, nil, "sess-claude-1", 0}, // the newest session, not a FIFO
	} {
		done := make(chan struct{})
		var code int
		var stdout, stderr string
		go func() {
			defer close(done)
			code, stdout, stderr = runCLI(t, "", tt.args...)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("spillway %s hangs", strings.Join(tt.args, " "))
		}
		for _, w := range tt.warned {
			if !strings.Contains(stderr, w) {
				t.Errorf("spillway %s: stderr does not say %q:\n%s", strings.Join(tt.args, " "), w, stderr)
			}
		}
		if n := strings.Count(stderr, "\n"); !strings.Contains(stdout, tt.stdout) || code != tt.code || n != len(tt.warned) {
			t.Errorf("spillway %s: exit %d, want %d; %d lines on stderr, want %d; stdout %.300q…; stderr %q", strings.Join(tt.args, " "), code, tt.code, n, len(tt.warned), stdout, stderr)
		}
	}
}
