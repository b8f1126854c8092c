//go:build unix

package ui

import (
	"syscall"
	"testing"
	"time"
)

// TestHangupQuits: a terminal closed under the program (SIGHUP) ends it as
// q does, the terminal left as found, so that what it keeps is written
// after (main writes the list's figures to the index's cache).
func TestHangupQuits(t *testing.T) {
	done, out := runDemo(t)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run = %v, want it ended as on q", err)
		}
		leftAltScreen(t, out.String())
	case <-time.After(10 * time.Second):
		t.Fatal("a hangup left the program running")
	}
}
