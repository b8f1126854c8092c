package transcript

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRoots(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"defaults", nil, []string{"/h/.claude/projects", "/h/.config/claude/projects", "/h/.codex/sessions"}},
		{"overrides", map[string]string{"CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x"}, []string{"/c/projects", "/x/sessions"}},
		{"several Claude dirs", map[string]string{"CLAUDE_CONFIG_DIR": "/a, /b"}, []string{"/a/projects", "/b/projects", "/h/.codex/sessions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Roots(env(tt.env), "/h")); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestFindNewestFirst(t *testing.T) {
	root := t.TempDir()
	files := map[string]time.Duration{
		"projects/a/old.jsonl":                    3 * time.Hour,
		"projects/b/new.jsonl":                    time.Minute,
		"sessions/2026/11/30/rollout-x.jsonl":     time.Hour,
		"projects/a/notes.txt":                    0,
		"projects/a/sess/subagents/agent-1.jsonl": 0,
	}
	now := time.Now()
	for name, age := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("{}\n"), 0o600)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}
	got, err := Find(filepath.Join(root, "projects"), filepath.Join(root, "sessions"), filepath.Join(root, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got {
		rel, _ := filepath.Rel(root, f.Path)
		names = append(names, filepath.ToSlash(rel))
	}
	want := []string{"projects/a/sess/subagents/agent-1.jsonl", "projects/b/new.jsonl", "sessions/2026/11/30/rollout-x.jsonl", "projects/a/old.jsonl"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Error(diff)
	}
	for path, want := range map[string]bool{
		"p/s.jsonl": true, "p/agent-1.jsonl": false, "p/s/subagents/x.jsonl": false, "p/s.txt": false,
	} {
		if IsSession(path) != want {
			t.Errorf("IsSession(%s) = %v", path, !want)
		}
	}
}

// TestFindListing: every folder walked is listed as os.ReadDir lists it,
// once even when two roots reach it; a folder behind a link is not.
func TestFindListing(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"p/a.jsonl", "p/notes.txt", "p/s/subagents/agent-1.jsonl", "other/b.jsonl"} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("{}\n"), 0o600)
	}
	if err := os.Symlink(filepath.Join(root, "other"), filepath.Join(root, "p", "link")); err != nil {
		t.Skip(err)
	}
	_, listing, err := FindListing(filepath.Join(root, "p")+"/", filepath.Join(root, "p", "s"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string][]string{}
	for dir, entries := range listing {
		rel, _ := filepath.Rel(root, dir)
		for _, e := range entries {
			names[filepath.ToSlash(rel)] = append(names[filepath.ToSlash(rel)], e.Name())
		}
		want, _ := os.ReadDir(dir)
		if len(want) != len(entries) {
			t.Errorf("%s: %d entries, os.ReadDir gives %d", dir, len(entries), len(want))
		}
	}
	want := map[string][]string{
		"p":             {"a.jsonl", "link", "notes.txt", "s"},
		"p/s":           {"subagents"},
		"p/s/subagents": {"agent-1.jsonl"},
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Error(diff)
	}
}
