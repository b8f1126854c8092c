//go:build unix

package lines

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestFollowNotRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	_, err := Follow(context.Background(), path, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Follow of a FIFO: got %v, want a not-a-regular-file error", err)
	}
}
