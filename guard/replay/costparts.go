package replay

import (
	"time"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
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
	// Rewrite is set when the call wrote its cache again: it wrote more
	// to the cache than its prompt grew since the previous call of its
	// chain (with usage), by over RewriteFloor tokens and a tenth of the
	// prompt.
	Rewrite *Rewrite
}

// Rewrite is a cache written again: how many tokens beyond the prompt's
// growth, what they cost at the call's write rate, and why as far as the
// log shows.
type Rewrite struct {
	Tokens int64
	// Grew is what the prompt grew since call After, the previous call of
	// the chain; Pause the time since it (0 when a time is unknown).
	Grew  int64
	USD   float64
	Why   RewriteCause
	After int
	Pause time.Duration
}

// RewriteCause is why a cache was written again.
type RewriteCause string

// The causes, in the order they are looked for.
const (
	// RewriteExpired: the pause was longer than the cache lives (five
	// minutes, or an hour for one-hour writes).
	RewriteExpired RewriteCause = "expired"
	// RewriteCompaction: a compaction came between; its summary starts a
	// new prompt.
	RewriteCompaction RewriteCause = "compaction"
	// RewriteModel: the model changed; each model has a cache of its own.
	RewriteModel RewriteCause = "model"
	// RewritePrefix: none of those; the prompt changed after the part
	// read from the cache.
	RewritePrefix RewriteCause = "prefix"
)

// RewriteFloor is the fewest tokens written again that count as a cache
// rewrite: below it, what a call writes besides its growth is noise.
const RewriteFloor = 1024

// CacheLifetime is how long a prompt cache entry lives unless it was
// written for an hour.
const CacheLifetime = 5 * time.Minute

// Lifetime is how long the cache call u wrote lives.
func Lifetime(u transcript.Usage) time.Duration {
	if u.CacheCreation1h > 0 {
		return time.Hour
	}
	return CacheLifetime
}

// rewrite tells whether call j wrote its cache again, and why.
func rewrite(calls []transcript.Call, j int, cacheWrite float64) *Rewrite {
	c := &calls[j]
	prev := -1
	for i := j - 1; i >= 0; i-- {
		if calls[i].Sidechain == c.Sidechain && calls[i].Usage != nil {
			prev = i
			break
		}
	}
	if prev < 0 || c.Usage == nil || c.Usage.CacheCreation <= 0 {
		return nil
	}
	u, pc := *c.Usage, &calls[prev]
	grew := max(0, u.Prompt()-pc.Usage.Prompt())
	again := u.CacheCreation - grew
	if again <= max(RewriteFloor, u.Prompt()/10) {
		return nil
	}
	rw := &Rewrite{Tokens: again, Grew: grew, USD: cacheWrite * float64(again) / float64(u.CacheCreation), After: prev}
	timed := !c.Time.IsZero() && !pc.Time.IsZero() && !c.Time.Before(pc.Time)
	if timed {
		rw.Pause = c.Time.Sub(pc.Time)
	}
	switch {
	case timed && rw.Pause > Lifetime(u):
		rw.Why = RewriteExpired
	case c.Segment != pc.Segment:
		rw.Why = RewriteCompaction
	case c.Model != pc.Model:
		rw.Why = RewriteModel
	default:
		rw.Why = RewritePrefix
	}
	return rw
}

// Cause names the largest part: "tool results" when what the results
// cost is more than any one token kind, else the kind. Ties go to the
// tool results, then to the kinds in the order below. Cache writes that
// are mostly a rewrite (more than half their dollars) are "cache rewrite".
func (c *CostParts) Cause() string {
	cause := c.largest()
	if cause == CauseCacheWrite && c.Rewrite != nil && c.Rewrite.USD > c.CacheWrite/2 {
		return CauseCacheRewrite
	}
	return cause
}

func (c *CostParts) largest() string {
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
	// CauseCacheRewrite is a cache write that is mostly a rewrite.
	CauseCacheRewrite = "cache rewrite"
	CauseCacheRead    = "cache read"
	CauseInput        = "input"
	CauseOutput       = "output"
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
		cp.Rewrite = rewrite(calls, j, cp.CacheWrite)
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
