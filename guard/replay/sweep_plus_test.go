package replay

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlus: a sub-agent's figures added to its session's, by hand; the
// dollars are known when every part that records usage has them.
func TestPlus(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	own := Totals{RecordedCalls: 12, Prompt: 231_900, PromptAfter: 231_000, SavedPerCall: 900, Cost: usd(0.0404), CostAfter: usd(0.0400),
		Results: 10, Actions: map[Outcome]int{Kept: 9, Spilled: 1}, Hazards: HazardCounts{UsedHidden: 1}}
	sub := Totals{RecordedCalls: 1, Prompt: 12_000, PromptAfter: 12_000, Cost: usd(0.0015), CostAfter: usd(0.0015),
		Actions: map[Outcome]int{Kept: 0}}
	got := own.Plus(sub)
	want := Totals{RecordedCalls: 13, Prompt: 243_900, PromptAfter: 243_000, SavedPerCall: 900, Cost: usd(0.0419), CostAfter: usd(0.0415),
		Results: 10, Actions: map[Outcome]int{Kept: 9, Spilled: 1}, Hazards: HazardCounts{UsedHidden: 1}, ByTool: map[string]ToolStat{}}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 })); d != "" {
		t.Errorf("(-by hand +got):\n%s", d)
	}
	if own.Actions[Spilled] != 1 || len(own.Actions) != 2 {
		t.Errorf("Plus changed its receiver's actions: %v", own.Actions)
	}
	// A part without usage adds no dollars; one with usage and no price
	// makes them unknown.
	if got := own.Plus(Totals{Results: 3}); *got.Cost != 0.0404 {
		t.Errorf("a part without usage: cost %v", *got.Cost)
	}
	if got := own.Plus(Totals{RecordedCalls: 1}); got.Cost != nil || got.CostAfter != nil {
		t.Errorf("an unpriced part: cost %v", got.Cost)
	}
	if got := (Totals{}).Plus(sub); *got.Cost != 0.0015 {
		t.Errorf("a session without usage and a sub-agent with: %v", *got.Cost)
	}
	pt := SweepPoint{Ceiling: 2048, Acted: 1, Saved: 10, Cost: usd(1), CostAfter: usd(0.5)}
	if got := pt.Plus(SweepPoint{Ceiling: 2048, Acted: 2, Saved: 5, Cost: usd(0.25), CostAfter: usd(0.25)}, true); got.Acted != 3 || got.Saved != 15 || *got.CostAfter != 0.75 {
		t.Errorf("points: %+v", got)
	}
}
