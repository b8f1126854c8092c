package report

import "github.com/spillway-dev/spillway/guard/replay"

// CostParts is why a call cost what it did, in USD: its cost by the token
// kind billed (the four add up to cost_usd), and the part of the prompt's
// three that its tool results account for.
type CostParts struct {
	Input         float64 `json:"input"`
	CacheCreation float64 `json:"cache_creation"`
	CacheRead     float64 `json:"cache_read"`
	Output        float64 `json:"output"`
	// ToolResults is null when the results' tokens were not counted.
	ToolResults *float64 `json:"tool_results"`
	// Cause names the largest part (see replay.CostParts.Cause).
	Cause string `json:"cause"`
	// CacheRewrite is set when the call wrote its cache again.
	CacheRewrite *CacheRewrite `json:"cache_rewrite"`
}

// CacheRewrite is a cache written again (see replay.Rewrite): the tokens
// written beyond the prompt's growth since after_call, the previous call
// of its chain, what they cost at the write rate, and why: "expired",
// "compaction", "model" or "prefix".
type CacheRewrite struct {
	Tokens       int64    `json:"tokens"`
	USD          float64  `json:"usd"`
	Why          string   `json:"why"`
	AfterCall    int      `json:"after_call"`
	PauseSeconds *float64 `json:"pause_seconds"`
}

// ToolCost sums one tool's results.
type ToolCost struct {
	Tool       string `json:"tool"`
	MCPServer  string `json:"mcp_server"`
	Calls      int    `json:"calls"`
	Bytes      int64  `json:"bytes"`
	BytesAfter int64  `json:"bytes_after"`
	// Tokens and the dollars are null when the results were not counted.
	Tokens      *int64 `json:"tokens"`
	TokensAfter *int64 `json:"tokens_after"`
	Shaped      int    `json:"shaped"`
	Suppressed  int    `json:"suppressed"`
	// CarryCostUSD is what the tool's results cost over the calls that
	// sent them, as recorded; CostShare that as a share of the session's
	// cost; the After pair the same under the policy.
	CarryCostUSD      *float64 `json:"carry_cost_usd"`
	CarryCostUSDAfter *float64 `json:"carry_cost_usd_after"`
	CostShare         *float64 `json:"cost_share"`
	CostShareAfter    *float64 `json:"cost_share_after"`
}

// costParts gives each call's parts, nil where it has no price.
func costParts(rp *replay.Run) []*CostParts {
	split := rp.Prepared.CostParts()
	out := make([]*CostParts, len(split))
	all := make([]CostParts, len(split))
	for i, p := range split {
		if p == nil {
			continue
		}
		c := &all[i]
		*c = CostParts{Input: p.Input, CacheCreation: p.CacheWrite, CacheRead: p.CacheRead, Output: p.Output, Cause: p.Cause()}
		if p.ToolResultsKnown {
			c.ToolResults = &p.ToolResults
		}
		if rw := p.Rewrite; rw != nil {
			c.CacheRewrite = &CacheRewrite{Tokens: rw.Tokens, USD: rw.USD, Why: string(rw.Why), AfterCall: rw.After}
			if rw.Pause > 0 {
				secs := rw.Pause.Seconds()
				c.CacheRewrite.PauseSeconds = &secs
			}
		}
		out[i] = c
	}
	return out
}

// byTool sums the session's results by tool, the costliest to carry first.
func byTool(rp *replay.Run) []ToolCost {
	tools := rp.ByTool()
	out := make([]ToolCost, len(tools))
	share := func(usd float64, of *float64) *float64 {
		if of == nil || *of <= 0 {
			return nil
		}
		v := usd / *of
		return &v
	}
	for i, t := range tools {
		c := ToolCost{Tool: t.Tool, MCPServer: t.Server, Calls: t.Results, Bytes: t.Bytes, BytesAfter: t.BytesAfter,
			Shaped: t.Shaped, Suppressed: t.Suppressed}
		if t.Tokens >= 0 {
			c.Tokens, c.TokensAfter = &tools[i].Tokens, &tools[i].TokensAfter
			if rp.Totals.Cost != nil {
				c.CarryCostUSD, c.CarryCostUSDAfter = &tools[i].CarryCost, &tools[i].CarryCostAfter
				c.CostShare, c.CostShareAfter = share(t.CarryCost, rp.Totals.Cost), share(t.CarryCostAfter, rp.Totals.CostAfter)
			}
		}
		out[i] = c
	}
	return out
}
