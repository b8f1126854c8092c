package claudesettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type statusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

var ourLine = statusLine{"command", "/opt/bin/spillway statusline --preset harness-rs-0.0.50"}

// A top-level member is added, replaced in place and removed by editing
// its own bytes: setting and then removing it gives back the file as it
// was, byte for byte, whatever its shape.
func TestSetRemoveMember(t *testing.T) {
	for name, tc := range map[string]struct{ original, set string }{
		"missing":      {"", "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"/opt/bin/spillway statusline --preset harness-rs-0.0.50\"\n  }\n}\n"},
		"empty object": {"{}", "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"/opt/bin/spillway statusline --preset harness-rs-0.0.50\"\n  }\n}"},
		"one line":     {`{"model":"opus"}`, `{"model":"opus","statusLine":{"type":"command","command":"/opt/bin/spillway statusline --preset harness-rs-0.0.50"}}`},
		"tabs": {"{\n\t\"model\": \"opus\"\n}\n",
			"{\n\t\"model\": \"opus\",\n\t\"statusLine\": {\n\t\t\"type\": \"command\",\n\t\t\"command\": \"/opt/bin/spillway statusline --preset harness-rs-0.0.50\"\n\t}\n}\n"},
		"crlf": {"{\r\n  \"a\": 1\r\n}\r\n", "{\r\n  \"a\": 1,\r\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"/opt/bin/spillway statusline --preset harness-rs-0.0.50\"\n  }\r\n}\r\n"},
	} {
		t.Run(name, func(t *testing.T) {
			f := &File{Path: "settings.json", Data: []byte(tc.original), Exists: tc.original != ""}
			if _, ok := f.Member("statusLine"); ok {
				t.Fatal("a member where there is none")
			}
			set, err := f.SetMember("statusLine", ourLine)
			if err != nil {
				t.Fatal(err)
			}
			if string(set) != tc.set {
				t.Errorf("set:\n%q\nwant\n%q", set, tc.set)
			}
			g := &File{Path: "settings.json", Data: set, Exists: true}
			if raw, ok := g.Member("statusLine"); !ok || !strings.Contains(string(raw), `"command": "/opt/bin/spillway statusline`) && !strings.Contains(string(raw), `"command":"/opt/bin/spillway statusline`) {
				t.Errorf("member %q %v", raw, ok)
			}
			if again, err := g.SetMember("statusLine", ourLine); err != nil || string(again) != string(set) {
				t.Errorf("setting it again changed the file (%v):\n%s", err, again)
			}
			removed, err := g.RemoveMember("statusLine")
			want := tc.original
			if want == "" {
				want = "{}\n" // the file spillway wrote stays, empty
			}
			if err != nil || string(removed) != want {
				t.Errorf("removed (%v):\n%q\nwant\n%q", err, removed, want)
			}
		})
	}
}

// A member the file has is replaced where it stands, its neighbours and
// their bytes untouched; of a key given twice, Claude Code reads the last,
// which is replaced, and the earlier is dropped.
func TestSetMemberReplaces(t *testing.T) {
	f := &File{Path: "settings.json", Data: []byte(userSettings), Exists: true}
	raw, ok := f.Member("statusLine")
	if !ok || string(raw) != `{"type": "command", "command": "status"}` {
		t.Fatalf("member %q", raw)
	}
	set, err := f.SetMember("statusLine", ourLine)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(userSettings, `{"type": "command", "command": "status"}`,
		"{\n    \"type\": \"command\",\n    \"command\": \"/opt/bin/spillway statusline --preset harness-rs-0.0.50\"\n  }", 1)
	if string(set) != want {
		t.Errorf("got\n%s\nwant\n%s", set, want)
	}
	twice := &File{Path: "s.json", Data: []byte(`{"statusLine": 1, "model": "opus", "statusLine": 2}`), Exists: true}
	if raw, _ := twice.Member("statusLine"); string(raw) != "2" {
		t.Errorf("member %q, want the last", raw)
	}
	set, err = twice.SetMember("statusLine", 3)
	if err != nil || string(set) != `{"model": "opus", "statusLine": 3}` {
		t.Errorf("%v: %s", err, set)
	}
	removed, err := twice.RemoveMember("statusLine")
	if err != nil || string(removed) != `{"model": "opus"}` {
		t.Errorf("%v: %s", err, removed)
	}
}

// Settings that are not a JSON object are refused, naming the line, and
// a link is not followed.
func TestSetMemberRefuses(t *testing.T) {
	for name, data := range map[string]string{
		"not JSON":   "{\n  \"model\": \"opus\",\n  \"statusLine\": \n}\n",
		"a list":     "[1, 2]",
		"a string":   `"settings"`,
		"two values": "{} {}",
	} {
		f := &File{Path: "settings.json", Data: []byte(data), Exists: true}
		if _, err := f.SetMember("statusLine", ourLine); err == nil || !strings.Contains(err.Error(), "settings.json: line ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	os.WriteFile(target, []byte("{}"), 0o600)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, err := Load(link); err == nil || !strings.Contains(err.Error(), "is a link") {
		t.Errorf("a link was loaded: %v", err)
	}
}
