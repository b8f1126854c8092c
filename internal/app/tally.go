package app

import (
	"slices"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// Tally is what a session's log records, before any policy, summed the one
// way every front end sums it: report's totals, the session index's
// entries and the session list's rows are views of it. A copy of a
// response another session counts (Call.CountedIn) is in no figure but
// Calls and Copied; a call is priced as replay.Prepare prices it; each
// model on which usage was billed (a call's own and its extra usage) gets
// its share.
type Tally struct {
	Calls  int // every call of the log, copies too
	Copied int // of Calls, copies another session counts
	// RecordedCalls are the calls with usage, copies too; NoUsage those
	// without, copies not.
	RecordedCalls, NoUsage int
	// LowerBound counts the calls, copies not, whose recorded output is a
	// lower bound (the log wrote usage as the response began).
	LowerBound int
	Recorded   Tokens
	// Priced is the cost of the usage on priced models, in call order;
	// Unpriced names the models without a price, sorted.
	Priced   float64
	Unpriced []string
	ByModel  []ModelTally // sorted by model
	// First and Last are the times of the first and last call; zero when
	// no call has one.
	First, Last time.Time
	Models      []string // in order of first use
	Results     int
	ResultBytes int64
	Largest     int // the largest result's bytes
	Compactions int
	Warnings    int // the reader's
}

// Tokens are recorded token counts; the four kinds add up to what was billed.
type Tokens struct {
	Input, CacheCreation, CacheRead, Output int64
}

// Total is every token of the four kinds.
func (t Tokens) Total() int64 { return t.Input + t.CacheCreation + t.CacheRead + t.Output }

func (t *Tokens) add(u transcript.Usage) {
	t.Input += u.Input
	t.CacheCreation += u.CacheCreation
	t.CacheRead += u.CacheRead
	t.Output += u.Output
}

// Add adds o.
func (t *Tokens) Add(o Tokens) {
	t.Input += o.Input
	t.CacheCreation += o.CacheCreation
	t.CacheRead += o.CacheRead
	t.Output += o.Output
}

// ModelTally is one model's share of a Tally.
type ModelTally struct {
	Model    string
	APICalls int
	Recorded Tokens
	// CostUSD is the usage's cost when Priced.
	CostUSD float64
	Priced  bool
}

// Cost is the recorded cost: nil when no call records usage or a model
// that billed some has no price.
func (t Tally) Cost() *float64 {
	if t.RecordedCalls == 0 || len(t.Unpriced) > 0 {
		return nil
	}
	usd := t.Priced
	return &usd
}

// TallyOf totals one log's session.
func TallyOf(s *transcript.Session, prices *pricing.Table) Tally {
	t := Tally{Calls: len(s.Calls), Warnings: s.WarningCount, Models: slices.Clone(s.Models)}
	type price struct {
		e  pricing.Entry
		ok bool
	}
	lookups := map[string]price{}
	lookup := func(model string) (pricing.Entry, bool) {
		p, seen := lookups[model]
		if !seen && prices != nil {
			e, _, ok := prices.Lookup(model)
			p = price{e, ok}
			lookups[model] = p
		}
		return p.e, p.ok
	}
	byModel := map[string]*ModelTally{}
	unpriced := map[string]bool{}
	// The model of the call before, its totals and its price: calls mostly
	// name the model the one before them did.
	var last struct {
		name  string
		m     *ModelTally
		e     pricing.Entry
		ok    bool
		valid bool
	}
	for i := range s.Calls {
		c := &s.Calls[i]
		if !c.Time.IsZero() {
			at := c.Time.UTC().Round(0)
			if t.First.IsZero() || at.Before(t.First) {
				t.First = at
			}
			if at.After(t.Last) {
				t.Last = at
			}
		}
		copied := c.CountedIn != ""
		if copied {
			t.Copied++
		}
		model := func(name string, u transcript.Usage) {
			if copied {
				return
			}
			t.Recorded.add(u)
			if !last.valid || name != last.name {
				m := byModel[name]
				if m == nil {
					m = &ModelTally{Model: name}
					byModel[name] = m
				}
				e, ok := lookup(name)
				last.name, last.m, last.e, last.ok, last.valid = name, m, e, ok, true
			}
			m := last.m
			m.APICalls++
			m.Recorded.add(u)
			if last.ok {
				usd := last.e.Cost(u)
				t.Priced += usd
				m.CostUSD += usd
				m.Priced = true
			} else {
				unpriced[name] = true
			}
		}
		switch {
		case c.Usage != nil:
			t.RecordedCalls++
			if !copied && c.Usage.OutputLowerBound {
				t.LowerBound++
			}
			model(c.Model, *c.Usage)
		case !copied:
			t.NoUsage++
		}
		for _, x := range c.Extra {
			model(x.Model, x.Usage)
		}
	}
	t.addResults(s.Leading.Results)
	for i := range s.Calls {
		t.addResults(s.Calls[i].Results)
	}
	for _, e := range s.Events {
		if e.Kind == transcript.EventCompaction {
			t.Compactions++
		}
	}
	for m := range unpriced {
		t.Unpriced = append(t.Unpriced, m)
	}
	slices.Sort(t.Unpriced)
	for _, m := range byModel {
		t.ByModel = append(t.ByModel, *m)
	}
	slices.SortFunc(t.ByModel, func(a, b ModelTally) int { return strings.Compare(a.Model, b.Model) })
	return t
}

func (t *Tally) addResults(results []transcript.ToolResult) {
	for i := range results {
		n := results[i].Bytes()
		t.Results++
		t.ResultBytes += int64(n)
		t.Largest = max(t.Largest, n)
	}
}

// Add sums o, a sub-agent's log, into its session's t: each log's priced
// cost, then the next's, in the order they are added.
func (t *Tally) Add(o Tally) {
	if !o.First.IsZero() && (t.First.IsZero() || o.First.Before(t.First)) {
		t.First = o.First
	}
	if o.Last.After(t.Last) {
		t.Last = o.Last
	}
	for _, m := range o.Models {
		if !slices.Contains(t.Models, m) {
			t.Models = append(t.Models, m)
		}
	}
	t.Calls += o.Calls
	t.Copied += o.Copied
	t.RecordedCalls += o.RecordedCalls
	t.NoUsage += o.NoUsage
	t.LowerBound += o.LowerBound
	t.Recorded.Add(o.Recorded)
	t.Priced += o.Priced
	for _, m := range o.Unpriced {
		if !slices.Contains(t.Unpriced, m) {
			t.Unpriced = append(t.Unpriced, m)
		}
	}
	slices.Sort(t.Unpriced)
	for _, m := range o.ByModel {
		k := slices.IndexFunc(t.ByModel, func(x ModelTally) bool { return x.Model == m.Model })
		if k < 0 {
			t.ByModel = append(t.ByModel, ModelTally{Model: m.Model})
			k = len(t.ByModel) - 1
		}
		sum := &t.ByModel[k]
		sum.APICalls += m.APICalls
		sum.Recorded.Add(m.Recorded)
		if m.Priced {
			sum.CostUSD += m.CostUSD
			sum.Priced = true
		}
	}
	slices.SortFunc(t.ByModel, func(a, b ModelTally) int { return strings.Compare(a.Model, b.Model) })
	t.Results += o.Results
	t.ResultBytes += o.ResultBytes
	t.Largest = max(t.Largest, o.Largest)
	t.Compactions += o.Compactions
	t.Warnings += o.Warnings
}

// Tally totals the session with its sub-agents.
func (s *Session) Tally() Tally {
	t := TallyOf(s.Session, s.Prices)
	for _, sub := range s.Subagents {
		t.Add(TallyOf(sub.Session, sub.Prices))
	}
	return t
}
