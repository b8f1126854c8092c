package replay

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/transcript"
)

// TestClaudeByVersion: the claude-code preset replays a session as the
// Claude Code version that recorded it did, by the eras real versions
// showed (harness.ClaudeRules).
func TestClaudeByVersion(t *testing.T) {
	readA := map[string]any{"file_path": "/a.go"}
	readB := map[string]any{"file_path": "/b.go"}
	big := strings.Repeat("0123456789\n", 6000) // 66,000 characters
	huge := big + big                           // 132,000
	x := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		version string
		msgs    []map[string]any
		want    []string
		stub    string // the text of the first suppressed result
	}{
		// Before 2.1.2 Claude Code cut Bash and Grep output itself.
		{"1.0.17", []map[string]any{
			call("1", "Bash", nil), result("1", x(30_001), false),
			call("2", "Grep", nil), result("2", x(20_000), false),
			call("3", "Read", readA), result("3", "A", false),
			call("4", "Read", readA), result("4", "A", false),
		}, []string{"truncate", "keep", "keep", "keep"}, ""},
		{"2.1.1", []map[string]any{
			call("1", "Bash", nil), result("1", x(30_000), false),
			call("2", "Grep", nil), result("2", x(20_001), false),
			call("3", "WebFetch", nil), result("3", huge, false),
		}, []string{"keep", "truncate", "keep"}, ""},
		// 2.1.2 persisted Bash and Grep output, no other tool's.
		{"2.1.5", []map[string]any{
			call("1", "WebFetch", nil), result("1", huge, false),
			call("2", "Bash", nil), result("2", big, false),
			call("3", "Read", readA), result("3", huge, false),
		}, []string{"keep", "spill", "keep"}, ""},
		// From 2.1.6 any other tool's over 100,000 characters, a Read's
		// too, an MCP result's blocks measured in JSON (27 more).
		{"2.1.22", []map[string]any{
			call("1", "WebFetch", nil), result("1", x(100_000), false),
			call("2", "WebFetch", nil), result("2", x(100_001), false),
			call("3", "mcp__s__cat", nil), result("3", x(99_973), false),
			call("4", "mcp__s__cat", nil), result("4", x(99_974), false),
			call("5", "Read", readA), result("5", huge, false),
		}, []string{"keep", "spill", "keep", "spill", "spill"}, ""},
		// From 2.1.51 over 50,000; from 2.1.74 an MCP result by its text;
		// from 2.1.79 a Read never.
		{"2.1.51", []map[string]any{
			call("1", "mcp__s__cat", nil), result("1", x(49_973), false),
			call("2", "mcp__s__cat", nil), result("2", x(49_974), false),
			call("3", "Read", readA), result("3", huge, false),
		}, []string{"keep", "spill", "spill"}, ""},
		{"2.1.74", []map[string]any{
			call("1", "mcp__s__cat", nil), result("1", x(50_000), false),
			call("2", "mcp__s__cat", nil), result("2", x(50_001), false),
			call("3", "Read", readA), result("3", huge, false),
		}, []string{"keep", "spill", "spill"}, ""},
		{"2.1.79", []map[string]any{
			call("1", "Read", readA), result("1", huge, false),
		}, []string{"keep"}, ""},
		// 2.1.86 stubbed an unchanged Read repeat; the model's own writes
		// did not count as reads. From 2.1.45 a Bash output is measured
		// in bytes.
		{"2.1.112", []map[string]any{
			call("1", "Write", readA), result("1", "File created successfully at: /a.go", false),
			call("2", "Read", readA), result("2", "A", false),
			call("3", "Read", readA), result("3", "A", false),
			call("4", "Edit", readB), result("4", "The file /b.go has been updated.", false),
			call("5", "Read", readB), result("5", "B", false),
			call("6", "Read", map[string]any{"file_path": "/b.go", "offset": 10}), result("6", "B", false),
			call("7", "Bash", nil), result("7", strings.Repeat("é", 29_999), false), // 59,998 bytes
		}, []string{"keep", "keep", "suppress", "keep", "keep", "keep", "spill"}, harness.ClaudeReadStubOld},
		{"2.1.44", []map[string]any{
			call("1", "Bash", nil), result("1", strings.Repeat("é", 29_999), false),
		}, []string{"keep"}, ""},
		{"2.1.128", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", readA), result("2", "A", false),
		}, []string{"keep", "suppress"}, harness.ClaudeReadStub},
		// 2.1.317 stubs no Read.
		{"2.1.328", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", readA), result("2", "A", false),
		}, []string{"keep", "keep"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			s := generic(t, tt.msgs...)
			s.Format, s.Version = transcript.FormatClaude, tt.version
			rp, err := prepared(t, s).Replay(mustPreset(t, "claude-code"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, outcomes(rp)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			for _, r := range rp.Results {
				if r.Outcome == Suppressed {
					if r.Text != tt.stub {
						t.Errorf("stub %q, want %q", r.Text, tt.stub)
					}
					break
				}
			}
		})
	}
	// Claude Code's own cut, as 2.1.1 sent it.
	s := generic(t, call("1", "Bash", nil), result("1", x(30_001), false))
	s.Format, s.Version = transcript.FormatClaude, "2.1.1"
	rp, _ := prepared(t, s).Replay(mustPreset(t, "claude-code"), Options{})
	if r := rp.Results[0]; r.Text != x(30_000)+"\n\n... [1 lines truncated] ..." {
		t.Errorf("2.1.1's cut: %s, %q", r.Outcome, r.Text[29_990:])
	}
	// Another agent's version says nothing of Claude Code's: the latest rules.
	s = generic(t, call("1", "Bash", nil), result("1", big, false))
	s.Format, s.Version = transcript.FormatCodex, "0.144.1"
	rp, _ = prepared(t, s).Replay(mustPreset(t, "claude-code"), Options{})
	if r := rp.Results[0]; r.Outcome != Spilled {
		t.Errorf("a Codex 0.144.1 log under claude-code: %s (%s)", r.Outcome, r.Reason)
	}
	// A ceiling tuned by hand is kept, even where Claude Code persisted nothing.
	s = generic(t, call("1", "Bash", nil), result("1", big, false))
	s.Format, s.Version = transcript.FormatClaude, "1.0.17"
	tuned := mustPreset(t, "claude-code")
	tuned.SetCeiling(100_000) // Bash 60,000
	rp, _ = prepared(t, s).Replay(tuned, Options{})
	if r := rp.Results[0]; r.Outcome != Spilled || r.Reason != "66,000 UTF-16 units > 60,000 UTF-16 units" {
		t.Errorf("tuned on a 1.0.17 log: %s (%s)", r.Outcome, r.Reason)
	}
	// Output Claude Code cut itself is already shaped, under any era.
	cut := x(30_000) + "\n\n... [102 lines truncated] ..."
	s = generic(t, call("1", "Bash", nil), result("1", cut, false))
	rp, _ = prepared(t, s).Replay(mustPreset(t, "claude-code-2.1.51"), Options{})
	if r := rp.Results[0]; r.Outcome != Kept || !strings.Contains(r.Reason, "shaped it already") {
		t.Errorf("Claude Code's own cut: %s (%s)", r.Outcome, r.Reason)
	}
}

