package replay

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestCostParts splits the worked example of docs/policies.md by hand, one token a word,
// on claude-sonnet-4-5 (input 3e-6, cache write 3.75e-6, cache read 3e-7,
// output 1.5e-5): the 500-word result after call 0 is new at call 1 (in
// its cache writes) and carried at call 2 (in its cache reads).
func TestCostParts(t *testing.T) {
	p := prepared(t, costAfterSession(t))
	type want struct {
		input, write, read, output, results float64
		fresh, carried                      int64
		cause                               string
	}
	wants := []want{
		// The prompt grows 2,010 (the first), 610, then 50 tokens: new
		// context from the cache writes, then the uncached input; call 1's
		// is mostly the result.
		{10 * 3e-6, 2000 * 3.75e-6, 0, 100 * 1.5e-5, 0, 0, 0, CauseNewContext},
		{10 * 3e-6, 600 * 3.75e-6, 2010 * 3e-7, 20 * 1.5e-5, 500 * 3.75e-6, 500, 0, CauseNewResults},
		{10 * 3e-6, 50 * 3.75e-6, 2610 * 3e-7, 30 * 1.5e-5, 500 * 3e-7, 0, 500, CauseCarried},
	}
	parts := p.CostParts()
	if len(parts) != len(wants) {
		t.Fatalf("%d calls split, want %d", len(parts), len(wants))
	}
	for i, w := range wants {
		got := parts[i]
		if got == nil || !got.ToolResultsKnown {
			t.Fatalf("call %d: %+v", i, got)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"input", got.Input, w.input}, {"cache write", got.CacheWrite, w.write}, {"cache read", got.CacheRead, w.read},
			{"output", got.Output, w.output}, {"tool results", got.ToolResults, w.results}} {
			if math.Abs(c.got-c.want) > 1e-12 {
				t.Errorf("call %d %s = %.9f, want %.9f", i, c.name, c.got, c.want)
			}
		}
		if got.NewResultTokens != w.fresh || got.CarriedResultTokens != w.carried || got.Cause() != w.cause {
			t.Errorf("call %d: results %d new, %d carried, cause %q; want %d, %d, %q", i, got.NewResultTokens, got.CarriedResultTokens, got.Cause(), w.fresh, w.carried, w.cause)
		}
		if math.Abs(got.Sum()-*p.costs[i]) > 1e-12 || math.Abs(got.Causes.Sum()-*p.costs[i]) > 1e-12 {
			t.Errorf("call %d: parts sum to %.9f, cost %.9f", i, got.Sum(), *p.costs[i])
		}
	}
}

// TestCostPartsCauses: tool results spread over two kinds outweigh each;
// without counted tokens nothing is said of them; an unpriced model and a
// call without usage have no parts.
func TestCostPartsCauses(t *testing.T) {
	c0, c1 := call("1", "fetch", nil), call("2", "fetch", nil)
	c0["usage"], c1["usage"] = usageOf(5, 2000, 0), usageOf(10, 2000, 100)
	s := generic(t,
		c0, result("1", strings.Repeat("w ", 1500), false),
		c1, result("2", strings.Repeat("w ", 500), false),
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usageOf(10, 600, 2010)},
		map[string]any{"role": "assistant", "model": "no-such-model", "content": "", "usage": usageOf(10, 600, 2010)},
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "x"},
	)
	parts := prepared(t, s).CostParts()
	// Call 2 sends result 2 (500) new and carries result 1 (1,500):
	// 500 × 3.75e-6 + 1,500 × 3e-7 = $0.002325. Its prompt grew 2,620 −
	// 2,110 = 510 tokens, 510 × 3.75e-6 = $0.0019125 new, above the
	// 2,010 × 3e-7 + 10 × 3e-6 = $0.000633 carried, and the 500 new of
	// the result are most of the 510: "new results".
	if got := parts[2]; got == nil || math.Abs(got.ToolResults-0.002325) > 1e-12 || got.Cause() != CauseNewResults ||
		math.Abs(got.Causes.NewContext-0.0019125) > 1e-12 || math.Abs(got.Causes.Carried-0.000633) > 1e-12 {
		t.Errorf("call 2: %+v, cause %q", got, got.Cause())
	}
	// Call 1 sends result 1 new: 1,500 of its 2,000 cache writes.
	if got := parts[1]; math.Abs(got.ToolResults-1500*3.75e-6) > 1e-12 {
		t.Errorf("call 1: tool results $%.9f", got.ToolResults)
	}
	if parts[3] != nil || parts[4] != nil {
		t.Errorf("unpriced %+v, no usage %+v", parts[3], parts[4])
	}
	p, err := Prepare(context.Background(), s, nil, pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := p.CostParts()[2]
	want := &CostParts{Parts: got.Parts, NewResultTokens: -1, CarriedResultTokens: -1}
	want.Causes = got.Causes
	if diff := cmp.Diff(want, got); diff != "" || got.Cause() != CauseNewContext {
		t.Errorf("uncounted (-want +got):\n%s cause %q", diff, got.Cause())
	}
}

// TestCostPartsCacheMiss: a call whose cache reads cannot hold the result
// it carries wrote its prefix again, so the rest of the result's tokens
// are in its cache writes (gpt-5.5: cache write 6.25e-6, cache read 5e-7).
func TestCostPartsCacheMiss(t *testing.T) {
	rp := replayCut448(t, usageOf(5, 2000, 0), laterCall(usageOf(10, 600, 2000)), laterCall(usageOf(3, 3000, 100)))
	parts := rp.Prepared.CostParts()
	// Call 1 is the first on gpt-5.5, a context of its own: all 2,610 new.
	// It sends the 500-token result new: 500 of its 600 writes.
	if got := parts[1]; got.NewResultTokens != 500 || math.Abs(got.ToolResults-500*6.25e-6) > 1e-12 {
		t.Errorf("call 1: %+v", got)
	}
	// Call 2 carries it: the 100 read, then 400 of the 3,000 written again.
	// Its prompt grew 3,103 − 2,610 = 493 tokens, so 2,507 of its writes
	// are a rewrite, more than half of them: "cache rewrite".
	if got := parts[2]; got.CarriedResultTokens != 500 || math.Abs(got.ToolResults-(100*5e-7+400*6.25e-6)) > 1e-12 || got.Cause() != CauseCacheRewrite ||
		got.Rewrite == nil || got.Rewrite.Tokens != 2507 || got.Rewrite.Grew != 493 || got.Rewrite.Why != RewritePrefix || math.Abs(got.Rewrite.USD-2507*6.25e-6) > 1e-12 {
		t.Errorf("call 2: %+v, cause %q", got, got.Cause())
	}
}
