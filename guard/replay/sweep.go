package replay

import (
	"slices"

	"github.com/spillway-dev/spillway/guard/policy"
)

// SweepPoint is one ceiling's outcome over a session.
type SweepPoint struct {
	Ceiling int64 `json:"ceiling"`
	// Own marks the policy's own ceiling.
	Own bool `json:"own"`
	// Acted counts results truncated or spilled; Suppressed, repeats.
	Acted      int   `json:"acted"`
	Suppressed int   `json:"suppressed"`
	Saved      int64 `json:"saved_tokens"` // over every call that carried them
	// Cost and CostAfter are nil when a call's model has no price.
	Cost      *float64 `json:"cost_usd"`
	CostAfter *float64 `json:"cost_usd_after"`
}

// SweepCeilings are the ceilings a sweep tries: powers of two from 2 KiB to
// 256 KiB (in tokens, a quarter of that), and the policy's own.
func SweepCeilings(p policy.Policy) []int64 {
	var out []int64
	for kib := int64(2); kib <= 256; kib *= 2 {
		out = append(out, bytesToUnit(kib*1024, p.Unit))
	}
	if p.Ceiling > 0 {
		out = append(out, p.Ceiling)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func bytesToUnit(n int64, u policy.Unit) int64 {
	if u == policy.ApproxTokens || u == policy.Tokens {
		return n / 4
	}
	return n
}

// Sweep replays the session at each ceiling, planning spills without
// writing them, for the figures alone (Options.CountsOnly).
func (p *Prepared) Sweep(pol policy.Policy, ceilings []int64) ([]SweepPoint, error) {
	out := make([]SweepPoint, 0, len(ceilings))
	for _, c := range ceilings {
		q := pol.Clone()
		q.SetCeiling(c)
		rp, err := p.Replay(q, Options{CountsOnly: true})
		if err != nil {
			return nil, err
		}
		out = append(out, SweepPoint{
			Ceiling: c, Own: c == pol.Ceiling,
			Acted:      rp.Totals.Actions[Truncated] + rp.Totals.Actions[Spilled],
			Suppressed: rp.Totals.Actions[Suppressed],
			Saved:      rp.Totals.SavedPerCall,
			Cost:       rp.Totals.Cost, CostAfter: rp.Totals.CostAfter,
		})
	}
	return out, nil
}
