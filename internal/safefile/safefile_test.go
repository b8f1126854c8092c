//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
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
