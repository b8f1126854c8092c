package hook

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spillway-dev/spillway/internal/termtext"
)

// The hook's log is hook.log in spillway's cache folder, a line per
// event; past maxLog it is moved to hook.log.1 (the one before dropped).
const maxLog = 1 << 20

// LogFile is the hook's log in cache.
func LogFile(cache string) string { return filepath.Join(cache, "hook.log") }

type logger struct {
	dir    string
	now    func() time.Time
	stderr io.Writer
}

// log writes a line about the call in: to the log, else to stderr.
func (l *logger) log(in *Input, format string, args ...any) {
	// What is logged can hold names from the input (a working folder, a
	// tool's error): escaped, one line, as the status line's log.
	msg := termtext.Escape(fmt.Sprintf(format, args...))
	line := fmt.Sprintf("%s session=%s tool_use_id=%s tool=%s: %s\n", l.now().UTC().Format(time.RFC3339),
		quoteField(in.SessionID), quoteField(in.ToolUseID), quoteField(in.ToolName), msg)
	if err := l.append(line); err != nil && l.stderr != nil {
		fmt.Fprintf(l.stderr, "spillway hook: %s(log not written: %v)\n", strings.TrimSuffix(line, "\n")+" ", err)
	}
}

func (l *logger) append(line string) error {
	if l.dir == "" {
		return fmt.Errorf("no cache folder")
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return err
	}
	path := LogFile(l.dir)
	if info, err := os.Lstat(path); err == nil && info.Mode().IsRegular() && info.Size()+int64(len(line)) > maxLog {
		os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(line)
	return err
}

// quoteField keeps a field on its line and in its place: quoted when it
// holds anything but plain characters.
func quoteField(s string) string {
	for _, r := range s {
		if r <= ' ' || r == '"' || r == '\\' || r >= 0x7f {
			return fmt.Sprintf("%q", s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}
