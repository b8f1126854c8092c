package pricing

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/transcript"
)

func TestParts(t *testing.T) {
	tests := []struct {
		name  string
		model string
		usage transcript.Usage
		want  Parts // computed by hand from the table's per-token rates
	}{
		{"flat sonnet 4.5", "claude-sonnet-4-5",
			transcript.Usage{Input: 3, CacheCreation: 1000, CacheRead: 5000, Output: 1},
			// 3×3e-6, 1000×3.75e-6, 5000×3e-7, 1×1.5e-5
			Parts{Input: 0.000009, CacheWrite: 0.00375, CacheRead: 0.0015, Output: 0.000015}},
		{"both cache lifetimes are one part", "claude-sonnet-4-5",
			transcript.Usage{Input: 5, CacheCreation: 2000, CacheCreation1h: 500, CacheRead: 6000, Output: 50},
			// 1500×3.75e-6 + 500×6e-6
			Parts{Input: 0.000015, CacheWrite: 0.005625 + 0.003, CacheRead: 0.0018, Output: 0.00075}},
		{"200K tier per kind", "claude-sonnet-4",
			transcript.Usage{Input: 250_000, CacheRead: 150_000},
			Parts{Input: 0.6 + 0.3, CacheRead: 0.045}},
		{"272K tier and fast mode on every part", "gpt-5.4",
			transcript.Usage{Input: 50_000, CacheRead: 250_000, Output: 100, Fast: true},
			// ×2: 50,000×5e-6, 250,000×5e-7, 100×2.25e-5
			Parts{Input: 0.5, CacheRead: 0.25, Output: 0.0045}},
	}
	table := Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := table.Parts(tt.model, tt.usage)
			if !ok {
				t.Fatalf("%s has no price", tt.model)
			}
			for _, c := range []struct {
				kind      string
				got, want float64
			}{{"input", got.Input, tt.want.Input}, {"cache write", got.CacheWrite, tt.want.CacheWrite},
				{"cache read", got.CacheRead, tt.want.CacheRead}, {"output", got.Output, tt.want.Output}} {
				if math.Abs(c.got-c.want) > 1e-12 {
					t.Errorf("%s = %.12f, want %.12f", c.kind, c.got, c.want)
				}
			}
		})
	}
	if _, ok := table.Parts("no-such-model", transcript.Usage{Input: 1}); ok {
		t.Error("an unknown model is priced")
	}
}

// tierEdges are usages either side of every tier: each token kind at and
// one past 200K, prompts at and one past 272K, one-hour writes, fast mode.
var tierEdges = []transcript.Usage{
	{Input: 3, CacheCreation: 14_197, Output: 96},
	{Input: 200_000}, {Input: 200_001},
	{Output: 200_000}, {Output: 200_001},
	{CacheRead: 200_000}, {CacheRead: 200_001},
	{CacheCreation: 200_000}, {CacheCreation: 200_001},
	{CacheCreation: 200_001, CacheCreation1h: 200_000}, {CacheCreation: 200_001, CacheCreation1h: 200_001},
	{Input: 22_000, CacheRead: 250_000, Output: 10}, {Input: 22_001, CacheRead: 250_000, Output: 10},
	{Input: 1, CacheCreation: 272_000, CacheCreation1h: 1_000}, {Input: 1, CacheCreation: 272_000, CacheCreation1h: 1_000, Fast: true},
	{Input: 210_000, CacheCreation: 250_000, CacheCreation1h: 220_000, CacheRead: 230_000, Output: 201_000},
	{Input: 10_000, CacheRead: 270_000, Output: 500, Fast: true},
	{CacheCreation: 5_000, CacheCreation1h: 5_000, Output: 1},
}

// TestCostIsSumOfParts: Cost and Parts price from the same rates, for
// every row of every layer of the table, either side of each tier.
func TestCostIsSumOfParts(t *testing.T) {
	for _, l := range Default().layers {
		for name, e := range l.models {
			for _, u := range tierEdges {
				cost, parts := e.Cost(u), e.Parts(u)
				if math.Abs(parts.Sum()-cost) > 1e-12*math.Max(1, cost) {
					t.Fatalf("%s %+v: parts %+v sum to %.15f, cost %.15f", name, u, parts, parts.Sum(), cost)
				}
				// Below every tier the base parts are the parts.
				if base := e.BaseParts(u); u.Prompt() <= perKindThreshold && u.Output <= perKindThreshold && base != parts {
					t.Errorf("%s %+v: base parts %+v, parts %+v", name, u, base, parts)
				}
			}
		}
	}
}

