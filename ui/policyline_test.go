package ui

import (
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/transcript"
)

// TestPolicyLineEra: under a preset that follows the harness version, the
// header names the rules of the session's own era and none it lacked:
// Claude Code stubbed repeated Reads from 2.1.86 to 2.1.316 only, cut
// output itself before 2.1.2 and persisted nothing other than Bash and
// Grep output before 2.1.6.
func TestPolicyLineEra(t *testing.T) {
	pol, err := policy.Preset("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ version, want string }{
		{"1.0.17", "policy claude-code · no ceiling · per-tool ceilings · truncate_head · no dedupe"},
		{"2.1.2", "policy claude-code · no ceiling · per-tool ceilings · spill · no dedupe"},
		{"2.1.22", "policy claude-code · ceiling 100,000 UTF-16 units · per-tool ceilings · spill · no dedupe"},
		{"2.1.112", "policy claude-code · ceiling 50,000 UTF-16 units · per-tool ceilings · spill · dedupe from the 2nd identical call"},
		{"2.1.316", "policy claude-code · ceiling 50,000 UTF-16 units · per-tool ceilings · spill · dedupe from the 2nd identical call"},
		{"2.1.328", "policy claude-code · ceiling 50,000 UTF-16 units · per-tool ceilings · spill · no dedupe"},
	} {
		s := &transcript.Session{Format: transcript.FormatClaude, Version: tt.version}
		if got := policyLine(replay.ForSession(pol, s), 200); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.version, got, tt.want)
		}
	}
	if got, want := policyLine(pol, 200), "policy claude-code · as the version that recorded each session did"; got != want {
		t.Errorf("no session: %q, want %q", got, want)
	}
}

// TestPolicyLineExcluded: the tools a policy leaves alone are counted
// once ("9 9 tools excluded" before).
func TestPolicyLineExcluded(t *testing.T) {
	for name, want := range map[string]string{
		"agentscope": "policy agentscope · ceiling 80,000 UTF-16 units · spill · no dedupe · 9 tools excluded",
		"deepseek":   "policy deepseek · ceiling 50,000 bytes · spill · no dedupe · 1 tool excluded",
	} {
		pol, err := policy.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := policyLine(pol, 200); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
