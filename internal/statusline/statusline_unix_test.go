//go:build unix

package statusline

import (
	"os"
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

// TestLogNotThroughLink: a link planted where the log goes (a shared
// cache folder) is not written through, nor a FIFO waited on.
func TestLogNotThroughLink(t *testing.T) {
	dir, other := t.TempDir(), filepath.Join(t.TempDir(), "victim")
	os.WriteFile(other, []byte("kept\n"), 0o600)
	st := store{dir: dir}
	if err := os.Symlink(other, st.logPath()); err != nil {
		t.Skip(err)
	}
	st.logf(t0, "something")
	if b, _ := os.ReadFile(other); string(b) != "kept\n" {
		t.Errorf("written through the link: %q", b)
	}
	os.Remove(st.logPath())
	if err := syscall.Mkfifo(st.logPath(), 0o600); err != nil {
		t.Skip(err)
	}
	st.logf(t0, "something") // returns: nothing reads the FIFO
}
