package ledger

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func entry(session, id string, bytes, after int64) Entry {
	return Entry{Time: time.Date(2026, 12, 3, 16, 0, 0, 0, time.UTC), Session: session, ToolUseID: id, Tool: "Read",
		Action: "spill", Bytes: bytes, BytesAfter: after, Tokens: bytes / 4, TokensAfter: after / 4, Encoding: "o200k_base", Policy: "p"}
}

func TestAppendRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ledger")
	want := []Entry{entry("s/1", "a", 1000, 100), entry("s/1", "b", 4000, 400)}
	for _, e := range want {
		if err := Append(dir, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := Append(dir, entry("other", "c", 10, 1)); err != nil {
		t.Fatal(err)
	}
	got, skipped, err := Read(dir, "s/1")
	if err != nil || skipped != 0 {
		t.Fatal(err, skipped)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	// The session id is one escaped name: nothing is written outside dir.
	if _, err := os.Stat(filepath.Join(dir, "s~2F1.jsonl")); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"s~2F1.jsonl", "other.jsonl"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", name, info.Mode(), err)
		}
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("folder %v", info.Mode())
	}
	sessions, err := Sessions(dir)
	if err != nil || len(sessions) != 2 {
		t.Fatal(sessions, err)
	}
	var s1 Session
	for _, s := range sessions {
		if s.ID == "s/1" {
			s1 = s
		}
	}
	if want := (Totals{Results: 2, Bytes: 5000, BytesAfter: 500, Tokens: 1250, TokensAfter: 125}); s1.Totals != want {
		t.Errorf("totals %+v, want %+v", s1.Totals, want)
	}
	if none, _, err := Read(dir, "never"); none != nil || err != nil {
		t.Error(none, err)
	}
}

// Twenty writers at once each get their line in whole.
func TestAppendConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			e := entry("s", fmt.Sprint(i), int64(i), 0)
			e.SpillPath = strings.Repeat("x", 3000) // longer than a pipe's atomic write
			if err := Append(dir, e); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, skipped, err := Read(dir, "s")
	if err != nil || skipped != 0 || len(ByID(got)) != 20 {
		t.Fatalf("%d entries, %d skipped, %v", len(got), skipped, err)
	}
}

func TestBounds(t *testing.T) {
	dir := t.TempDir()
	path := File(dir, "s")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", MaxSessionBytes-10)+"\n{broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Append(dir, entry("s", "a", 1, 1)); err != ErrFull {
		t.Errorf("a full file took more: %v", err)
	}
	if _, skipped, _ := Read(dir, "s"); skipped != 2 {
		t.Errorf("skipped %d lines, want the long one and the broken one", skipped)
	}
	// A link where the file should be is neither followed nor replaced.
	target := filepath.Join(t.TempDir(), "target")
	os.WriteFile(target, nil, 0o600)
	if err := os.Symlink(target, File(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := Append(dir, entry("linked", "a", 1, 1)); err == nil {
		t.Error("appended through a link")
	}
	if data, _ := os.ReadFile(target); len(data) != 0 {
		t.Error("the link's target was written")
	}
	os.Remove(File(dir, "linked"))
	// The folder keeps the MaxSessions files written last.
	old := time.Now().Add(-time.Hour)
	for i := range MaxSessions + 5 {
		p := File(dir, fmt.Sprint("old", i))
		os.WriteFile(p, []byte("{}\n"), 0o600)
		os.Chtimes(p, old, old)
	}
	if err := Append(dir, entry("new", "a", 1, 1)); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(left) != MaxSessions {
		t.Errorf("%d files left, want %d", len(left), MaxSessions)
	}
	if _, err := os.Stat(File(dir, "new")); err != nil {
		t.Error("the new file was pruned")
	}
}
