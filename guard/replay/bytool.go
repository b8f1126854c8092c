package replay

import (
	"cmp"
	"slices"
	"strings"
)

// ToolTotals sums one tool's results in a replay.
type ToolTotals struct {
	Tool string
	// Server is the MCP server of an mcp__<server>__<tool> name, else "".
	Server string
	// Results counts the tool's calls whose results came back.
	Results           int
	Bytes, BytesAfter int64
	// Tokens and TokensAfter are the estimates, -1 when tokens were not
	// counted; then the carry cost rests on the recorded byte rate, and is
	// unknown where that is (Prepared.CarryMeasured).
	Tokens, TokensAfter int64
	// Shaped counts the results truncated or spilled, Suppressed the
	// repeats suppressed.
	Shaped, Suppressed int
	// CarryCost is what the results' tokens cost, as recorded, over the
	// calls that sent them; CarryCostAfter the same for what the policy
	// leaves of them (their tokens less those saved, at the same rates).
	CarryCost, CarryCostAfter float64
}

// ByTool sums the results by tool name, the most expensive to carry
// first (then by name).
func (rp *Run) ByTool() []ToolTotals {
	index := map[string]int{}
	var out []ToolTotals
	for i := range rp.Results {
		r := &rp.Results[i]
		name := r.Source.Tool
		k, ok := index[name]
		if !ok {
			k = len(out)
			index[name] = k
			out = append(out, ToolTotals{Tool: name, Server: mcpServer(name)})
		}
		t := &out[k]
		t.Results++
		t.Bytes += r.Bytes
		t.BytesAfter += r.BytesAfter
		switch r.Outcome {
		case Truncated, Spilled:
			t.Shaped++
		case Suppressed:
			t.Suppressed++
		}
		t.CarryCost += r.CarryCost
		if r.Tokens < 0 || t.Tokens < 0 {
			t.Tokens, t.TokensAfter = -1, -1
			t.CarryCostAfter = t.CarryCost // nothing shaped: no policy counts no tokens
			continue
		}
		t.Tokens += r.Tokens
		t.TokensAfter += r.TokensAfter
		if tok := rp.Calibration.apply(r.Tokens); tok > 0 {
			t.CarryCostAfter += r.CarryCost * float64(max(0, tok-r.Saved)) / float64(tok)
		}
	}
	slices.SortStableFunc(out, func(a, b ToolTotals) int {
		if c := cmp.Compare(b.CarryCost, a.CarryCost); c != 0 {
			return c
		}
		return strings.Compare(a.Tool, b.Tool)
	})
	return out
}

// mcpServer is the server an MCP tool name carries: Claude Code and Codex
// name MCP tools mcp__<server>__<tool>.
func mcpServer(tool string) string {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return ""
	}
	server, _, ok := strings.Cut(rest, "__")
	if !ok {
		return ""
	}
	return server
}
