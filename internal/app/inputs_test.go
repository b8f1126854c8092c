package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/internal/sharedtest"
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

// TestResolveRenamedSidechain: a log whose every line is a sidechain's,
// with an agentId and the session id of a main log read in the same run,
// is that session's sub-agent whatever its name or folder; a log that
// fails any of that stays a session of its own, as does one named as
// Claude Code names a session's log, which is not read to find out.
func TestResolveRenamedSidechain(t *testing.T) {
	root := t.TempDir()
	line := func(session string, sidechain bool, agent string) string {
		l := fmt.Sprintf(`{"type":"user","sessionId":%q,"isSidechain":%v`, session, sidechain)
		if agent != "" {
			l += fmt.Sprintf(`,"agentId":%q`, agent)
		}
		return l + `,"message":{"role":"user","content":"hi"}}` + "\n"
	}
	uuid := "0b0c6e9e-1d3c-4a59-9f49-2b5e3c4d5e6f"
	files := map[string]string{
		"p/s1.jsonl":           line("s1", false, ""),
		"p/helper-run.jsonl":   line("s1", true, "x1") + "\n" + line("s1", true, "x1"),
		"other/moved.jsonl":    line("s1", true, "x2"),
		"p/half.jsonl":         line("s1", true, "x3") + line("s1", false, ""),
		"p/no-agent.jsonl":     line("s1", true, ""),
		"p/two-sessions.jsonl": line("s1", true, "x4") + line("s2", true, "x4"),
		"p/orphan.jsonl":       line("s9", true, "x5"),
		"p/" + uuid + ".jsonl": line("s1", true, "x6"),
		"p/broken.jsonl":       line("s1", true, "x7") + "{\n",
	}
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	got, err := Resolve([]string{abs("p/s1.jsonl"), abs("p/helper-run.jsonl"), abs("other/moved.jsonl"), abs("p/half.jsonl"),
		abs("p/no-agent.jsonl"), abs("p/two-sessions.jsonl"), abs("p/orphan.jsonl"), abs("p/" + uuid + ".jsonl"), abs("p/broken.jsonl")}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Input{
		{Path: abs("p/s1.jsonl"), Subagents: []string{abs("other/moved.jsonl"), abs("p/helper-run.jsonl")}},
		{Path: abs("p/half.jsonl")}, {Path: abs("p/no-agent.jsonl")}, {Path: abs("p/two-sessions.jsonl")},
		{Path: abs("p/orphan.jsonl")}, {Path: abs("p/" + uuid + ".jsonl")}, {Path: abs("p/broken.jsonl")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// Named alone, a sub-agent log under another name is reported, not lost.
	if got, _ := Resolve([]string{abs("p/helper-run.jsonl")}, Env{}); len(got) != 1 || got[0].Path != abs("p/helper-run.jsonl") {
		t.Errorf("alone: %+v", got)
	}
}

// TestResolveRenamedSidechainReal: the shared logs' fasthooks sub-agent
// log, a copy under another name of a 2.0.76 agent-<id>.jsonl (every line
// a sidechain's with an agentId and the session id of the fasthooks main
// log), is that session's sub-agent, as ccusage counts it when the logs
// lie as Claude Code writes them: 13 sessions, not 14.
func TestResolveRenamedSidechainReal(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "transcripts")
	got, err := Resolve([]string{dir}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "claude-code_fasthooks_v2.0.76-manual-compact-tool-errors.jsonl")
	sub := filepath.Join(dir, "claude-code_fasthooks_v2.0.76-subagent-sidechain-file.jsonl")
	found := false
	for _, in := range got {
		if in.Path == sub {
			t.Errorf("the sub-agent log is a session of its own")
		}
		if in.Path == main {
			found = true
			if diff := cmp.Diff([]string{sub}, in.Subagents); diff != "" {
				t.Errorf("the fasthooks session's sub-agents (-want +got)\n%s", diff)
			}
		}
	}
	if !found || len(got) != 13 {
		t.Errorf("%d inputs, the fasthooks session among them: %v", len(got), found)
	}
}

// TestResolveEachFileOnce: a file named twice, within a folder named too,
// or through a link, is one session; a copy of it is another.
func TestResolveEachFileOnce(t *testing.T) {
	root := tree(t, map[string]string{"p/s1.jsonl": "s1", "p/s1-copy.jsonl": "s1", "p/s2.jsonl": "s2"},
		"p/s2.jsonl", "p/s1-copy.jsonl", "p/s1.jsonl")
	if err := os.Symlink(filepath.Join(root, "p", "s1.jsonl"), filepath.Join(root, "latest.jsonl")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	got, err := Resolve([]string{"p/s1.jsonl", "p", "./p/s1.jsonl", "latest.jsonl", root + "/p/s2.jsonl"}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, in := range got {
		paths = append(paths, in.Path)
	}
	if want := []string{"p/s1.jsonl", "p/s2.jsonl", "p/s1-copy.jsonl"}; !slices.Equal(paths, want) {
		t.Errorf("inputs %q, want %q", paths, want)
	}
}
