package sessions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// TestCopiesReplayedAlone: a log that copies another's responses (a
// resumed session), appearing after the first replay and replayed alone,
// costs nothing after, as before: its calls count in the log it copies.
// To tell them apart the replay reads it with the log it shares responses
// with, and not with the sessions that share none.
func TestCopiesReplayedAlone(t *testing.T) {
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Preset("harness-rs-0.0.40")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, old, old)
		return path
	}
	first := write("first.jsonl", demo)
	var other bytes.Buffer
	if _, err := corpus.WriteSession(&other, 7, 20, 512); err != nil {
		t.Fatal(err)
	}
	unrelated := write("other.jsonl", other.Bytes())
	src := newList(t, []string{dir}, app.Options{Prices: pricing.Default(), Counter: counter})
	replayed := func(paths ...string) map[string]Savings {
		t.Helper()
		if _, _, err := src.Scan(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		got := map[string]Savings{}
		if err := src.Replay(context.Background(), pol, paths, func(s Savings) { got[s.Path] = s }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	// $0.398306 as recorded, $0.260020 under harness-rs-0.0.40 (README's
	// sweep).
	if s := replayed(first, unrelated)[first]; s.Err != nil || s.Point.CostAfter == nil || *s.Point.CostAfter < 0.26001 || *s.Point.CostAfter > 0.26003 {
		t.Fatalf("first: %+v", s)
	}
	second := write("second.jsonl", demo)
	got := replayed(second)
	if s := got[second]; s.Point.CostAfter == nil || *s.Point.CostAfter != 0 {
		t.Errorf("the copy replayed alone: %+v, want nothing after", s)
	}
	if s, ok := got[""]; ok {
		t.Errorf("a warning: %v", s.Err)
	}
	src.mu.Lock()
	var read []string
	for _, in := range src.sharing([]string{second}) {
		read = append(read, in.Path)
	}
	src.mu.Unlock()
	if want := []string{first, second}; !slices.Equal(read, want) {
		t.Errorf("read to tell its copies: %q, want %q", read, want)
	}
}

// TestCodexCopyCountsWhereTheIndexDoes: of two copies of a Codex log, the
// index counts the newer, which lists first; a replay reads the two in
// that order too, so the older is the copy after as before. It read them
// in the order of their paths, and the older, named first, counted:
// $0.0000→$0.6925 for a copy beside $0.8219→$0.6925.
func TestCodexCopyCountsWhereTheIndexDoes(t *testing.T) {
	log, err := os.ReadFile(sharedtest.Transcripts(t, "codex_raze_*.jsonl")[0])
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Preset("harness-rs-0.0.50")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	older, newer := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for path, age := range map[string]time.Duration{older: 5 * time.Hour, newer: 3 * time.Hour} {
		os.WriteFile(path, log, 0o644)
		at := time.Now().Add(-age)
		os.Chtimes(path, at, at)
	}
	src := newList(t, []string{dir}, app.Options{Prices: pricing.Default(), Counter: counter})
	if _, _, err := src.Scan(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got := map[string]Savings{}
	if err := src.Replay(context.Background(), pol, []string{older, newer}, func(s Savings) { got[s.Path] = s }); err != nil {
		t.Fatal(err)
	}
	if s := got[older]; s.Point.CostAfter == nil || *s.Point.CostAfter != 0 {
		t.Errorf("the older copy: %+v, want nothing after", s.Point)
	}
	if s := got[newer]; s.Point.CostAfter == nil || *s.Point.CostAfter == 0 {
		t.Errorf("the newer, counted: %+v", s.Point)
	}
}
