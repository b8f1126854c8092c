//go:build unix

package spillview

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/themes"
)

// agentTree lays out where agents spill, as on a real machine, and
// returns the transcript's path; the test runs in work, the folder the
// agent worked in.
func agentTree(t *testing.T) (work, transcript string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work = filepath.Join(base, "repo")
	project := filepath.Join(base, "projects", "-repo")
	transcript = filepath.Join(project, "sess-1.jsonl")
	files := map[string]string{
		transcript: "{}\n",
		filepath.Join(project, "sess-1", "tool-results", "toolu_1.txt"):                                 "claude spill\n",
		filepath.Join(work, ".harness", "spill", "c1-Read.txt"):                                         "harness spill\n",
		filepath.Join(work, "large_tool_results", "agent", "c1-0123"):                                   "agentscope spill\n",
		filepath.Join(work, "secret.txt"):                                                               "not a spill\n",
		filepath.Join(project, "other", "tool-results", "x.txt"):                                        "another session's folder\n",
		filepath.Join(base, "tmp", "dsh-spill-Ab12Cd", "session-0123456789ab", "0a1b2c3d4e5f-bash.txt"): "deepseek spill\n",
		filepath.Join(base, "tmp", "other", "x.txt"):                                                    "another program's file\n",
	}
	t.Setenv("TMPDIR", filepath.Join(base, "tmp"))
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	results := filepath.Join(project, "sess-1", "tool-results")
	if err := syscall.Mkfifo(filepath.Join(results, "fifo.txt"), 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	os.Symlink("/etc/passwd", filepath.Join(results, "passwd.txt"))
	os.Symlink(filepath.Join(results, "toolu_1.txt"), filepath.Join(results, "alias.txt"))
	os.Symlink(work, filepath.Join(results, "up"))
	os.Mkdir(filepath.Join(results, "folder.txt"), 0o700)
	t.Chdir(work)
	return work, transcript
}

// TestOpenSpilled: an agent's spill file opens only when, with ".." and
// links resolved, it is a regular file in a folder that agent spills to.
func TestOpenSpilled(t *testing.T) {
	work, transcript := agentTree(t)
	roots := AgentRoots(transcript)
	results := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "tool-results")
	tests := []struct {
		path string
		want string // the file opened, or what the refusal says
	}{
		{filepath.Join(results, "toolu_1.txt"), filepath.Join(results, "toolu_1.txt")},
		{filepath.Join(results, "alias.txt"), filepath.Join(results, "toolu_1.txt")},
		{".harness/spill/c1-Read.txt", filepath.Join(work, ".harness", "spill", "c1-Read.txt")},
		{"large_tool_results/agent/c1-0123", filepath.Join(work, "large_tool_results", "agent", "c1-0123")},
		{filepath.Join(os.Getenv("TMPDIR"), "dsh-spill-Ab12Cd", "session-0123456789ab", "0a1b2c3d4e5f-bash.txt"),
			filepath.Join(os.Getenv("TMPDIR"), "dsh-spill-Ab12Cd", "session-0123456789ab", "0a1b2c3d4e5f-bash.txt")},
		{filepath.Join(os.Getenv("TMPDIR"), "other", "x.txt"), "not in a folder the agent spills to"},
		{filepath.Join(os.Getenv("TMPDIR"), "dsh-spill-Ab12Cd"), "not in a folder the agent spills to"},
		{"/etc/shadow", "not in a folder the agent spills to"},
		{"/etc/passwd", "not in a folder the agent spills to"},
		{".harness/spill/../../secret.txt", "not in a folder the agent spills to"},
		{filepath.Join(results, "..", "..", "other", "tool-results", "x.txt"), "not in a folder the agent spills to"},
		{filepath.Join(results, "passwd.txt"), "not in a folder the agent spills to"},
		{filepath.Join(results, "up", "secret.txt"), "not in a folder the agent spills to"},
		{filepath.Join(results, "fifo.txt"), "a FIFO, not a regular file"},
		{filepath.Join(results, "folder.txt"), "a folder, not a regular file"},
		{filepath.Join(results, "missing.txt"), "not on this machine"},
		{"/dev/zero", "not in a folder the agent spills to"},
	}
	for _, tt := range tests {
		if got := openSpilled(tt.path, roots); !strings.Contains(got, tt.want) {
			t.Errorf("OpenSpilled(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// openSpilled is the path OpenSpilled opened, or its error.
func openSpilled(path string, roots []Root) string {
	f, _, real, err := OpenSpilled(path, roots)
	if err != nil {
		return err.Error()
	}
	f.Close()
	return real
}

// TestOpenAgentSpill: a transcript naming a file the agent cannot have
// spilled gets its own text shown, with a note saying why, at once; one
// it did spill is shown whole.
func TestOpenAgentSpill(t *testing.T) {
	_, transcript := agentTree(t)
	results := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "tool-results")
	tests := []struct {
		path, text, note string
	}{
		{"/etc/shadow", "Full output saved to: /etc/shadow", "not opened: /etc/shadow is not in a folder the agent spills to; showing what the transcript holds"},
		{filepath.Join(results, "fifo.txt"), "Full output saved to: fifo", "is a FIFO, not a regular file; showing what the transcript holds"},
		{filepath.Join(results, "toolu_1.txt"), "claude spill\n", "the file the agent spilled this result to"},
	}
	for _, tt := range tests {
		done := make(chan *Document, 1)
		go func() {
			d, err := Open(Source{Path: tt.path, Roots: AgentRoots(transcript), Text: "Full output saved to: " + tt.path, Note: "the model saw 10 of 20 bytes"})
			if err != nil {
				t.Error(err)
			}
			done <- d
		}()
		select {
		case d := <-done:
			if d == nil {
				continue
			}
			src := d.Source()
			if !strings.Contains(src.Note, tt.note) {
				t.Errorf("Open(%s): note %q, want %q", tt.path, src.Note, tt.note)
			}
			raw, _, _, _ := d.readLine(0)
			if opened := src.Path != ""; opened != strings.HasSuffix(tt.path, "toolu_1.txt") || (!opened && string(raw) != "Full output saved to: "+tt.path) {
				t.Errorf("Open(%s) shows %q from %q", tt.path, raw, src.Path)
			}
			d.Close()
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s) blocked", tt.path)
		}
	}
}

// TestOpenFIFO: even a path spillway wrote itself is opened only if it is
// a regular file: a FIFO put there is refused at once.
func TestOpenFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Open(Source{Path: fifo}); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(FIFO) = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open blocked on a FIFO")
	}
}

