package ui

import (
	"encoding/json"
	"math"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
)

// chart holds the savings curve's points, computed one at a time in the
// background after the totals are in, and kept by the knobs they depend
// on: a new ceiling needs no new point but its own, which is the replay
// already shown, so + and - never wait for the curve. A point is the
// session's own log's with its sub-agents' added, under the policy as the
// session's replays apply it (sessionScreen.applied).
type chart struct {
	prep *replay.Prepared // the session's own log's, whose points these are
	// points holds every point computed for prep, by knobsKey and ceiling.
	points map[string]map[int64]replay.SweepPoint
	// anchors are the ceilings each knobs' curve was first drawn at
	// (replay.ChartCeilings): its points stay as + and - move the ceiling.
	anchors map[string]int64
	// failed holds the knobs whose curve could not be computed, and why.
	failed map[string]error
	// busy is set while a point is being computed; the next one starts
	// when it is in, for the policy in force then.
	busy bool
}

// sweptMsg carries one point of the curve.
type sweptMsg struct {
	prep  *replay.Prepared
	knobs string
	point replay.SweepPoint
	err   error
}

// knobsKey identifies what a curve depends on besides the ceiling: every
// knob, per-tool ceilings taken relative to the main one, which they
// scale with. The ratios are rounded to 1/1,000: each + or - rounds a
// per-tool ceiling down, so that after many the ratio has drifted by a
// few in 100,000, which moves no point of the curve that can be seen.
func knobsKey(p policy.Policy) string {
	p = p.Clone()
	p.Name, p.Description = "", ""
	if p.Ceiling > 0 {
		for tool, v := range p.PerTool {
			if v > 0 {
				p.PerTool[tool] = int64(math.Round(float64(v) * 1e3 / float64(p.Ceiling)))
			}
		}
		p.Ceiling = 1
	}
	data, _ := json.Marshal(p)
	return string(data)
}

// reset forgets every point when the prepared session changes.
func (c *chart) reset(prep *replay.Prepared) {
	if c.prep != prep {
		c.prep, c.points, c.failed, c.anchors = prep, map[string]map[int64]replay.SweepPoint{}, map[string]error{}, map[string]int64{}
	}
}

func (c *chart) put(knobs string, pt replay.SweepPoint) {
	if c.points[knobs] == nil {
		c.points[knobs] = map[int64]replay.SweepPoint{}
	}
	c.points[knobs][pt.Ceiling] = pt
}

// addReplay keeps the replays shown, the session's own first, under
// applied, as the curve's point at its ceiling.
func (c *chart) addReplay(applied policy.Policy, runs []*replay.Run) {
	c.reset(runs[0].Prepared)
	if applied.Ceiling <= 0 {
		return
	}
	pts, usage := make([]replay.SweepPoint, len(runs)), make([]bool, len(runs))
	for i, rp := range runs {
		pts[i], usage[i] = rp.Point(), replay.RecordsUsage(rp.Prepared.Session)
	}
	pt := replay.PartsPoint(pts, usage)
	knobs := knobsKey(applied)
	if _, ok := c.anchors[knobs]; !ok {
		c.anchors[knobs] = applied.Ceiling
	}
	c.put(knobs, pt)
}

// curve is the points known for policy at its sweep ceilings, in order,
// and how many are still missing.
func (c *chart) curve(policy policy.Policy) (points []replay.SweepPoint, missing int) {
	knobs := knobsKey(policy)
	have := c.points[knobs]
	for _, ceiling := range replay.ChartCeilings(policy, c.anchors[knobs]) {
		if pt, ok := have[ceiling]; ok {
			pt.Own = ceiling == policy.Ceiling
			points = append(points, pt)
		} else {
			missing++
		}
	}
	return points, missing
}

// next starts computing the first point policy's curve lacks over preps,
// the session's own log first, unless one is being computed already.
func (c *chart) next(preps []*replay.Prepared, policy policy.Policy) tea.Cmd {
	if len(preps) == 0 || c.busy {
		return nil
	}
	prep := preps[0]
	c.reset(prep)
	knobs := knobsKey(policy)
	if c.failed[knobs] != nil {
		return nil
	}
	have := c.points[knobs]
	ceilings := replay.ChartCeilings(policy, c.anchors[knobs])
	i := slices.IndexFunc(ceilings, func(ceiling int64) bool {
		_, ok := have[ceiling]
		return !ok
	})
	if i < 0 {
		return nil
	}
	ceiling := ceilings[i]
	c.busy = true
	return func() tea.Msg {
		pts, usage := make([]replay.SweepPoint, len(preps)), make([]bool, len(preps))
		for i, p := range preps {
			swept, err := p.Sweep(policy, []int64{ceiling}, replay.Options{})
			if err != nil {
				return sweptMsg{prep: prep, knobs: knobs, err: err}
			}
			pts[i], usage[i] = swept[0], replay.RecordsUsage(p.Session)
		}
		return sweptMsg{prep: prep, knobs: knobs, point: replay.PartsPoint(pts, usage)}
	}
}

// swept takes a computed point.
func (c *chart) swept(msg sweptMsg) {
	c.busy = false
	if msg.prep != c.prep {
		return
	}
	if msg.err != nil {
		c.failed[msg.knobs] = msg.err
		return
	}
	c.put(msg.knobs, msg.point)
}

// err is why policy's curve could not be computed, nil when it can.
func (c *chart) err(policy policy.Policy) error { return c.failed[knobsKey(policy)] }
