package report

import (
	"slices"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/ledger"
)

// RealizedTotals sum what spillway's hook cut from a session's results
// as it ran in it, from its ledger (each result's is its ledger entry).
type RealizedTotals struct {
	ledger.Totals
	// SavedUSD estimates what the tokens cut would have cost over the calls
	// that carried the results, at their recorded marginal rates (the
	// replay's carry cost, scaled): null when no cut result was carried by
	// a priced call.
	SavedUSD *float64 `json:"saved_usd"`
	// Policies names the policies the hook ran with.
	Policies []string `json:"policies"`
}

// readLedger is the hook's ledger of session in dir; nil when there is
// none or no dir.
func readLedger(dir, session string) (map[string]ledger.Entry, error) {
	if dir == "" || session == "" {
		return nil, nil
	}
	entries, _, err := ledger.Read(dir, session)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	return ledger.ByID(entries), nil
}

// annotate adds to s what the options ask beyond Build: each result's
// texts, and what the hook's ledger says it did.
func annotate(s *Session, rp *replay.Run, opt Options, led map[string]ledger.Entry) {
	for i := range s.Results {
		r := &rp.Results[i]
		res := &s.Results[i]
		if opt.Texts {
			text, after := rp.Prepared.Text(r.Source), r.Text
			res.Text, res.TextAfter = &text, &after
		}
		e, ok := led[r.Source.CallID]
		if !ok || r.Source.Tool != e.Tool {
			continue
		}
		res.Realized = &e
		t := s.Totals.Realized
		if t == nil {
			t = &RealizedTotals{}
			s.Totals.Realized = t
		}
		t.Add(e)
		if !slices.Contains(t.Policies, e.Policy) {
			t.Policies = append(t.Policies, e.Policy)
		}
		// A cut is priced whatever its sign: a policy's notice can be
		// longer than what Claude Code alone would have sent.
		if cut := e.Tokens - e.TokensAfter; cut != 0 && r.Tokens > 0 && r.CarryCalls > 0 {
			usd := r.CarryCost * float64(cut) / float64(r.Tokens)
			if t.SavedUSD == nil {
				t.SavedUSD = new(float64)
			}
			*t.SavedUSD += usd
		}
	}
}

// include adds a sub-agent's realized totals.
func (t *RealizedTotals) include(o *RealizedTotals) *RealizedTotals {
	if o == nil {
		return t
	}
	if t == nil {
		c := *o
		c.Policies = append([]string(nil), o.Policies...)
		if o.SavedUSD != nil {
			v := *o.SavedUSD
			c.SavedUSD = &v
		}
		return &c
	}
	t.Merge(o.Totals)
	if o.SavedUSD != nil {
		if t.SavedUSD == nil {
			t.SavedUSD = new(float64)
		}
		*t.SavedUSD += *o.SavedUSD
	}
	for _, p := range o.Policies {
		if !slices.Contains(t.Policies, p) {
			t.Policies = append(t.Policies, p)
		}
	}
	return t
}
