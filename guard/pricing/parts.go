package pricing

import "github.com/spillway-dev/spillway/transcript"

// Parts is a request's cost split by the token kind billed: the four add
// up to Entry.Cost of the same usage. CacheWrite holds both cache
// lifetimes.
type Parts struct {
	Input, CacheWrite, CacheRead, Output float64
}

// Sum is the whole cost.
func (p Parts) Sum() float64 { return p.Input + p.CacheWrite + p.CacheRead + p.Output }

// Prompt is what the prompt cost: every input kind.
func (p Parts) Prompt() float64 { return p.Input + p.CacheWrite + p.CacheRead }

// Parts prices u as Cost does, each token kind apart: the tiers that apply
// are those of the whole request, and fast mode multiplies every part.
func (e Entry) Parts(u transcript.Usage) Parts { return e.rates(u).parts(u) }

// Parts prices usage for model by token kind; ok is false when the model
// has no price.
func (t *Table) Parts(model string, u transcript.Usage) (Parts, bool) {
	m, ok := t.Match(model)
	if !ok {
		return Parts{}, false
	}
	return m.Entry.Parts(u), true
}

// BaseParts prices u as Parts does, every token at the base tier's rate:
// what the request would cost below the 200K and 272K tiers. Parts' sum
// less BaseParts' is the long-context premium. Fast mode multiplies every
// part, as in Parts.
func (e Entry) BaseParts(u transcript.Usage) Parts { return e.baseRates(u).parts(u) }
