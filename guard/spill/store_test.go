//go:build unix

package spill

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/harness"
)

// TestStoreTargets: what already lies at a spill file's path is never read
// or followed. A FIFO or a link there is refused, promptly; a regular file
// is replaced by a fresh one; nothing outside the store is touched.
func TestStoreTargets(t *testing.T) {
	content := strings.Repeat("spilled\n", 100)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	tests := []struct {
		name    string
		plant   func(t *testing.T, path string)
		refused string // what the error says; "" when written
	}{
		{"nothing", func(*testing.T, string) {}, ""},
		{"a stale regular file", func(t *testing.T, p string) { os.WriteFile(p, []byte("old"), 0o600) }, ""},
		{"a FIFO", func(t *testing.T, p string) { syscall.Mkfifo(p, 0o600) }, "not a regular file"},
		{"a link to a FIFO", func(t *testing.T, p string) { os.Symlink(fifo, p) }, "not a regular file"},
		{"a link to a file outside with the same text", func(t *testing.T, p string) { os.Symlink(outside, p) }, "not a regular file"},
		{"a link to /dev/zero", func(t *testing.T, p string) { os.Symlink("/dev/zero", p) }, "not a regular file"},
		{"a folder", func(t *testing.T, p string) { os.Mkdir(p, 0o700) }, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			store := Dir{Root: root, Session: "s", Policy: "p"}
			dir := filepath.Join(root, "s", "p", "tool-results")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			tt.plant(t, filepath.Join(dir, "id.txt"))
			type written struct {
				path string
				err  error
			}
			done := make(chan written, 1)
			go func() {
				p, err := store.Write(harness.SpillFile{File: "tool-results/id.txt", Content: content})
				done <- written{p, err}
			}()
			var w written
			select {
			case w = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Write blocked on what was at the path")
			}
			if tt.refused != "" {
				if w.err == nil || !strings.Contains(w.err.Error(), tt.refused) {
					t.Fatalf("Write = %q, %v; want an error saying %q", w.path, w.err, tt.refused)
				}
				return
			}
			if w.err != nil {
				t.Fatal(w.err)
			}
			info, err := os.Lstat(w.path)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
				t.Fatalf("%s: %v, %v; want a regular 0600 file", w.path, info, err)
			}
			if data, _ := os.ReadFile(w.path); string(data) != content {
				t.Errorf("the spill file holds %q", data)
			}
		})
	}
	if data, _ := os.ReadFile(outside); string(data) != content {
		t.Errorf("the file outside the store changed: %q", data)
	}
}

// TestStoreFolderLink: a link where a folder of the store should be is not
// followed out of it.
func TestStoreFolderLink(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "s", "p"), 0o700)
	if err := os.Symlink(elsewhere, filepath.Join(root, "s", "p", "tool-results")); err != nil {
		t.Fatal(err)
	}
	_, err := Dir{Root: root, Session: "s", Policy: "p"}.Write(harness.SpillFile{File: "tool-results/id.txt", Content: "x"})
	if err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("Write through a linked folder: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("wrote %d files through the link", len(ents))
	}
}

// TestStoreRace: a folder of the store swapped for a link out of it while
// files are written there never gets a file written outside. (The check
// of the folder and the writes by name had a window for it, too narrow
// for these tries to hit.)
func TestStoreRace(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	d := Dir{Root: root, Session: "s", Policy: "p"}
	if _, err := d.Write(harness.SpillFile{File: "x.txt", Content: "first"}); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(root, "s", "p")
	link := folder + ".link"
	os.Symlink(outside, link)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Rename(folder, folder+".real")
			os.Rename(link, folder) // a link out
			os.Rename(folder, link)
			os.Rename(folder+".real", folder)
		}
	}()
	tries := 500
	if testing.Short() {
		tries = 100
	}
	for i := range tries {
		d.Write(harness.SpillFile{File: fmt.Sprintf("f%d.txt", i), Content: "spilled"})
	}
	close(stop)
	<-done
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("%d files written outside the store, %s among them", len(entries), entries[0].Name())
	}
}

// WriteAt writes a spill file where its locator leads, from the agent's
// working folder for a relative one, and nowhere else.
func TestWriteAt(t *testing.T) {
	work := t.TempDir()
	f := harness.SpillFile{Locator: ".harness/spill/c1-Bash.txt", File: "spill/c1-Bash.txt", Content: "whole output"}
	path, created, err := WriteAt(work, f)
	if err != nil || !created || path != filepath.Join(work, ".harness", "spill", "c1-Bash.txt") {
		t.Fatal(path, created, err)
	}
	// There already, the same or not, it is not one this call made.
	if _, created, err := WriteAt(work, f); err != nil || created {
		t.Errorf("written again: created %v, %v", created, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "whole output" {
		t.Errorf("holds %q", data)
	}
	abs := filepath.Join(t.TempDir(), "s", "tool-results", "c1.txt")
	if path, _, err := WriteAt(work, harness.SpillFile{Locator: abs, File: "tool-results/c1.txt", Content: "x"}); err != nil || path != abs {
		t.Error(path, err)
	}
	for _, bad := range []harness.SpillFile{
		{Locator: "../x/c1.txt", File: "../c1.txt"},                 // not an escaped name
		{Locator: ".harness/spill/c~2F1.txt", File: "spill/c1.txt"}, // not where the locator leads
		{Locator: "/c1.txt", File: "c1.txt"},                        // no folder above the file
	} {
		if _, _, err := WriteAt(work, bad); err == nil {
			t.Errorf("wrote %+v", bad)
		}
	}
	// A link where the root should be is not followed.
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, filepath.Join(work, "linked"))
	if _, _, err := WriteAt(work, harness.SpillFile{Locator: "linked/spill/c1.txt", File: "spill/c1.txt"}); err == nil {
		t.Error("wrote through a link")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Error("the link's target was written")
	}
}
