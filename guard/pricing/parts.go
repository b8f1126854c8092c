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
func (e Entry) Parts(u transcript.Usage) Parts {
	write1h := or(e.CacheWrite1h, 2*e.Input)
	var write1hAbove *float64
	switch {
	case e.CacheWrite1hAbove200k != nil:
		write1hAbove = e.CacheWrite1hAbove200k
	case e.InputAbove200k != nil:
		v := 2 * *e.InputAbove200k
		write1hAbove = &v
	}
	write5m := u.CacheCreation - u.CacheCreation1h
	var p Parts
	if e.InputAbove272k != nil && u.Prompt() > wholeRequestThreshold {
		p = Parts{
			Input:      float64(u.Input) * or(e.InputAbove272k, e.Input),
			CacheRead:  float64(u.CacheRead) * or(e.CacheReadAbove272k, or(e.CacheRead, e.Input)),
			CacheWrite: float64(write5m)*or(e.CacheWriteAbove272k, or(e.CacheWrite, e.Input)) + float64(u.CacheCreation1h)*write1h,
			Output:     float64(u.Output) * or(e.OutputAbove272k, e.Output),
		}
	} else {
		p = Parts{
			Input:      tiered(u.Input, e.Input, e.InputAbove200k),
			Output:     tiered(u.Output, e.Output, e.OutputAbove200k),
			CacheWrite: tiered(write5m, or(e.CacheWrite, e.Input), e.CacheWriteAbove200k) + tiered(u.CacheCreation1h, write1h, write1hAbove),
			CacheRead:  tiered(u.CacheRead, or(e.CacheRead, e.Input), e.CacheReadAbove200k),
		}
	}
	if f := e.Specific.Fast; u.Fast && f > 0 {
		p = Parts{p.Input * f, p.CacheWrite * f, p.CacheRead * f, p.Output * f}
	}
	return p
}

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
func (e Entry) BaseParts(u transcript.Usage) Parts {
	write5m := u.CacheCreation - u.CacheCreation1h
	p := Parts{
		Input:      float64(u.Input) * e.Input,
		CacheWrite: float64(write5m)*or(e.CacheWrite, e.Input) + float64(u.CacheCreation1h)*or(e.CacheWrite1h, 2*e.Input),
		CacheRead:  float64(u.CacheRead) * or(e.CacheRead, e.Input),
		Output:     float64(u.Output) * e.Output,
	}
	if f := e.Specific.Fast; u.Fast && f > 0 {
		p = Parts{p.Input * f, p.CacheWrite * f, p.CacheRead * f, p.Output * f}
	}
	return p
}
