package app

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestSpillBeforeClaudePersisted: claude-code tuned to spill on a session
// of 1.0.17, when Claude Code persisted nothing, spills as the latest
// Claude Code names its files, in report's replay (spill files planned) as
// in the list's and chart's (counts only). The chart counted spills there
// that report could not name a file for, and kept with a warning: 7.7%
// saved at a ceiling where report said nothing was.
func TestSpillBeforeClaudePersisted(t *testing.T) {
	path := sharedtest.Transcripts(t, "claude-code_sniffly_v1.0.17-*.jsonl")[0]
	s, err := transcript.ReadFile(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := policy.Preset("claude-code")
	pol = replay.ForSession(pol, s)
	if err := pol.SetSpill(true); err != nil {
		t.Fatal(err)
	}
	pol.SetCeiling(25_000) // as the inspector's - twice: its per-tool ceilings halved too
	pol.SetCeiling(12_500)
	planned, _, err := Options{SpillRoot: filepath.Join(t.TempDir(), "spill")}.ReplayPlanned(p, pol)
	if err != nil {
		t.Fatal(err)
	}
	counted, err := p.Replay(pol, replay.Options{CountsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	spilled := 0
	for i, r := range planned.Results {
		if o := counted.Results[i].Outcome; r.Outcome != o {
			t.Errorf("result %d: %s planned, %s counted", i, r.Outcome, o)
		}
		if r.Outcome == replay.Spilled {
			spilled++
		}
	}
	if spilled == 0 || planned.Totals.SpillFailures != 0 || len(planned.Warnings) != 0 {
		t.Errorf("%d results spilled, %d failures, warnings %q", spilled, planned.Totals.SpillFailures, planned.Warnings)
	}
	if planned.Totals.PromptAfter != counted.Totals.PromptAfter || planned.Totals.PromptAfter >= planned.Totals.Prompt {
		t.Errorf("prompt tokens after: %d planned, %d counted, %d before", planned.Totals.PromptAfter, counted.Totals.PromptAfter, planned.Totals.Prompt)
	}
}
