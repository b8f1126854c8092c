package claudesettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ours(cmd string) bool { return strings.Contains(cmd, " hook claude-code") }

var spillway = Hook{Matcher: "*", Command: "'/opt/bin/spillway' hook claude-code --preset harness-rs-0.0.50"}

// A file the user cares about: other settings, other hooks, comments in
// strings, a PreToolUse hook and a PostToolUse hook of their own.
const userSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "env": {"A": "x \u0026\u0026 y", "B": "<b>"},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {"type": "command", "command": "gofmt -w \"$FILE\""}
        ]
      }
    ]
  },
  "statusLine": {"type": "command", "command": "status"}
}
`

func TestInstallUninstall(t *testing.T) {
	for name, original := range map[string]string{
		"user settings":     userSettings,
		"no hooks":          "{\n\t\"model\": \"opus\"\n}\n",
		"no PostToolUse":    `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`,
		"empty PostToolUse": "{\n  \"hooks\": {\n    \"PostToolUse\": []\n  }\n}\n",
		"crlf":              "{\r\n  \"a\": 1,\r\n  \"hooks\": {\r\n    \"PostToolUse\": [\r\n      {\"matcher\": \"x\", \"hooks\": []}\r\n    ]\r\n  }\r\n}\r\n",
		"empty object":      "{}",
		"empty hooks":       `{"hooks": {}}`,
		"missing":           "",
	} {
		t.Run(name, func(t *testing.T) {
			f := &File{Path: "settings.json", Data: []byte(original), Exists: original != ""}
			installed, err := f.Install(spillway, ours)
			if err != nil {
				t.Fatal(err)
			}
			g := &File{Path: "settings.json", Data: installed, Exists: true}
			if hs := g.Hooks(ours); len(hs) != 1 || hs[0] != spillway {
				t.Fatalf("installed hooks %+v in\n%s", hs, installed)
			}
			again, err := g.Install(spillway, ours)
			if err != nil || string(again) != string(installed) {
				t.Errorf("installing twice changed the file:\n%s", cmp.Diff(string(installed), string(again)))
			}
			other := Hook{Matcher: "Read|Bash", Command: "/opt/bin/spillway hook claude-code --policy /p.json", Timeout: 10}
			replaced, err := g.Install(other, ours)
			if err != nil {
				t.Fatal(err)
			}
			r := &File{Path: "settings.json", Data: replaced, Exists: true}
			if hs := r.Hooks(ours); len(hs) != 1 || hs[0] != other {
				t.Fatalf("after installing another policy %+v in\n%s", hs, replaced)
			}
			removed, err := r.Uninstall(ours)
			if err != nil {
				t.Fatal(err)
			}
			want := original
			switch name {
			case "empty PostToolUse", "empty object", "empty hooks":
				want = map[string]string{"empty PostToolUse": "{}\n", "empty object": "{}", "empty hooks": "{}"}[name] // an empty list taken as none
			case "missing":
				want = "{}\n"
			}
			if string(removed) != want {
				t.Errorf("install then uninstall left\n%s", cmp.Diff(want, string(removed)))
			}
		})
	}
}

// Installing adds bytes and changes none: the user's file is its own with
// one group more at the end of PostToolUse, indented as it is indented.
func TestInstallKeepsBytes(t *testing.T) {
	f := &File{Path: "settings.json", Data: []byte(userSettings), Exists: true}
	got, err := f.Install(spillway, ours)
	if err != nil {
		t.Fatal(err)
	}
	added := `,
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "'/opt/bin/spillway' hook claude-code --preset harness-rs-0.0.50"
          }
        ]
      }`
	at := strings.Index(userSettings, "\n    ]\n  },\n  \"statusLine\"")
	want := userSettings[:at] + added + userSettings[at:]
	if string(got) != want {
		t.Errorf("installed:\n%s", cmp.Diff(want, string(got)))
	}
}

// A hook of the user's in spillway's group stays where it is.
func TestUninstallMixedGroup(t *testing.T) {
	data := `{"hooks":{"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"spillway hook claude-code"},{"type":"command","command":"mine"}]}]}}`
	f := &File{Path: "s", Data: []byte(data), Exists: true}
	got, err := f.Uninstall(ours)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"hooks":{"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"mine"}]}]}}`; string(got) != want {
		t.Errorf("got %s", got)
	}
	// Installing puts spillway's hook in a group of its own.
	got, err = f.Install(spillway, ours)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hooks":{"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"mine"}]},{"matcher":"*","hooks":[{"type":"command","command":"'/opt/bin/spillway' hook claude-code --preset harness-rs-0.0.50"}]}]}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRefuses(t *testing.T) {
	for data, want := range map[string]string{
		"{\n  \"a\": 1,\n  \"b\": oops\n}":      "line 3",
		"{\n  \"a\": 1,\n}":                     "line 3",
		"[1]":                                   "line 1: the settings are not a JSON object",
		"{\n\"hooks\": []\n}":                   "line 2: \"hooks\" is not an object",
		"{\"hooks\": {\n\"PostToolUse\": {}}}":  "line 2: \"PostToolUse\" is not a list",
		"{\"hooks\": {\"PostToolUse\": [\n3]}}": "line 2: a PostToolUse entry is not an object",
	} {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte(data), 0o600)
		f, err := Load(path)
		if err == nil {
			_, err = f.Install(spillway, ours)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", data, err, want)
		}
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(userSettings), 0o640)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.Install(spillway, ours)
	if err != nil {
		t.Fatal(err)
	}
	backup, err := f.Save(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(backup); string(got) != userSettings {
		t.Error("the backup is not the file as it was")
	}
	if got, _ := os.ReadFile(path); string(got) != string(data) {
		t.Error("not written")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own", info.Mode())
	}
	// The file changed since it was read: nothing is written.
	os.WriteFile(path, []byte("{\"changed\": true, \"x\": 1}"), 0o640)
	if _, err := f.Save(data); err == nil {
		t.Error("wrote over a file that changed")
	}
	// A link is neither read nor written through, nor is a linked folder.
	target := filepath.Join(dir, "real.json")
	os.WriteFile(target, []byte("{}"), 0o600)
	link := filepath.Join(dir, "link.json")
	os.Symlink(target, link)
	if _, err := Load(link); err == nil || !strings.Contains(err.Error(), "link") {
		t.Errorf("loaded a link: %v", err)
	}
	os.Symlink(dir, filepath.Join(dir, "linked"))
	g, err := Load(filepath.Join(dir, "linked", "new.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Save([]byte("{}")); err == nil {
		t.Error("wrote through a linked folder")
	}
	// A missing file is created, with no backup.
	h, _ := Load(filepath.Join(dir, "sub", "settings.json"))
	if backup, err := h.Save([]byte("{}\n")); err != nil || backup != "" {
		t.Error(backup, err)
	}
}

// TestSaveAtOnce: of edits made at once, each that says it wrote is in
// the file, and the others say nothing was written; none is lost.
func TestSaveAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"model": "opus"}`), 0o600)
	const n = 16
	var wg sync.WaitGroup
	wrote := make([]bool, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := Load(path)
			if err != nil {
				t.Error(err)
				return
			}
			data, err := f.SetMember(fmt.Sprintf("key%d", i), i)
			if err != nil {
				t.Error(err)
				return
			}
			_, err = f.Save(data)
			switch {
			case err == nil:
				wrote[i] = true
			case !strings.Contains(err.Error(), "changed while spillway edited it; nothing written"):
				t.Errorf("edit %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	var got map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for i, ok := range wrote {
		if _, in := got[fmt.Sprintf("key%d", i)]; ok != in {
			t.Errorf("edit %d said it wrote: %v; in the file: %v\n%s", i, ok, in, b)
		}
	}
	if _, err := os.Stat(path + lockSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock is left: %v", err)
	}
}

// TestLockStale: a lock a killed spillway left is taken over, and a lock
// is removed only by the spillway that holds it.
func TestLockStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json") + lockSuffix
	os.WriteFile(path, []byte("left"), 0o600)
	old := time.Now().Add(-2 * lockStale)
	os.Chtimes(path, old, old)
	unlock, err := lock(path)
	if err != nil {
		t.Fatal(err)
	}
	// Taken over in turn (its holder too slow), it stays for its new holder.
	os.WriteFile(path, []byte("another's"), 0o600)
	unlock()
	if held, _ := os.ReadFile(path); string(held) != "another's" {
		t.Errorf("the lock removed from under its holder: %q", held)
	}
	os.Remove(path)
	unlock, err = lock(path)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
