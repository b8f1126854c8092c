package replay

import (
	"encoding/json"
	"strings"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
)

// A result over the ceiling is rendered (read again where its text is read
// on demand, cut or spilled, its replacement counted) by every replay that
// shapes it, though most tunings do not change what it is rendered into: a
// spill's notice does not depend on the ceiling, and neither depends on
// repeat suppression, risk or exclusions. So a counts-only replay keeps,
// per result, what its last rendering gave and under what, and the next
// one rendering it the same way takes that instead of rendering again. One
// rendering is kept per result, and no text: a list of many sessions keeps
// a few words per result it shaped.

// shapedMemo is what rendering one result gave.
type shapedMemo struct {
	key shapeKey
	// What the rendering made of the result: the reason shape gave it is
	// followed by reasonAdd.
	outcome                 Outcome
	reasonAdd, locator      string
	tokensAfter, afterBytes int64
}

// shapeKey is everything a result's rendering depends on beyond the result
// itself: the policy but what only decides whether it acts, the outcome
// shape chose, and the ceiling where the rendering uses it.
type shapeKey struct {
	policy  string
	outcome Outcome
	ceiling int64
}

// renderKey is q as far as rendering a shaped result depends on it, with
// whether the replay is the hook's; "" when a replay is not to reuse
// renderings.
func renderKey(q policy.Policy, hook bool) string {
	// A copy: its fields are replaced, its tables left alone. Which
	// results act, not what they are made into: shape and repeat
	// suppression decide before rendering, and the ceiling is in the
	// shapeKey where it counts.
	q.Name, q.Description = "", ""
	q.Ceiling, q.PerTool = 0, nil
	q.Dedupe = policy.Dedupe{}
	q.Risk = policy.RiskTable{}
	q.Exclude, q.ShapeErrors, q.NonText = nil, false, ""
	b, err := json.Marshal(q)
	if err != nil {
		return ""
	}
	if hook {
		return "hook " + string(b)
	}
	return string(b)
}

// shapeKeyOf is the key of rendering r, pending, at ceiling.
func (rp *Run) shapeKeyOf(r *Result, ceiling int64) shapeKey {
	k := shapeKey{policy: rp.renderKey, outcome: r.Outcome}
	if r.Outcome != Spilled || rp.Policy.Style == harness.DeepSeek {
		k.ceiling = ceiling // a cut's length, DeepSeek's inline bound
	}
	return k
}

// reuseShaped gives r what the last rendering of it under key made, when
// there is one; false leaves r as it was.
func (rp *Run) reuseShaped(it *item, r *Result, key shapeKey) bool {
	m := it.shaped.Load()
	if m == nil || m.key != key {
		return false
	}
	r.pending, r.parts = false, nil
	r.Outcome, r.Reason, r.Locator = m.outcome, r.Reason+m.reasonAdd, m.locator
	r.TokensAfter, r.afterBytes = m.tokensAfter, m.afterBytes
	if m.outcome != Kept {
		r.Text = "" // a counts-only replay lets it go once counted
	}
	return true
}

// keepShaped keeps what rendering r under key made of it, reason being
// the reason it had before.
func (rp *Run) keepShaped(it *item, r *Result, key shapeKey, reason string) {
	add, ok := strings.CutPrefix(r.Reason, reason)
	if !ok || rp.Prepared.TextErr() != nil {
		return // a text read as empty is not to be taken again
	}
	// add is the tail of the reason, usually empty: cloned, it does not
	// keep the whole reason alive (12 MB of them on the 2 GB fleet).
	m := &shapedMemo{key: key, outcome: r.Outcome, reasonAdd: strings.Clone(add), locator: r.Locator,
		tokensAfter: r.TokensAfter, afterBytes: r.afterBytes}
	it.shaped.Store(m)
}
