// Package report turns sessions into the spillway.report/v1 document and
// writes it as JSON, CSV or a text table.
package report

import (
	"sort"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/ledger"
)

// Schema names the JSON contract.
const Schema = "spillway.report/v1"

// Report is the whole document.
type Report struct {
	Schema   string     `json:"schema"`
	Prices   string     `json:"prices"`
	Sessions []*Session `json:"sessions"`
}

// Session is one transcript's report.
type Session struct {
	Path      string         `json:"path"`
	Format    string         `json:"format"`
	SessionID string         `json:"session_id"`
	Title     string         `json:"title"`
	Version   string         `json:"agent_version"`
	ParentID  string         `json:"parent_id"` // the session this one was forked or spawned from
	Relation  string         `json:"relation"`  // how: "fork", "subagent" or "none"
	Models    []string       `json:"models"`
	Calls     []Call         `json:"calls"`
	Results   []Result       `json:"results"`
	Events    []Event        `json:"events"`
	Totals    Totals         `json:"totals"`
	Warnings  []Warning      `json:"warnings"`
	Skipped   map[string]int `json:"skipped_records"`
	Lines     int            `json:"lines"`
	// Policy is every knob of the policy the results were replayed through.
	Policy policy.Policy `json:"policy"`
	Tokens TokenNotes    `json:"tokens"`
	// Subagents are the reports of the sub-agent logs of this session,
	// each with its own calls and totals; Totals include theirs. Absent
	// when the session ran none.
	Subagents []*Session `json:"subagents,omitempty"`
	// ByTool sums this log's results by tool (a sub-agent's are in its own).
	ByTool []ToolCost `json:"by_tool"`
	// Spills are the spill files the replay planned, for the text report
	// (the JSON gives each result's spill_path).
	Spills SpillFiles `json:"-"`

	// stdin and cwd are the log's from standard input (transcript.Session).
	stdin bool
	cwd   string
	// tally is what Totals' figures before the policy are a view of, the
	// sub-agents' included; replayWarnings count the replay's warnings.
	tally          app.Tally
	replayWarnings int
}

// SpillFiles counts the spill files of one log's replay.
type SpillFiles struct {
	Dir              string // the folder they go under
	Planned, Written int
	Error            string // the first write that failed
}

// TokenNotes say where the token figures come from.
type TokenNotes struct {
	// Encoding counted the results ("" when nothing needed counting).
	Encoding    string             `json:"encoding"`
	Calibration replay.Calibration `json:"calibration"`
	// Saved is the provenance of saved tokens: "calibrated" or "estimated".
	Saved string `json:"saved"`
	// Assumption states what the after figures assume.
	Assumption string `json:"assumption"`
	// Carry says what the carry costs rest on where tokens were not
	// counted, for the text report; "" where they were.
	Carry string `json:"-"`
}

// assumption is printed wherever an after figure is.
const assumption = "after figures assume the agent would have made the same calls and written the same output"

// Call is one API call.
type Call struct {
	Index        int        `json:"index"`
	Line         int        `json:"line"`
	Time         *time.Time `json:"time"`
	Model        string     `json:"model"`
	Segment      int        `json:"segment"`
	Sidechain    bool       `json:"sidechain"`
	Recorded     *Tokens    `json:"recorded"`
	PromptTokens *int64     `json:"prompt_tokens"`
	OutputTokens *int64     `json:"output_tokens"`
	// OutputLowerBound: the log recorded usage before the response ended.
	OutputLowerBound bool     `json:"output_lower_bound"`
	CostUSD          *float64 `json:"cost_usd"`
	ToolCalls        int      `json:"tool_calls"`
	// After the policy: nil where nothing was recorded or priced.
	PromptTokensAfter *int64   `json:"prompt_tokens_after"`
	CostUSDAfter      *float64 `json:"cost_usd_after"`
	// SavedTokens is null without a policy, as in calls.parquet.
	SavedTokens *int64 `json:"saved_tokens"`
	// CountedIn is the path of the session read with this one that counts
	// this response: the call is a copy, shown here and added to no total.
	CountedIn *string `json:"counted_in"`
	// Extra is usage the request billed on other models (Claude Code's
	// advisor), each priced with its own model; CostUSD prices Recorded.
	Extra []ExtraUsage `json:"extra"`
	// CostParts splits CostUSD by its causes; CostDetail says what they
	// rest on. Both nil where CostUSD is.
	CostParts  *CostParts  `json:"cost_parts"`
	CostDetail *CostDetail `json:"cost_detail"`
}

// ExtraUsage is a call's usage on another model.
type ExtraUsage struct {
	Model    string   `json:"model"`
	Recorded Tokens   `json:"recorded"`
	CostUSD  *float64 `json:"cost_usd"`
}

