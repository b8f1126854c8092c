package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestNoSpillBeforeClaudePersisted: Claude Code before 2.1.2 wrote no spill
// file, so claude-code told to spill keeps a 1.0.17 session's results, and
// says so; report's replay (spill files planned) and the list's and
// chart's (counts only) find the same. The chart said 7.7% saved at the
// ceiling where report said nothing could be, for want of a file name.
func TestNoSpillBeforeClaudePersisted(t *testing.T) {
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
	kept := 0
	for i, r := range planned.Results {
		if o := counted.Results[i].Outcome; r.Outcome != o || r.Outcome == replay.Spilled {
			t.Errorf("result %d: %s planned, %s counted; none can be spilled", i, r.Outcome, o)
		}
		if strings.Contains(r.Reason, "Claude Code 1.0.17 writes no spill file") {
			kept++
		}
	}
	if kept == 0 || planned.Totals.SpillFailures != 0 || len(planned.Warnings) != 0 {
		t.Errorf("%d results kept for want of a spill file, %d failures, warnings %q", kept, planned.Totals.SpillFailures, planned.Warnings)
	}
	if planned.Totals.PromptAfter != counted.Totals.PromptAfter || planned.Totals.PromptAfter != planned.Totals.Prompt {
		t.Errorf("prompt tokens after: %d planned, %d counted, %d before", planned.Totals.PromptAfter, counted.Totals.PromptAfter, planned.Totals.Prompt)
	}
}
