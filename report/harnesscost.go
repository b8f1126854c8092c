package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/transcript"
)

// usPremium is what Claude Code multiplies a model's price by for
// inference run only in the US (its changelog, from 2.1.239).
const usPremium = 1.1

// harnessCost notes the harness's own cost of the session, and where it
// differs from spillway's price of the same calls by more than a cent,
// why, as far as the log tells.
func (t *Totals) harnessCost(c *transcript.HarnessCost) {
	if c == nil {
		return
	}
	t.HarnessCostUSD = &c.USD
	ours := t.PricedCostUSD
	if math.Abs(c.USD-ours) <= 0.01 {
		return
	}
	var why []string
	if c.UnknownModel {
		why = append(why, "Claude Code had no price for a model it used and left its calls out")
	}
	if len(t.UnpricedModels) > 0 {
		why = append(why, "spillway has no price for "+unpricedNames(t.UnpricedModels)+" and leaves its calls out")
	}
	priced := map[string]*float64{}
	for _, m := range t.ByModel {
		priced[m.Model] = m.CostUSD
	}
	var models []string
	for m := range c.ByModel {
		models = append(models, m)
	}
	slices.Sort(models)
	for _, m := range models {
		theirs := c.ByModel[m]
		p, ok := priced[m]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("Claude Code counts %s of %s, which no call of this log uses (a sub-agent's log not read with it?)",
				human.USD(&theirs), m))
		case p == nil:
		case *p > 0 && math.Abs(theirs / *p - usPremium) < 0.002:
			why = append(why, fmt.Sprintf("Claude Code priced %s at 1.1 times spillway's price: its premium for inference run only in the US (2.1.239 and later)", m))
		case math.Abs(theirs-*p) > 0.01:
			why = append(why, fmt.Sprintf("Claude Code priced %s at %s, spillway at %s (a tier or price the log does not name?)", m, human.USD(&theirs), human.USD(p)))
		}
	}
	for _, m := range t.ByModel {
		if _, ok := c.ByModel[m.Model]; !ok && m.CostUSD != nil && *m.CostUSD > 0.01 {
			why = append(why, fmt.Sprintf("spillway prices %s of %s, which Claude Code's total leaves out", human.USD(m.CostUSD), m.Model))
		}
	}
	if len(why) == 0 {
		why = append(why, "the log does not tell why")
	}
	t.HarnessCostNote = strings.Join(why, "; ")
}
