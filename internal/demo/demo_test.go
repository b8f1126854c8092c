package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/transcript"
)

// TestUpToDate checks that testdata/demo.jsonl is what Write produces
// (regenerate with go generate in the repository root).
func TestUpToDate(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf); err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), committed) {
		t.Error("testdata/demo.jsonl is stale: run go generate")
	}
}

// TestShowsEveryAction checks the demo has what it promises to show.
func TestShowsEveryAction(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := transcript.Read(&buf, "demo.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.WarningCount != 0 || len(s.Calls) != 16 {
		t.Fatalf("%d calls, warnings %v", len(s.Calls), s.Warnings)
	}
	results := s.Results()
	byTool := map[string][]*transcript.ToolResult{}
	for _, r := range results {
		byTool[r.Tool] = append(byTool[r.Tool], r)
	}
	if lock := results[0]; lock.Tool != "Read" || !strings.HasSuffix(string(lock.Input), `package-lock.json"}`) || lock.Bytes() < 60_000 || lock.Bytes() > 80_000 {
		t.Errorf("first result should be a ~60 KB lock-file read: %s %s %d", lock.Tool, lock.Input, lock.Bytes())
	}
	if g := byTool["Grep"]; len(g) != 1 || g[0].Bytes() < 30_000 {
		t.Errorf("want one grep over 30 KB")
	}
	reads := map[string][]string{}
	for _, r := range byTool["Read"] {
		reads[string(r.Input)] = append(reads[string(r.Input)], r.Text)
	}
	merge := reads[`{"file_path":"/home/dev/shop/src/utils/merge.js"}`]
	if len(merge) != 4 || merge[0] != merge[1] || merge[1] != merge[2] || merge[2] == merge[3] {
		t.Errorf("merge.js should be read three times alike, then changed by the edit")
	}
	if pkg := reads[`{"file_path":"/home/dev/shop/package.json"}`]; len(pkg) != 2 || pkg[0] == pkg[1] {
		t.Errorf("package.json should be read twice, changed by the user in between")
	}
	if len(byTool["Edit"]) != 1 || len(byTool["mcp__github__search_issues"]) != 1 || len(byTool["Glob"]) != 1 {
		t.Errorf("want one edit, one glob and one MCP call")
	}
	if len(s.Events) != 1 || s.Events[0].Kind != transcript.EventCompaction || s.Calls[15].Segment != 1 {
		t.Errorf("want one compaction before the last calls")
	}
	if r := byTool["Bash"]; len(r) != 4 || !r[1].IsError {
		t.Errorf("want four Bash calls, the failing build among them")
	}
}
