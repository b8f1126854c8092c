//go:build unix

package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFindNotRegular: a *.jsonl that is a FIFO, a device or a link to
// either is found with Err saying what it is; a link to a log is found as
// the log, with the log's size.
func TestFindNotRegular(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "a.jsonl")
	os.WriteFile(log, []byte("{}\n"), 0o600)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.jsonl"), 0o600); err != nil {
		t.Skip(err)
	}
	os.Symlink(log, filepath.Join(root, "link.jsonl"))
	os.Symlink(filepath.Join(root, "fifo.jsonl"), filepath.Join(root, "to-fifo.jsonl"))
	os.Symlink("/dev/null", filepath.Join(root, "null.jsonl"))
	os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "dangling.jsonl"))
	files, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a.jsonl": "", "link.jsonl": "",
		"fifo.jsonl": "is a FIFO, not a regular file: skipped", "to-fifo.jsonl": "is a FIFO, not a regular file: skipped",
		"null.jsonl": "is a device, not a regular file: skipped", "dangling.jsonl": "no such file",
	}
	for _, f := range files {
		name := filepath.Base(f.Path)
		w, ok := want[name]
		delete(want, name)
		switch {
		case !ok:
			t.Errorf("found %s", name)
		case w == "" && (f.Err != nil || f.Size != 3):
			t.Errorf("%s: %v, %d bytes; want a log of 3", name, f.Err, f.Size)
		case w != "" && (f.Err == nil || !strings.Contains(f.Err.Error(), w)):
			t.Errorf("%s: %v, want %q", name, f.Err, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("not found: %v", want)
	}
}

// A folder below the root that cannot be read is listed with its Err, so
// that what it holds is said to be left out rather than silently missing.
func TestFindUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.jsonl"), []byte("{}\n"), 0o600)
	closed := filepath.Join(root, "closed")
	os.Mkdir(closed, 0o700)
	os.WriteFile(filepath.Join(closed, "b.jsonl"), []byte("{}\n"), 0o600)
	os.Chmod(closed, 0)
	t.Cleanup(func() { os.Chmod(closed, 0o700) })
	files, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Err != nil || files[1].Path != closed || files[1].Err == nil ||
		!strings.Contains(files[1].Err.Error(), "the sessions in it are left out") {
		t.Errorf("%+v", files)
	}
}

// TestFindLinkedRoot: a root that is a link to a folder is walked, its
// sessions named through the link, and its folders listed; a link to a
// folder below the root is not walked into (a link back up would loop).
func TestFindLinkedRoot(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.MkdirAll(filepath.Join(real, "project"), 0o700)
	os.WriteFile(filepath.Join(real, "project", "a.jsonl"), []byte("{}\n"), 0o600)
	os.Symlink(real, filepath.Join(real, "project", "loop"))
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	files, listing, err := FindListing(link)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(link, "project", "a.jsonl")
	if len(files) != 1 || files[0].Path != want || files[0].Err != nil || files[0].Size != 3 {
		t.Errorf("found %+v, want %s alone", files, want)
	}
	if entries := listing[filepath.Join(link, "project")]; len(entries) != 2 {
		t.Errorf("listing of the project through the link: %v", entries)
	}
}

// TestFindFolderTooDeep: a folder whose path is too long to open is
// listed with its Err, as an unreadable one is, and the sessions beside
// it are found; it ended the whole walk with an error.
func TestFindFolderTooDeep(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.jsonl"), []byte("{}\n"), 0o600)
	t.Chdir(root) // and back after the test, which runs alone
	name := strings.Repeat("d", 100)
	for range 50 { // 5,050 bytes of path: past PATH_MAX
		if err := os.Mkdir(name, 0o700); err != nil {
			t.Skip(err)
		}
		os.Chdir(name)
	}
	os.WriteFile("b.jsonl", []byte("{}\n"), 0o600)
	files, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Err != nil || files[1].Err == nil ||
		!strings.Contains(files[1].Err.Error(), "the sessions in it are left out") {
		t.Errorf("%+v", files)
	}
}
