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
	Cost      *float64     `json:"cost_usd"`
	CostAfter *float64     `json:"cost_usd_after"`
	Hazards   SweepHazards `json:"hazards"`
}

// SweepHazards counts a sweep point's hazards by kind, and the used_hidden
// ones a spill file held.
type SweepHazards struct {
	UsedHidden       int `json:"used_hidden"`
	Retrievable      int `json:"retrievable"`
	SuppressedUnseen int `json:"suppressed_unseen"`
	Stale            int `json:"stale"`
}

func sweepHazards(h HazardCounts) SweepHazards {
	return SweepHazards{h.UsedHidden, h.Retrievable, h.SuppressedUnseen, h.Stale}
}

// Add sums o into h.
func (h *SweepHazards) Add(o SweepHazards) {
	h.UsedHidden += o.UsedHidden
	h.Retrievable += o.Retrievable
	h.SuppressedUnseen += o.SuppressedUnseen
	h.Stale += o.Stale
}

// Plus is a's point with b's, a sub-agent's at the same ceiling, added:
// b adds no dollars when its log records no usage (dollars false), and
// either's unknown dollars make the sum's unknown.
func (a SweepPoint) Plus(b SweepPoint, dollars bool) SweepPoint {
	a.Acted += b.Acted
	a.Suppressed += b.Suppressed
	a.Saved += b.Saved
	a.Hazards.Add(b.Hazards)
	if dollars {
		a.Cost, a.CostAfter = addCost(a.Cost, b.Cost), addCost(a.CostAfter, b.CostAfter)
	}
	return a
}

func addCost(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	v := *a + *b
	return &v
}

// DedupePoint is one repeat-suppression setting's outcome over a session.
type DedupePoint struct {
	// From is the identical call from which repeats are suppressed; 0 is
	// repeat suppression off.
	From       int   `json:"from"`
	Suppressed int   `json:"suppressed"`
	Saved      int64 `json:"saved_tokens"`
	// Cost and CostAfter are nil when a call's model has no price.
	Cost      *float64     `json:"cost_usd"`
	CostAfter *float64     `json:"cost_usd_after"`
	Hazards   SweepHazards `json:"hazards"`
}

// DedupeFroms are the settings a repeat-suppression sweep tries: off, then
// from the 2nd, 3rd and 4th identical call.
var DedupeFroms = []int{0, 2, 3, 4}

// SweepDedupe replays the session with repeat suppression at each setting
// of froms (0: off), everything else as pol has it, planning spills
// without writing them.
func (p *Prepared) SweepDedupe(pol policy.Policy, froms []int) ([]DedupePoint, error) {
	out := make([]DedupePoint, 0, len(froms))
	for _, from := range froms {
		q := pol.Clone()
		if err := q.SetDedupe(from); err != nil {
			return nil, err
		}
		rp, err := p.Replay(q, Options{})
		if err != nil {
			return nil, err
		}
		out = append(out, DedupePoint{
			From: from, Suppressed: rp.Totals.Actions[Suppressed], Saved: rp.Totals.SavedPerCall,
			Cost: rp.Totals.Cost, CostAfter: rp.Totals.CostAfter, Hazards: sweepHazards(rp.Totals.Hazards),
		})
	}
	return out, nil
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
// writing them, for the figures alone (Options.CountsOnly). A policy that
// follows the Claude Code version (policy.ForVersion) is taken as that
// version applied it, and then at each ceiling as asked: every point is
// at its ceiling, the version's own included.
func (p *Prepared) Sweep(pol policy.Policy, ceilings []int64) ([]SweepPoint, error) {
	pol = p.Applied(pol)
	pol.FollowVersion = false
	out := make([]SweepPoint, 0, len(ceilings))
	for _, c := range ceilings {
		q := pol.Clone()
		q.SetCeiling(c)
		rp, err := p.Replay(q, Options{CountsOnly: true})
		if err != nil {
			return nil, err
		}
		pt := rp.Point()
		pt.Own = c == pol.Ceiling
		out = append(out, pt)
	}
	return out, nil
}

// Point is the run's outcome as a point of a sweep at its policy's
// ceiling: a replay under a policy is the sweep's point there, and a
// chart that has it need not sweep that ceiling again.
func (r *Run) Point() SweepPoint {
	t := &r.Totals
	return SweepPoint{
		Ceiling: r.Policy.Ceiling, Own: true,
		Acted:      t.Actions[Truncated] + t.Actions[Spilled],
		Suppressed: t.Actions[Suppressed],
		Saved:      t.SavedPerCall,
		Cost:       t.Cost, CostAfter: t.CostAfter,
		Hazards: sweepHazards(t.Hazards),
	}
}