// TestTierEdges pins Cost and Parts at the tier boundaries to hand
// computations from the table's per-token rates.
func TestTierEdges(t *testing.T) {
	table := Default()
	entry := func(model string) Entry {
		m, ok := table.Match(model)
		if !ok {
			t.Fatalf("%s has no price", model)
		}
		return m.Entry
	}
	// An OpenRouter-style row: 200K tiers, no one-hour write rate of its own.
	noOneHour := Entry{Input: 3e-6, Output: 1.5e-5, CacheRead: rate(3e-7), CacheWrite: rate(3.75e-6),
		InputAbove200k: rate(6e-6), OutputAbove200k: rate(2.25e-5), CacheReadAbove200k: rate(6e-7), CacheWriteAbove200k: rate(7.5e-6)}
	tests := []struct {
		name  string
		entry Entry
		usage transcript.Usage
		want  Parts
	}{
		{"input at 200K stays at base", entry("claude-sonnet-4"), transcript.Usage{Input: 200_000},
			Parts{Input: 0.6}}, // 200,000×3e-6
		{"one input token past 200K", entry("claude-sonnet-4"), transcript.Usage{Input: 200_001},
			Parts{Input: 0.600006}}, // + 1×6e-6
		{"output past 200K", entry("claude-sonnet-4"), transcript.Usage{Output: 200_001},
			Parts{Output: 3 + 0.0000225}}, // 200,000×1.5e-5 + 1×2.25e-5
		{"cache read past 200K", entry("claude-sonnet-4-5"), transcript.Usage{CacheRead: 200_001},
			Parts{CacheRead: 0.06 + 0.0000006}}, // 200,000×3e-7 + 1×6e-7
		{"5-minute writes past 200K", entry("claude-sonnet-4-5"), transcript.Usage{CacheCreation: 200_001},
			Parts{CacheWrite: 0.75 + 0.0000075}}, // 200,000×3.75e-6 + 1×7.5e-6
		{"1-hour writes past 200K at their own rate", entry("claude-sonnet-4-5"), transcript.Usage{CacheCreation: 200_001, CacheCreation1h: 200_001},
			Parts{CacheWrite: 1.2 + 0.000012}}, // 200,000×6e-6 + 1×1.2e-5
		{"1-hour writes without a rate: twice the input's, either side of 200K", noOneHour, transcript.Usage{CacheCreation: 200_001, CacheCreation1h: 200_001},
			Parts{CacheWrite: 1.2 + 0.000012}}, // 200,000×2×3e-6 + 1×2×6e-6
		{"no cache rates: the input's", entry("o3"), transcript.Usage{CacheCreation: 2_000, CacheCreation1h: 1_000},
			Parts{CacheWrite: 0.002 + 0.004}}, // 1,000×2e-6 + 1,000×2×2e-6
		{"prompt at 272K stays at base", entry("gpt-5.4"), transcript.Usage{Input: 22_000, CacheRead: 250_000, Output: 10},
			Parts{Input: 0.055, CacheRead: 0.0625, Output: 0.00015}}, // 22,000×2.5e-6, 250,000×2.5e-7, 10×1.5e-5
		{"prompt one past 272K reprices all of it", entry("gpt-5.4"), transcript.Usage{Input: 22_001, CacheRead: 250_000, Output: 10},
			Parts{Input: 0.110005, CacheRead: 0.125, Output: 0.000225}}, // 22,001×5e-6, 250,000×5e-7, 10×2.25e-5
		{"272K write rate, 1-hour writes not repriced, fast ×2", entry("gpt-5.6-luna"), transcript.Usage{Input: 1, CacheCreation: 272_000, CacheCreation1h: 1_000, Fast: true},
			// (1×4e-7, 271,000×5e-7 + 1,000×2×2e-7) × 2
			Parts{Input: 0.0000008, CacheWrite: (0.1355 + 0.0004) * 2}},
		{"272K tier has no 200K tier inside it", entry("gpt-5.5"), transcript.Usage{Input: 272_001},
			Parts{Input: 2.72001}}, // 272,001×1e-5
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.entry.Parts(tt.usage)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			if cost := tt.entry.Cost(tt.usage); math.Abs(cost-tt.want.Sum()) > 1e-12 {
				t.Errorf("cost = %.12f, want %.12f", cost, tt.want.Sum())
			}
		})
	}
}

// TestBaseParts: past a tier, every token at the base rate.
func TestBaseParts(t *testing.T) {
	table := Default()
	m, _ := table.Match("gpt-5.4")
	// 50,000 × 2.5e-6, 250,000 × 2.5e-7, 100 × 1.5e-5
	got := m.Entry.BaseParts(transcript.Usage{Input: 50_000, CacheRead: 250_000, Output: 100})
	if want := (Parts{Input: 0.125, CacheRead: 0.0625, Output: 0.0015}); math.Abs(got.Input-want.Input)+math.Abs(got.CacheRead-want.CacheRead)+math.Abs(got.Output-want.Output)+math.Abs(got.CacheWrite) > 1e-12 {
		t.Errorf("base parts %+v, want %+v", got, want)
	}
}
