package realharness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Terminal is Claude Code running interactively in a terminal of tmux's,
// against a stand-in: what a headless run never does (drawing its status
// line, for one) it does here.
type Terminal struct {
	Work, Home string
	Standin    *Standin
	sock       string
	t          testing.TB
}

// StartClaudeTerminal starts Claude Code in a detached tmux session of
// width columns, in opt.Work with opt.Settings, past its first-run
// questions (onboarding, trusting the folder, the stand-in's key), and
// stops it when the test ends. It skips the test where tmux is absent.
func StartClaudeTerminal(t testing.TB, bin string, script []Turn, opt ClaudeOptions, width int) *Terminal {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: Claude Code's terminal cannot be driven")
	}
	st := ServeAnthropic(t, script)
	term := &Terminal{Work: opt.Work, Home: t.TempDir(), Standin: st, sock: filepath.Join(t.TempDir(), "tmux"), t: t}
	if term.Work == "" {
		term.Work = t.TempDir()
	}
	if opt.Settings != nil {
		if err := os.WriteFile(filepath.Join(term.Home, "settings.json"), opt.Settings, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	state, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{"standin"}},
		"projects":              map[string]any{term.Work: map[string]any{"hasTrustDialogAccepted": true}}})
	if err := os.WriteFile(filepath.Join(term.Home, ".claude.json"), state, 0o600); err != nil {
		t.Fatal(err)
	}
	env := append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=xterm-256color", "HOME=" + t.TempDir(),
		"CLAUDE_CONFIG_DIR=" + term.Home, "ANTHROPIC_BASE_URL=" + st.URL, "ANTHROPIC_API_KEY=standin",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1"}, opt.Env...)
	args := []string{"-S", term.sock, "new-session", "-d", "-x", strconv.Itoa(width), "-y", "40", "-c", term.Work}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	tools := opt.AllowedTools
	if len(tools) == 0 {
		tools = []string{"Read", "Bash", "Grep", "Glob"}
	}
	args = append(append(args, bin, "--allowedTools", strings.Join(tools, ",")), opt.Args...)
	if out, err := exec.Command(tmux, args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	pid := 0
	if out, err := exec.Command(tmux, "-S", term.sock, "display-message", "-p", "#{pane_pid}").Output(); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		exec.Command(tmux, "-S", term.sock, "kill-server").Run()
		// Claude Code writes in its folders until it has exited: wait
		// for that before they are removed.
		for deadline := time.Now().Add(15 * time.Second); pid > 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if syscall.Kill(pid, 0) != nil {
				break
			}
		}
	})
	return term
}

// Screen is what the terminal shows.
func (term *Terminal) Screen() string {
	out, _ := exec.Command("tmux", "-S", term.sock, "capture-pane", "-p").Output()
	return string(out)
}

// Type types text and presses Enter.
func (term *Terminal) Type(text string) {
	term.t.Helper()
	if out, err := exec.Command("tmux", "-S", term.sock, "send-keys", "-l", text).CombinedOutput(); err != nil {
		term.t.Fatalf("tmux send-keys: %v: %s", err, out)
	}
	time.Sleep(200 * time.Millisecond)
	exec.Command("tmux", "-S", term.sock, "send-keys", "Enter").Run()
}

// WaitFor waits up to timeout for the screen to hold what ok accepts,
// calling between (when not nil) at each look; it returns the last screen
// and whether ok accepted it.
func (term *Terminal) WaitFor(timeout time.Duration, ok func(screen string) bool, between func()) (string, bool) {
	deadline := time.Now().Add(timeout)
	for {
		s := term.Screen()
		if ok(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		if between != nil {
			between()
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Transcript is the log the session wrote.
func (term *Terminal) Transcript() string {
	term.t.Helper()
	return newest(term.t, filepath.Join(term.Home, "projects"))
}
