package transcript

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
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

// TestReadCwdAsWhole: reading a log's start as far as its first working
// folder finds what looking at all of its first CwdBytes finds, whatever
// the reads return at once, with the line that records it anywhere around
// the reads' bounds, past CwdBytes, or last and without its newline.
func TestReadCwdAsWhole(t *testing.T) {
	cwdLine := `{"cwd":"/w"}`
	filler := func(n int) string { return `{"x":"` + strings.Repeat("a", max(0, n-8)) + `"}` + "\n" }
	var logs []string
	for _, at := range []int{0, 100, 64<<10 - 5, 64 << 10, 128<<10 + 3, CwdBytes - len(cwdLine) - 1, CwdBytes - len(cwdLine), CwdBytes - 3, CwdBytes + 10} {
		logs = append(logs, filler(at)+cwdLine+"\n"+filler(50), filler(at)+cwdLine, filler(at)+cwdLine[:5])
	}
	logs = append(logs, "", "\n", filler(3<<20))
	for _, log := range logs {
		head := []byte(log)[:min(len(log), CwdBytes+1)]
		want := Cwd(head, len(head) <= CwdBytes)
		for name, r := range map[string]io.Reader{"whole": strings.NewReader(log), "halves": iotest.HalfReader(strings.NewReader(log))} {
			got, err := ReadCwd(r)
			if err != nil || got != want {
				t.Errorf("%s, a log of %d bytes: %q, %v; looking at all of its start: %q", name, len(log), got, err, want)
			}
		}
	}
}
