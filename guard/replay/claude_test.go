package replay

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/transcript"
)

// TestClaudeByVersion: the claude-code preset replays a session as the
// Claude Code version that recorded it did.
func TestClaudeByVersion(t *testing.T) {
	readA := map[string]any{"file_path": "/a.go"}
	readB := map[string]any{"file_path": "/b.go"}
	big := strings.Repeat("0123456789\n", 6000) // 66,000 characters
	huge := big + big                           // 132,000
	// Claude Code before 2.1.2 cut Bash output at 30,000 characters itself.
	cut := strings.Repeat("x", 30_000) + "\n\n... [102 lines truncated] ..."
	tests := []struct {
		version string
		msgs    []map[string]any
		want    []string
		stub    string // the text of the first suppressed result
	}{
		{"1.0.17", []map[string]any{
			call("1", "Bash", nil), result("1", big, false),
			call("2", "Read", readA), result("2", "A", false),
			call("3", "Read", readA), result("3", "A", false),
		}, []string{"keep", "keep", "keep"}, ""},
		{"2.1.22", []map[string]any{
			call("1", "WebFetch", nil), result("1", big, false), // 66,000 ≤ 100,000
			call("2", "WebFetch", nil), result("2", huge, false),
			call("3", "Bash", nil), result("3", big, false),
			call("4", "Read", readA), result("4", "A", false),
			call("5", "Read", readA), result("5", "A", false),
		}, []string{"keep", "spill", "spill", "keep", "keep"}, ""},
		{"2.1.112", []map[string]any{
			call("1", "WebFetch", nil), result("1", big, false), // over 50,000
			call("2", "Write", readA), result("2", "File created successfully at: /a.go", false),
			call("3", "Read", readA), result("3", "A", false),
			call("4", "Edit", readB), result("4", "The file /b.go has been updated.", false),
			call("5", "Read", readB), result("5", "B", false),
			call("6", "Read", map[string]any{"file_path": "/b.go", "offset": 10}), result("6", "B", false),
		}, []string{"spill", "keep", "suppress", "keep", "suppress", "keep"}, harness.ClaudeReadStubOld},
		{"2.1.147", []map[string]any{
			call("1", "Edit", readB), result("1", "The file /b.go has been updated.", false),
			call("2", "Read", readB), result("2", "B", false),
			call("3", "Read", readB), result("3", "B", false),
		}, []string{"keep", "keep", "suppress"}, harness.ClaudeReadStubOld},
		{"2.1.158", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", readA), result("2", "A", false),
		}, []string{"keep", "suppress"}, harness.ClaudeReadStub},
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
	// Another agent's version says nothing of Claude Code's: the latest rules.
	s := generic(t, call("1", "Bash", nil), result("1", big, false))
	s.Format, s.Version = transcript.FormatCodex, "0.144.1"
	rp, _ := prepared(t, s).Replay(mustPreset(t, "claude-code"), Options{})
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
	s = generic(t, call("1", "Bash", nil), result("1", cut, false))
	rp, _ = prepared(t, s).Replay(mustPreset(t, "claude-code-2.1.51"), Options{})
	if r := rp.Results[0]; r.Outcome != Kept || !strings.Contains(r.Reason, "shaped it already") {
		t.Errorf("Claude Code's own cut: %s (%s)", r.Outcome, r.Reason)
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