// Tokens are recorded token counts; the four kinds add up to what was billed.
type Tokens struct {
	Input         int64 `json:"input"`
	CacheCreation int64 `json:"cache_creation"`
	CacheRead     int64 `json:"cache_read"`
	Output        int64 `json:"output"`
}

// Result is one tool result.
type Result struct {
	CallID    string `json:"call_id"`
	Tool      string `json:"tool"`
	CallIndex int    `json:"call_index"`
	Line      int    `json:"line"`
	IsError   bool   `json:"is_error"`
	Bytes     int    `json:"bytes"`
	Images    int    `json:"images"`
	Clipped   bool   `json:"clipped_by_log"`
	// The replay.
	Action      string   `json:"action"`
	Reason      string   `json:"reason"`
	BytesAfter  int64    `json:"bytes_after"`
	Tokens      *int64   `json:"tokens"`
	TokensAfter *int64   `json:"tokens_after"`
	SavedTokens int64    `json:"saved_tokens"`
	SentAt      int      `json:"sent_at_call"`
	SpillPath   string   `json:"spill_path"`
	Locator     string   `json:"spill_locator"`
	RepeatOf    *int     `json:"repeat_of"`
	Stale       bool     `json:"stale"`
	CarryCost   *float64 `json:"carry_cost_usd"`
	CarryCalls  int      `json:"carry_calls"`
	Warning     string   `json:"warning"`
	// Hazard is null when the policy hid nothing the agent went on to need.
	Hazard *Hazard `json:"hazard"`
	// Text is the result's text as recorded and TextAfter what the model
	// would receive under the policy; both only with --texts.
	Text      *string `json:"text,omitempty"`
	TextAfter *string `json:"text_after,omitempty"`
	// Realized is what spillway's hook did to this result in the session
	// it ran in: its ledger entry; null when it did nothing.
	Realized *ledger.Entry `json:"realized"`
}

// Hazard is the evidence that a policy hid from the agent something it
// needed (replay.Hazard).
type Hazard struct {
	Kind        string `json:"kind"`
	Retrievable bool   `json:"retrievable"`
	// ExtraTokens estimates the call that would have read a retrievable
	// hazard's string back from its spill file; absent otherwise.
	ExtraTokens *int64 `json:"extra_tokens,omitempty"`
	CallIndex   int    `json:"call_index"`
	Evidence    string `json:"evidence"`
	// From, Match and Why are the text report's: where in the call the
	// evidence was, the string used, and what was hidden.
	From  string `json:"-"`
	Match string `json:"-"`
	Why   string `json:"-"`
}

// Event is a compaction or sidechain boundary.
type Event struct {
	Kind       string `json:"kind"`
	Line       int    `json:"line"`
	BeforeCall int    `json:"before_call"`
	Trigger    string `json:"trigger"`
	PreTokens  int64  `json:"pre_tokens"`
}

// Totals sum a session.
type Totals struct {
	APICalls int `json:"api_calls"`
	// CopiedCalls counts the calls that are copies of responses another
	// session counts; no other total includes them.
	CopiedCalls int    `json:"copied_calls"`
	Recorded    Tokens `json:"recorded"`
	CallsNoData int    `json:"calls_without_usage"`
	ToolResults int    `json:"tool_results"`
	ResultBytes int64  `json:"result_bytes"`
	// CostUSD is null when nothing was recorded or a model has no price.
	CostUSD        *float64    `json:"cost_usd"`
	PricedCostUSD  float64     `json:"priced_cost_usd"`
	UnpricedModels []string    `json:"unpriced_models"`
	ByModel        []ModelCost `json:"by_model"`
	Compactions    int         `json:"compactions"`
	// After the policy.
	PromptTokens int64 `json:"prompt_tokens"`
	// PromptTokensAfter is null without a policy, as every after figure.
	PromptTokensAfter *int64   `json:"prompt_tokens_after"`
	CostUSDAfter      *float64 `json:"cost_usd_after"`
	// SavedTokens is null without a policy, as in sessions.parquet.
	SavedTokens *int64         `json:"saved_tokens"`
	Actions     map[string]int `json:"actions"`
	Stale       int            `json:"stale"`
	// Hazards counts the results whose Hazard is set, by kind.
	Hazards replay.HazardCounts `json:"hazards"`
	// LowerBoundOutputs counts calls whose recorded output is a lower bound.
	LowerBoundOutputs int `json:"lower_bound_outputs"`
	// Realized sums what spillway's hook cut from the session's results
	// when it ran in it, from its ledger; null when it cut nothing.
	Realized *RealizedTotals `json:"realized"`
	Warnings int             `json:"warnings"`
	// HarnessCostUSD is the harness's own reckoning of the session's cost
	// where its log says (Claude Code's cost-state); null else.
	// HarnessCostNote says why it differs from spillway's price of the
	// same calls, where it does by more than a cent ("" else).
	HarnessCostUSD  *float64 `json:"harness_cost_usd"`
	HarnessCostNote string   `json:"harness_cost_note"`
}