// TestSweepByVersion: under a policy that follows the Claude Code
// version, each point of a sweep is what report --max-bytes gives at its
// ceiling (report's TestSweepMatchesReport checks that over the shared
// logs): at the preset's own ceiling (the latest version's 50,000)
// the session's version's own rules, 100,000 for 2.1.22 and none for
// 1.0.17, and at any other the ceiling as set. Every point is at the
// ceiling asked for, so that a chart waiting for 50,000 completes, and
// its own point is what the totals under the preset say.
func TestSweepByVersion(t *testing.T) {
	big := strings.Repeat("0123456789\n", 6000) // 66,000 characters
	asked := []int64{32 << 10, 50_000, 100_000, 256 << 10}
	for _, tt := range []struct {
		version string
		applied int64 // the ceiling the version applied
		spilled []int // at each ceiling asked
	}{
		{"2.1.22", 100_000, []int{1, 0, 0, 0}},
		{"1.0.17", 0, []int{1, 0, 0, 0}},
		{"2.1.158", 50_000, []int{1, 1, 0, 0}},
	} {
		t.Run(tt.version, func(t *testing.T) {
			s := generic(t, call("1", "WebFetch", nil), result("1", big, false))
			s.Format, s.Version = transcript.FormatClaude, tt.version
			p := prepared(t, s)
			pol := mustPreset(t, "claude-code")
			if got := p.Applied(pol).Ceiling; got != tt.applied {
				t.Errorf("applied ceiling %d, want %d", got, tt.applied)
			}
			pts, err := p.Sweep(pol, asked, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var ceilings []int64
			var acted []int
			for i, pt := range pts {
				ceilings = append(ceilings, pt.Ceiling)
				acted = append(acted, pt.Acted)
				if own := asked[i] == 50_000; pt.Own != own {
					t.Errorf("point at %d: own %v, want %v", asked[i], pt.Own, own)
				}
			}
			if diff := cmp.Diff(asked, ceilings); diff != "" {
				t.Errorf("points' ceilings (-asked +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.spilled, acted); diff != "" {
				t.Errorf("results shaped (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAgentCopiesSendNothing: in a 2.1.38 parent log that copies its
// sub-agent's two calls (testdata/claude/agent-progress-2.1.38.jsonl), the
// Task's result is first sent by the log's next own call (3), not by a
// copied call of the sub-agent's, which carries none of the log's results:
// what a policy takes out of the result is taken from call 3 and after.
func TestAgentCopiesSendNothing(t *testing.T) {
	s, err := transcript.ReadFile("../../testdata/claude/agent-progress-2.1.38.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Replayed as another harness's log: through Claude Code's hook a
	// Task's output is left as it is, and this is about where a cut counts.
	s.Format = transcript.FormatCodex
	pol := mustPreset(t, "harness-rs-0.0.40")
	pol.SetCeiling(16)
	rp, err := prepared(t, s).Replay(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rp.Results[0]
	if r.Outcome != Truncated || r.SentAt != 3 {
		t.Fatalf("the Task's result: %s, sent at call %d; want truncated, sent at call 3", r.Outcome, r.SentAt)
	}
	for i, c := range rp.Calls {
		want := int64(0)
		if i == 3 {
			want = r.Saved
		}
		if got := c.Saved(); got != want || r.Saved <= 0 {
			t.Errorf("call %d saves %d tokens, want %d (the result saves %d)", i, got, want, r.Saved)
		}
	}
}
