package realharness

import (
	"strings"
	"testing"
)

// The stand-ins carry a tool call to each real harness and its result
// back, and each harness writes its log where it keeps them.
func TestRealClaudeRoundTrip(t *testing.T) {
	bin := ClaudeBin(t)
	run := RunClaude(t, bin, []Turn{{Calls: []Call{{ID: "toolu_01", Name: "Bash", Input: map[string]any{"command": "printf 'hello\\nworld'", "description": "greet"}}}}}, ClaudeOptions{})
	got := run.Standin.Results()["toolu_01"]
	if got.Text != "hello\nworld" || got.IsError {
		t.Errorf("Claude Code sent %q (error %v), want the command's output", got.Text, got.IsError)
	}
	if !strings.HasSuffix(run.Transcript, ".jsonl") {
		t.Errorf("transcript %q", run.Transcript)
	}
}

func TestRealCodexRoundTrip(t *testing.T) {
	bin := CodexBin(t)
	run := RunCodex(t, bin, []Turn{{Calls: []Call{{ID: "call_1", Name: "exec_command", Input: map[string]any{"cmd": "printf 'hello\\nworld'"}}}}}, CodexOptions{})
	got := run.Standin.Results()["call_1"]
	if !strings.HasSuffix(got.Text, "Output:\nhello\nworld") {
		t.Errorf("Codex sent %q, want its exec header and the command's output", got.Text)
	}
	if !strings.Contains(run.Transcript, "rollout-") {
		t.Errorf("transcript %q", run.Transcript)
	}
}
