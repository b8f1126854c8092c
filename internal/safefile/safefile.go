// Package safefile opens and writes files named by untrusted input
// without being made to wait, to read forever, or to reach past where they
// belong: a FIFO, a device or a folder where a regular file was expected
// is refused, the file opened is checked through its descriptor, what is
// opened inside a folder stays inside it whatever links say, and nothing
// is written through a link.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNotRegular is returned for anything but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned by ReadFile for a file over its bound.
var ErrTooLarge = errors.New("too large")

// OpenRegular opens path for reading only if it is a regular file. It
// opens without blocking, so a FIFO cannot stall it, and checks the opened
// descriptor, so a file swapped in after a check is refused too. When
// want is not nil, the file opened must also be that one (os.SameFile): a
// caller that checked the path with Lstat passes what it saw, and a link
// put there since is not followed. Errors are *fs.PathErrors naming path.
func OpenRegular(path string, want fs.FileInfo) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	f, info, err := checked(f, want)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, info, nil
}

// checked is f when it is a regular file (and want, when given); else f
// is closed and the error says what it is.
func checked(f *os.File, want fs.FileInfo) (*os.File, fs.FileInfo, error) {
	info, err := f.Stat()
	switch {
	case err != nil:
	case !info.Mode().IsRegular():
		err = notRegular(info.Mode())
	case want != nil && !os.SameFile(want, info):
		err = errors.New("changed while it was being opened")
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// Open opens path for reading only if it is a regular file, as
// OpenRegular does, and not through a link at its last element: a cache
// or settings file whose name was made a link to /dev/zero, a FIFO or
// another user's file is refused, not followed. Errors name the path.
func Open(path string) (*os.File, fs.FileInfo, error) {
	var want fs.FileInfo
	if noFollow == 0 {
		info, err := os.Lstat(path)
		if err != nil {
			return nil, nil, err
		}
		want = info
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|noFollow, 0)
	if err != nil {
		// ELOOP on most systems, EMLINK on FreeBSD: say what is there.
		if info, lerr := os.Lstat(path); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			err = &fs.PathError{Op: "open", Path: path, Err: notRegular(fs.ModeSymlink)}
		}
		return nil, nil, err
	}
	f, info, err := checked(f, want)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, info, nil
}

// ReadFile reads the regular file at path whole, as Open opens it, when
// it holds at most limit bytes; a larger one is ErrTooLarge, unread.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, info, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, info.Size(), limit)}
	}
	// It may grow while it is read: never past the bound. Read into a
	// buffer of its size and a byte to see it end, not io.ReadAll's, which
	// grows by doubling from 512 bytes: in a new process, whose memory is
	// all fresh, a 17 MB session index took 173-192 ms so against 50-66.
	data := make([]byte, info.Size()+1)
	n, err := io.ReadFull(f, data)
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		data, err = data[:n], nil
	case nil: // grown since: the rest, as far as the bound
		var more []byte
		more, err = io.ReadAll(io.LimitReader(f, limit+1-int64(n)))
		data = append(data, more...)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: over %d bytes", ErrTooLarge, limit)}
	}
	return data, nil
}

// OpenIn opens name, a path inside the folder root, for reading only if
// it is a regular file, without blocking: its links and ".." are followed
// only while they stay inside root, as the system resolves them at the
// moment of opening (os.Root), so a link swapped in after a check leads
// nowhere else. Errors name the path inside root.
func OpenIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	f, info, err := checked(f, nil)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: filepath.Join(root.Name(), name), Err: err}
	}
	return f, info, nil
}

// WriteFile writes data to path whole or not at all: to a new file
// beside it (perm, less the umask), put in its place once complete.
// Nothing is written through a link, nor replaces anything but a regular
// file: a link at path (dangling or not), a folder or a FIFO is refused
// (ErrNotRegular). Unless replace is set, a regular file at path is left
// alone too and the error is fs.ErrExist, for the caller to ask.
func WriteFile(path string, data []byte, perm fs.FileMode, replace bool) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := createBeside(dir, base, perm)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// The file it was writing beside path is spillway's own: the
			// folder is what the user can act on.
			return fmt.Errorf("write %s: folder %s: %w", path, dir, pe.Err)
		}
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = place(tmp.Name(), path, replace)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// createBeside makes a new file, never there before, in dir.
func createBeside(dir, base string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		f, err := os.OpenFile(filepath.Join(dir, "."+base+"."+hex.EncodeToString(b[:])+".tmp"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("write %s: no free temporary name in %s", base, dir)
}

// place moves tmp to path. A new name is made by link, which fails on
// anything already there, followed or not; a replaced one by rename,
// which replaces the name itself and never what a link there points to.
func place(tmp, path string, replace bool) error {
	there := func() error {
		info, err := os.Lstat(path)
		switch {
		case err != nil:
			return nil
		case !info.Mode().IsRegular():
			return &fs.PathError{Op: "write", Path: path, Err: notRegular(info.Mode())}
		case !replace:
			return &fs.PathError{Op: "write", Path: path, Err: fs.ErrExist}
		}
		return nil
	}
	if !replace {
		err := os.Link(tmp, path)
		if err == nil {
			return os.Remove(tmp)
		}
		if errors.Is(err, fs.ErrExist) {
			if err := there(); err != nil {
				return err
			}
			return &fs.PathError{Op: "write", Path: path, Err: fs.ErrExist}
		}
		// A file system without hard links: rename, having looked.
	}
	if err := there(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// notRegular says what was found instead of a regular file.
type notRegular fs.FileMode

func (e notRegular) Error() string        { return "is " + kind(fs.FileMode(e)) + ", not a regular file" }
func (e notRegular) Is(target error) bool { return target == ErrNotRegular }

// Kind names what a non-regular file is, for messages.
func Kind(m fs.FileMode) string { return kind(m) }

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a file"
}
