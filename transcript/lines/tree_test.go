package lines

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestWatchTree: a write to a log, one in a folder made after the watch
// began, and one in a folder that did not exist when it began are each
// sent, and the writes are named; nothing is sent for a file that is
// not a log.
func TestWatchTree(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(t.TempDir(), "later")
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	wrote := map[string]bool{}
	ch, warning, err := WatchTree(ctx, []string{root, missing}, TreeOptions{Poll: 20 * time.Millisecond, Wrote: func(p string) {
		mu.Lock()
		wrote[filepath.Base(p)] = true
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if warning != "" {
		t.Errorf("warned %q: a folder not made yet is awaited, not one that cannot be watched", warning)
	}
	wait := func(what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("nothing sent after %s", what)
		}
	}
	quiet := func(what string) {
		t.Helper()
		select {
		case <-ch:
			t.Fatalf("sent after %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
	write := func(p string) {
		t.Helper()
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "a", "one.jsonl"))
	wait("a write")
	time.Sleep(50 * time.Millisecond) // its create and write both in
	for len(ch) > 0 {
		<-ch
	}
	write(filepath.Join(root, "a", "notes.txt"))
	quiet("a file that is no log")
	if err := os.MkdirAll(filepath.Join(root, "b", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	wait("a new folder")
	time.Sleep(50 * time.Millisecond) // its watch set up
	for len(ch) > 0 {
		<-ch
	}
	write(filepath.Join(root, "b", "c", "two.jsonl"))
	wait("a write in a new folder")
	if err := os.MkdirAll(missing, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(missing, "three.jsonl"))
	wait("a write in a folder that did not exist")
	mu.Lock()
	defer mu.Unlock()
	if !wrote["one.jsonl"] || !wrote["two.jsonl"] {
		t.Errorf("writes named: %v", wrote)
	}
}
