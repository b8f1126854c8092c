package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProject names the project of logs laid out as the agents lay them
// out, from what each log records and where it lies.
func TestProject(t *testing.T) {
	const (
		claudeNoCwd = `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n"
		claudeCwd   = `{"type":"user","sessionId":"s","cwd":"/home/dev/x.y","message":{"role":"user","content":"hi"}}` + "\n"
		codexMeta   = `{"timestamp":"2026-03-02T10:00:00.000Z","type":"session_meta","payload":{"id":"c1","cwd":"/srv/api","cli_version":"0.144.1"}}` + "\n"
	)
	// A first line of 300 KB (an image, say) before the one that says.
	image := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("A", 300<<10) + `"}}` + "\n"
	tests := []struct {
		name, path, log, want string
	}{
		{"Codex: its session_meta's cwd", "codex/sessions/2026/03/02/rollout-c1.jsonl", codexMeta, "/srv/api"},
		{"Claude with a cwd: the cwd, not the folder", "claude/projects/-home-dev-x/s.jsonl", claudeCwd, "/home/dev/x.y"},
		{"Claude without a cwd: the folder's name decoded", "claude/projects/-home-dev-x/s.jsonl", claudeNoCwd, "/home/dev/x"},
		{"sub-agent under its session: the parent's folder", "claude/projects/-home-dev-x/s/subagents/agent-a1.jsonl", claudeNoCwd, "/home/dev/x"},
		{"sub-agent beside its session: the parent's folder", "claude/projects/-home-dev-x/agent-a1.jsonl", claudeNoCwd, "/home/dev/x"},
		{"sub-agent with a cwd", "claude/projects/-home-dev-x/s/subagents/agent-a1.jsonl", claudeCwd, "/home/dev/x.y"},
		{"a folder name not written from a path stays as it is", "claude/projects/transcripts/s.jsonl", claudeNoCwd, "transcripts"},
		{"a folder of logs elsewhere names none", "logs/s.jsonl", claudeNoCwd, ""},
		{"a cwd past a long first line", "claude/projects/-home-dev-x/s.jsonl", image + claudeCwd, "/home/dev/x.y"},
		{"a last line without its newline", "logs/s.jsonl", strings.TrimSuffix(claudeCwd, "\n"), "/home/dev/x.y"},
		{"a cwd past the first MiB is not looked for", "logs/s.jsonl", strings.Repeat(image, 4) + claudeCwd, ""},
		{"a cwd that is not a string", "logs/s.jsonl", `{"cwd":7}` + "\n", ""},
	}
	root := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(root, string(rune('a'+i)), filepath.FromSlash(tt.path))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.log), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cwd, err := ReadCwd(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := Project(path, cwd); got != tt.want {
				t.Errorf("project %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCwdCutHead: a line the head cuts short is not read, even where its
// start would parse; the whole log's last line is.
func TestCwdCutHead(t *testing.T) {
	line := `{"cwd":"/a"}`
	for _, tt := range []struct {
		head  string
		whole bool
		want  string
	}{
		{line, true, "/a"},
		{line, false, ""},
		{line + "\n", false, "/a"},
		{`{"type":"x"}` + "\n" + `{"payload":{"cwd":"/b"}}` + "\n", false, "/b"},
	} {
		if got := Cwd([]byte(tt.head), tt.whole); got != tt.want {
			t.Errorf("Cwd(%q, %v) = %q, want %q", tt.head, tt.whole, got, tt.want)
		}
	}
}
