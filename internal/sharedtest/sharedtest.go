// Package sharedtest locates the project's shared reference data (real
// transcripts and ccusage's totals for them) for tests that read it in place.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the shared data folder beside the repository, skipping the
// test when it is absent (outside the project's CI).
func Dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "transcripts")); err != nil {
		t.Skipf("shared reference data not found at %s: skipping", dir)
	}
	return dir
}

// Transcripts lists the real transcripts whose names match pattern (a glob
// such as "claude-code_*.jsonl").
func Transcripts(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Dir(t), "transcripts", pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no shared transcripts match %s", pattern)
	}
	return files
}

// LogsWithCopies lists the real Claude Code and Codex transcripts, every
// third of them (from the first, moved on by offset) followed by a copy
// written into dir under another name: a session found twice, which a
// reader must count once.
func LogsWithCopies(t testing.TB, dir string, offset int) []string {
	t.Helper()
	var paths []string
	for i, p := range append(Transcripts(t, "claude-code_*.jsonl"), Transcripts(t, "codex_*.jsonl")...) {
		paths = append(paths, p)
		if (i+3-offset%3)%3 != 0 {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(dir, "copy-"+filepath.Base(p))
		if err := os.WriteFile(cp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, cp)
	}
	return paths
}
