//go:build unix

package index

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spillway-dev/spillway/internal/safefile"
)

// TestFingerprint pins the fingerprint to the check values of its two
// halves: CRC-32C and CRC-32 (IEEE) of "123456789".
func TestFingerprint(t *testing.T) {
	if got, want := fingerprint([]byte("123456789")), uint64(0xE3069283)<<32|0xCBF43926; got != want {
		t.Errorf("fingerprint = %#x, want %#x", got, want)
	}
}

// TestStat: stat keys a file as statOpen (through an *os.File) does, its
// head's fingerprint covering min(size, 4 KiB) bytes, and refuses what is
// not a regular file with statOpen's error.
func TestStat(t *testing.T) {
	dir := t.TempDir()
	long := bytes.Repeat([]byte("0123456789abcdef"), 600) // 9,600 bytes
	files := map[string][]byte{"empty": nil, "short": []byte("{}\n"), "long": long}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		headLen int
		head    []byte
		err     string
	}{
		{name: "empty", headLen: 0, head: nil},
		{name: "short", headLen: 3, head: []byte("{}\n")},
		{name: "long", headLen: 4096, head: long[:4096]},
		{name: "fifo", err: "is a FIFO, not a regular file"},
		{name: "missing", err: "no such file or directory"},
		{name: ".", err: "is a folder, not a regular file"},
	} {
		path := filepath.Join(dir, tt.name)
		got, err := stat(path)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: error %v, want one naming it: %s", tt.name, err, tt.err)
			}
			if strings.Contains(tt.err, "regular") && !errors.Is(err, safefile.ErrNotRegular) {
				t.Errorf("%s: %v is not safefile.ErrNotRegular", tt.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		info, _ := os.Stat(path)
		want := fileKey{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Inode: inode(info), HeadLen: tt.headLen, Head: fingerprint(tt.head)}
		if got != want {
			t.Errorf("%s: key %+v, want %+v", tt.name, got, want)
		}
		viaFile, err := statOpen(path, make([]byte, headBytes))
		if err != nil || viaFile != got {
			t.Errorf("%s: statOpen %+v, %v; stat %+v", tt.name, viaFile, err, got)
		}
	}
}
