//go:build unix

package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRegular: a regular file opens; a FIFO (which a plain open would
// wait on forever), a device and a folder are refused at once; a file
// other than the one checked is refused.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	other := filepath.Join(dir, "g")
	fifo := filepath.Join(dir, "fifo")
	os.WriteFile(file, []byte("x"), 0o600)
	os.WriteFile(other, []byte("y"), 0o600)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	otherInfo, _ := os.Lstat(other)
	for _, tt := range []struct {
		path string
		want os.FileInfo
		ok   bool
	}{
		{file, nil, true},
		{fifo, nil, false},
		{"/dev/zero", nil, false},
		{dir, nil, false},
		{file, otherInfo, false},
	} {
		done := make(chan error, 1)
		go func() {
			f, _, err := OpenRegular(tt.path, tt.want)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if (err == nil) != tt.ok {
				t.Errorf("OpenRegular(%s) = %v, want ok %v", tt.path, err, tt.ok)
			}
			if !tt.ok && tt.want == nil && tt.path != dir && !errors.Is(err, ErrNotRegular) {
				t.Errorf("OpenRegular(%s) = %v, want ErrNotRegular", tt.path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenRegular(%s) blocked", tt.path)
		}
	}
}

// TestOpen: a regular file opens; a link at the name is refused whatever
// it leads to, and so are a FIFO and a device, at once.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("x"), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	links := map[string]string{"to-file": file, "to-zero": "/dev/zero", "to-fifo": fifo, "dangling": filepath.Join(dir, "none")}
	for name, target := range links {
		os.Symlink(target, filepath.Join(dir, name))
	}
	for _, tt := range []struct {
		name, err string
	}{
		{"f", ""},
		{"fifo", "is a FIFO, not a regular file"},
		{"to-file", "is a symbolic link, not a regular file"},
		{"to-zero", "is a symbolic link, not a regular file"},
		{"to-fifo", "is a symbolic link, not a regular file"},
		{"dangling", "is a symbolic link, not a regular file"},
		{"none", "no such file"},
	} {
		path := filepath.Join(dir, tt.name)
		done := make(chan error, 1)
		go func() {
			f, _, err := Open(path)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), path)) {
				t.Errorf("Open(%s) = %v, want an error naming it with %q", tt.name, err, tt.err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s) blocked", tt.name)
		}
	}
	if _, _, err := Open("/dev/zero"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open(/dev/zero) = %v, want ErrNotRegular", err)
	}
}

// TestReadFile: a file is read whole up to the bound and refused, unread,
// past it.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("0123456789"), 0o600)
	if got, err := ReadFile(path, 10); err != nil || string(got) != "0123456789" {
		t.Errorf("ReadFile(10 bytes, bound 10) = %q, %v", got, err)
	}
	if got, err := ReadFile(path, 9); !errors.Is(err, ErrTooLarge) || got != nil {
		t.Errorf("ReadFile(10 bytes, bound 9) = %q, %v; want ErrTooLarge", got, err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	if _, err := ReadFile(filepath.Join(dir, "zero"), 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(link to /dev/zero) = %v, want ErrNotRegular", err)
	}
}

// TestOpenIn: a file inside the folder opens, through a link that stays
// inside too; no link or ".." leads out, and a FIFO is refused at once.
func TestOpenIn(t *testing.T) {
	base := t.TempDir()
	in := filepath.Join(base, "in")
	os.MkdirAll(filepath.Join(in, "sub"), 0o700)
	os.WriteFile(filepath.Join(in, "sub", "f"), []byte("inside"), 0o600)
	os.WriteFile(filepath.Join(base, "secret"), []byte("outside"), 0o600)
	os.Symlink("sub/f", filepath.Join(in, "alias"))
	os.Symlink("../secret", filepath.Join(in, "out"))
	os.Symlink(base, filepath.Join(in, "up"))
	os.Symlink("/etc", filepath.Join(in, "etc"))
	if err := syscall.Mkfifo(filepath.Join(in, "fifo"), 0o600); err != nil {
		t.Skip(err)
	}
	root, err := os.OpenRoot(in)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tt := range []struct {
		name, want string
	}{
		{"sub/f", "inside"},
		{"alias", "inside"},
		{"sub/../sub/f", "inside"},
		{"out", "escapes"},
		{"up/secret", "escapes"},
		{"../secret", "escapes"},
		{"etc/passwd", "escapes"},
		{"fifo", "is a FIFO, not a regular file"},
		{"sub", "is a folder, not a regular file"},
	} {
		f, _, err := OpenIn(root, tt.name)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			b, _ := io.ReadAll(f)
			f.Close()
			got = string(b)
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("OpenIn(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestWriteFile: a new file is written; without replace a file at the
// name is left alone (fs.ErrExist); with replace it is replaced; a link,
// dangling or not, or a folder is never written through nor replaced, a
// dangling link's target never made; no temporary file is left.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("theirs"), 0o600)
	os.Symlink(target, filepath.Join(dir, "link"))
	os.Symlink(filepath.Join(dir, "made"), filepath.Join(dir, "dangling"))
	os.WriteFile(filepath.Join(dir, "old"), []byte("old"), 0o600)
	os.Mkdir(filepath.Join(dir, "folder"), 0o700)
	for _, tt := range []struct {
		name    string
		replace bool
		err     string
	}{
		{"new", false, ""},
		{"old", false, "file already exists"},
		{"link", false, "is a symbolic link, not a regular file"},
		{"dangling", false, "is a symbolic link, not a regular file"},
		{"folder", false, "is a folder, not a regular file"},
		{"old", true, ""},
		{"link", true, "is a symbolic link, not a regular file"},
		{"dangling", true, "is a symbolic link, not a regular file"},
		{"folder", true, "is a folder, not a regular file"},
		{"missing/x", false, "no such file"},
	} {
		path := filepath.Join(dir, tt.name)
		err := WriteFile(path, []byte("ours"), 0o644, tt.replace)
		if tt.err == "" {
			if b, rerr := os.ReadFile(path); err != nil || rerr != nil || string(b) != "ours" {
				t.Errorf("WriteFile(%s, replace %v) = %v; holds %q", tt.name, tt.replace, err, b)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("WriteFile(%s, replace %v) = %v, want %q", tt.name, tt.replace, err, tt.err)
		}
		if tt.err == "file already exists" && !errors.Is(err, fs.ErrExist) {
			t.Errorf("WriteFile(%s) = %v, not fs.ErrExist", tt.name, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Errorf("a link's target was written: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "made")); err == nil {
		t.Error("a dangling link's target was made")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestWriteFileMissingFolder: a folder that is not there is named, not
// the temporary file written beside the target.
func TestWriteFileMissingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	err := WriteFile(filepath.Join(dir, "p.json"), []byte("{}"), 0o644, false)
	if err == nil || !strings.Contains(err.Error(), "folder "+dir+"/: no such file or directory") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("%v", err)
	}
}
