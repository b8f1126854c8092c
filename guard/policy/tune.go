package policy

import (
	"fmt"
	"maps"
	"math/bits"

	"github.com/spillway-dev/spillway/guard/harness"
)

// SetSpill turns spilling on or off. Off means the style's truncation;
// styles with no truncation of their own (AgentScope, DeepSeek, Claude
// Code) cannot turn spilling off, and Codex cannot spill.
func (p *Policy) SetSpill(on bool) error {
	switch {
	case on && p.Style == harness.Codex:
		return fmt.Errorf("%s: Codex truncates and never spills", p.Name)
	case on:
		p.Action = Spill
		if p.PreviewHead == 0 && p.Style == harness.HarnessRS {
			p.PreviewHead, p.PreviewUnit = harness.HarnessRSSpillPreviewBytes, UTF8Bytes
		}
		if p.SpillPath == "" && p.Style == harness.HarnessRS {
			p.SpillPath = ".harness/spill/{call_id}-{tool}.{ext}"
		}
	case p.Style == harness.HarnessRS:
		p.Action = TruncateHead
	case p.Style == harness.Codex:
		p.Action = TruncateMiddle
	default:
		return fmt.Errorf("%s only spills: %s has no truncation to fall back on", p.Name, p.Style)
	}
	return nil
}

// SetDedupe turns repeat suppression on from the from-th identical call
// (2 or more), or off when from is 0.
func (p *Policy) SetDedupe(from int) error {
	if from == 0 {
		p.Dedupe.Enabled = false
		return nil
	}
	if from < 2 {
		return fmt.Errorf("repeats can be suppressed from the 2nd identical call on, not from call %d", from)
	}
	p.Dedupe.Enabled, p.Dedupe.From = true, from
	if p.Dedupe.Key == "" {
		p.Dedupe.Key, p.Dedupe.Clear = KeyToolArgs, ClearAnyWrite
	}
	return nil
}

// AtCeiling is p with SetCeiling(c), p left as it was. The copy shares
// every table with p but the per-tool ceilings: a sweep takes a copy for
// each ceiling of each session, and cloning the risk table for each was a
// twentieth of a chart's time.
func (p Policy) AtCeiling(c int64) Policy {
	p.PerTool = maps.Clone(p.PerTool)
	p.SetCeiling(c)
	return p
}

// MaxCeiling is the largest ceiling, 2^53: no result is that large, and
// a size flag takes no more (human.ParseSize).
const MaxCeiling = 1 << 53

// SetCeiling sets the ceiling in the policy's unit, at most MaxCeiling,
// scaling the per-tool ceilings by the same factor so their proportions
// are kept.
func (p *Policy) SetCeiling(c int64) {
	c = min(max(0, c), MaxCeiling)
	if p.Ceiling > 0 && c > 0 {
		for tool, v := range p.PerTool {
			if v > 0 {
				p.PerTool[tool] = max(1, scaled(v, c, p.Ceiling))
			}
		}
	}
	p.Ceiling = c
}

// scaled is v*c/base, all positive, without overflow: at most MaxCeiling.
func scaled(v, c, base int64) int64 {
	hi, lo := bits.Mul64(uint64(v), uint64(c))
	if hi >= uint64(base) {
		return MaxCeiling
	}
	q, _ := bits.Div64(hi, lo, uint64(base))
	return int64(min(q, MaxCeiling))
}
