package replay

import (
	"slices"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/transcript"
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
	// HazardsLater says the hazards were not looked for
	// (Options.HazardsLater): Hazards counts none.
	HazardsLater bool `json:"-"`
}

// SweepHazards counts a sweep point's hazards by kind, and the used_hidden
// ones a spill file held.
type SweepHazards struct {
	UsedHidden       int `json:"used_hidden"`
	Retrievable      int `json:"retrievable"`
	SuppressedUnseen int `json:"suppressed_unseen"`
	Stale            int `json:"stale"`
}

// Total is every hazard, as HazardCounts.Total counts them.
func (h SweepHazards) Total() int {
	return HazardCounts{UsedHidden: h.UsedHidden, SuppressedUnseen: h.SuppressedUnseen, Stale: h.Stale}.Total()
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
	a.HazardsLater = a.HazardsLater || b.HazardsLater
	if dollars {
		a.Cost, a.CostAfter = addCost(a.Cost, b.Cost), addCost(a.CostAfter, b.CostAfter)
	}
	return a
}

// PartsPoint is a session's point at one ceiling from its parts' (its own
// log's first; usage[i] tells whether part i's log records usage): their
// counts added, and the dollars of the parts that record usage, unknown
// when one of those has none or none records any, as the session's totals
// add them. So a session's point is its replay's figures, whichever part
// records the usage.
func PartsPoint(pts []SweepPoint, usage []bool) SweepPoint {
	out := SweepPoint{Ceiling: pts[0].Ceiling, Own: pts[0].Own}
	priced := false
	for i, pt := range pts {
		switch {
		case !usage[i]:
			out = out.Plus(pt, false)
		case !priced:
			out = out.Plus(pt, false)
			out.Cost, out.CostAfter = copyCost(pt.Cost), copyCost(pt.CostAfter)
			priced = true
		default:
			out = out.Plus(pt, true)
		}
	}
	return out
}

// RecordsUsage tells whether a call of s records usage: a part of a
// session without any adds no dollars to it (PartsPoint).
func RecordsUsage(s *transcript.Session) bool {
	return slices.ContainsFunc(s.Calls, func(c transcript.Call) bool { return c.Usage != nil })
}

func copyCost(c *float64) *float64 {
	if c == nil {
		return nil
	}
	v := *c
	return &v
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
	// AcrossCompaction and AfterWrite are RepeatCounts'.
	AcrossCompaction int `json:"across_compaction"`
	AfterWrite       int `json:"after_own_write"`
}

// DedupeRule is a rule of repeat suppression a sweep tries.
type DedupeRule struct {
	Name   string        `json:"name"`
	Dedupe policy.Dedupe `json:"dedupe"`
}

// DedupeRules are the harnesses' rules: harness-rs's (an identical
// read-only call, forgotten at every call that is not read-only) and each
// of Claude Code's (the same Read of an unchanged file, forgotten when the
// file is written; in some versions the agent's own write counts as a
// read), and pol's own where it has another.
func DedupeRules(pol policy.Policy) []DedupeRule {
	var out []DedupeRule
	add := func(name string, d policy.Dedupe) {
		for _, r := range out {
			if sameRule(r.Dedupe, d) {
				return
			}
		}
		out = append(out, DedupeRule{name, d})
	}
	for _, p := range policy.Presets() {
		switch {
		case p.Style == harness.HarnessRS && p.Dedupe.Enabled:
			add("harness-rs", p.Dedupe)
		case p.Style == harness.ClaudeCode && !p.FollowVersion && p.Dedupe.Enabled:
			add(p.Name, p.Dedupe)
		}
	}
	if pol.Dedupe.Key != "" {
		add(pol.Name, pol.Dedupe)
	}
	return out
}

// sameRule tells whether two rules suppress the same repeats.
func sameRule(a, b policy.Dedupe) bool {
	return a.Key == b.Key && a.Clear == b.Clear && slices.Equal(a.Tools, b.Tools) && a.SameContent == b.SameContent && a.WritesCount == b.WritesCount
}

// DedupeSweep is a repeat-suppression sweep's outcome over a session: the
// policy with suppression off, what its ceiling alone does, and each rule
// from each identical call tried.
type DedupeSweep struct {
	Alone DedupePoint     `json:"ceiling_alone"`
	Rules []DedupeRuleRun `json:"rules"`
}

