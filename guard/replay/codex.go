package replay

import (
	"fmt"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/human"
)

// Codex cuts a tool output twice: a command tool cuts its own output
// (after its status lines, under a header) at its budget, then Codex
// cuts whatever it records at the ceiling with the allowance (1.2 times
// the limit). A log holds outputs after both; a replay at another
// ceiling cuts the head and tail a cut kept where that ceiling is lower.

// shapeCodex decides what Codex does with a result at the policy's
// ceiling (for its tool, the allowance included where CeilingFor gives
// it), where a command tool's cut or an earlier cut bears on it; it
// reports whether it decided.
func (rp *Run) shapeCodex(it *item, r *Result, ceiling int64) bool {
	pol := &rp.Policy
	o := &it.codexOf().out
	exec := pol.IsExec(it.r.Tool)
	if !exec && !o.Cut {
		return false // the recording cut alone: the ceiling as it is
	}
	record := bytesFor(rp.recordCeiling(it.r.Tool, ceiling), pol.Unit)
	whole := int64(it.r.Bytes())
	over := func(why string) {
		r.Outcome, r.Reason, r.pending = Truncated, why, true
	}
	recorded := func() string {
		if rp.countsOnly {
			return "" // as sizeReason
		}
		return fmt.Sprintf("%s bytes > %s, the budget Codex records within", human.Count(whole), human.Count(record))
	}
	switch {
	case o.Cut && o.Budget == 0:
		r.Reason = "Codex cut it already (its truncation header)"
	case o.Cut && o.History && record < o.Budget:
		over(fmt.Sprintf("Codex recorded it cut to %s bytes, over %s", human.Count(o.Budget), human.Count(record)))
	case o.Cut && o.History:
		r.Reason = fmt.Sprintf("Codex recorded it cut already, to %s bytes", human.Count(o.Budget))
	case o.Cut:
		budget := rp.execCeiling(it, ceiling)
		switch b := bytesFor(budget, pol.Unit); {
		case b < o.Budget:
			over(fmt.Sprintf("Codex's command cut kept %s bytes, over %s", human.Count(o.Budget), policy.FormatSize(budget, pol.Unit)))
		case whole > record:
			over(recorded())
		default:
			r.Reason = fmt.Sprintf("Codex cut it already, to %s bytes", human.Count(o.Budget))
		}
	default:
		size := r.Size
		if o.Status > 0 {
			size = outputSize(it.r.Bytes()-int(o.Status), pol.Unit, size)
		}
		budget := rp.execCeiling(it, ceiling)
		switch {
		case size > budget:
			over(rp.sizeReason(size, " > ", budget, pol.Unit))
		case whole > record:
			over(recorded())
		default:
			r.Reason = rp.sizeReason(size, " ≤ ", budget, pol.Unit)
		}
	}
	return true
}

// recordCeiling is the ceiling Codex records a tool's output within:
// the allowance on the limit, which CeilingFor gives any tool but a
// command tool.
func (rp *Run) recordCeiling(tool string, ceiling int64) int64 {
	if rp.Policy.IsExec(tool) {
		return rp.Policy.WithAllowance(ceiling)
	}
	return ceiling
}

// execCeiling is the budget of a command tool's own cut: 10,000 tokens,
// or the max_output_tokens the call set; from 0.125 never over the
// limit. In a unit other than tokens, the ceiling.
func (rp *Run) execCeiling(it *item, ceiling int64) int64 {
	if u := rp.Policy.Unit; u != policy.ApproxTokens && u != policy.Tokens {
		return ceiling
	}
	budget := int64(harness.CodexExecTokens)
	if c := it.codexOf(); c.hasMaxOutput {
		budget = c.maxOutput
	}
	if rp.codex.ExecFollowsLimit {
		budget = min(budget, ceiling)
	}
	return budget
}

// codexText is what Codex would have recorded of the result at the
// policy's ceiling: a command's output cut by the tool (again, where it
// was cut at a larger budget), then all of it within the recording
// budget.
func (rp *Run) codexText(it *item, s harness.Subject) (string, []tokens.Part) {
	pol := &rp.Policy
	inTokens := pol.Unit == policy.ApproxTokens || pol.Unit == policy.Tokens
	ceiling, _ := pol.CeilingFor(s.Tool)
	record := bytesFor(rp.recordCeiling(s.Tool, ceiling), pol.Unit)
	o := &it.codexOf().out
	if !o.Cut && !pol.IsExec(s.Tool) {
		return harness.CodexTruncate(s.Text, s.Raw, record, inTokens)
	}
	// A rendered text whose parts are not slices of the indexed one: it
	// is counted whole.
	text := s.Text
	switch {
	case o.Cut && o.History:
		if record < o.Budget {
			return harness.CodexRecut(text, *o, record), nil
		}
	case o.Cut:
		if b := bytesFor(rp.execCeiling(it, ceiling), pol.Unit); o.Budget > 0 && b < o.Budget {
			text = harness.CodexRecut(text, *o, b)
		}
	default:
		text = harness.CodexExec(rp.codex, text, *o, bytesFor(rp.execCeiling(it, ceiling), pol.Unit), inTokens)
	}
	text, _ = harness.CodexTruncate(text, nil, record, inTokens)
	return text, nil
}
