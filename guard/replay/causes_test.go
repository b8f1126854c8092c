package replay

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// TestCauses splits calls by why they were paid, each figure by hand from
// the table's per-token rates.
func TestCauses(t *testing.T) {
	at := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	type want struct {
		newUSD, carried, rewrite, long, output float64
		newTok, carriedTok, rewriteTok, growth int64
		after                                  int
		cause                                  string
	}
	tests := []struct {
		name  string
		calls []transcript.Call
		want  want // of the last call
		why   RewriteCause
	}{
		{
			// The call of docs/policies.md: one-hour writes on claude-opus-4-5 (write 1e-5,
			// read 5e-7, output 2.5e-5), a minute after a call whose prompt
			// was 7,603 tokens smaller: 7,603 of the 112,915 written are new,
			// 105,312 written again.
			name: "cache rewrite",
			calls: []transcript.Call{
				{Model: "claude-opus-4-5", Time: at, Usage: &transcript.Usage{Input: 3, CacheCreation: 6000, CacheCreation1h: 6000, CacheRead: 118_136, Output: 50}},
				{Model: "claude-opus-4-5", Time: at.Add(time.Minute), Usage: &transcript.Usage{Input: 3, CacheCreation: 112_915, CacheCreation1h: 112_915, CacheRead: 18_824, Output: 100}},
			},
			// new 7,603 × 1e-5; carried 18,824 × 5e-7 + 3 × 5e-6;
			// rewrite 105,312 × 1e-5; output 100 × 2.5e-5
			want: want{0.07603, 0.009427, 1.05312, 0, 0.0025, 7603, 18_827, 105_312, 7603, 0, CauseCacheRewrite},
			why:  RewritePrefix,
		},
		{
			// A rewrite small beside its prompt is still one (will-it-rain's
			// call 152 in the shared logs, on claude-sonnet-4-5: write
			// 3.75e-6, read 3e-7, input 3e-6, output 1.5e-5): the prompt grew
			// 167,321 − 158,905 = 8,416, and of the 13,176 written 4,760 were
			// there before, the prompt changed after its first 154,142.
			name: "small rewrite of a large prompt",
			calls: []transcript.Call{
				{Model: "claude-sonnet-4-5", Time: at, Usage: &transcript.Usage{Input: 1, CacheCreation: 970, CacheRead: 157_934, Output: 2}},
				{Model: "claude-sonnet-4-5", Time: at.Add(62 * time.Second), Usage: &transcript.Usage{Input: 3, CacheCreation: 13_176, CacheRead: 154_142, Output: 26}},
			},
			// new 8,416 × 3.75e-6; carried 154,142 × 3e-7 + 3 × 3e-6;
			// rewrite 4,760 × 3.75e-6; output 26 × 1.5e-5
			want: want{0.03156, 0.0462516, 0.01785, 0, 0.00039, 8416, 154_145, 4760, 8416, 0, CauseCarried},
			why:  RewritePrefix,
		},
		{
			// The same after a pause longer than the hour the cache lives.
			name: "cache expired",
			calls: []transcript.Call{
				{Model: "claude-opus-4-5", Time: at, Usage: &transcript.Usage{Input: 3, CacheCreation: 6000, CacheCreation1h: 6000, CacheRead: 118_136, Output: 50}},
				{Model: "claude-opus-4-5", Time: at.Add(61 * time.Minute), Usage: &transcript.Usage{Input: 3, CacheCreation: 112_915, CacheCreation1h: 112_915, CacheRead: 18_824, Output: 100}},
			},
			want: want{0.07603, 0.009427, 1.05312, 0, 0.0025, 7603, 18_827, 105_312, 7603, 0, CauseCacheRewrite},
			why:  RewriteExpired,
		},
		{
			// Codex on gpt-5.5 (input 5e-6, cache read 5e-7, output 3e-5)
			// writes no cache: the prompt grew 6,000 − 5,000 = 1,000, all
			// uncached input; the other 200 uncached were there before.
			name: "codex",
			calls: []transcript.Call{
				{Model: "gpt-5.5", Usage: &transcript.Usage{Input: 5000, Output: 200}},
				{Model: "gpt-5.5", Usage: &transcript.Usage{Input: 1200, CacheRead: 4800, Output: 100}},
			},
			// new 1,000 × 5e-6; carried 200 × 5e-6 + 4,800 × 5e-7; output 100 × 3e-5
			want: want{0.005, 0.0034, 0, 0, 0.003, 1000, 5000, 0, 1000, 0, CauseNewContext},
		},
		{
			// gpt-5.4 past 272K prices the whole request at input 5e-6, cache
			// read 5e-7, output 2.25e-5 instead of 2.5e-6, 2.5e-7, 1.5e-5.
			// At base rates: new 50,000 × 2.5e-6, carried 250,000 × 2.5e-7,
			// output 100 × 1.5e-5 = $0.189; billed 0.25 + 0.125 + 0.00225 =
			// $0.37725, so the tier adds $0.18825.
			name: "long-context tier",
			calls: []transcript.Call{
				{Model: "gpt-5.4", Usage: &transcript.Usage{Input: 50_000, CacheRead: 250_000, Output: 100}},
			},
			want: want{0.125, 0.0625, 0, 0.18825, 0.0015, 50_000, 250_000, 0, 300_000, -1, CauseLongContext},
		},
		{
			// claude-sonnet-4 tiers each kind past 200K: 240,000 cache writes
			// cost 200,000 × 3.75e-6 + 40,000 × 7.5e-6 = $1.05, $0.15 above
			// 240,000 × 3.75e-6.
			name: "per-kind tier",
			calls: []transcript.Call{
				{Model: "claude-sonnet-4", Usage: &transcript.Usage{Input: 10, CacheCreation: 240_000, Output: 100}},
			},
			// new 240,000 × 3.75e-6 + 10 × 3e-6; output 100 × 1.5e-5
			want: want{0.90003, 0, 0, 0.15, 0.0015, 240_010, 0, 0, 240_010, -1, CauseNewContext},
		},
		{
			// After a compaction the prompt starts over: the summary written
			// to the cache is new context, not a rewrite, though the prompt
			// shrank (claude-sonnet-4-5: write 3.75e-6, read 3e-7).
			name: "compaction",
			calls: []transcript.Call{
				{Model: "claude-sonnet-4-5", Usage: &transcript.Usage{Input: 5, CacheCreation: 1000, CacheRead: 150_000, Output: 10}},
				{Model: "claude-sonnet-4-5", Segment: 1, Usage: &transcript.Usage{Input: 5, CacheCreation: 20_000, CacheRead: 12_000, Output: 10}},
			},
			// new 20,000 × 3.75e-6 + 5 × 3e-6; carried 12,000 × 3e-7; output 10 × 1.5e-5
			want: want{0.075015, 0.0036, 0, 0, 0.00015, 20_005, 12_000, 0, 32_005, -1, CauseNewContext},
		},
		{
			// A model switch does too: each model has a cache of its own.
			name: "model switch",
			calls: []transcript.Call{
				{Model: "claude-opus-4-5", Usage: &transcript.Usage{Input: 5, CacheCreation: 1000, CacheRead: 30_000, Output: 10}},
				{Model: "claude-sonnet-4-5", Usage: &transcript.Usage{Input: 5, CacheCreation: 31_000, Output: 10}},
			},
			// new 31,000 × 3.75e-6 + 5 × 3e-6; output 10 × 1.5e-5
			want: want{0.116265, 0, 0, 0, 0.00015, 31_005, 0, 0, 31_005, -1, CauseNewContext},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Prepare(context.Background(), &transcript.Session{Calls: tt.calls}, nil, pricing.Default(), nil)
			if err != nil {
				t.Fatal(err)
			}
			last := len(tt.calls) - 1
			got := p.CostParts()[last]
			cs, w := got.Causes, tt.want
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"new context", cs.NewContext, w.newUSD}, {"carried", cs.Carried, w.carried}, {"cache rewrite", cs.CacheRewrite, w.rewrite},
				{"long context", cs.LongContext, w.long}, {"output", cs.Output, w.output}} {
				if math.Abs(c.got-c.want) > 1e-12 {
					t.Errorf("%s = %.9f, want %.9f", c.name, c.got, c.want)
				}
			}
			if cs.NewTokens != w.newTok || cs.CarriedTokens != w.carriedTok || cs.RewriteTokens != w.rewriteTok || cs.Growth != w.growth || cs.After != w.after {
				t.Errorf("tokens new %d carried %d rewrite %d growth %d after %d; want %d %d %d %d %d",
					cs.NewTokens, cs.CarriedTokens, cs.RewriteTokens, cs.Growth, cs.After, w.newTok, w.carriedTok, w.rewriteTok, w.growth, w.after)
			}
			if math.Abs(cs.Sum()-*p.costs[last]) > 1e-9 {
				t.Errorf("causes sum to %.9f, cost %.9f", cs.Sum(), *p.costs[last])
			}
			if got.Cause() != w.cause {
				t.Errorf("cause %q, want %q", got.Cause(), w.cause)
			}
			switch rw := got.Rewrite; {
			case tt.why == "" && rw != nil:
				t.Errorf("rewrite %+v", rw)
			case tt.why != "" && (rw == nil || rw.Why != tt.why || rw.Tokens != w.rewriteTok || rw.USD != cs.CacheRewrite || rw.Grew != w.growth):
				t.Errorf("rewrite %+v, want %s", rw, tt.why)
			}
		})
	}
}

// TestCausesAddUpToCost holds for every row of the table, on calls either
// side of each tier, with and without a rewrite.
func TestCausesAddUpToCost(t *testing.T) {
	usages := []transcript.Usage{
		{Input: 3, CacheCreation: 14_197, Output: 96},
		{Input: 210_000, CacheCreation: 250_000, CacheCreation1h: 220_000, CacheRead: 230_000, Output: 201_000},
		{Input: 10_000, CacheRead: 270_000, Output: 500, Fast: true},
		{CacheCreation1h: 5_000, Output: 1},
		{Input: 2, CacheCreation: 90_000, CacheRead: 1000, Output: 3},
	}
	table := pricing.Default()
	for _, model := range table.Models() {
		calls := make([]transcript.Call, len(usages))
		for i := range usages {
			calls[i] = transcript.Call{Model: model, Usage: &usages[i]}
		}
		p, err := Prepare(context.Background(), &transcript.Session{Calls: calls}, nil, table, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, cp := range p.CostParts() {
			if cost, _ := table.Cost(model, usages[i]); cp == nil || math.Abs(cp.Causes.Sum()-cost) > 1e-9 {
				t.Fatalf("%s call %d: causes %+v, cost %.12f", model, i, cp, cost)
			}
		}
	}
}
