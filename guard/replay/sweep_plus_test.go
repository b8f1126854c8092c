package replay

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
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

// TestChartCeilings: the chart's ceilings are those the keys reach from
// its anchor, within 2 KiB to 256 KiB (a quarter in tokens), and the
// policy's own, by hand.
func TestChartCeilings(t *testing.T) {
	at := func(unit policy.Unit, ceiling int64) policy.Policy {
		return policy.Policy{Unit: unit, Ceiling: ceiling}
	}
	for _, tt := range []struct {
		name   string
		pol    policy.Policy
		anchor int64
		want   []int64
	}{
		{"24 KiB of JSON", at(policy.JSONBytes, 24576), 0, []int64{3072, 6144, 12288, 24576, 49152, 98304, 196608}},
		{"halved twice", at(policy.JSONBytes, 6144), 24576, []int64{3072, 6144, 12288, 24576, 49152, 98304, 196608}},
		{"off the anchor's", at(policy.JSONBytes, 20000), 24576, []int64{3072, 6144, 12288, 20000, 24576, 49152, 98304, 196608}},
		{"tokens", at(policy.Tokens, 6144), 0, []int64{768, 1536, 3072, 6144, 12288, 24576, 49152}},
		{"halved rounding down", at(policy.UTF8Bytes, 30001), 0, []int64{3750, 7500, 15000, 30001, 60002, 120004, 240008}},
		{"below the range", at(policy.UTF8Bytes, 1000), 0, []int64{1000, 4000, 8000, 16000, 32000, 64000, 128000, 256000}},
		{"an anchor below the range", at(policy.UTF8Bytes, 4000), 1000, []int64{4000, 8000, 16000, 32000, 64000, 128000, 256000}},
		{"above the range", at(policy.UTF8Bytes, 1<<20), 0, []int64{2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 1 << 20}},
		{"the largest ceiling", at(policy.UTF8Bytes, math.MaxInt64), 0, []int64{
			math.MaxInt64 >> 51, math.MaxInt64 >> 50, math.MaxInt64 >> 49, math.MaxInt64 >> 48,
			math.MaxInt64 >> 47, math.MaxInt64 >> 46, math.MaxInt64 >> 45, math.MaxInt64}},
		{"no ceiling", at(policy.UTF8Bytes, 0), 24576, []int64{2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144}},
	} {
		if got := ChartCeilings(tt.pol, tt.anchor); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPartsPoint: a session's point adds its parts' counts and the
// dollars of the parts that record usage, by hand: a session whose own log
// records none takes its sub-agents'; one part that records usage without
// a price makes them unknown; none recording any leaves them unknown.
func TestPartsPoint(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	own := SweepPoint{Ceiling: 2048, Own: true, Acted: 1, Saved: 10}
	sub := SweepPoint{Ceiling: 2048, Acted: 2, Saved: 5, Cost: usd(0.25), CostAfter: usd(0.125)}
	other := SweepPoint{Ceiling: 2048, Saved: 1, Cost: usd(0.5), CostAfter: usd(0.5)}
	for _, tt := range []struct {
		name  string
		pts   []SweepPoint
		usage []bool
		want  SweepPoint
	}{
		{"usage in the sub-agents alone", []SweepPoint{own, sub, other}, []bool{false, true, true},
			SweepPoint{Ceiling: 2048, Own: true, Acted: 3, Saved: 16, Cost: usd(0.75), CostAfter: usd(0.625)}},
		{"a part without a price", []SweepPoint{sub, own, other}, []bool{true, true, true},
			SweepPoint{Ceiling: 2048, Acted: 3, Saved: 16}},
		{"no usage anywhere", []SweepPoint{own, own}, []bool{false, false},
			SweepPoint{Ceiling: 2048, Own: true, Acted: 2, Saved: 20}},
	} {
		if d := cmp.Diff(tt.want, PartsPoint(tt.pts, tt.usage)); d != "" {
			t.Errorf("%s (-by hand +got):\n%s", tt.name, d)
		}
	}
	if *sub.Cost != 0.25 {
		t.Errorf("PartsPoint changed a part's cost: %v", *sub.Cost)
	}
}
