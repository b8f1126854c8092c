package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgress: a batch command keeps a progress line on stderr when it
// is a terminal, clears it at the end, and writes nothing of it
// elsewhere; what it prints to stdout is the same either way.
func TestProgress(t *testing.T) {
	by := filepath.Join("report", "testdata", "by")
	for _, args := range [][]string{{"report", by}, {"report", "--format", "json", by}, {"sweep", by}} {
		_, plain, plainErr := runCLI(t, "", args...)
		if strings.Contains(plainErr, "\r") || strings.Contains(plainErr, "sessions read") {
			t.Errorf("%q: a progress line where stderr is not a terminal: %q", args, plainErr)
		}
		terminal, delay := isTerminal, progressDelay
		var errw strings.Builder
		isTerminal = func(w io.Writer) bool { return w == io.Writer(&errw) }
		progressDelay = 0
		var out strings.Builder
		code := run(args, strings.NewReader(""), &out, &errw)
		isTerminal, progressDelay = terminal, delay
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errw.String())
		}
		if out.String() != plain {
			t.Errorf("%q: stdout differs with a progress line:\n%s\nwant\n%s", args, out.String(), plain)
		}
		got := errw.String()
		if !strings.Contains(got, "\r\x1b[Kspillway: 3 of 3 sessions read…") || !strings.HasSuffix(got, "\r\x1b[K") {
			t.Errorf("%q: stderr %q: want the line drawn, then cleared", args, got)
		}
	}
}
