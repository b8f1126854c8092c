//go:build unix

package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/ui"
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
		// The newest session, not a FIFO, printed as the report it would be.
		{[]string{}, []string{"standard output is not a terminal: printing the report under harness-rs-0.0.50"}, "sess-claude-1", 0},
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

// TestInterruptedOut: ctrl-C while report writes into a folder (--out)
// removes what it began and leaves the tables there before as they were
// (its temporary files stayed behind).
func TestInterruptedOut(t *testing.T) {
	if dir := os.Getenv("SPILLWAY_TEST_INTERRUPT"); dir != "" {
		// The report, reading standard input, which the test holds open.
		os.Exit(run([]string{"report", "--format", os.Getenv("SPILLWAY_TEST_FORMAT"), "--out", dir, "-"}, os.Stdin, os.Stdout, os.Stderr))
	}
	for _, format := range []string{"parquet", "jsonl"} {
		dir := t.TempDir()
		old := map[string]string{"sessions.parquet": "old", "calls.parquet": "old", "results.parquet": "old", "calls.jsonl": "old"}
		for name, text := range old {
			os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptedOut$")
		cmd.Env = append(os.Environ(), "SPILLWAY_TEST_INTERRUPT="+dir, "SPILLWAY_TEST_FORMAT="+format)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		begun := func() bool {
			entries, _ := os.ReadDir(dir)
			return len(entries) > len(old)
		}
		for deadline := time.Now().Add(20 * time.Second); !begun() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if !begun() {
			cmd.Process.Kill()
			t.Fatalf("%s: the report began no file", format)
		}
		cmd.Process.Signal(os.Interrupt)
		err = cmd.Wait()
		if err == nil {
			t.Errorf("%s: interrupted, the report exited 0", format)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if b, _ := os.ReadFile(filepath.Join(dir, e.Name())); old[e.Name()] != string(b) {
				t.Errorf("%s: %s left, holding %.20q", format, e.Name(), b)
			}
		}
		if len(entries) != len(old) || !strings.Contains(stderr.String(), "spillway: interrupted: nothing written to "+dir) {
			t.Errorf("%s: %d files, stderr %q", format, len(entries), stderr.String())
		}
	}
}

// TestOutKeptWhenNothingRead: a report of --out whose inputs all fail
// leaves the tables of an earlier run as they were (a mistyped path
// emptied them); --out where it writes nothing (the text table, --by) is
// refused, where it was ignored.
func TestOutKeptWhenNothingRead(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "junk.jsonl")
	os.WriteFile(junk, []byte(`{"a":1}`+"\n"), 0o600)
	for _, format := range []string{"parquet", "jsonl"} {
		dir := t.TempDir()
		old := map[string]string{"sessions.parquet": "old", "calls.parquet": "old", "results.parquet": "old", "calls.jsonl": "old"}
		for name, text := range old {
			os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		}
		for _, input := range []string{filepath.Join(dir, "missing.jsonl"), junk} {
			var stderr strings.Builder
			code := run([]string{"report", "--format", format, "--out", dir, input}, nil, io.Discard, &stderr)
			if code == 0 || !strings.Contains(stderr.String(), "no session was read: nothing written") {
				t.Errorf("%s of %s: exit %d, %q", format, filepath.Base(input), code, stderr.String())
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if b, _ := os.ReadFile(filepath.Join(dir, e.Name())); old[e.Name()] != string(b) {
					t.Errorf("%s of %s: %s holds %.20q", format, filepath.Base(input), e.Name(), b)
				}
			}
		}
	}
	for _, args := range [][]string{{"--format", "text"}, {"--by", "day", "--format", "json"}, {"--since", "2026-01-01", "--format", "jsonl"}} {
		dir := filepath.Join(t.TempDir(), "out")
		var stderr strings.Builder
		code := run(append(append([]string{"report"}, args...), "--out", dir, junk), nil, io.Discard, &stderr)
		if _, err := os.Stat(dir); code != exitUsage || err == nil || !strings.Contains(stderr.String(), "--out is for") {
			t.Errorf("%v --out: exit %d, %q", args, code, stderr.String())
		}
	}
}

// TestEndlessStdin: standard input that never ends and holds no line
// break is read no further than 16 longest lines, then refused as no
// transcript (it was read forever, saying nothing).
func TestEndlessStdin(t *testing.T) {
	done := make(chan struct{})
	var code int
	var stderr strings.Builder
	go func() {
		defer close(done)
		code = run([]string{"report", "--max-line-bytes", "1024", "-"}, endlessInput{}, io.Discard, &stderr)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("endless standard input is still being read")
	}
	if code != 2 || !strings.Contains(stderr.String(), "stdin is not an agent transcript (line 1 goes on past") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// endlessInput is 'x' forever.
type endlessInput struct{}

func (endlessInput) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestSocketLog: a socket named as a log is refused without the hint of
// standard input, which a shell cannot redirect from it.
func TestSocketLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	code, _, stderr := runCLI(t, "", "report", path)
	if code != 1 || !strings.Contains(stderr, "s.jsonl is a socket, not a regular file") || strings.Contains(stderr, "standard input") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// TestHostileFIFONames: a FIFO with a name made of terminal controls, in a
// folder or named, is said to be skipped or refused with its name escaped.
func TestHostileFIFONames(t *testing.T) {
	dir := t.TempDir()
	for _, h := range hostileNames {
		folder := filepath.Join(dir, "f"+h.name)
		if os.Mkdir(folder, 0o700) != nil {
			continue
		}
		claude, _ := os.ReadFile(fixture("claude.jsonl"))
		os.WriteFile(filepath.Join(folder, "s.jsonl"), claude, 0o600)
		fifo := filepath.Join(folder, h.name+".jsonl")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		for _, args := range [][]string{{"report", folder}, {"sweep", folder}, {"report", fifo}} {
			code, stdout, stderr := runCLI(t, "", args...)
			for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if at, ok := rawControl(out); ok {
					t.Errorf("%s: %s holds a raw control near %q", args[0], name, at)
				}
			}
			if code != 1 || !strings.Contains(stderr, h.shown+".jsonl is a FIFO, not a regular file") {
				t.Errorf("spillway %s …: exit %d, stderr %q", args[0], code, stderr)
			}
		}
		return
	}
	t.Skip("this file system refuses names with control characters")
}

// A folder of one session and a FIFO opens that session, not the list:
// the FIFO, listed with its error, is no second session.
func TestFolderOfOneAndAFIFO(t *testing.T) {
	demo, err := os.ReadFile(filepath.Join("testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	session := filepath.Join(dir, "c.jsonl")
	os.WriteFile(session, demo, 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	terminal, run := isTerminal, runUI
	t.Cleanup(func() { isTerminal, runUI = terminal, run })
	isTerminal = func(io.Writer) bool { return true }
	var got ui.Options
	runUI = func(o ui.Options) error { got = o; return nil }
	if code, _, stderr := runCLI(t, "", "--no-follow", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got.Sessions != nil || got.Source.Path != session {
		t.Errorf("list %v, source %q; want the session %s", got.Sessions != nil, got.Source.Path, session)
	}
}
