package replay

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestByTool sums the worked example of docs/policies.md by tool, with an MCP search
// added after call 1: one token a word, claude-sonnet-4-5.
func TestByTool(t *testing.T) {
	usage := func(in, write, read, out int) map[string]any {
		return map[string]any{"input_tokens": in, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": out}
	}
	c0, c1 := call("1", "fetch", nil), call("2", "mcp__docs__search", map[string]any{"q": "x"})
	c0["usage"], c1["usage"] = usage(10, 2000, 0, 100), usage(10, 600, 2010, 20)
	s := generic(t,
		map[string]any{"role": "user", "content": "go"},
		c0, result("1", strings.Repeat("w ", 500), false),
		c1, result("2", strings.Repeat("w ", 10), false),
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(10, 50, 2610, 30)},
	)
	rp, err := prepared(t, s).Replay(cut448Policy(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := rp.ByTool()
	if len(got) != 2 {
		t.Fatalf("%d tools: %+v", len(got), got)
	}
	fetch, search := got[0], got[1]
	// fetch: 500 tokens written to the cache at call 1 and read at call 2,
	// 500 × 3.75e-6 + 500 × 3e-7 = $0.002025; cut to 52 tokens, 52/500 of it.
	if fetch.Tool != "fetch" || fetch.Server != "" || fetch.Results != 1 || fetch.Bytes != 1000 || fetch.BytesAfter != int64(len(rp.Results[0].Text)) ||
		fetch.Tokens != 500 || fetch.TokensAfter != 52 || fetch.Shaped != 1 || fetch.Suppressed != 0 ||
		math.Abs(fetch.CarryCost-0.002025) > 1e-12 || math.Abs(fetch.CarryCostAfter-0.002025*52/500) > 1e-12 {
		t.Errorf("fetch: %+v", fetch)
	}
	// search: 10 tokens written to the cache at call 2, the last: 10 × 3.75e-6, kept.
	if search.Tool != "mcp__docs__search" || search.Server != "docs" || search.Results != 1 || search.Bytes != 20 || search.BytesAfter != 20 ||
		search.Tokens != 10 || search.TokensAfter != 10 || search.Shaped != 0 ||
		math.Abs(search.CarryCost-10*3.75e-6) > 1e-12 || math.Abs(search.CarryCostAfter-10*3.75e-6) > 1e-12 {
		t.Errorf("search: %+v", search)
	}
}

func TestMCPServer(t *testing.T) {
	for tool, want := range map[string]string{"mcp__github__get_issue": "github", "mcp__x": "", "Read": "", "mcp____t": ""} {
		if got := mcpServer(tool); got != want {
			t.Errorf("mcpServer(%q) = %q, want %q", tool, got, want)
		}
	}
}

// TestByToolRecorded prices the results' carry without counting a token:
// a byte's tokens are measured from the recorded prompts. claude-sonnet-4-5
// (cache write $3.75, read $0.30, output $15 per million), four calls:
//
//	call  prompt (read + write)  output  results after it
//	0     0 + 2,000              100     Read 2,000 B
//	1     2,000 + 700            100     Bash 4,000 B
//	2     2,700 + 1,100          50      Read 3,000 B
//	3     3,800 + 1,250          20      –
//
// Each pair grew by its prompt less the first call's output: 600/2,000,
// 1,000/4,000 and 1,200/3,000 tokens a byte, 0.3, 0.25 and 0.4, median 0.3.
// So the first Read is 600 tokens, written at call 1 and read at 2 and 3:
// 600 × (3.75 + 2 × 0.30) = $0.002610; the Bash 1,200, written at 2 and read
// at 3: 1,200 × 4.05 = $0.004860; the second Read 900, written at 3: $0.003375.
func TestByToolRecorded(t *testing.T) {
	usage := func(write, read, out int) map[string]any {
		return map[string]any{"input_tokens": 0, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": out}
	}
	c0, c1, c2 := call("1", "Read", map[string]any{"file_path": "a"}), call("2", "Bash", nil), call("3", "Read", map[string]any{"file_path": "b"})
	c0["usage"], c1["usage"], c2["usage"] = usage(2000, 0, 100), usage(700, 2000, 100), usage(1100, 2700, 50)
	s := generic(t,
		map[string]any{"role": "user", "content": "go"},
		c0, result("1", strings.Repeat("r", 2000), false),
		c1, result("2", strings.Repeat("b", 4000), false),
		c2, result("3", strings.Repeat("r", 3000), false),
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(1250, 3800, 20)},
	)
	p, err := Prepare(context.Background(), s, nil, pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.ByteRate != (ByteRate{TokensPerByte: 0.3, Pairs: 3}) || !p.CarryMeasured() {
		t.Fatalf("byte rate %+v, measured %v; want 0.3 a byte over 3 pairs", p.ByteRate, p.CarryMeasured())
	}
	none, _ := policy.Preset("none")
	rp, err := p.Replay(none, Options{})
	if err != nil {
		t.Fatal(err)
	}
	carry := []float64{0.002610, 0.004860, 0.003375}
	for i, r := range rp.Results {
		if r.Tokens != -1 || math.Abs(r.CarryCost-carry[i]) > 1e-12 {
			t.Errorf("result %d: tokens %d, carry $%.9f; want not counted, $%.6f", i, r.Tokens, r.CarryCost, carry[i])
		}
	}
	got := rp.ByTool()
	if len(got) != 2 || got[0].Tool != "Read" || got[0].Results != 2 || got[0].Bytes != 5000 || got[0].Tokens != -1 ||
		math.Abs(got[0].CarryCost-0.005985) > 1e-12 || got[1].Tool != "Bash" || math.Abs(got[1].CarryCost-0.004860) > 1e-12 {
		t.Errorf("by tool: %+v", got)
	}
	// Two pairs measure nothing: the carry stays unknown.
	c2["usage"] = usage(0, 3000, 50) // call 3's prompt grew less than call 2 wrote
	s = generic(t, map[string]any{"role": "user", "content": "go"},
		c0, result("1", strings.Repeat("r", 2000), false),
		c1, result("2", strings.Repeat("b", 4000), false),
		c2, result("3", strings.Repeat("r", 3000), false),
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(0, 3000, 20)})
	if p, err = Prepare(context.Background(), s, nil, pricing.Default(), nil); err != nil {
		t.Fatal(err)
	}
	if p.ByteRate.TokensPerByte != 0 || p.CarryMeasured() {
		t.Errorf("byte rate %+v measured from fewer than 3 pairs", p.ByteRate)
	}
}

// TestCarryWithoutCache: a log whose calls used no prompt cache (all of
// each prompt sent as new input, as an API without caching bills it)
// carries a result at the input rate on every later call, not at the
// cache-read rate. A call that recorded no input at all says nothing of
// how it was billed and keeps the cache-read rate. claude-sonnet-4-5: $3 a
// million input tokens, $0.30 cache reads.
func TestCarryWithoutCache(t *testing.T) {
	usage := func(in, out int) map[string]any {
		return map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": out}
	}
	c0 := call("1", "fetch", nil)
	c0["usage"] = usage(20, 10)
	s := generic(t,
		map[string]any{"role": "user", "content": "go"},
		c0, result("1", strings.Repeat("w ", 500), false),
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(520, 10)},
		map[string]any{"role": "user", "content": "again"},
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(0, 10)},
		map[string]any{"role": "user", "content": "and again"},
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(530, 10)},
	)
	rp, err := prepared(t, s).Replay(cut448Policy(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 500 tokens sent new at call 1, carried by calls 2 and 3:
	// 500 × (3e-6 + 3e-7 + 3e-6) = $0.00315.
	if r := rp.Results[0]; r.CarryCalls != 3 || math.Abs(r.CarryCost-500*(3e-6+3e-7+3e-6)) > 1e-12 {
		t.Errorf("carry %d calls, $%.7f; want 3, $0.00315", r.CarryCalls, r.CarryCost)
	}
}
