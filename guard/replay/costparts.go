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
	// context (Causes.After), by RewriteFloor tokens or more.
	Rewrite *Rewrite
	// Causes is the same cost split by why it was paid.
	Causes Causes
}

// Causes is a call's cost split by why it was paid; the five add up to
// the call's cost. The first four are at the base tier's rates, and what
// the long-context tier adds is LongContext.
type Causes struct {
	// NewContext is the tokens added since the previous call of the
	// context (up to Growth, from the cache writes first, then uncached
	// input); Carried what was there before (cache reads, and uncached
	// input beyond Growth); CacheRewrite the cache writes beyond Growth.
	NewContext, Carried, CacheRewrite, LongContext, Output float64
	// The tokens of the first three.
	NewTokens, CarriedTokens, RewriteTokens int64
	// Growth is what the prompt grew since call After, the previous call
	// of its context: same chain, same context segment and same model.
	// After is -1 for the first call of a context, whose growth is its
	// whole prompt.
	Growth int64
	After  int
}

// Sum is the whole cost.
func (c Causes) Sum() float64 {
	return c.NewContext + c.Carried + c.CacheRewrite + c.LongContext + c.Output
}

// previousInContext is the call before j in its context (same chain,
// segment and model, with usage), -1 when j starts one: a compaction
// starts a new prompt, and each model has a cache of its own.
func previousInContext(calls []transcript.Call, j int) int {
	c := &calls[j]
	for i := j - 1; i >= 0; i-- {
		pc := &calls[i]
		if pc.Sidechain != c.Sidechain || pc.Usage == nil {
			continue
		}
		if pc.Segment != c.Segment || pc.Model != c.Model {
			return -1
		}
		return i
	}
	return -1
}

// causes splits call j's cost: base is its usage at the base tier's
// rates, whole at the rates it was billed.
func causes(calls []transcript.Call, j int, base, whole pricing.Parts) Causes {
	u := *calls[j].Usage
	cs := Causes{After: previousInContext(calls, j), Growth: u.Prompt()}
	if cs.After >= 0 {
		cs.Growth = max(0, u.Prompt()-calls[cs.After].Usage.Prompt())
	}
	// A log may give one-hour writes without their total; they are writes.
	writes := max(u.CacheCreation, u.CacheCreation1h)
	newWrite := min(writes, cs.Growth)
	newInput := min(u.Input, cs.Growth-newWrite)
	cs.NewTokens = newWrite + newInput
	cs.RewriteTokens = writes - newWrite
	cs.CarriedTokens = u.CacheRead + u.Input - newInput
	share := func(usd float64, of, n int64) float64 {
		if n <= 0 {
			return 0
		}
		return usd * float64(of) / float64(n)
	}
	cs.NewContext = share(base.CacheWrite, newWrite, writes) + share(base.Input, newInput, u.Input)
	cs.CacheRewrite = share(base.CacheWrite, cs.RewriteTokens, writes)
	cs.Carried = base.CacheRead + share(base.Input, u.Input-newInput, u.Input)
	cs.Output = base.Output
	cs.LongContext = whole.Sum() - base.Sum()
	return cs
}

// Rewrite is a cache written again: how many tokens beyond the prompt's
// growth (Causes.RewriteTokens), what they cost at the base tier's write
// rate (Causes.CacheRewrite), and why as far as the log shows. A
// compaction or a change of model starts a new context, whose writes are
// new context, not a rewrite.
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

// The causes.
const (
	// RewriteExpired: the pause was longer than the cache lives (five
	// minutes, or an hour for one-hour writes).
	RewriteExpired RewriteCause = "expired"
	// RewritePrefix: within the cache's life, the prompt changed after the part
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

// rewrite tells whether call j, split as cs, wrote its cache again, and
// why.
func rewrite(calls []transcript.Call, j int, cs Causes) *Rewrite {
	c := &calls[j]
	if cs.After < 0 || cs.RewriteTokens < RewriteFloor {
		return nil
	}
	pc := &calls[cs.After]
	rw := &Rewrite{Tokens: cs.RewriteTokens, Grew: cs.Growth, USD: cs.CacheRewrite, After: cs.After}
	timed := !c.Time.IsZero() && !pc.Time.IsZero() && !c.Time.Before(pc.Time)
	if timed {
		rw.Pause = c.Time.Sub(pc.Time)
	}
	rw.Why = RewritePrefix
	if timed && rw.Pause > Lifetime(*c.Usage) {
		rw.Why = RewriteExpired
	}
	return rw
}

// Cause names the largest of the five Causes; ties go to the earlier in
// the order below. New context most of whose tokens are tool results
// (when they were counted) is "new results".
func (c *CostParts) Cause() string {
	cs := &c.Causes
	cause, best := "", -1.0
	for _, k := range []struct {
		name string
		usd  float64
	}{{CauseNewContext, cs.NewContext}, {CauseCarried, cs.Carried}, {CauseCacheRewrite, cs.CacheRewrite},
		{CauseLongContext, cs.LongContext}, {CauseOutput, cs.Output}} {
		if k.usd > best {
			cause, best = k.name, k.usd
		}
	}
	if cause == CauseNewContext && c.ToolResultsKnown && 2*c.NewResultTokens > cs.NewTokens {
		return CauseNewResults
	}
	return cause
}

// The causes Cause names.
const (
	CauseNewContext = "new context"
	// CauseNewResults is new context that is mostly tool results.
	CauseNewResults   = "new results"
	CauseCarried      = "carried"
	CauseCacheRewrite = "cache rewrite"
	CauseLongContext  = "long context"
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
		sentAt := int(it.sentAt)
		if tok <= 0 || sentAt >= n {
			continue
		}
		// As carry costs are: new where the first call to send the result
		// is of its chain, carried by the later calls of that chain.
		if calls[sentAt].Sidechain == it.sidechain {
			fresh[sentAt] += tok
		}
		chain := carried[b2i(it.sidechain)]
		if end := p.segEnd[it.segment]; sentAt+1 <= end {
			chain[sentAt+1] += tok
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
		cp.Causes = causes(calls, j, e.BaseParts(*c.Usage), cp.Parts)
		cp.Rewrite = rewrite(calls, j, cp.Causes)
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
