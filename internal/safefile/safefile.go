// Package safefile opens files named by untrusted input without being
// made to wait or read forever: a FIFO, a device or a folder where a
// regular file was expected is refused, and the file opened is checked
// again, through its descriptor, after opening.
package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is returned for anything but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading only if it is a regular file. It
// opens without blocking, so a FIFO cannot stall it, and checks the opened
// descriptor, so a file swapped in after a check is refused too. Errors
// other than the open's own do not repeat the path. When
// want is not nil, the file opened must also be that one (os.SameFile): a
// caller that checked the path with Lstat passes what it saw, and a link
// put there since is not followed.
func OpenRegular(path string, want fs.FileInfo) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
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
