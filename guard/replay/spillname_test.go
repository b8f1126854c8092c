package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/spill"
)

// TestSpillNamesInjective: results whose call ids or tool names differ
// never share a spill file, even where the harness's own names would
// (Claude Code call ids "." and "..", "a/b" beside "x/a/b", for tools
// whose files it names after the call id), while
// ordinary ids keep the harness's file names exactly.
func TestSpillNamesInjective(t *testing.T) {
	tests := []struct {
		preset string
		calls  [][2]string // call id, tool
		want   []string    // stored paths, under the store's session and policy
	}{
		{"claude-code", [][2]string{{"toolu_01ABCdef", "WebFetch"}, {".", "WebFetch"}, {"..", "WebFetch"}, {"a/b", "WebFetch"}, {"x/a/b", "WebFetch"}, {"y/a/b", "WebFetch"}},
			[]string{"tool-results/toolu_01ABCdef.txt", "tool-results/..txt", "tool-results/...txt",
				"tool-results/a~2Fb.txt", "tool-results/x~2Fa~2Fb.txt", "tool-results/y~2Fa~2Fb.txt"}},
		// (A tool name with a '/' is never spilled by harness-rs: TestHarnessRSUnwritable.)
		{"harness-rs-0.0.50", [][2]string{{"call_1", "Read"}, {"c2", "a b"}, {"c3", "a~20b"}, {"c4", "mcp__srv__grep"}, {"c5", ".."}},
			[]string{"spill/call_1-Read.txt", "spill/c2-a~20b.txt", "spill/c3-a~7E20b.txt", "spill/c4-mcp__srv__grep.txt", "spill/c5-...txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			var msgs []map[string]any
			var texts []string
			for i, c := range tt.calls {
				text := strings.Repeat(string(rune('a'+i))+" line of output\n", 4000) // 68,000 bytes each
				texts = append(texts, text)
				msgs = append(msgs, call(c[0], c[1], nil), result(c[0], text, false))
			}
			s := generic(t, msgs...)
			root := t.TempDir()
			store := spill.Dir{Root: root, Session: s.ID, Policy: tt.preset}
			rp, err := prepared(t, s).Replay(mustPreset(t, tt.preset), Options{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, r := range rp.Results {
				if r.Outcome != Spilled {
					t.Fatalf("result %d: %s (%s) %s", i, r.Outcome, r.Reason, r.Warning)
				}
				rel, _ := filepath.Rel(filepath.Join(root, s.ID, tt.preset), r.SpillPath)
				got = append(got, filepath.ToSlash(rel))
				if data, _ := os.ReadFile(r.SpillPath); string(data) != texts[i] {
					t.Errorf("result %d's spill file %s holds another result's text", i, rel)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stored paths (-want +got):\n%s", diff)
			}
		})
	}
}
