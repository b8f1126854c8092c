//go:build unix

package statusline

import (
	"path/filepath"
	"syscall"
	"testing"
)

// osFailCases are the failures only some systems can stage: a FIFO where
// the transcript should be is refused, not waited on.
func osFailCases(t *testing.T) []failCase {
	fifo := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return []failCase{{"a FIFO", statusInput(t, fifo, nil), "spillway: transcript unreadable", "FIFO"}}
}
