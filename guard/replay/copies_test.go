package replay

import (
	"math"
	"testing"

	"github.com/spillway-dev/spillway/transcript"
)

// TestCopiesAndExtra replays TestCostAfter's session with its second call
// marked a copy of a response another session counts, and an advisor's
// usage on its third: the copy keeps its figures and carries its result,
// but no total and no carry cost adds it; the advisor's usage is priced
// with its model and added to both totals, before and after alike.
func TestCopiesAndExtra(t *testing.T) {
	build := func(advisor string) *transcript.Session {
		s := costAfterSession(t)
		s.Calls[1].CountedIn = "other.jsonl"
		s.Calls[2].Extra = []transcript.ModelUsage{{Model: advisor, Usage: transcript.Usage{Input: 1000, Output: 100}}}
		return s
	}
	pol := cut448Policy(t)
	rp, err := prepared(t, build("claude-sonnet-4-5")).Replay(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The copy shows what it would cost, before and after, as in TestCostAfter.
	if c := rp.Calls[1]; math.Abs(*c.Cost-0.003183) > 1e-12 || math.Abs(*c.CostAfter-0.001503) > 1e-12 || c.Saved() != 448 {
		t.Errorf("copy: cost %.7f → %.7f, saved %d; want 0.003183 → 0.001503, 448", *c.Cost, *c.CostAfter, c.Saved())
	}
	// Calls 0 and 2 ($0.009030, $0.0014505 → $0.0013161) and the advisor's
	// 1,000 input and 100 output tokens: 1000 × 3e-6 + 100 × 1.5e-5 = $0.0045.
	tot := rp.Totals
	if tot.Cost == nil || math.Abs(*tot.Cost-(0.009030+0.0014505+0.0045)) > 1e-12 ||
		math.Abs(*tot.CostAfter-(0.009030+0.0013161+0.0045)) > 1e-12 {
		t.Errorf("totals %v → %v, want 0.0149805 → 0.0148461", tot.Cost, tot.CostAfter)
	}
	// Prompts of calls 0 and 2: 2,010 and 2,670, less the 448 saved at call 2.
	if tot.Prompt != 4680 || tot.PromptAfter != 4680-448 || tot.SavedPerCall != 448 || tot.RecordedCalls != 2 {
		t.Errorf("prompt %d → %d, saved %d over %d calls; want 4680 → 4232, 448 over 2", tot.Prompt, tot.PromptAfter, tot.SavedPerCall, tot.RecordedCalls)
	}
	// The result's 500 tokens were written at the copy, billed elsewhere,
	// and read at call 2: 500 × 3e-7 over one call.
	if r := rp.Results[0]; r.CarryCalls != 1 || math.Abs(r.CarryCost-500*3e-7) > 1e-12 {
		t.Errorf("carry %d calls, $%.7f; want 1, $0.00015", r.CarryCalls, r.CarryCost)
	}

	rp, err = prepared(t, build("no-such-model")).Replay(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rp.Totals.Cost != nil || rp.Totals.CostAfter != nil {
		t.Errorf("an advisor model without a price: totals %v → %v, want unknown", rp.Totals.Cost, rp.Totals.CostAfter)
	}
}
