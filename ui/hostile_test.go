package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/crash"
)

// TestPromptsDeleteWordForward: alt+d, alt+delete and ctrl+delete with the
// cursor on the last rune, in each of the five prompts, delete that rune;
// textinput alone panics there (bubbles issue 1056).
func TestPromptsDeleteWordForward(t *testing.T) {
	data := demoData(t)
	fleet := fleetFixture(t)
	for _, del := range []string{"alt+d", "alt+delete", "ctrl+delete"} {
		for _, tt := range []struct {
			name  string
			open  []string
			value func(*Model) string
		}{
			{"search", []string{"/"}, func(m *Model) string { return m.input.Value() }},
			{"ceiling", []string{"e"}, func(m *Model) string { return m.input.Value() }},
			{"write", []string{"w"}, func(m *Model) string { return m.input.Value() }},
			{"spill viewer search", []string{"enter", "/"}, func(m *Model) string {
				// The prompt is the viewer's last line.
				lines := strings.Split(ansi.Strip(screen(m)), "\n")
				return strings.Fields(strings.TrimPrefix(lines[len(lines)-1], "/"))[0]
			}},
			{"session filter", []string{"/"}, func(m *Model) string { return m.input.Value() }},
		} {
			var m *Model
			if tt.name == "session filter" {
				m = newListModel(t, []string{fleet}, "claude-code", 100, 30, longAgo)
			} else {
				m = newModel(t, data, "harness-rs-0.0.50", 100, 30, "dark")
			}
			press(t, m, tt.open...)
			press(t, m, "a", "b", "left", del)
			if got := tt.value(m); got != "a" {
				t.Errorf("%s, %s on the last rune of %q: %q, want %q", tt.name, del, "ab", got, "a")
			}
		}
	}
}

// TestPanicStopsProgram: a panic on one of the inspector's goroutines
// stops the program, with the terminal left as it was found (the
// alternate screen left last), and is reported as a panic, not lost.
func TestPanicStopsProgram(t *testing.T) {
	done, out := runDemo(t)
	crash.Go(func() { panic("boom\x1b]0;title\x07") })
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, tea.ErrProgramPanic) || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("run = %v, want the panic reported", err)
		}
		leftAltScreen(t, out.String())
	case <-time.After(10 * time.Second):
		t.Fatal("a panic on a background goroutine left the program running")
	}
}

// runDemo runs the inspector on the demo session, on a terminal of pipes,
// until it has drawn its first screen; done tells how run ended.
func runDemo(t *testing.T) (done chan error, out *syncBuffer) {
	in, feed := io.Pipe()
	t.Cleanup(func() { feed.Close() })
	out = &syncBuffer{}
	done = make(chan error, 1)
	go func() {
		done <- run(Options{Source: Source{Name: "demo.jsonl", Data: demoData(t)}, Prices: pricing.Default(), Counter: counter},
			tea.WithInput(in), tea.WithOutput(out), tea.WithWindowSize(100, 30), tea.WithoutSignalHandler())
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "demo.jsonl") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return done, out
}

// leftAltScreen fails unless screen, all a program wrote, left the
// alternate screen last.
func leftAltScreen(t *testing.T, screen string) {
	t.Helper()
	if enter, leave := strings.LastIndex(screen, ansi.SetModeAltScreenSaveCursor), strings.LastIndex(screen, ansi.ResetModeAltScreenSaveCursor); enter < 0 || leave < enter {
		t.Errorf("the alternate screen was not left: entered at %d, left at %d", enter, leave)
	}
}

// syncBuffer is a bytes.Buffer safe for the program's writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPagerBoundedAndConfined: O copies at most pagerBytes of a spill
// file for the pager, saying how much it left (a 6 GB file ran out of
// memory); an agent's spill folder that is a link out shows the
// transcript's text, with the reason, not the file the link leads to.
func TestPagerBoundedAndConfined(t *testing.T) {
	defer func(n int64) { pagerBytes = n }(pagerBytes)
	pagerBytes = 1 << 20
	var shown string
	execProcess = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
		data, _ := os.ReadFile(c.Args[len(c.Args)-1])
		shown = string(data)
		return func() tea.Msg { return fn(nil) }
	}
	defer func() { execProcess = tea.ExecProcess }()

	m, path := spilledSession(t)
	line := strings.Repeat("x", 1023) + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 3<<10)), 0o600); err != nil { // 3 MiB
		t.Fatal(err)
	}
	press(t, m, "enter", "esc", "O")
	// 3 MiB less the 1 MiB copied.
	if want := "\n… 2.0 MiB more not copied here: the spill viewer (enter) shows it\n"; !strings.HasSuffix(shown, want) || len(shown) > 1<<20+200 {
		t.Errorf("the pager was given %d bytes ending %q, want 1 MiB and %q", len(shown), shown[max(0, len(shown)-80):], want)
	}

	m, path = spilledSession(t)
	results := filepath.Dir(path)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	os.Mkdir(elsewhere, 0o700)
	os.WriteFile(filepath.Join(elsewhere, "out.txt"), []byte("not the agent's\n"), 0o600)
	if err := os.Remove(results); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, results); err != nil {
		t.Fatal(err)
	}
	press(t, m, "enter", "esc", "O")
	if strings.Contains(shown, "not the agent's") || !strings.Contains(shown, "not in a folder the agent spills to") || !strings.Contains(shown, "Preview (first 2KB)") {
		t.Errorf("the pager shows:\n%s", shown)
	}
}

