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
	if s.WarningCount != 0 || len(s.Calls) != 13 {
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
	var merges []*transcript.ToolResult
	for _, r := range byTool["Read"] {
		if strings.Contains(string(r.Input), "merge.js") {
			merges = append(merges, r)
		}
	}
	if len(merges) != 3 || merges[0].Text != merges[1].Text || merges[1].Text == merges[2].Text {
		t.Errorf("merge.js should be read three times: twice identical, then changed by an edit")
	}
	if len(byTool["Edit"]) != 2 || len(byTool["mcp__github__search_issues"]) != 1 {
		t.Errorf("want two edits and one MCP call")
	}
	if len(s.Events) != 1 || s.Events[0].Kind != transcript.EventCompaction || s.Calls[12].Segment != 1 {
		t.Errorf("want one compaction before the last calls")
	}
	if r := byTool["Bash"]; len(r) != 4 || !r[1].IsError {
		t.Errorf("want four Bash calls, the failing build among them")
	}
}
