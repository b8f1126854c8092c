package report

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/transcript"
)

// words counts a token a word, so the figures below are worked by hand.
type words struct{}

func (words) Count(s string) int { return len(strings.Fields(s)) }

// workedExample is the worked example of docs/policies.md in the generic
// format, with an MCP search after call 1: claude-sonnet-4-5 (input 3e-6, cache write
// 3.75e-6, cache read 3e-7, output 1.5e-5), replayed through Codex's cut
// at 100 bytes, which keeps 52 of the first result's 500 tokens.
func workedExample(t *testing.T) *Session {
	t.Helper()
	lines := `{"role":"user","content":"go"}
{"role":"assistant","model":"claude-sonnet-4-5","content":"","tool_calls":[{"id":"1","name":"fetch","arguments":{}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":2000,"cache_read_input_tokens":0,"output_tokens":100}}
{"role":"tool","tool_call_id":"1","content":"` + strings.Repeat("w ", 500) + `"}
{"role":"assistant","model":"claude-sonnet-4-5","content":"","tool_calls":[{"id":"2","name":"mcp__docs__search","arguments":{"q":"x"}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":600,"cache_read_input_tokens":2010,"output_tokens":20}}
{"role":"tool","tool_call_id":"2","content":"` + strings.Repeat("w ", 10) + `"}
{"role":"assistant","model":"claude-sonnet-4-5","content":"","usage":{"input_tokens":10,"cache_creation_input_tokens":50,"cache_read_input_tokens":2610,"output_tokens":30}}
`
	s, err := transcript.Read(strings.NewReader(lines), "worked.jsonl", transcript.Options{Format: transcript.FormatGeneric})
	if err != nil {
		t.Fatal(err)
	}
	prep, err := replay.Prepare(context.Background(), s, words{}, pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := policy.Preset("codex")
	pol.Unit, pol.Ceiling, pol.Allowance = policy.UTF8Bytes, 100, 0
	rp, err := prep.Replay(pol, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Build(rp)
}

func TestCostPartsJSON(t *testing.T) {
	s := workedExample(t)
	p := func(v float64) *float64 { return &v }
	n := func(v int) *int { return &v }
	// The prompt grows 2,010 (the first call: all of it), 610, then 50
	// tokens, new context from the cache writes first, then the uncached
	// input; what else the prompt holds is carried.
	want := []struct {
		parts  CostParts
		detail CostDetail
	}{
		// 2,000 × 3.75e-6 + 10 × 3e-6 new; 100 × 1.5e-5 output.
		{CostParts{NewContext: 0.00753, Output: 0.0015},
			CostDetail{Cause: "new context", NewTokens: 2010, GrowthTokens: 2010,
				ByKind: CostByKind{Input: 10 * 3e-6, CacheCreation: 2000 * 3.75e-6, Output: 100 * 1.5e-5, ToolResults: p(0)}}},
		// 600 × 3.75e-6 + 10 × 3e-6 new, 500 of the 610 tokens the
		// result; 2,010 × 3e-7 carried; 20 × 1.5e-5 output.
		{CostParts{NewContext: 0.00228, Carried: 0.000603, Output: 0.0003},
			CostDetail{Cause: "new results", NewTokens: 610, CarriedTokens: 2010, GrowthTokens: 610, AfterCall: n(0),
				ByKind: CostByKind{Input: 10 * 3e-6, CacheCreation: 600 * 3.75e-6, CacheRead: 2010 * 3e-7, Output: 20 * 1.5e-5, ToolResults: p(500 * 3.75e-6)}}},
		// 50 × 3.75e-6 new; 2,610 × 3e-7 + 10 × 3e-6 carried; 30 × 1.5e-5.
		{CostParts{NewContext: 0.0001875, Carried: 0.000813, Output: 0.00045},
			CostDetail{Cause: "carried", NewTokens: 50, CarriedTokens: 2620, GrowthTokens: 50, AfterCall: n(1),
				ByKind: CostByKind{Input: 10 * 3e-6, CacheCreation: 50 * 3.75e-6, CacheRead: 2610 * 3e-7, Output: 30 * 1.5e-5, ToolResults: p(500*3e-7 + 10*3.75e-6)}}},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })
	for i, c := range s.Calls {
		if diff := cmp.Diff(&want[i].parts, c.CostParts, approx); diff != "" {
			t.Errorf("call %d cost_parts (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(&want[i].detail, c.CostDetail, approx); diff != "" {
			t.Errorf("call %d cost_detail (-want +got):\n%s", i, diff)
		}
		cp, k := c.CostParts, c.CostDetail.ByKind
		if sum := cp.NewContext + cp.Carried + cp.CacheRewrite + cp.LongContext + cp.Output; math.Abs(sum-*c.CostUSD) > 1e-9 {
			t.Errorf("call %d: parts add up to %.9f, cost_usd %.9f", i, sum, *c.CostUSD)
		}
		if sum := k.Input + k.CacheCreation + k.CacheRead + k.Output; math.Abs(sum-*c.CostUSD) > 1e-9 {
			t.Errorf("call %d: kinds add up to %.9f, cost_usd %.9f", i, sum, *c.CostUSD)
		}
	}
}

func TestByToolJSON(t *testing.T) {
	s := workedExample(t)
	// The session: $0.009030 + $0.003183 + $0.0014505 before; fetch saves
	// 448 tokens at call 1's write rate and call 2's read rate.
	cost := 0.009030 + 0.003183 + 0.0014505
	after := cost - 448*(3.75e-6+3e-7)
	fetchCarry := 500*3.75e-6 + 500*3e-7 // $0.002025
	searchCarry := 10 * 3.75e-6
	p := func(v float64) *float64 { return &v }
	n := func(v int64) *int64 { return &v }
	want := []ToolCost{
		{Tool: "fetch", Calls: 1, Bytes: 1000, BytesAfter: s.Results[0].BytesAfter, Tokens: n(500), TokensAfter: n(52), Shaped: 1,
			CarryCostUSD: p(fetchCarry), CarryCostUSDAfter: p(fetchCarry * 52 / 500), CostShare: p(fetchCarry / cost), CostShareAfter: p(fetchCarry * 52 / 500 / after)},
		{Tool: "mcp__docs__search", MCPServer: "docs", Calls: 1, Bytes: 20, BytesAfter: 20, Tokens: n(10), TokensAfter: n(10),
			CarryCostUSD: p(searchCarry), CarryCostUSDAfter: p(searchCarry), CostShare: p(searchCarry / cost), CostShareAfter: p(searchCarry / after)},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })
	if diff := cmp.Diff(want, s.ByTool, approx); diff != "" {
		t.Errorf("by_tool (-want +got):\n%s", diff)
	}
}

// TestTextCausesAndTools pins the cause column and the by-tool section
// of the text report on the worked example.
func TestTextCausesAndTools(t *testing.T) {
	var b strings.Builder
	w, _ := NewWriter("text", &b, "")
	writeSession(t, w, workedExample(t))
	out := b.String()
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "claude-sonnet-4-5") {
			rows = append(rows, line)
		}
	}
	causes := []string{"new context", "new results", "carried"} // as TestCostPartsJSON works out
	if len(rows) != len(causes) {
		t.Fatalf("%d call rows:\n%s", len(rows), out)
	}
	for i, cause := range causes {
		if !strings.HasSuffix(strings.TrimRight(rows[i], " "), " "+cause) {
			t.Errorf("call %d's row does not end in %q:\n%s", i, cause, rows[i])
		}
	}
	// Shares: $0.002025 of $0.0136635 is 14.8%; after, $0.0002106 of
	// $0.0118491 is 1.8%; the search's $0.0000375 (shown $0.000038) is 0.3% either way; the cut result is 125 bytes, as its row above says.
	section := out[strings.Index(out, "  by tool"):]
	section = section[:strings.Index(section, "  3 API calls")]
	wantSection := "" +
		"  by tool, costliest to carry first:\n" +
		"  tool               calls  bytes  after  tokens  after  carry cost  share      after  share  shaped  suppressed\n" +
		"  fetch                  1  1,000    125     500     52   $0.002025  14.8%  $0.000211   1.8%       1           0\n" +
		"  mcp__docs__search      1     20     20      10     10   $0.000038   0.3%  $0.000038   0.3%       0           0\n"
	if section != wantSection {
		t.Errorf("by-tool section:\n%s\nwant\n%s", section, wantSection)
	}
}

