package pricing

import "github.com/spillway-dev/spillway/transcript"

// Long-context thresholds, in tokens.
const (
	perKindThreshold      = 200_000 // *_above_200k_tokens: per request and per token kind
	wholeRequestThreshold = 272_000 // *_above_272k_tokens: the whole request once its prompt is over
)

// tier is one token kind's price in a request: base per token, and above,
// where the table has it, per token past perKindThreshold of that kind.
type tier struct {
	base  float64
	above *float64
}

// cost prices n tokens of the kind.
func (t tier) cost(n int64) float64 {
	if t.above == nil || n <= perKindThreshold {
		return float64(n) * t.base
	}
	return perKindThreshold*t.base + float64(n-perKindThreshold)**t.above
}

// at is the price of one more token once n are billed.
func (t tier) at(n int64) float64 {
	if t.above != nil && n > perKindThreshold {
		return *t.above
	}
	return t.base
}

// rateCard is what each token kind of one request costs. Cost, Parts,
// BaseParts and Marginal all price from it, so that the rule choosing the
// rates is written once.
type rateCard struct {
	input, cacheWrite, cacheWrite1h, cacheRead, output tier
	fast                                               float64 // multiplier of every token; 1 when not in fast mode
}

// rates picks the rates of a request with usage u. The 272K tiers reprice
// the whole request when its prompt (cached input included) is over 272K;
// otherwise the 200K tiers apply per token kind to the part above 200K. A
// 1-hour cache write costs its own rate, else twice the input rate, and
// above 200K its own rate, else twice the input's rate above 200K; the 272K
// tiers leave it as it is. Absent cache rates are the input rate.
func (e Entry) rates(u transcript.Usage) rateCard {
	r := e.baseRates(u)
	if e.InputAbove272k != nil && u.Prompt() > wholeRequestThreshold {
		r.input.base = or(e.InputAbove272k, r.input.base)
		r.cacheWrite.base = or(e.CacheWriteAbove272k, r.cacheWrite.base)
		r.cacheRead.base = or(e.CacheReadAbove272k, r.cacheRead.base)
		r.output.base = or(e.OutputAbove272k, r.output.base)
		return r
	}
	r.input.above = e.InputAbove200k
	r.cacheWrite.above = e.CacheWriteAbove200k
	r.cacheRead.above = e.CacheReadAbove200k
	r.output.above = e.OutputAbove200k
	switch {
	case e.CacheWrite1hAbove200k != nil:
		r.cacheWrite1h.above = e.CacheWrite1hAbove200k
	case e.InputAbove200k != nil:
		v := 2 * *e.InputAbove200k
		r.cacheWrite1h.above = &v
	}
	return r
}

// baseRates are the rates below every long-context tier, fast mode as u
// says.
func (e Entry) baseRates(u transcript.Usage) rateCard {
	r := rateCard{
		input:        tier{base: e.Input},
		cacheWrite:   tier{base: or(e.CacheWrite, e.Input)},
		cacheWrite1h: tier{base: or(e.CacheWrite1h, 2*e.Input)},
		cacheRead:    tier{base: or(e.CacheRead, e.Input)},
		output:       tier{base: e.Output},
		fast:         1,
	}
	if u.Fast && e.Specific.Fast > 0 {
		r.fast = e.Specific.Fast
	}
	return r
}

// parts prices u at the card's rates, by token kind.
func (r rateCard) parts(u transcript.Usage) Parts {
	p := Parts{
		Input:      r.input.cost(u.Input),
		CacheWrite: r.cacheWrite.cost(u.CacheCreation-u.CacheCreation1h) + r.cacheWrite1h.cost(u.CacheCreation1h),
		CacheRead:  r.cacheRead.cost(u.CacheRead),
		Output:     r.output.cost(u.Output),
	}
	if f := r.fast; f != 1 {
		p = Parts{p.Input * f, p.CacheWrite * f, p.CacheRead * f, p.Output * f}
	}
	return p
}

func or(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}