// ModelCost is one model's share of a session.
type ModelCost struct {
	Model    string   `json:"model"`
	APICalls int      `json:"api_calls"`
	Recorded Tokens   `json:"recorded"`
	CostUSD  *float64 `json:"cost_usd"`
}

// Warning is a line the reader could not fully use.
type Warning struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Build reports a session replayed through a policy.
func Build(rp *replay.Run) *Session {
	p := rp.Prepared
	s := p.Session
	out := &Session{
		Path: s.Path, Format: string(s.Format), SessionID: s.ID, Title: s.Title, Version: s.Version,
		ParentID: s.ParentID, Relation: s.Relation.String(),
		Models: nonNil(s.Models), Calls: make([]Call, 0, len(s.Calls)), Results: make([]Result, 0, len(rp.Results)),
		Events: []Event{}, Warnings: make([]Warning, 0, len(s.Warnings)), Skipped: s.Skipped, Lines: s.Lines,
		Policy: rp.Policy, stdin: s.Stdin, cwd: s.Cwd,
		Tokens: TokenNotes{Encoding: p.Encoding(), Calibration: rp.Calibration, Saved: rp.Calibration.Source(), Assumption: assumption},
	}
	t := &out.Totals
	active := !rp.Policy.Inert()
	// What the calls point to is allocated once per session, not per call.
	times := make([]time.Time, len(s.Calls))
	recorded := make([]Tokens, len(s.Calls))
	counts := make([]int64, 3*len(s.Calls))
	parts, details := costParts(rp)
	for i := range s.Calls {
		c := &s.Calls[i]
		rc := Call{
			Index: c.Index, Line: c.Line, Model: c.Model,
			Segment: c.Segment, Sidechain: c.Sidechain, ToolCalls: len(c.ToolCalls),
		}
		if !c.Time.IsZero() {
			times[i] = c.Time.UTC()
			rc.Time = &times[i]
		}
		after := rp.Calls[i]
		if active {
			n := after.Saved()
			rc.SavedTokens = &n
		}
		copied := c.CountedIn != ""
		if copied {
			rc.CountedIn = &c.CountedIn
			t.CopiedCalls++
		}
		if c.Usage != nil {
			u := *c.Usage
			recorded[i] = Tokens{Input: u.Input, CacheCreation: u.CacheCreation, CacheRead: u.CacheRead, Output: u.Output}
			rc.Recorded = &recorded[i]
			n := counts[3*i : 3*i+3]
			n[0], n[1], n[2] = u.Prompt(), u.Output, after.UsageAfter.Prompt()
			rc.PromptTokens, rc.OutputTokens = &n[0], &n[1]
			rc.OutputLowerBound = u.OutputLowerBound
			rc.CostUSD = after.Cost
			if active { // without a policy there is no after, as in the Parquet tables
				rc.PromptTokensAfter, rc.CostUSDAfter = &n[2], after.CostAfter
			}
		}
		for _, x := range c.Extra {
			e := ExtraUsage{Model: x.Model, Recorded: Tokens{Input: x.Usage.Input, CacheCreation: x.Usage.CacheCreation,
				CacheRead: x.Usage.CacheRead, Output: x.Usage.Output}}
			if usd, ok := p.Prices.Cost(x.Model, x.Usage); ok {
				e.CostUSD = &usd
			}
			rc.Extra = append(rc.Extra, e)
		}
		if rc.Extra == nil {
			rc.Extra = []ExtraUsage{}
		}
		rc.CostParts, rc.CostDetail = parts[i], details[i]
		out.Calls = append(out.Calls, rc)
	}
	for i := range rp.Results {
		r := &rp.Results[i]
		src := r.Source
		res := Result{
			CallID: src.CallID, Tool: src.Tool, CallIndex: src.CallIndex, Line: src.Line,
			IsError: src.IsError, Bytes: src.Bytes(), Images: src.Images, Clipped: src.Clipped,
			Action: string(r.Outcome), Reason: r.Reason, BytesAfter: r.BytesAfter, SavedTokens: r.Saved,
			SentAt: r.SentAt, SpillPath: r.SpillPath, Locator: r.Locator, Stale: r.Stale,
			CarryCalls: r.CarryCalls, Warning: r.Warning,
		}
		if r.Tokens >= 0 {
			res.Tokens, res.TokensAfter = &r.Tokens, &r.TokensAfter
		}
		if r.CarryCalls > 0 { // else no priced call carried it, or its tokens are not known
			res.CarryCost = &r.CarryCost
		}
		if r.RepeatOf >= 0 {
			res.RepeatOf = &r.RepeatOf
		}
		if z := r.Hazard; z != nil {
			res.Hazard = &Hazard{Kind: string(z.Kind), Retrievable: z.Retrievable, CallIndex: z.CallIndex,
				Evidence: z.Evidence, From: z.From, Match: z.Match, Why: z.Why}
			if z.Retrievable {
				res.Hazard.ExtraTokens = &z.ExtraTokens
			}
		}
		out.Results = append(out.Results, res)
	}
	out.ByTool = byTool(rp)
	if p.Counter == nil {
		out.Tokens.Carry = carryNote(p.ByteRate)
	}
	for _, e := range s.Events {
		out.Events = append(out.Events, Event{Kind: string(e.Kind), Line: e.Line, BeforeCall: e.BeforeCall, Trigger: e.Trigger, PreTokens: e.PreTokens})
	}
	for _, w := range s.Warnings {
		out.Warnings = append(out.Warnings, Warning{Line: w.Line, Message: w.Message})
	}
	for _, w := range rp.Warnings {
		out.Warnings = append(out.Warnings, Warning{Message: w})
	}
	out.tally, out.replayWarnings = app.TallyOf(s, p.Prices), len(rp.Warnings)
	t.setRecorded(&out.tally, out.replayWarnings)
	t.PromptTokens = rp.Totals.Prompt
	if active {
		after := rp.Totals.PromptAfter
		t.PromptTokensAfter = &after
	}
	if active {
		saved := rp.Totals.SavedPerCall
		t.SavedTokens = &saved
	}
	t.Stale = rp.Totals.Stale
	t.Hazards = rp.Totals.Hazards
	t.Actions = map[string]int{}
	for _, o := range replay.Outcomes {
		t.Actions[string(o)] = rp.Totals.Actions[o]
	}
	if t.CostUSD != nil && active {
		t.CostUSDAfter = rp.Totals.CostAfter
	}
	return out
}