// TestCacheRewriteJSON: seven minutes after a call whose prompt was 5,003
// tokens, a call of 6,003 writes 6,000 to the cache and reads none: 5,000
// beyond the 1,000 it grew were written again, 5,000 × 3.75e-6 = $0.01875,
// the five-minute cache having expired.
func TestCacheRewriteJSON(t *testing.T) {
	lines := `{"role":"user","content":"go"}
{"role":"assistant","model":"claude-sonnet-4-5","timestamp":"2026-03-01T09:00:00Z","content":"a","usage":{"input_tokens":3,"cache_creation_input_tokens":5000,"cache_read_input_tokens":0,"output_tokens":5}}
{"role":"user","content":"more"}
{"role":"assistant","model":"claude-sonnet-4-5","timestamp":"2026-03-01T09:07:00Z","content":"b","usage":{"input_tokens":3,"cache_creation_input_tokens":6000,"cache_read_input_tokens":0,"output_tokens":5}}
`
	s, err := transcript.Read(strings.NewReader(lines), "rewrite.jsonl", transcript.Options{Format: transcript.FormatGeneric})
	if err != nil {
		t.Fatal(err)
	}
	prep, err := replay.Prepare(context.Background(), s, nil, pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	none, _ := policy.Preset("none")
	rp, err := prep.Replay(none, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := Build(rp)
	pause := 420.0
	want := &CacheRewrite{Tokens: 5000, USD: 5000 * 3.75e-6, Why: "expired", AfterCall: 0, PauseSeconds: &pause}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })
	if diff := cmp.Diff(want, r.Calls[1].CostDetail.Rewrite, approx); diff != "" {
		t.Errorf("rewrite (-want +got):\n%s", diff)
	}
	if got := r.Calls[1].CostParts.CacheRewrite; math.Abs(got-5000*3.75e-6) > 1e-12 {
		t.Errorf("cost_parts.cache_rewrite $%.9f, want $0.018750", got)
	}
	// No tool result at all: nothing to count, so $0, not unknown.
	if tr := r.Calls[1].CostDetail.ByKind.ToolResults; r.Calls[0].CostDetail.Rewrite != nil || tr == nil || *tr != 0 {
		t.Errorf("call 0 rewrite %+v; call 1 tool results %v, want $0", r.Calls[0].CostDetail.Rewrite, tr)
	}
}
