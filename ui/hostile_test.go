package ui

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/pricing"
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
	in, feed := io.Pipe()
	defer feed.Close()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(Options{Source: Source{Name: "demo.jsonl", Data: demoData(t)}, Prices: pricing.Default(), Counter: counter},
			tea.WithInput(in), tea.WithOutput(&out), tea.WithWindowSize(100, 30), tea.WithoutSignalHandler())
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "demo.jsonl") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	background(func() { panic("boom\x1b]0;title\x07") })
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, tea.ErrProgramPanic) || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("run = %v, want the panic reported", err)
		}
		screen := out.String()
		if enter, leave := strings.LastIndex(screen, ansi.SetModeAltScreenSaveCursor), strings.LastIndex(screen, ansi.ResetModeAltScreenSaveCursor); enter < 0 || leave < enter {
			t.Errorf("the alternate screen was not left: entered at %d, left at %d", enter, leave)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a panic on a background goroutine left the program running")
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