// setRecorded sets t's figures before the policy from the tally they are
// a view of, and the replay's warnings.
func (t *Totals) setRecorded(a *app.Tally, replayWarnings int) {
	t.APICalls, t.CopiedCalls, t.CallsNoData = a.Calls, a.Copied, a.NoUsage
	t.Recorded = Tokens(a.Recorded)
	t.ToolResults, t.ResultBytes = a.Results, a.ResultBytes
	t.PricedCostUSD, t.CostUSD = a.Priced, a.Cost()
	t.UnpricedModels = nonNil(a.Unpriced)
	t.ByModel = make([]ModelCost, 0, len(a.ByModel))
	for _, m := range a.ByModel {
		mc := ModelCost{Model: m.Model, APICalls: m.APICalls, Recorded: Tokens(m.Recorded)}
		if m.Priced {
			usd := m.CostUSD
			mc.CostUSD = &usd
		}
		t.ByModel = append(t.ByModel, mc)
	}
	t.Compactions, t.LowerBoundOutputs = a.Compactions, a.LowerBound
	t.Warnings = a.Warnings + replayWarnings
}

// include adds a sub-agent's report to its session's: the tallies, and
// the figures after the policy.
func (s *Session) include(sub *Session) {
	t, o := &s.Totals, &sub.Totals
	t.Realized = t.Realized.include(o.Realized)
	recorded := t.APICalls-t.CallsNoData > 0
	subRecorded := o.APICalls-o.CallsNoData > 0
	after, afterKnown := t.CostUSDAfter, true
	s.tally.Add(sub.tally)
	s.replayWarnings += sub.replayWarnings
	t.setRecorded(&s.tally, s.replayWarnings)
	t.PromptTokens += o.PromptTokens
	if t.PromptTokensAfter != nil && o.PromptTokensAfter != nil {
		sum := *t.PromptTokensAfter + *o.PromptTokensAfter
		t.PromptTokensAfter = &sum
	}
	if t.SavedTokens != nil && o.SavedTokens != nil {
		sum := *t.SavedTokens + *o.SavedTokens
		t.SavedTokens = &sum
	}
	for k, v := range o.Actions {
		t.Actions[k] += v
	}
	t.Stale += o.Stale
	t.Hazards = t.Hazards.Plus(o.Hazards)
	// The cost after is known when every part with recorded usage has one.
	part := func(own *float64, has bool) (float64, bool) {
		if !has {
			return 0, true
		}
		if own == nil {
			return 0, false
		}
		return *own, true
	}
	a, okA := part(after, recorded)
	b, okB := part(o.CostUSDAfter, subRecorded)
	afterKnown = okA && okB
	t.CostUSDAfter = nil
	if t.CostUSD != nil && afterKnown {
		sum := a + b
		t.CostUSDAfter = &sum
	}
}

func addPtr(p *float64, v float64) *float64 {
	if p == nil {
		return &v
	}
	*p += v
	return p
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
