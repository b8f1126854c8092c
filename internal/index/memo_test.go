package index

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMemos: a memo is kept with its file's record through the cache file,
// a few of a kind under other keys, the oldest let go past memosPerKind;
// it is not taken once its file changed, nor for a file never scanned.
func TestMemos(t *testing.T) {
	ix, opt, dir, path := scannedLog(t)
	for k := range uint64(memosPerKind + 1) {
		ix.SetMemo(path, "replay", k, []byte{byte(k)})
	}
	ix.SetMemo(path, "sweep", 9, []byte("sweep"))
	ix.SetMemo(filepath.Join(dir, "none.jsonl"), "replay", 1, []byte("x"))
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	ix, _, _ = openScanned(t, opt, dir) // a new index, from the cache file
	if _, ok := ix.Memo("replay", 0, path); ok {
		t.Error("the oldest memo of its kind past the bound is kept")
	}
	for k := uint64(1); k <= memosPerKind; k++ {
		if v, ok := ix.Memo("replay", k, path); !ok || len(v) != 1 || v[0] != byte(k) {
			t.Errorf("memo %d: %v %v", k, v, ok)
		}
	}
	if v, ok := ix.Memo("sweep", 9, path); !ok || string(v) != "sweep" {
		t.Errorf("the other kind's memo: %q %v", v, ok)
	}
	if _, ok := ix.Memo("replay", 1, filepath.Join(dir, "none.jsonl")); ok {
		t.Error("a memo of a file never scanned")
	}
	// Written since, and not scanned again: not the file the memo is of.
	writeClaude(t, path, "s", call{msg: "1", at: at(1), input: 1, result: "x"}, call{msg: "2", at: at(2), input: 1, result: "y"})
	if _, ok := ix.Memo("sweep", 9, path); ok {
		t.Error("a memo is taken after its file changed")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.Memo("sweep", 9, path); ok {
		t.Error("a memo is taken after its file went")
	}
}

// TestMemosOfManyKinds: however many kinds a file's memos are of (the
// list's replays and sweeps, a report in each format, a sweep), it keeps
// at most maxMemos, the oldest let go, and the cache file that holds them
// is read back whole.
func TestMemosOfManyKinds(t *testing.T) {
	ix, opt, dir, path := scannedLog(t)
	kinds := []string{"list replay", "list sweep", "report text", "report json", "sweep text"}
	for _, kind := range kinds {
		for k := range uint64(memosPerKind) {
			ix.SetMemo(path, kind, k, []byte(kind))
		}
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	ix, _, _ = openScanned(t, opt, dir)
	kept := 0
	for _, kind := range kinds {
		for k := range uint64(memosPerKind) {
			if v, ok := ix.Memo(kind, k, path); ok {
				if string(v) != kind {
					t.Errorf("%s %d: %q", kind, k, v)
				}
				kept++
			}
		}
	}
	if kept != maxMemos {
		t.Errorf("%d memos read back, want %d", kept, maxMemos)
	}
	last := kinds[len(kinds)-1]
	if _, ok := ix.Memo(last, memosPerKind-1, path); !ok {
		t.Error("the newest memo is let go")
	}
	if _, ok := ix.Memo(kinds[0], 0, path); ok {
		t.Error("the oldest memo is kept past maxMemos")
	}
}

// scannedLog is an index with a cache folder that has scanned one log,
// path, in dir.
func scannedLog(t *testing.T) (ix *Index, opt Options, dir, path string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "logs")
	path = filepath.Join(dir, "s.jsonl")
	writeClaude(t, path, "s", call{msg: "1", at: at(1), input: 1, result: "x"})
	opt = Options{CacheDir: filepath.Join(root, "cache")}
	ix, _, _ = openScanned(t, opt, dir)
	return ix, opt, dir, path
}

// TestMemoOfAScannedFile: a memo of a file the last Scan found as it was
// recorded is looked up with a stat alone, its head not read again; a
// file put in its place since, of the same size and time, is not taken
// for it.
func TestMemoOfAScannedFile(t *testing.T) {
	ix, _, _, path := scannedLog(t)
	ix.SetMemo(path, "replay", 1, []byte("v"))
	heads := 0
	oldStat := statFile
	statFile = func(path string, buf []byte) (fileKey, error) {
		heads++
		return oldStat(path, buf)
	}
	t.Cleanup(func() { statFile = oldStat })
	if v, ok := ix.Memo("replay", 1, path); !ok || string(v) != "v" || heads != 0 {
		t.Errorf("memo %q %v, %d heads read; want it, none read", v, ok, heads)
	}

	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-2] ^= 1 // within the last line's JSON: the same size
	other := path + ".new"
	if err := os.WriteFile(other, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(other, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.Memo("replay", 1, path); ok {
		t.Error("a memo is taken for the file put in its place")
	}
}
