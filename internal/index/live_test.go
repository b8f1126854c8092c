package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// watchContinued records the offsets files were continued from.
func watchContinued(t *testing.T) *[]int64 {
	var from []int64
	old := continued
	continued = func(_ string, at int64) { from = append(from, at) }
	t.Cleanup(func() { continued = old })
	return &from
}

func scanWith(t *testing.T, ix *Index, paths ...string) ([]Entry, []Warning) {
	t.Helper()
	inputs, err := app.Resolve(paths, app.Env{})
	if err != nil {
		t.Fatal(err)
	}
	entries, w, err := ix.Scan(context.Background(), inputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return entries, w
}

// TestLiveContinued: a Claude Code session that grew since the same Index
// last read it is read from where that read stopped, and gives what a
// fresh read of the whole file gives; so do the copy decisions its new
// lines change.
func TestLiveContinued(t *testing.T) {
	dir := t.TempDir()
	a := writeClaude(t, filepath.Join(dir, "a.jsonl"), "a", call{msg: "a1", at: at(1), input: 1, result: "x"})
	b := writeClaude(t, filepath.Join(dir, "b.jsonl"), "b", call{msg: "b1", at: at(2), input: 2, result: "y"})
	ix, err := Open(Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	scanWith(t, ix, dir)
	from := watchContinued(t)
	before, _ := os.Stat(b)
	writeClaude(t, b, "a", call{msg: "a1", at: at(1), input: 1, result: "x"}, call{msg: "b2", at: at(3), input: 4, result: "zz"})
	got, w := scanWith(t, ix, dir)
	if len(*from) != 1 || (*from)[0] != before.Size() {
		t.Errorf("continued from %v, want b alone from its old end, %d", *from, before.Size())
	}
	fresh, fw := scanDir(t, Options{NoCache: true}, dir)
	if diff := cmp.Diff(fresh, got, costsClose); diff != "" || len(w) != len(fw) {
		t.Errorf("continued scan differs from a fresh one (-fresh +continued):\n%s", diff)
	}
	for _, e := range got {
		if e.Path == b && (e.CopiedCalls != 1 || e.Recorded.Input != 6) {
			t.Errorf("b: %d copies, %d input tokens; want its copy of a1 counted in a: 1 and 6", e.CopiedCalls, e.Recorded.Input)
		}
	}

	// A line being written, not yet ended: the file is read whole, as
	// report reads it, and not continued from the middle of a line.
	*from = nil
	f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"assistant","sessionId":"a"`)
	f.Close()
	got, w = scanWith(t, ix, dir)
	fresh, fw = scanDir(t, Options{NoCache: true}, dir)
	if len(*from) != 0 {
		t.Errorf("continued from %v inside a line", *from)
	}
	if diff := cmp.Diff(fresh, got, costsClose); diff != "" || len(w) != len(fw) {
		t.Errorf("after a partial line (-fresh +continued):\n%s", diff)
	}
}

// TestLiveSameAsWhole reads real and fixture Claude Code and Codex logs
// in two parts, cut at several lines, and compares each with the whole
// file read at once: continuing a decoder reads every line alike, and a
// Codex log cut inside a request, its token count not yet written, is
// continued from its running totals.
func TestLiveSameAsWhole(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "claude", "*.jsonl"))
	codex, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "codex", "*", "*.jsonl"))
	files = append(files, codex...)
	if !testing.Short() {
		for _, glob := range []string{"claude-code_*.jsonl", "codex_*.jsonl"} {
			shared, _ := filepath.Glob(filepath.Join(sharedtest.Dir(t), "transcripts", glob))
			files = append(files, shared...)
		}
	}
	for _, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(data, []byte("\n")) {
			data = append(data, '\n')
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for _, frac := range []int{1, 3, 5, 7} {
			cut := len(lines) * frac / 8
			prefix := bytes.Join(lines[:cut], nil)
			if len(prefix) == 0 || len(prefix) == len(data) {
				continue
			}
			dir := t.TempDir()
			path := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".jsonl")+".jsonl")
			if err := os.WriteFile(path, prefix, 0o644); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(Options{NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			scanWith(t, ix, path)
			from := watchContinued(t)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, w := scanWith(t, ix, path)
			if len(*from) != 1 {
				t.Errorf("%s cut at line %d: not continued", filepath.Base(src), cut)
			}
			want, ww := scanDir(t, Options{NoCache: true}, path)
			if diff := cmp.Diff(want, got, costsClose); diff != "" || len(w) != len(ww) {
				t.Errorf("%s cut at line %d (-whole +continued):\n%s", filepath.Base(src), cut, diff)
			}
		}
	}
}
