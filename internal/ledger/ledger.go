// Package ledger keeps what spillway's hook did to each tool result it
// shaped: one JSON line per result, in a file per session under the user
// cache folder. A session's log records only what the model received; the
// ledger is how spillway knows what was cut.
//
// Appends are safe from many processes at once (one write of one line to a
// file opened for appending), files are 0600 in a 0700 folder, a session's
// file stops growing at MaxSessionBytes and the folder keeps the
// MaxSessions files written last.
package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/internal/safefile"
)

// Entry is one shaped result.
type Entry struct {
	Time      time.Time `json:"time"`
	Session   string    `json:"session"`
	ToolUseID string    `json:"tool_use_id"`
	Tool      string    `json:"tool"`
	// Action is the replay's outcome: truncate, spill or suppress.
	Action string `json:"action"`
	// Bytes and Tokens are what the model would have received without
	// the hook; the After figures what it received.
	Bytes       int64 `json:"bytes"`
	BytesAfter  int64 `json:"bytes_after"`
	Tokens      int64 `json:"tokens"`
	TokensAfter int64 `json:"tokens_after"`
	// Encoding counted the tokens.
	Encoding string `json:"encoding"`
	// SpillPath is the file that holds the whole output, for a spill.
	SpillPath string `json:"spill_path,omitempty"`
	Policy    string `json:"policy"`
}

// Bounds of the ledger.
const (
	MaxSessionBytes = 4 << 20
	MaxSessions     = 2000
)

// ErrFull is returned when a session's file has reached MaxSessionBytes.
var ErrFull = errors.New("the session's ledger is full")

// DefaultDir is the ledger's folder in the user cache folder.
func DefaultDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache folder for the ledger: %w", err)
	}
	return filepath.Join(dir, "spillway", "ledger"), nil
}

// File is the session's file in dir.
func File(dir, session string) string {
	return filepath.Join(dir, harness.EscapeName(session)+".jsonl")
}

// Append adds e to its session's file in dir.
func Append(dir string, e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if len(line) >= 64<<10 {
		return fmt.Errorf("ledger entry of %d bytes is too long", len(line))
	}
	line = append(line, '\n')
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if info, err := os.Lstat(dir); err != nil {
		return err
	} else if !info.IsDir() {
		return fmt.Errorf("%s is %s, not a folder", dir, safefile.Kind(info.Mode()))
	}
	path := File(dir, e.Session)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file", path, safefile.Kind(info.Mode()))
	}
	if info.Size()+int64(len(line)) > MaxSessionBytes {
		return ErrFull
	}
	if _, err := f.Write(line); err != nil {
		return err
	}
	if info.Size() == 0 {
		prune(dir, path)
	}
	return nil
}

// prune removes the files of dir written longest ago beyond MaxSessions,
// never keep.
func prune(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= MaxSessions {
		return
	}
	type aged struct {
		path string
		mod  time.Time
	}
	var files []aged
	for _, d := range entries {
		if !strings.HasSuffix(d.Name(), ".jsonl") || !d.Type().IsRegular() {
			continue
		}
		if info, err := d.Info(); err == nil {
			files = append(files, aged{filepath.Join(dir, d.Name()), info.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b aged) int { return b.mod.Compare(a.mod) })
	for _, f := range files[min(len(files), MaxSessions):] {
		if f.path != keep {
			os.Remove(f.path)
		}
	}
}

// Read returns the entries of session in dir, in the order they were
// written; none when it has no file. Lines that do not decode are skipped
// and counted.
func Read(dir, session string) (entries []Entry, skipped int, err error) {
	f, err := os.OpenFile(File(dir, session), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return nil, 0, err
	} else if !info.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is %s, not a regular file", f.Name(), safefile.Kind(info.Mode()))
	}
	return decode(io.LimitReader(f, MaxSessionBytes))
}

func decode(r io.Reader) (entries []Entry, skipped int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		long := false
		for errors.Is(err, bufio.ErrBufferFull) {
			long = true // skipped to its end
			_, err = br.ReadSlice('\n')
		}
		if line = bytes.TrimSpace(line); len(line) > 0 || long {
			var e Entry
			if long || json.Unmarshal(line, &e) != nil {
				skipped++
			} else {
				entries = append(entries, e)
			}
		}
		if err == io.EOF {
			return entries, skipped, nil
		}
		if err != nil {
			return entries, skipped, err
		}
	}
}

// ByID indexes entries by tool_use_id; the last written wins.
func ByID(entries []Entry) map[string]Entry {
	m := make(map[string]Entry, len(entries))
	for _, e := range entries {
		m[e.ToolUseID] = e
	}
	return m
}

// Totals sum entries.
type Totals struct {
	Results     int   `json:"results"`
	Bytes       int64 `json:"bytes"`
	BytesAfter  int64 `json:"bytes_after"`
	Tokens      int64 `json:"tokens"`
	TokensAfter int64 `json:"tokens_after"`
}

// Add counts e.
func (t *Totals) Add(e Entry) {
	t.Merge(Totals{1, e.Bytes, e.BytesAfter, e.Tokens, e.TokensAfter})
}

// Merge adds o.
func (t *Totals) Merge(o Totals) {
	t.Results += o.Results
	t.Bytes += o.Bytes
	t.BytesAfter += o.BytesAfter
	t.Tokens += o.Tokens
	t.TokensAfter += o.TokensAfter
}

// Session is the summary of one session's file.
type Session struct {
	ID      string
	Last    time.Time
	Totals  Totals
	Skipped int
}

// Sessions summarizes every session's file in dir, the one written last
// first.
func Sessions(dir string) ([]Session, error) {
	dirents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Session
	for _, d := range dirents {
		if !strings.HasSuffix(d.Name(), ".jsonl") || !d.Type().IsRegular() {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, d.Name()), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		entries, skipped, _ := decode(io.LimitReader(f, MaxSessionBytes))
		f.Close()
		if len(entries) == 0 {
			continue
		}
		s := Session{ID: entries[0].Session, Skipped: skipped}
		for _, e := range entries {
			s.Totals.Add(e)
			if e.Time.After(s.Last) {
				s.Last = e.Time
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Session) int { return b.Last.Compare(a.Last) })
	return out, nil
}
