package hook

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/replay"
)

// A session's repeat state is a small file in the hook's folder, read and
// written back under an exclusive lock on a file beside it, so that the
// hooks Claude Code runs at once for the calls of one response take their
// turns. Files are 0600 in a 0700 folder; those of sessions untouched for
// stateMaxAge are removed when a new session starts one.
const (
	stateMaxAge   = 7 * 24 * time.Hour
	maxStateBytes = 4 << 20
)

type stateFile struct {
	path string
	lock *os.File
}

// openState locks session's state in dir.
func openState(dir, session string, now time.Time) (*stateFile, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if info, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	base := filepath.Join(dir, harness.EscapeName(session))
	_, statErr := os.Lstat(base + ".lock")
	lock, err := os.OpenFile(base+".lock", os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return nil, err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		prune(dir, now)
	}
	return &stateFile{path: base + ".repeats", lock: lock}, nil
}

func (s *stateFile) close() {
	syscall.Flock(int(s.lock.Fd()), syscall.LOCK_UN)
	s.lock.Close()
}

// read is the state saved, or an empty one when there is none.
func (s *stateFile) read() (*replay.Repeats, error) {
	f, err := os.OpenFile(s.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return &replay.Repeats{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStateBytes {
		return nil, fmt.Errorf("%s is over %d MiB", s.path, maxStateBytes>>20)
	}
	r := &replay.Repeats{}
	if err := r.UnmarshalText(data); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return r, nil
}

// write saves r: a new file renamed over the old, never half written.
func (s *stateFile) write(r *replay.Repeats) error {
	data, err := r.MarshalText()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".repeats-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), s.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// prune removes the state of sessions untouched for stateMaxAge.
func prune(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, d := range entries {
		name := d.Name()
		if !strings.HasSuffix(name, ".lock") && !strings.HasSuffix(name, ".repeats") {
			continue
		}
		if info, err := d.Info(); err == nil && now.Sub(info.ModTime()) > stateMaxAge {
			os.Remove(filepath.Join(dir, name))
		}
	}
}
