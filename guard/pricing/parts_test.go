package pricing

import (
	"math"
	"testing"

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

// TestPartsAddUpToCost holds for every row of the table, on usages either
// side of each tier.
func TestPartsAddUpToCost(t *testing.T) {
	usages := []transcript.Usage{
		{Input: 3, CacheCreation: 14_197, CacheRead: 0, Output: 96},
		{Input: 210_000, CacheCreation: 250_000, CacheCreation1h: 220_000, CacheRead: 230_000, Output: 201_000},
		{Input: 10_000, CacheRead: 270_000, Output: 500, Fast: true},
		{CacheCreation1h: 5_000, Output: 1},
	}
	table := Default()
	for _, model := range table.Models() {
		for _, u := range usages {
			cost, _ := table.Cost(model, u)
			parts, _ := table.Parts(model, u)
			if math.Abs(parts.Sum()-cost) > 1e-9 {
				t.Fatalf("%s %+v: parts %+v sum to %.12f, cost %.12f", model, u, parts, parts.Sum(), cost)
			}
			// Below every tier the base parts are the parts.
			m, _ := table.Match(model)
			if base := m.Entry.BaseParts(u); u.Prompt() <= 200_000 && u.Output <= 200_000 && base != parts {
				t.Errorf("%s %+v: base parts %+v, parts %+v", model, u, base, parts)
			}
		}
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
