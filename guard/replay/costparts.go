package replay

import (
	"github.com/spillway-dev/spillway/guard/pricing"
)

// CostParts is why a call cost what it did: its recorded cost split by
// the token kind billed, and how much of the prompt's part the tool
// results in that prompt account for.
type CostParts struct {
	pricing.Parts
	// NewResultTokens are the tokens of the results this call sent first
	// (billed as new input: cache writes where the session caches);
	// CarriedResultTokens those of earlier results of its context that it
	// sent again (billed as cache reads). Both are the calibrated
	// estimates; -1 when tokens were not counted.
	NewResultTokens, CarriedResultTokens int64
	// ToolResults is what the prompt would have cost less without those
	// tokens, taken out as a policy's savings are: a share of Input,
	// CacheWrite and CacheRead, never more than their sum. Valid only when
	// ToolResultsKnown.
	ToolResults      float64
	ToolResultsKnown bool
}

// Cause names the largest part: "tool results" when what the results
// cost is more than any one token kind, else the kind. Ties go to the
// tool results, then to the kinds in the order below.
func (c *CostParts) Cause() string {
	cause, best := "", -1.0
	if c.ToolResultsKnown {
		cause, best = CauseToolResults, c.ToolResults
	}
	for _, k := range []struct {
		name string
		usd  float64
	}{{CauseCacheWrite, c.CacheWrite}, {CauseCacheRead, c.CacheRead}, {CauseInput, c.Input}, {CauseOutput, c.Output}} {
		if k.usd > best {
			cause, best = k.name, k.usd
		}
	}
	return cause
}

// The causes Cause names.
const (
	CauseToolResults = "tool results"
	CauseCacheWrite  = "cache write"
	CauseCacheRead   = "cache read"
	CauseInput       = "input"
	CauseOutput      = "output"
)

// CostParts splits every call's recorded cost into its parts, nil where a
// call has no usage or its model no price. It is computed once per
// prepared session and shared: callers must not change it.
func (p *Prepared) CostParts() []*CostParts {
	p.partsOnce.Do(p.splitCosts)
	return p.parts
}

func (p *Prepared) splitCosts() {
	calls := p.Session.Calls
	n := len(calls)
	counted := true
	fresh := make([]int64, n)
	carried := [2][]int64{make([]int64, n+1), make([]int64, n+1)} // difference arrays: main chain, sidechain
	for i := range p.items {
		it := &p.items[i]
		if it.tokens < 0 {
			counted = false
			break
		}
		tok := p.Calibration.apply(it.tokens)
		if tok <= 0 || it.sentAt >= n {
			continue
		}
		// As carry costs are: new where the first call to send the result
		// is of its chain, carried by the later calls of that chain.
		if calls[it.sentAt].Sidechain == it.sidechain {
			fresh[it.sentAt] += tok
		}
		chain := carried[b2i(it.sidechain)]
		if end := p.segEnd[it.segment]; it.sentAt+1 <= end {
			chain[it.sentAt+1] += tok
			chain[end+1] -= tok
		}
	}
	p.parts = make([]*CostParts, n)
	all := make([]CostParts, n)
	var running [2]int64
	for j := range calls {
		c := &calls[j]
		for k := range running {
			running[k] += carried[k][j]
		}
		if c.Usage == nil {
			continue
		}
		e, _, ok := p.Prices.Lookup(c.Model)
		if !ok {
			continue
		}
		cp := &all[j]
		cp.Parts = e.Parts(*c.Usage)
		cp.NewResultTokens, cp.CarriedResultTokens = -1, -1
		if counted {
			cp.NewResultTokens, cp.CarriedResultTokens = fresh[j], running[b2i(c.Sidechain)]
			without := e.Parts(p.remove(*c.Usage, cp.NewResultTokens, cp.CarriedResultTokens))
			cp.ToolResults = min(max(0, cp.Prompt()-without.Prompt()), cp.Prompt())
			cp.ToolResultsKnown = true
		}
		p.parts[j] = cp
	}
}
