//go:build unix

package index

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCacheUntrusted: the cache file is read as any untrusted file: a
// link at its name is not followed (one to /dev/zero ran out of memory),
// a FIFO is not waited on (it left the list stuck), and one past the
// bound is not read; each is named in a warning and the cache rebuilt,
// in its place.
func TestCacheUntrusted(t *testing.T) {
	defer func(n int64) { maxCacheBytes = n }(maxCacheBytes)
	root := t.TempDir()
	dir := filepath.Join(root, "logs")
	writeClaude(t, filepath.Join(dir, "s.jsonl"), "s", call{msg: "1", at: at(1), input: 1, result: "x"})
	want, _ := scanDir(t, Options{NoCache: true}, dir)
	good := filepath.Join(root, "good")
	scanDir(t, Options{CacheDir: good}, dir)
	info, err := os.Stat(filepath.Join(good, cacheName))
	if err != nil {
		t.Fatal(err)
	}
	maxCacheBytes = info.Size() - 1
	for name, tc := range map[string]struct {
		plant func(path string) error
		why   string
	}{
		"link to /dev/zero": {func(p string) error { return os.Symlink("/dev/zero", p) }, "is a symbolic link, not a regular file"},
		"link to a cache":   {func(p string) error { return os.Symlink(filepath.Join(good, cacheName), p) }, "is a symbolic link, not a regular file"},
		"fifo":              {func(p string) error { return syscall.Mkfifo(p, 0o600) }, "is a FIFO, not a regular file"},
		"too large": {func(p string) error {
			return os.WriteFile(p, make([]byte, maxCacheBytes+1), 0o600)
		}, "too large"},
	} {
		t.Run(name, func(t *testing.T) {
			cacheDir := filepath.Join(root, strings.ReplaceAll(name, " ", "-"))
			os.MkdirAll(cacheDir, 0o700)
			path := filepath.Join(cacheDir, cacheName)
			if err := tc.plant(path); err != nil {
				t.Skip(err)
			}
			done := make(chan struct{})
			var got []Entry
			var w []Warning
			go func() {
				defer close(done)
				got, w = scanDir(t, Options{CacheDir: cacheDir}, dir)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the scan is stuck on the cache file")
			}
			if len(w) != 1 || w[0].Path != path || !strings.Contains(w[0].String(), tc.why) {
				t.Errorf("warnings %v, want one naming the cache: %s", w, tc.why)
			}
			if diff := cmp.Diff(want, got, costsClose); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
				t.Errorf("the cache was not rebuilt in place: %v, %v", info, err)
			}
		})
	}
}