// TestWriteNeverThroughLink: w refuses a link planted at the policy
// file's name, in every format, without asking: its target is neither
// overwritten (it was, after y) nor, for a dangling link, made (it was,
// without a prompt). A regular file there is asked about first.
func TestWriteNeverThroughLink(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
	dir := t.TempDir()
	target := filepath.Join(dir, "theirs")
	os.WriteFile(target, []byte("theirs"), 0o600)
	for format := range 2 { // spillway's own file, then a harness's
		link, dangling := filepath.Join(dir, fmt.Sprint("link", format)), filepath.Join(dir, fmt.Sprint("dangling", format))
		made := filepath.Join(dir, fmt.Sprint("made", format))
		os.Symlink(target, link)
		os.Symlink(made, dangling)
		m.writeFormat = format
		for _, path := range []string{link, dangling} {
			writeTo(t, m, path)
			asked, notice := m.confirm, m.ctx.notice
			if asked != "" {
				press(t, m, "y") // as a user asked would
			}
			if asked != "" || !strings.Contains(notice, path+": is a symbolic link, not a regular file") {
				t.Errorf("format %d, %s: asked %q, notice %q", format, filepath.Base(path), asked, notice)
			}
		}
		if b, _ := os.ReadFile(target); string(b) != "theirs" {
			t.Errorf("format %d: the link's target was written: %.40q", format, b)
		}
		if _, err := os.Lstat(made); err == nil {
			t.Errorf("format %d: the dangling link's target was made", format)
		}
		regular := filepath.Join(dir, fmt.Sprint("regular", format))
		os.WriteFile(regular, []byte("old"), 0o600)
		writeTo(t, m, regular)
		if m.confirm != regular {
			t.Errorf("format %d: a file there was not asked about: notice %q", format, m.ctx.notice)
		}
		press(t, m, "y")
		if b, _ := os.ReadFile(regular); string(b) == "old" {
			t.Errorf("format %d: y did not replace the file: %q", format, m.ctx.notice)
		}
	}
}

// TestCutWhileOpen: a session read with its texts left in its file, cut
// once open, says so when a spill file would be written from it (none is
// written; an empty one was, with no word) and when a result's text
// cannot be read again (the viewer showed it empty).
func TestCutWhileOpen(t *testing.T) {
	defer func(v int64) { textsOnDemandBytes = v }(textsOnDemandBytes)
	textsOnDemandBytes = 0
	path := filepath.Join(t.TempDir(), "demo.jsonl")
	data := demoData(t)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	pol, _ := policy.Preset("harness-rs-0.0.50")
	m := New(Options{Source: Source{Name: "demo.jsonl", Path: path}, Policy: pol, Prices: pricing.Default(),
		Counter: counter, Theme: "dark", SpillRoot: t.TempDir()})
	leaveAtEnd(t, m)
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	drive(t, m, m.Init())
	if m.sess.texts == nil {
		t.Fatal("texts held, not read again from the file")
	}
	if err := os.Truncate(path, 100); err != nil { // the first result's line gone
		t.Fatal(err)
	}
	press(t, m, "enter")
	want := fmt.Sprintf("spill file not written: the session file changed since it was read (cut from %d to 100 bytes)", len(data))
	if !strings.Contains(m.ctx.notice, want) {
		t.Errorf("notice %q, want %q", m.ctx.notice, want)
	}
	// A result whose text was not read before the cut: the viewer says
	// why it shows none.
	press(t, m, "esc", "j", "j", "enter")
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "its text is not shown: the session file changed since it was read (cut from") {
		t.Errorf("the viewer does not say why the result is empty:\n%s", out)
	}
}

// TestCopyEscapes: y puts a result's text on the clipboard with its
// escape sequences and controls escaped, its lines and tabs kept: pasted
// into a terminal it retitles nothing and runs nothing (they were copied
// raw).
func TestCopyEscapes(t *testing.T) {
	text := "line\tone\r\n\x1b]0;pwned\x07\x1b[31mred\u202e\n"
	data := bytes.Replace(oneRead(), []byte(`"`+strings.Repeat("alpha line\\n", 80)+`"`), []byte(strconvQuote(text)), 1)
	m := newModel(t, data, "harness-rs-0.0.40", 120, 40, "dark")
	_, cmd := m.Update(keyMsg("y"))
	want := "line\tone\n\\x1b]0;pwned\\x07\\x1b[31mred\\u202e\n"
	if !yields(cmd, tea.SetClipboard(want)()) {
		t.Errorf("y does not set the clipboard to %q", want)
	}
	// 9 + 16 + 11 + 6 + 1 bytes.
	if !strings.HasPrefix(m.ctx.notice, "copied result 0's text as recorded, 43B, its control characters escaped, to the clipboard") {
		t.Errorf("notice %q", m.ctx.notice)
	}
}

// strconvQuote is s as a JSON string.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
