package report

import (
	"fmt"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
)

// CostParts is why a call cost what it did, in USD (see
// replay.Causes): the five add up to cost_usd.
type CostParts struct {
	NewContext   float64 `json:"new_context"`
	Carried      float64 `json:"carried"`
	CacheRewrite float64 `json:"cache_rewrite"`
	LongContext  float64 `json:"long_context"`
	Output       float64 `json:"output"`
}

// CostDetail is what the parts rest on: the largest, their tokens, the
// call the prompt's growth is measured from, the cost by token kind and
// the cache rewrite.
type CostDetail struct {
	// Cause names the largest part (see replay.CostParts.Cause).
	Cause         string `json:"cause"`
	NewTokens     int64  `json:"new_tokens"`
	CarriedTokens int64  `json:"carried_tokens"`
	RewriteTokens int64  `json:"rewrite_tokens"`
	GrowthTokens  int64  `json:"growth_tokens"`
	// AfterCall is the previous call of the context, null for the first.
	AfterCall *int       `json:"after_call"`
	ByKind    CostByKind `json:"by_kind"`
	// Rewrite is set when the call wrote its cache again.
	Rewrite *CacheRewrite `json:"rewrite"`
}

// CostByKind is a call's cost by the token kind billed, at the rates and
// tiers cost_usd uses (the four add up to it), and the part of the
// prompt's three that its tool results account for.
type CostByKind struct {
	Input         float64 `json:"input"`
	CacheCreation float64 `json:"cache_creation"`
	CacheRead     float64 `json:"cache_read"`
	Output        float64 `json:"output"`
	// ToolResults is null when the results' tokens were not counted.
	ToolResults *float64 `json:"tool_results"`
}

// CacheRewrite is a cache written again (see replay.Rewrite): the tokens
// written beyond the prompt's growth since after_call, the previous call
// of its context, what they cost at the write rate (cost_parts'
// cache_rewrite), and why: "expired" or "prefix".
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

// costParts gives each call's parts and what they rest on, nil where it
// has no price.
func costParts(rp *replay.Run) ([]*CostParts, []*CostDetail) {
	split := rp.Prepared.CostParts()
	out, details := make([]*CostParts, len(split)), make([]*CostDetail, len(split))
	all, allDetails := make([]CostParts, len(split)), make([]CostDetail, len(split))
	for i, p := range split {
		if p == nil {
			continue
		}
		cs := &p.Causes
		all[i] = CostParts{NewContext: cs.NewContext, Carried: cs.Carried, CacheRewrite: cs.CacheRewrite, LongContext: cs.LongContext, Output: cs.Output}
		d := &allDetails[i]
		*d = CostDetail{Cause: p.Cause(), NewTokens: cs.NewTokens, CarriedTokens: cs.CarriedTokens, RewriteTokens: cs.RewriteTokens, GrowthTokens: cs.Growth,
			ByKind: CostByKind{Input: p.Input, CacheCreation: p.CacheWrite, CacheRead: p.CacheRead, Output: p.Output}}
		if cs.After >= 0 {
			d.AfterCall = &cs.After
		}
		if p.ToolResultsKnown {
			d.ByKind.ToolResults = &p.ToolResults
		}
		if rw := p.Rewrite; rw != nil {
			d.Rewrite = &CacheRewrite{Tokens: rw.Tokens, USD: rw.USD, Why: string(rw.Why), AfterCall: rw.After}
			if rw.Pause > 0 {
				secs := rw.Pause.Seconds()
				d.Rewrite.PauseSeconds = &secs
			}
		}
		out[i], details[i] = &all[i], d
	}
	return out, details
}

// carryNote says what carry costs rest on where no token was counted.
func carryNote(r replay.ByteRate) string {
	if r.TokensPerByte == 0 {
		return fmt.Sprintf("carry costs unknown: no policy, no token counted, and %s of recorded prompt growth to measure a byte by (3 needed)", human.Plural(r.Pairs, "call pair"))
	}
	return fmt.Sprintf("carry costs from the recorded prompts: %.3f tokens a byte of result, the median of %s whose prompt grew by the results between them (no policy: tokens not counted)", r.TokensPerByte, human.Plural(r.Pairs, "call pair"))
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
		}
		if rp.Totals.Cost != nil && rp.Prepared.CarryMeasured() {
			c.CarryCostUSD, c.CarryCostUSDAfter = &tools[i].CarryCost, &tools[i].CarryCostAfter
			c.CostShare, c.CostShareAfter = share(t.CarryCost, rp.Totals.Cost), share(t.CarryCostAfter, rp.Totals.CostAfter)
		}
		out[i] = c
	}
	return out
}
