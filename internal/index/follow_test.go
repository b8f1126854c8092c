package index

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// onDisk is the record the cache file in dir holds for path (nil: none).
func onDisk(t *testing.T, ix *Index, dir, path string) *cacheRecord {
	t.Helper()
	c, w := loadCache(dir, ix.header())
	if w != nil {
		t.Fatal(w)
	}
	return c.data.Files[path]
}

// pacedIndex is an Index with its cache in cacheDir, paced an hour apart
// while followed, that has scanned dir, the folder of one log a of one
// call.
func pacedIndex(t *testing.T) (ix *Index, cacheDir, dir, a string) {
	t.Helper()
	old := savePace
	savePace = time.Hour
	t.Cleanup(func() { savePace = old })
	root := t.TempDir()
	cacheDir, dir = filepath.Join(root, "cache"), filepath.Join(root, "logs")
	a = writeClaude(t, filepath.Join(dir, "a.jsonl"), "a", call{msg: "a1", at: at(1), input: 1, result: "x"})
	ix, err := Open(Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	scanWith(t, ix, dir)
	return ix, cacheDir, dir, a
}

// TestFollowedCacheWrite: while an Index is followed, a rescan does not
// write the cache file; the paced write, Flush and the last follower's
// stop each leave the final state on disk, from which a new Index reopens
// the grown session without reading it.
func TestFollowedCacheWrite(t *testing.T) {
	ix, cacheDir, dir, a := pacedIndex(t)
	if r := onDisk(t, ix, cacheDir, a); r == nil || r.Own.Calls != 1 {
		t.Fatalf("not followed, the scan's state is written at once: %+v", r)
	}

	stop := ix.Follow()
	stopToo := ix.Follow()
	grow := func(n int) int64 {
		writeClaude(t, a, "a", call{msg: "a" + string(rune('1'+n)), at: at(1 + n), input: 1, result: "x"})
		info, err := os.Stat(a)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	size := grow(1)
	if got, _ := scanWith(t, ix, dir); got[0].APICalls != 2 {
		t.Fatalf("%d calls after one appended to 1", got[0].APICalls)
	}
	if r := onDisk(t, ix, cacheDir, a); r.Key.Size == size {
		t.Errorf("followed, a rescan wrote the cache at once")
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	if r := onDisk(t, ix, cacheDir, a); r.Key.Size != size || r.Own.Calls != 2 {
		t.Errorf("after Flush the file holds %d bytes, %d calls; want %d and 2", r.Key.Size, r.Own.Calls, size)
	}

	size = grow(2)
	scanWith(t, ix, dir)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if r := onDisk(t, ix, cacheDir, a); r.Key.Size == size {
		t.Errorf("a follower stopped while another follows: the cache was written")
	}
	if err := stopToo(); err != nil {
		t.Fatal(err)
	}
	if r := onDisk(t, ix, cacheDir, a); r.Key.Size != size || r.Own.Calls != 3 {
		t.Errorf("after the last stop the file holds %d bytes, %d calls; want %d and 3", r.Key.Size, r.Own.Calls, size)
	}
	reads := countReads(t)
	reopened, _ := scanDir(t, Options{CacheDir: cacheDir}, dir)
	want, _ := scanDir(t, Options{NoCache: true}, dir)
	if n := reads(); n != 1 {
		t.Errorf("reopening read %d files, want none (and one for the fresh scan)", n-1)
	}
	if diff := cmp.Diff(want, reopened, costsClose); diff != "" {
		t.Errorf("reopened from the flushed cache (-fresh +reopened):\n%s", diff)
	}

	// The paced write itself, in the background.
	savePace = 20 * time.Millisecond
	defer ix.Follow()()
	size = grow(3)
	scanWith(t, ix, dir)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if r := onDisk(t, ix, cacheDir, a); r.Key.Size == size && r.Own.Calls == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the paced write did not come in 5 s")
		}
	}
}

// TestFlushWaitsForPacedWrite: Flush, called as a program exits, waits for
// a paced write that took the state before it and is still writing; it
// returned at once, and the program exited with the file half written.
func TestFlushWaitsForPacedWrite(t *testing.T) {
	ix, cacheDir, dir, a := pacedIndex(t)
	defer ix.Follow()()
	writeClaude(t, a, "a", call{msg: "a2", at: at(2), input: 1, result: "x"})
	scanWith(t, ix, dir)
	// The paced write, as its timer takes the state.
	ix.mu.Lock()
	write := ix.takeCache()
	ix.mu.Unlock()
	if write == nil {
		t.Fatal("nothing to write after a rescan")
	}
	done := make(chan error, 1)
	go func() { done <- ix.Flush() }()
	select {
	case err := <-done:
		t.Fatalf("Flush returned (%v) while the paced write had not written", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := write(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if r := onDisk(t, ix, cacheDir, a); r == nil || r.Own.Calls != 2 {
		t.Errorf("after Flush the file holds %+v; want 2 calls", r)
	}
}