// DedupeRuleRun is one rule's part of a sweep. Identical and Cleared are
// RepeatCounts', which do not depend on where suppression starts.
type DedupeRuleRun struct {
	DedupeRule
	Identical int           `json:"identical_repeats"`
	Cleared   int           `json:"cleared"`
	Points    []DedupePoint `json:"points"`
}

// DedupeFroms are the identical calls a repeat-suppression sweep starts
// suppressing from: the 2nd or the 3rd.
var DedupeFroms = []int{2, 3}

// SweepDedupe replays the session under pol with repeat suppression off,
// then under each rule from each of froms, everything else as pol has it
// (for the Claude Code version that recorded the session), counting only.
func (p *Prepared) SweepDedupe(pol policy.Policy, rules []DedupeRule, froms []int) (*DedupeSweep, error) {
	base := p.Applied(pol)
	base.FollowVersion = false // resolved: the rule's knobs stay as given
	point := func(q policy.Policy, from int) (DedupePoint, RepeatCounts, error) {
		rp, err := p.Replay(q, Options{CountsOnly: true})
		if err != nil {
			return DedupePoint{}, RepeatCounts{}, err
		}
		defer rp.Release()
		t := &rp.Totals
		return DedupePoint{
			From: from, Suppressed: t.Actions[Suppressed], Saved: t.SavedPerCall,
			Cost: t.Cost, CostAfter: t.CostAfter, Hazards: sweepHazards(t.Hazards),
			AcrossCompaction: t.Repeats.AcrossCompaction, AfterWrite: t.Repeats.AfterWrite,
		}, t.Repeats, nil
	}
	alone := base.Clone()
	alone.Dedupe.Enabled = false
	out := &DedupeSweep{}
	var err error
	if out.Alone, _, err = point(alone, 0); err != nil {
		return nil, err
	}
	for _, rule := range rules {
		run := DedupeRuleRun{DedupeRule: rule}
		for _, from := range froms {
			q := base.Clone()
			q.Dedupe = rule.Dedupe
			q.Dedupe.Tools = slices.Clone(rule.Dedupe.Tools)
			q.Dedupe.Enabled, q.Dedupe.From = true, from
			pt, counts, err := point(q, from)
			if err != nil {
				return nil, err
			}
			run.Identical, run.Cleared = counts.Identical, counts.Cleared
			run.Points = append(run.Points, pt)
		}
		out.Rules = append(out.Rules, run)
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

// ChartCeilings are the ceilings the inspector's charts show for p:
// anchor, the ceiling a chart of p's other knobs was first drawn at (p's
// own when 0), doubled and halved as the + and - keys do (rounding down)
// within SweepCeilings' range, and p's own. A chart so keeps its points as
// the keys move the ceiling, and a key lands on one already computed;
// another ceiling needs its own point alone. SweepCeilings' without a
// ceiling.
func ChartCeilings(p policy.Policy, anchor int64) []int64 {
	if p.Ceiling <= 0 {
		return SweepCeilings(p)
	}
	if anchor <= 0 {
		anchor = p.Ceiling
	}
	lo, hi := bytesToUnit(2*1024, p.Unit), bytesToUnit(256*1024, p.Unit)
	out := []int64{p.Ceiling}
	if anchor >= lo && anchor <= hi {
		out = append(out, anchor)
	}
	for c := anchor; c <= hi/2; {
		if c *= 2; c >= lo {
			out = append(out, c)
		}
	}
	for c := anchor / 2; c >= lo; c /= 2 {
		if c <= hi {
			out = append(out, c)
		}
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
// writing them, for the figures alone (Options.CountsOnly). Each point is
// the replay under pol at that ceiling, as report --max-bytes gives it: a
// policy that follows the harness's version (policy.ForVersion) is set to
// the ceiling first and then applied to the session's version, so its own
// ceiling is the version's own policy and any other is the ceiling as
// set. Of opt, only HazardsLater is taken.
func (p *Prepared) Sweep(pol policy.Policy, ceilings []int64, opt Options) ([]SweepPoint, error) {
	out := make([]SweepPoint, 0, len(ceilings))
	for _, c := range ceilings {
		rp, err := p.Replay(pol.AtCeiling(c), Options{CountsOnly: true, HazardsLater: opt.HazardsLater})
		if err != nil {
			return nil, err
		}
		pt := rp.Point()
		rp.Release()
		// At its own ceiling a policy that follows the version is the
		// version's, whose ceiling may be another: the point is still
		// the one asked for.
		pt.Ceiling, pt.Own = c, c == pol.Ceiling
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
		Hazards: sweepHazards(t.Hazards), HazardsLater: r.HazardsLater,
	}
}
