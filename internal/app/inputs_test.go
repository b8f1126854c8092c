package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tree writes files under a new folder, each holding one line that carries
// the session id given (or "" for none), the first named the newest; it
// returns the folder.
func tree(t *testing.T, files map[string]string, order ...string) string {
	t.Helper()
	root := t.TempDir()
	for name, id := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		line := `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n"
		if id != "" {
			line = `{"type":"user","sessionId":"` + id + `","message":{"role":"user","content":"hi"}}` + "\n"
		}
		if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Newest first: order[0] gets the latest time.
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, name := range order {
		mt := base.Add(-time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(name)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestResolve(t *testing.T) {
	// A Claude Code project folder: session s1 with a sub-agent under
	// s1/subagents and a flat one carrying its id, a copy of s1, session
	// s2, a flat sub-agent of a session that is not there, and a file
	// that is not a log.
	project := map[string]string{
		"p/s1.jsonl":                       "s1",
		"p/s1/subagents/agent-a.jsonl":     "s1",
		"p/agent-b.jsonl":                  "s1",
		"p/s1-copy.jsonl":                  "s1",
		"p/s2.jsonl":                       "s2",
		"p/agent-c.jsonl":                  "s9",
		"p/orphan/subagents/agent-d.jsonl": "orphan",
		"p/notes.txt":                      "",
	}
	order := []string{"p/s2.jsonl", "p/s1-copy.jsonl", "p/s1.jsonl", "p/agent-c.jsonl", "p/agent-b.jsonl",
		"p/s1/subagents/agent-a.jsonl", "p/orphan/subagents/agent-d.jsonl"}
	tests := []struct {
		name  string
		files map[string]string
		order []string
		env   map[string]string // discovery; the home folder is root/home
		paths []string          // relative to the folder; "-" as is
		want  []Input           // paths relative to the folder
		err   string            // of Resolve itself
		errs  map[int]string    // of inputs, by index
	}{
		{
			name: "file named alone takes the sub-agents beside it", files: project, order: order,
			paths: []string{"p/s1.jsonl"},
			want:  []Input{{Path: "p/s1.jsonl", Subagents: []string{"p/agent-b.jsonl", "p/s1/subagents/agent-a.jsonl"}}},
		},
		{
			name: "file without sub-agents", files: project, order: order,
			paths: []string{"p/s2.jsonl"},
			want:  []Input{{Path: "p/s2.jsonl"}},
		},
		{
			name: "folder: newest first with sub-agents under their session and orphans on their own", files: project, order: order,
			paths: []string{"p"},
			want: []Input{
				{Path: "p/s2.jsonl"}, {Path: "p/s1-copy.jsonl"},
				{Path: "p/s1.jsonl", Subagents: []string{"p/agent-b.jsonl", "p/s1/subagents/agent-a.jsonl"}},
				{Path: "p/agent-c.jsonl"}, {Path: "p/orphan/subagents/agent-d.jsonl"},
			},
		},
		{
			name: "several paths keep their order and a sub-agent named finds its session", files: project, order: order,
			paths: []string{"p/s2.jsonl", "p/s1/subagents/agent-a.jsonl", "p/s1.jsonl"},
			want: []Input{{Path: "p/s2.jsonl"},
				{Path: "p/s1.jsonl", Subagents: []string{"p/agent-b.jsonl", "p/s1/subagents/agent-a.jsonl"}}},
		},
		{
			name: "a sub-agent named alone is reported and not lost", files: project, order: order,
			paths: []string{"p/agent-b.jsonl"},
			want:  []Input{{Path: "p/agent-b.jsonl"}},
		},
		{
			name: "stdin in its place", files: project, order: order,
			paths: []string{"-", "p/s2.jsonl", "-"},
			want:  []Input{{Path: "-"}, {Path: "p/s2.jsonl"}, {Path: "-"}},
		},
		{
			name: "missing path and empty folder among good ones", files: map[string]string{"p/s.jsonl": "s", "empty/readme.txt": ""},
			paths: []string{"nope.jsonl", "p", "empty"},
			want:  []Input{{Path: "nope.jsonl"}, {Path: "p/s.jsonl"}, {Path: "empty"}},
			errs:  map[int]string{0: "no such file", 2: "empty: no sessions found (looked for *.jsonl files, recursively)"},
		},
		{
			name:  "discovery from the variables and not the home folder",
			files: map[string]string{"cc/projects/p/s1.jsonl": "s1", "cc/projects/p/s1/subagents/agent-a.jsonl": "s1", "cx/sessions/2026/03/01/rollout.jsonl": "", "home/.claude/projects/p/h.jsonl": "h"},
			order: []string{"cx/sessions/2026/03/01/rollout.jsonl", "cc/projects/p/s1.jsonl"},
			env:   map[string]string{"CLAUDE_CONFIG_DIR": "cc", "CODEX_HOME": "cx"},
			want: []Input{{Path: "cx/sessions/2026/03/01/rollout.jsonl"},
				{Path: "cc/projects/p/s1.jsonl", Subagents: []string{"cc/projects/p/s1/subagents/agent-a.jsonl"}}},
		},
		{
			name:  "discovery in the home folder",
			files: map[string]string{"home/.claude/projects/p/a.jsonl": "a", "home/.config/claude/projects/p/b.jsonl": "b", "home/.codex/sessions/c.jsonl": ""},
			order: []string{"home/.config/claude/projects/p/b.jsonl", "home/.codex/sessions/c.jsonl", "home/.claude/projects/p/a.jsonl"},
			env:   map[string]string{},
			want:  []Input{{Path: "home/.config/claude/projects/p/b.jsonl"}, {Path: "home/.codex/sessions/c.jsonl"}, {Path: "home/.claude/projects/p/a.jsonl"}},
		},
		{
			name:  "discovery finds nothing and says where it looked",
			files: map[string]string{"cc/projects/notes.txt": ""},
			env:   map[string]string{"CLAUDE_CONFIG_DIR": "cc", "CODEX_HOME": "cx"},
			err:   "no sessions found in ROOT/cc/projects (from $CLAUDE_CONFIG_DIR), ROOT/cx/sessions (from $CODEX_HOME); give a transcript path",
		},
		{
			name:  "discovery finds nothing at home",
			files: map[string]string{"home/.claude/projects/notes.txt": ""},
			env:   map[string]string{},
			err:   "no sessions found in ROOT/home/.claude/projects, ROOT/home/.config/claude/projects, ROOT/home/.codex/sessions; give a transcript path",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files, tt.order...)
			abs := func(p string) string {
				if p == "-" {
					return p
				}
				return filepath.Join(root, filepath.FromSlash(p))
			}
			var paths []string
			for _, p := range tt.paths {
				paths = append(paths, abs(p))
			}
			env := Env{Getenv: func(string) string { return "" }, Home: filepath.Join(root, "home")}
			if tt.env != nil {
				env.Getenv = func(k string) string {
					if v := tt.env[k]; v != "" {
						return abs(v)
					}
					return ""
				}
			}
			got, err := Resolve(paths, env)
			if tt.err != "" {
				var ns *NoSessionsError
				if !errors.As(err, &ns) || err.Error() != strings.ReplaceAll(tt.err, "ROOT", root) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want []Input
			for _, in := range tt.want {
				w := Input{Path: abs(in.Path)}
				for _, s := range in.Subagents {
					w.Subagents = append(w.Subagents, abs(s))
				}
				want = append(want, w)
			}
			for i := range got {
				if msg, ok := tt.errs[i]; ok {
					if got[i].Err == nil || !strings.Contains(got[i].Err.Error(), msg) {
						t.Errorf("input %d: error %v, want %q", i, got[i].Err, msg)
					}
				} else if got[i].Err != nil {
					t.Errorf("input %d: %v", i, got[i].Err)
				}
				got[i].Err = nil
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestNewest(t *testing.T) {
	root := tree(t, map[string]string{"projects/p/gone/subagents/agent-a.jsonl": "gone", "projects/p/s.jsonl": "s"},
		"projects/p/gone/subagents/agent-a.jsonl", "projects/p/s.jsonl")
	env := Env{Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return root
		}
		return ""
	}}
	got, err := Newest(env)
	if want := filepath.Join(root, "projects", "p", "s.jsonl"); err != nil || got.Path != want {
		t.Errorf("newest %q (%v), want the session %q over the newer orphaned sub-agent", got.Path, err, want)
	}
}

func TestResolveMissingIsNotExist(t *testing.T) {
	got, err := Resolve([]string{filepath.Join(t.TempDir(), "gone.jsonl")}, Env{})
	if err != nil || len(got) != 1 || !errors.Is(got[0].Err, fs.ErrNotExist) {
		t.Fatalf("%+v %v", got, err)
	}
}

// TestResolveListsFoldersOnce: resolving a folder takes what is beside each
// session from the walk that found them, and reads only what the walk did
// not enter (a session folder reached through a link); a file named alone
// has its folder listed once, and no sub-agents folder is looked for
// where its parent lacks the session's folder.
func TestResolveListsFoldersOnce(t *testing.T) {
	root := tree(t, map[string]string{
		"p/s1.jsonl":                        "s1",
		"p/s1/subagents/agent-a.jsonl":      "s1",
		"p/s2.jsonl":                        "s2",
		"p/s3.jsonl":                        "s3",
		"elsewhere/subagents/agent-x.jsonl": "s3",
		"p/s4.jsonl":                        "s4",
		"p/s4":                              "", // a file, not a folder
	}, "p/s1.jsonl", "p/s2.jsonl", "p/s3.jsonl", "p/s4.jsonl", "p/s1/subagents/agent-a.jsonl")
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(root, "p", "s3")); err != nil {
		t.Skip(err)
	}
	var listed []string
	readDir = func(dir string) ([]fs.DirEntry, error) {
		rel, _ := filepath.Rel(root, dir)
		listed = append(listed, filepath.ToSlash(rel))
		return os.ReadDir(dir)
	}
	defer func() { readDir = os.ReadDir }()
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	tests := []struct {
		paths  []string
		want   []Input
		listed []string
	}{
		{
			paths: []string{"p"},
			want: []Input{
				{Path: "p/s1.jsonl", Subagents: []string{"p/s1/subagents/agent-a.jsonl"}},
				{Path: "p/s2.jsonl"},
				{Path: "p/s3.jsonl", Subagents: []string{"p/s3/subagents/agent-x.jsonl"}},
				{Path: "p/s4.jsonl"},
			},
			listed: []string{"p/s3/subagents"},
		},
		{paths: []string{"p/s2.jsonl"}, want: []Input{{Path: "p/s2.jsonl"}}, listed: []string{"p"}},
		{paths: []string{"p/s4.jsonl"}, want: []Input{{Path: "p/s4.jsonl"}}, listed: []string{"p"}},
		{
			paths:  []string{"p/s1.jsonl"},
			want:   []Input{{Path: "p/s1.jsonl", Subagents: []string{"p/s1/subagents/agent-a.jsonl"}}},
			listed: []string{"p", "p/s1/subagents"},
		},
	}
	for _, tt := range tests {
		listed = nil
		var paths []string
		for _, p := range tt.paths {
			paths = append(paths, abs(p))
		}
		got, err := Resolve(paths, Env{})
		if err != nil {
			t.Fatal(err)
		}
		var want []Input
		for _, in := range tt.want {
			w := Input{Path: abs(in.Path)}
			for _, s := range in.Subagents {
				w.Subagents = append(w.Subagents, abs(s))
			}
			want = append(want, w)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: (-want +got)\n%s", tt.paths, diff)
		}
		if diff := cmp.Diff(tt.listed, listed); diff != "" {
			t.Errorf("%v: folders listed (-want +got)\n%s", tt.paths, diff)
		}
	}
}
