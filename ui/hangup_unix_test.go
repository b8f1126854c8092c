//go:build unix

package ui

import (
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestHangupQuits: a terminal closed under the program (SIGHUP) ends it as
// q does, the terminal left as found, so that what it keeps is written
// after (main writes the list's figures to the index's cache).
func TestHangupQuits(t *testing.T) {
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
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run = %v, want it ended as on q", err)
		}
		screen := out.String()
		if enter, leave := strings.LastIndex(screen, ansi.SetModeAltScreenSaveCursor), strings.LastIndex(screen, ansi.ResetModeAltScreenSaveCursor); enter < 0 || leave < enter {
			t.Errorf("the alternate screen was not left: entered at %d, left at %d", enter, leave)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a hangup left the program running")
	}
}
