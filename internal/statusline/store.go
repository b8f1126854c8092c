package statusline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spillway-dev/spillway/internal/termtext"
)

// store is the folder where the status line keeps, per session, what it
// read of the logs (<key>.json), the last prediction (<key>.predict.json)
// and the lock of a prediction being made (<key>.lock), and, for all of
// them, the log of what went wrong (statusline.log). Each file is written
// beside its name and renamed over it, mode 0600, so that a status line
// drawn while another writes never reads half of one.
type store struct{ dir string }

// stateVersion changes when the files' shape does: a file of another
// version is read afresh.
const stateVersion = 2

// sessionState is what was read of one session's logs.
type sessionState struct {
	Version int                  `json:"version"`
	Path    string               `json:"path"`
	Logs    map[string]*logState `json:"logs"`
	// Subagents are the session's sub-agent logs, found when the
	// folders in Dirs had the times recorded (see resolve).
	Subagents []string         `json:"subagents,omitempty"`
	Dirs      map[string]int64 `json:"dirs,omitempty"`
}

// key names a session's files: a hash of its log's path, which is not
// itself a safe file name.
func key(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:8])
}

func (s store) statePath(k string) string   { return filepath.Join(s.dir, k+".json") }
func (s store) predictPath(k string) string { return filepath.Join(s.dir, k+".predict.json") }
func (s store) lockPath(k string) string    { return filepath.Join(s.dir, k+".lock") }
func (s store) logPath() string             { return filepath.Join(s.dir, "statusline.log") }

// loadJSON reads the file at path into v; a file that is missing, of
// another version or not what it should be leaves v as it was and says
// so (false).
func loadJSON(path string, v any, version func() int) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if json.Unmarshal(b, v) != nil || version() != stateVersion {
		return false
	}
	return true
}

// saveJSON writes v to path, through a file renamed over it.
func (s store) saveJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, ".statusline-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // none is left after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// maxLogBytes bounds the log: past it, it starts again.
const maxLogBytes = 1 << 20

// logf appends a line to the log, saying when; it never fails the status
// line.
func (s store) logf(now time.Time, format string, args ...any) {
	if s.dir == "" {
		return
	}
	if os.MkdirAll(s.dir, 0o700) != nil {
		return
	}
	// Never through a link or into a FIFO planted in a shared cache
	// folder, as the hook's log.
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	if info, err := os.Lstat(s.logPath()); err == nil && info.Mode().IsRegular() && info.Size() > maxLogBytes {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(s.logPath(), flags, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	// What is logged can hold names from the input: escaped, one line,
	// for whoever reads the log in a terminal.
	fmt.Fprintf(f, "%s %s\n", now.UTC().Format(time.RFC3339), termtext.Escape(fmt.Sprintf(format, args...)))
}

// keepFor is how long the files of a session nothing has drawn are kept.
const keepFor = 30 * 24 * time.Hour

// prune removes the files of sessions not drawn for keepFor: a status line
// leaves a few kilobytes for every session it drew.
func (s store) prune(now time.Time) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() == filepath.Base(s.logPath()) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > keepFor {
			os.Remove(filepath.Join(s.dir, e.Name()))
		}
	}
}
