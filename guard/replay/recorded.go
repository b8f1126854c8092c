package replay

import (
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// Recorded is every call of a session priced as recorded: its Calls and
// Totals are those of a replay under a policy that changes nothing, but
// Totals count the calls alone (Results, Actions, Bytes and Tokens stay
// zero): no result is measured to price them.
type Recorded struct {
	Calls  []Call
	Totals Totals
}

// PriceRecorded prices every call of s as recorded, as Prepare and a
// Replay that changes nothing price them, without preparing its results:
// a session read for its sizes alone shows its costs at once this way,
// where a replay would first make an item of every result and map their
// call ids only to leave each as it was.
func PriceRecorded(s *transcript.Session, prices *pricing.Table) *Recorded {
	p := &Prepared{Session: s, Prices: prices} // no items: nothing carried, nothing taken out
	p.priceRecorded()
	rp := &Run{Prepared: p}
	rp.price()
	return &Recorded{Calls: rp.Calls, Totals: rp.Totals}
}
