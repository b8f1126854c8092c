package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/ui"
)

// TestInspectorOpensList: several paths, or a folder of more than one
// session, open the session list; one session, named or alone in its
// folder, opens its calls; without a terminal the report of them all is
// printed.
func TestInspectorOpensList(t *testing.T) {
	demo, err := os.ReadFile(filepath.Join("testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	one, two := filepath.Join(dir, "many", "a.jsonl"), filepath.Join(dir, "many", "b.jsonl")
	alone := filepath.Join(dir, "alone", "c.jsonl")
	for _, p := range []string{one, two, alone} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, demo, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		args []string
		list string // the list's name, "" for one session
		file string // the session opened
	}{
		{"two paths", []string{one, two}, "2 paths", ""},
		{"a folder of two", []string{filepath.Dir(one)}, filepath.Dir(one), ""},
		{"a folder of one", []string{"--no-follow", filepath.Dir(alone)}, "", alone},
		{"one file", []string{alone}, "", alone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			terminal, run := isTerminal, runUI
			t.Cleanup(func() { isTerminal, runUI = terminal, run })
			isTerminal = func(io.Writer) bool { return true }
			var got ui.Options
			runUI = func(o ui.Options) error { got = o; return nil }
			if code, _, stderr := runCLI(t, "", tt.args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if (got.Sessions != nil) != (tt.list != "") || got.SessionsName != tt.list || got.Source.Path != tt.file {
				t.Errorf("list %v %q, source %q; want list %q, source %q", got.Sessions != nil, got.SessionsName, got.Source.Path, tt.list, tt.file)
			}
		})
	}
	// Without a terminal: the report of both sessions.
	code, stdout, stderr := runCLI(t, "", one, two)
	if code != 0 || !strings.HasPrefix(stdout, "by session · 2 sessions, 16 API calls · ") {
		t.Errorf("exit %d, report:\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "", one, "-"); code != 2 || !strings.Contains(stderr, "standard input (-) opens alone") {
		t.Errorf("- with a path: exit %d, %s", code, stderr)
	}
}