// TestSpillFolderLinkedOut: a spill folder that is itself a link to /
// (a transcript's tool-results, .harness/spill and large_tool_results in
// the working folder, a dsh-spill-* folder) opens nothing through it, nor
// through a link to a folder elsewhere, whatever the path names below it.
func TestSpillFolderLinkedOut(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, project, tmp, elsewhere := filepath.Join(base, "repo"), filepath.Join(base, "projects", "-repo"), filepath.Join(base, "tmp"), filepath.Join(base, "elsewhere")
	transcript := filepath.Join(project, "sess-1.jsonl")
	for _, d := range []string{filepath.Join(work, ".harness"), filepath.Join(project, "sess-1"), tmp, elsewhere} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(transcript, []byte("{}\n"), 0o600)
	os.WriteFile(filepath.Join(work, "secret.txt"), []byte("secret\n"), 0o600)
	os.WriteFile(filepath.Join(elsewhere, "x.txt"), []byte("elsewhere\n"), 0o600)
	t.Setenv("TMPDIR", tmp)
	results := filepath.Join(project, "sess-1", "tool-results")
	links := map[string]string{
		results:                                   "/",
		filepath.Join(work, ".harness", "spill"):  "/",
		filepath.Join(work, "large_tool_results"): elsewhere,
		filepath.Join(tmp, "dsh-spill-Ab12Cd"):    "/",
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	roots := AgentRoots(transcript)
	var paths []string
	for _, dir := range []string{results, ".harness/spill", filepath.Join(work, ".harness", "spill"), filepath.Join(tmp, "dsh-spill-Ab12Cd")} {
		for _, p := range []string{"etc/shadow", "etc/passwd", "dev/zero", strings.TrimPrefix(filepath.Join(work, "secret.txt"), "/"), strings.TrimPrefix(transcript, "/")} {
			paths = append(paths, filepath.Join(dir, p))
		}
	}
	paths = append(paths, "large_tool_results/x.txt", filepath.Join(work, "large_tool_results", "x.txt"),
		filepath.Join(results, "..", "tool-results", "etc", "shadow"))
	for _, p := range paths {
		got := openSpilled(p, roots)
		if !strings.Contains(got, "not in a folder the agent spills to") && !strings.Contains(got, "not on this machine") {
			t.Errorf("OpenSpilled(%s) = %q, want it refused", p, got)
		}
	}
}

// TestOpenSpilledRace: a spill file, or its folder, swapped for a link
// out of the spill folder while it is being opened is never opened
// through that link (the bare check and open by name, since replaced,
// opened the link's target in about 1% of tries).
func TestOpenSpilledRace(t *testing.T) {
	_, transcript := agentTree(t)
	results := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "tool-results")
	secretDir := filepath.Join(filepath.Dir(filepath.Dir(transcript)), "secret")
	os.MkdirAll(secretDir, 0o700)
	os.WriteFile(filepath.Join(secretDir, "race.txt"), []byte("secret\n"), 0o600)
	os.MkdirAll(filepath.Join(results, "sub"), 0o700)
	os.WriteFile(filepath.Join(results, "sub", "race.txt"), []byte("spill\n"), 0o600)
	roots := AgentRoots(transcript)
	tries := 2000
	if testing.Short() {
		tries = 500
	}
	for _, swap := range []struct{ name, target string }{
		{filepath.Join(results, "sub", "race.txt"), filepath.Join(secretDir, "race.txt")}, // the file
		{filepath.Join(results, "sub"), secretDir},                                        // its folder
	} {
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			real, link := swap.name+".real", swap.name+".link"
			os.Symlink(swap.target, link)
			for {
				select {
				case <-stop:
					return
				default:
				}
				os.Rename(swap.name, real)
				os.Rename(link, swap.name) // a link out
				os.Rename(swap.name, link)
				os.Rename(real, swap.name) // the spill file or folder again
			}
		}()
		leaked := 0
		for range tries {
			f, _, _, err := OpenSpilled(filepath.Join(results, "sub", "race.txt"), roots)
			if err != nil {
				continue
			}
			b := make([]byte, 16)
			n, _ := f.Read(b)
			f.Close()
			if string(b[:n]) == "secret\n" {
				leaked++
			}
		}
		close(stop)
		<-done
		if leaked > 0 {
			t.Errorf("swapping %s: the file outside was opened %d times in %d tries", filepath.Base(swap.name), leaked, tries)
		}
	}
}

