package replay

import (
	"math"
	"strings"
	"testing"
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