// FuzzOpenSpilled opens paths a transcript might name, relative to the
// session's tool-results or to the working folder: whatever opens is a
// spill file, inside a folder the agent spills to. Seeded with the paths
// that led out.
func FuzzOpenSpilled(f *testing.F) {
	for _, p := range []string{"toolu_1.txt", "alias.txt", "passwd.txt", "up/secret.txt", "../../other/tool-results/x.txt",
		"../tool-results/../../../repo/secret.txt", "/etc/shadow", "fifo.txt", ".harness/spill/../../secret.txt", "large_tool_results/agent/c1-0123"} {
		f.Add(p, false)
		f.Add(p, true)
	}
	f.Fuzz(func(t *testing.T, p string, fromWork bool) {
		work, transcript := agentTree(t)
		results := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "tool-results")
		if !fromWork && !filepath.IsAbs(p) {
			p = filepath.Join(results, p)
		}
		file, _, real, err := OpenSpilled(p, AgentRoots(transcript))
		if err != nil {
			return
		}
		defer file.Close()
		b := make([]byte, 64)
		n, _ := file.Read(b)
		inside := false
		for _, dir := range []string{results, filepath.Join(work, ".harness", "spill"), filepath.Join(work, "large_tool_results"), filepath.Join(os.Getenv("TMPDIR"))} {
			if strings.HasPrefix(real, dir+string(filepath.Separator)) {
				inside = true
			}
		}
		if !inside || !strings.Contains(string(b[:n]), "spill") || strings.Contains(string(b[:n]), "not a spill") {
			t.Errorf("OpenSpilled(%q) opened %s, holding %q", p, real, b[:n])
		}
	})
}

// TestAgentSpillUnmarked: the parts the model saw of a result are ranges
// of the transcript's text; opened instead, an agent's spill file is
// another text, shown unmarked. Marked with the result's ranges, its
// first lines read as unseen though the model was given them.
func TestAgentSpillUnmarked(t *testing.T) {
	_, transcript := agentTree(t)
	path := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "tool-results", "toolu_2.txt")
	if err := os.WriteFile(path, []byte("claude spill\n"+numbered(20)), 0o600); err != nil {
		t.Fatal(err)
	}
	src := Source{Path: path, Roots: AgentRoots(transcript), Text: "Full output saved to: " + path, Seen: []Range{{From: 0, To: 10}}}
	m := open(t, src, themes.New(themes.Mono), 80, 8)
	if out := strings.Join(plainRows(m), "\n"); strings.Contains(out, "would not see") || !strings.Contains(out, "claude spill") {
		t.Errorf("the spill file is marked with the result's ranges:\n%s", out)
	}
}
