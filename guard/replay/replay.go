// Package replay runs the tool results of a recorded session through a
// tool-result policy as a real harness would apply it, in transcript order,
// and prices every call before and after: what each call would have cost.
// Prepare measures a session once; Replay and Sweep are then cheap.
package replay

import (
	"fmt"
	"math/bits"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/transcript"
)

// Outcome is what a policy did to one result. Its values are the action
// names of the report's JSON ("actions" and each result's "action").
type Outcome string

// Outcomes, in the past tense: a policy's Action is what it would do, an
// Outcome what it did.
const (
	Kept       Outcome = "keep"
	Truncated  Outcome = "truncate"
	Spilled    Outcome = "spill"
	Suppressed Outcome = "suppress"
	Excluded   Outcome = "exclude"
)

// Outcomes lists every outcome in display order.
var Outcomes = []Outcome{Kept, Truncated, Spilled, Suppressed, Excluded}

// Result is one tool result replayed through a policy.
type Result struct {
	Index   int // position among the session's results
	Source  *transcript.ToolResult
	Arrival int // the call after which it came back; -1 before the first
	SentAt  int // the first call that carries it; len(calls) when none does
	Risk    policy.Risk
	Outcome Outcome
	Reason  string // why, in a few words

	Size                int64 // in the policy's unit
	Bytes, BytesAfter   int64
	Tokens, TokensAfter int64 // estimated by the tokenizer
	// Saved is the model's tokens taken out of every call that carries the
	// result: the estimate difference, calibrated; negative where the
	// policy made the result longer.
	Saved int64
	// Text is what the model would see under the policy.
	Text string
	// Replacement is, for a Claude Code session replayed as spillway's
	// hook enforces the policy (claudehook.go), what the hook hands Claude
	// Code in place of the tool's output; Text is what the model receives
	// of it. Empty otherwise.
	Replacement string
	Locator     string // how Text names the spill file
	SpillPath   string // where spillway wrote it
	RepeatOf    int    // Index of the result a suppressed repeat points back to; -1
	// Stale marks a suppressed repeat whose real result differed from the
	// one it points back to: the harness would have shown outdated content.
	Stale bool
	// Hazard is the evidence that the policy hid something the agent went
	// on to need; nil when there is none.
	Hazard *Hazard
	// CarryCost is what the result's tokens cost, as recorded, over the
	// calls that re-sent it; CarryCalls counts them.
	CarryCost  float64
	CarryCalls int
	Warning    string

	// A truncation is rendered where it is counted, on all CPUs; parts
	// says how Text was cut from the original, for counting.
	pending bool
	parts   []tokens.Part
	// afterBytes is Text's length once counted: a counts-only replay lets
	// the text go.
	afterBytes int64
}

// Call is one API call before and after the policy.
type Call struct {
	Index int
	// Usage is as recorded, UsageAfter with the saved tokens removed; nil
	// when nothing was recorded.
	Usage, UsageAfter *transcript.Usage
	// Cost and CostAfter are nil when the call has no usage or its model
	// no price.
	Cost, CostAfter *float64
	// Fresh and Carried are the saved tokens taken from the new input and
	// from the cached prefix of this call.
	Fresh, Carried int64
}

// Saved is what the policy takes out of the call's prompt: the recorded
// prompt less the after one (no bucket goes below 0), or the estimate
// where nothing was recorded; negative where the policy adds to it.
func (c Call) Saved() int64 {
	if c.Usage == nil || c.UsageAfter == nil {
		return c.Fresh + c.Carried
	}
	return c.Usage.Prompt() - c.UsageAfter.Prompt()
}

// Run is a session replayed through one policy.
type Run struct {
	Policy      policy.Policy
	Prepared    *Prepared
	Results     []Result
	Calls       []Call
	Totals      Totals
	Calibration Calibration
	Warnings    []string
	// HazardsLater says hazards were not looked for, where the policy
	// shaped a result (Options.HazardsLater): Totals.Hazards counts none.
	HazardsLater bool

	// spillFiles holds, for each spill file written, the last result
	// written to it.
	spillFiles map[string]spillWrite
	countsOnly bool // Options.CountsOnly
	// claude and codex are the eras of Claude Code and Codex whose
	// measures and texts the policy follows (Policy.HarnessVersion).
	claude harness.ClaudeEra
	codex  harness.CodexEra
	hook   bool // replayed as spillway's hook in Claude Code enforces it
	// renderKey is the policy as rendering a shaped result depends on it
	// (shaped.go); "" when renderings are not reused.
	renderKey string
	// ceilingText and reasonBuf build the size reasons (sizeReason).
	ceilingText map[sizedCeiling]string
	reasonBuf   []byte
	// usagesAfter and costsAfter are what Calls' after figures point
	// into (price).
	usagesAfter []transcript.Usage
	costsAfter  []float64
}

// The slices of the runs let go (Release) are kept for the next replays: a list re-tuning 2,000 sessions
// made 4.3 GB of results alone, mostly for counts-only replays read only
// for their totals, and the collector ran for that garbage with the whole
// list's heap to trace.
var (
	resultBufs slicePool[Result]
	callBufs   slicePool[Call]
	usageBufs  slicePool[transcript.Usage]
	costBufs   slicePool[float64]
)

// slicePool keeps slices of T by the bit length of their room.
type slicePool[T any] [64]sync.Pool // of *[]T

// get is a zeroed slice of n: one let go of that room or more, else made
// to n, not rounded up to a bucket. A run no caller lets go (the
// inspector keeps its own) made its slices two thirds larger again, all
// of it zeroed, when they were rounded up.
func (p *slicePool[T]) get(n int) []T {
	if b, ok := p[bits.Len(uint(n))].Get().(*[]T); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]T, n)
}

// put keeps s, cleared so that the pool keeps alive nothing it points to.
func (p *slicePool[T]) put(s []T) {
	if cap(s) == 0 {
		return
	}
	s = s[:cap(s)]
	clear(s)
	p[bits.Len(uint(cap(s)))].Put(&s)
}

// Release hands the run's results and calls to later replays: its Totals
// stay, and neither its Results nor its Calls may be looked at after.
func (rp *Run) Release() {
	resultBufs.put(rp.Results)
	callBufs.put(rp.Calls)
	usageBufs.put(rp.usagesAfter)
	costBufs.put(rp.costsAfter)
	rp.Results, rp.Calls, rp.usagesAfter, rp.costsAfter = nil, nil, nil, nil
}

// Totals sum a replay.
type Totals struct {
	Results     int             `json:"results"`
	Actions     map[Outcome]int `json:"actions"`
	Bytes       int64           `json:"bytes"`
	BytesAfter  int64           `json:"bytes_after"`
	Tokens      int64           `json:"tokens"`
	TokensAfter int64           `json:"tokens_after"`
	// SavedPerCall sums, over every call, the tokens it would not carry:
	// recorded prompts less their floored after figures, and the estimate
	// where nothing was recorded.
	SavedPerCall  int64               `json:"saved_tokens"`
	Prompt        int64               `json:"prompt_tokens"`
	PromptAfter   int64               `json:"prompt_tokens_after"`
	Cost          *float64            `json:"cost_usd"`
	CostAfter     *float64            `json:"cost_usd_after"`
	RecordedCalls int                 `json:"recorded_calls"`
	Stale         int                 `json:"stale"`
	SpillFailures int                 `json:"spill_failures"`
	Hazards       HazardCounts        `json:"hazards"`
	ByTool        map[string]ToolStat `json:"-"`
	// Repeats counts what repeat suppression met, when it is on.
	Repeats RepeatCounts `json:"-"`
}

// RepeatCounts are what repeat suppression met in a replay.
type RepeatCounts struct {
	// Identical counts the calls that repeated an earlier one the rule
	// takes for the same (its key; a file the agent wrote, where its write
	// counts as a read), Cleared those of them a call that clears the
	// record came before: the rule could not suppress them.
	Identical, Cleared int
	// AcrossCompaction counts the repeats suppressed whose copy had left
	// the context at a compaction; AfterWrite those whose copy was the
	// agent's own write of the file.
	AcrossCompaction, AfterWrite int
}

// Plus is t with o, a sub-agent's replay, added as report adds them: the
// dollars are known when every part that records usage has them.
func (t Totals) Plus(o Totals) Totals {
	switch {
	case o.RecordedCalls == 0:
	case t.RecordedCalls == 0:
		t.Cost, t.CostAfter = o.Cost, o.CostAfter
	default:
		t.Cost, t.CostAfter = addCost(t.Cost, o.Cost), addCost(t.CostAfter, o.CostAfter)
	}
	t.Results += o.Results
	actions := make(map[Outcome]int, len(t.Actions))
	for k, v := range t.Actions {
		actions[k] = v
	}
	for k, v := range o.Actions {
		actions[k] += v
	}
	t.Actions = actions
	t.Bytes += o.Bytes
	t.BytesAfter += o.BytesAfter
	t.Tokens += o.Tokens
	t.TokensAfter += o.TokensAfter
	t.SavedPerCall += o.SavedPerCall
	t.Prompt += o.Prompt
	t.PromptAfter += o.PromptAfter
	t.RecordedCalls += o.RecordedCalls
	t.Stale += o.Stale
	t.SpillFailures += o.SpillFailures
	t.Hazards = t.Hazards.Plus(o.Hazards)
	byTool := make(map[string]ToolStat, len(t.ByTool))
	for k, v := range t.ByTool {
		byTool[k] = v
	}
	for k, v := range o.ByTool {
		b := byTool[k]
		b.Results += v.Results
		b.Acted += v.Acted
		byTool[k] = b
	}
	t.ByTool = byTool
	return t
}

// ToolStat sums one tool's results.
type ToolStat struct{ Results, Acted int }

// SpillStore writes spill files.
type SpillStore interface {
	// Write stores f and returns where it is.
	Write(f SpillFile) (string, error)
}

// LaterStore is a SpillStore that can take a file whose content is made
// when it is written (spill.Planned): where the texts are read on demand,
// a replay plans its spill files so, and holds none of their texts. The
// content fails once the session's file is found changed: a text read
// from it then is no longer the one replayed.
type LaterStore interface {
	WriteLater(f SpillFile, content func() (string, error)) (string, error)
}

// SpillFile is a file a spill writes: Locator is how the replacement names
// it, exactly as the emulated harness would; File is where it is stored,
// relative to the store.
type SpillFile = harness.SpillFile

// Options tune a replay.
type Options struct {
	// Store writes spill files; nil plans them without writing (sweeps).
	Store SpillStore
	// CountsOnly replays for the figures alone (a sweep, with no Store):
	// a spill's replacement is rendered where it is counted, as a
	// truncation's is, and every replacement text is let go once
	// counted (or, for a result holding a string of the agent's output,
	// once the hazards are found, which are those of a full replay), so
	// a low ceiling on a large session never holds a replacement of every
	// result at once. Shaped results' Text and Replacement are then empty;
	// their sizes and tokens are kept. No Reason says how a size compares
	// with its ceiling: one for each result of each replay was a twentieth
	// of what re-tuning the 2 GB fleet allocated, and a sixth of a
	// ceiling key's processor time. What rendering a result gave is kept
	// for the next counts-only replay that renders it alike (shaped.go).
	CountsOnly bool
	// NoHazards skips looking for hazards (Result.Hazard stays nil).
	NoHazards bool
	// HazardsLater looks for hazards only where what finding them shares
	// is built already (IndexHazards): where it is not and a result is
	// shaped, none is looked for and the run's HazardsLater says so. The
	// session list charts a month of logs before it looks for their
	// hazards: the index was a fifth of its processor time to the chart.
	HazardsLater bool
	// Repeats is what repeat suppression knew before the results replayed,
	// all of the model response Batch: spillway's hook replays one result
	// at a time and keeps it between calls. Replay leaves in it what the
	// results changed. Nil replays a whole session from nothing.
	Repeats *Repeats
	Batch   string
	// Shaped tells the results a hook shaped as the session ran: the log
	// holds what it made of them, which the policy leaves as it is and
	// repeat suppression does not see.
	Shaped func(*transcript.ToolResult) bool
}

// Applied is pol as a replay of this session applies it (ForSession).
func (p *Prepared) Applied(pol policy.Policy) policy.Policy {
	return ForSession(pol, p.Session)
}

// Replay runs every result of the prepared session through policy, in
// transcript order, and prices every call before and after.
func (p *Prepared) Replay(pol policy.Policy, opt Options) (*Run, error) {
	pol = p.Applied(pol)
	if err := pol.Validate(); err != nil {
		return nil, err
	}
	if p.Counter == nil && !pol.Inert() {
		return nil, fmt.Errorf("policy %s changes results, so their tokens must be counted", pol.Name)
	}
	if p.textsDropped && !pol.Inert() {
		return nil, fmt.Errorf("policy %s changes results, but the session was read without their texts", pol.Name)
	}
	rp := &Run{Policy: pol, Prepared: p, Calibration: p.Calibration, Results: resultBufs.get(len(p.items)),
		countsOnly: opt.CountsOnly && opt.Store == nil, hook: hookMode(p, &pol)}
	if c, ok := p.texts.(interface{ Current() error }); ok {
		if err := c.Current(); err != nil {
			p.textErr.CompareAndSwap(nil, &err)
		}
	}
	switch pol.Style {
	case harness.ClaudeCode:
		rp.claude = harness.ClaudeEraOf(pol.HarnessVersion)
	case harness.Codex:
		rp.codex = harness.CodexEraOf(pol.HarnessVersion)
	}
	if !pol.Inert() {
		units := []policy.Unit{pol.Unit}
		switch pol.Style {
		case harness.HarnessRS:
			units = append(units, policy.JSONBytes)
		case harness.AgentScope:
			units = append(units, policy.UTF16Units)
		case harness.ClaudeCode:
			// and an MCP result's compact JSON, which Claude Code measured
			// before 2.1.74
			units = append(units, policy.UTF16Units, policy.JSONBytes)
		}
		for _, u := range units {
			p.measure(u)
			if rp.hook {
				p.measureHook(u)
			}
		}
	}
	if pol.Dedupe.Enabled {
		p.keys(&pol)
	}
	d := newDeduper(&pol)
	d.hook = rp.hook
	if opt.Repeats != nil {
		d.load(opt.Repeats)
	}
	for i := range p.items {
		it := &p.items[i]
		r := &rp.Results[i]
		*r = Result{
			Index: i, Source: it.r, Arrival: int(it.arrival), SentAt: int(it.sentAt),
			Risk: pol.Risk.Classify(it.r.Tool), Outcome: Kept, RepeatOf: -1,
			Size: it.size[unitIndex(pol.Unit)], Bytes: int64(it.r.Bytes()), Tokens: it.tokens,
			Text: it.r.Text, CarryCost: it.carry, CarryCalls: int(it.carryN),
		}
		batch := ""
		if rp.hook {
			r.Size = p.hookSize(i, unitIndex(pol.Unit))
			batch = batchOf(it, opt)
		}
		switch {
		case pol.Excluded(it.r.Tool):
			r.Outcome, r.Reason = Excluded, "excluded tool"
		case opt.Shaped != nil && opt.Shaped(it.r):
			r.Reason = "shaped by spillway's hook as the session ran"
		case d.suppress(i, it, r, p, batch):
		default:
			rp.shape(it, r, opt)
		}
	}
	if opt.Repeats != nil {
		d.save(opt.Repeats, p)
	}
	hazards := !pol.Inert() && !opt.NoHazards
	if hazards && opt.HazardsLater && p.hazards.Load() == nil && rp.shapedAny() {
		hazards, rp.HazardsLater = false, true
	}
	rp.countAfter(hazards)
	for i := range p.items {
		rp.finish(&p.items[i], &rp.Results[i])
	}
	rp.Totals.Repeats.Identical, rp.Totals.Repeats.Cleared = d.identical, d.cleared
	if hazards {
		rp.findHazards()
	}
	if rp.countsOnly {
		for i := range rp.Results {
			if r := &rp.Results[i]; r.Outcome != Kept && r.Outcome != Excluded {
				r.Text, r.Replacement = "", ""
			}
		}
	}
	rp.price()
	return rp, nil
}

// shapedAny tells whether the run shaped a result, which a hazard is
// found in.
func (rp *Run) shapedAny() bool {
	for i := range rp.Results {
		switch rp.Results[i].Outcome {
		case Truncated, Spilled, Suppressed:
			return true
		}
	}
	return false
}

// ForSession is pol as a replay of s applies it: where pol follows the
// version of its harness, as the version that recorded s did (the
// latest where another agent's log says nothing of it; policy.ForVersion).
func ForSession(pol policy.Policy, s *transcript.Session) policy.Policy {
	version := ""
	switch {
	case pol.Style == harness.ClaudeCode && s.Format == transcript.FormatClaude,
		pol.Style == harness.Codex && s.Format == transcript.FormatCodex:
		version = s.Version
	}
	return policy.ForVersion(pol, version)
}

// countAfter renders the pending truncations and counts the tokens of
// every replacement text, on all CPUs. Counting only, it lets each text go
// once counted, but those the hazard pass will read when hazards are
// looked for: the replacements of results that hold a string the agent
// wrote, the only ones whose shown part it asks about.
func (rp *Run) countAfter(hazards bool) {
	var acted []int
	pending := false
	for i := range rp.Results {
		if o := rp.Results[i].Outcome; o != Kept && o != Excluded {
			acted = append(acted, i)
			pending = pending || rp.Results[i].pending
		}
	}
	if p := rp.Prepared; pending && rp.countsOnly && !p.noReuse && p.TextErr() == nil {
		rp.renderKey = renderKey(rp.Policy, rp.hook)
	}
	var ix *hazardIndex
	if rp.countsOnly && hazards && len(acted) > 0 {
		ix = rp.Prepared.hazardIndex()
	}
	counter := rp.Prepared.Counter
	parted, _ := counter.(interface{ CountParts(...tokens.Part) int })
	// render cuts or spills r where that is pending, and counts what the
	// model receives of it.
	render := func(r *Result, it *item) {
		if r.pending {
			ceiling, _ := rp.Policy.CeilingFor(it.r.Tool)
			r.pending = false
			if r.Outcome == Spilled {
				text, parts, f, ok := rp.spill(rp.subject(r.Index, false), ceiling)
				if !ok {
					r.Outcome, r.Reason = Kept, r.Reason+"; the notice alone would not fit, the original stays"
					return
				}
				r.Text, r.parts, r.Locator = text, parts, f.Locator
			} else {
				r.Text, r.parts = rp.truncate(it, rp.subject(r.Index, true), ceiling)
			}
		}
		if rp.hook {
			if rp.hookAfter(it, r); r.Outcome == Kept {
				return
			}
		}
		if r.parts != nil && parted != nil {
			r.TokensAfter = int64(parted.CountParts(r.parts...))
		} else {
			r.TokensAfter = int64(counter.Count(r.Text))
		}
		r.parts = nil
		r.afterBytes = int64(len(r.Text))
		if rp.countsOnly && (ix == nil || len(ix.keysOf(r.Index)) == 0) {
			r.Text = ""
		}
	}
	var next atomic.Int64
	work := func() {
		for {
			k := int(next.Add(1)) - 1
			if k >= len(acted) {
				return
			}
			r := &rp.Results[acted[k]]
			it := &rp.Prepared.items[r.Index]
			// What the hazard pass reads is rendered again, never reused.
			reuse := r.pending && rp.renderKey != "" && (ix == nil || len(ix.keysOf(r.Index)) == 0)
			if !reuse {
				render(r, it)
				continue
			}
			ceiling, _ := rp.Policy.CeilingFor(it.r.Tool)
			key := rp.shapeKeyOf(r, ceiling)
			if rp.reuseShaped(it, r, key) {
				continue
			}
			reason := r.Reason
			render(r, it)
			rp.keepShaped(it, r, key, reason)
		}
	}
	if len(acted) <= 1 {
		work() // where it is asked for, as Prepare counts one text
		return
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(acted)) {
		crash.GoIn(&wg, work)
	}
	wg.Wait()
}

// Seen returns the parts of r's original text the model still saw under
// the policy: nil when it saw all of it, empty when it saw none (a
// suppressed repeat). It is worked out when asked, not for every replay.
func (rp *Run) Seen(r *Result) []harness.Range {
	switch r.Outcome {
	case Kept, Excluded:
		return nil
	case Suppressed:
		return []harness.Range{}
	}
	if rs, ok := rp.hookSeen(r); ok {
		return rs
	}
	return harness.SeenRanges(rp.Policy.Style, rp.Prepared.Text(r.Source), r.Text)
}

// shape applies the ceiling.
func (rp *Run) shape(it *item, r *Result, opt Options) {
	pol := &rp.Policy
	ceiling, limited := pol.CeilingFor(it.r.Tool)
	switch {
	case !limited:
		r.Reason = "no ceiling"
		return
	case it.r.IsError && !pol.ShapeErrors:
		r.Reason = "errors are not shaped"
		return
	case (it.r.Images > 0 || it.r.Other > 0) && pol.NonText == policy.NonTextSkip:
		r.Reason = "has non-text blocks"
		return
	case pol.Style == harness.ClaudeCode && rp.Prepared.claudeShaped(it):
		r.Reason = "Claude Code shaped it already (its own cut or persisted output)"
		return
	}
	if pol.Style == harness.Codex && rp.shapeCodex(it, r, ceiling) {
		return
	}
	size := r.Size
	unit := pol.Unit
	if pol.Style == harness.ClaudeCode && unit == policy.UTF16Units && pol.Action == policy.Spill {
		switch {
		case it.r.Tool == "Bash" && rp.claude.BashBytes:
			// Claude Code read the output from the file the command wrote.
			size, unit = int64(it.r.Bytes()), policy.UTF8Bytes
		case rp.claude.BlocksAsJSON && harness.ClaudeBlocks(it.r.Tool):
			size = harness.ClaudeBlocksSize(it.size[unitIndex(policy.UTF16Units)], it.size[unitIndex(policy.JSONBytes)], int64(it.r.Bytes()))
		}
	}
	if size <= ceiling {
		r.Reason = rp.sizeReason(size, " ≤ ", ceiling, unit)
		return
	}
	over := rp.sizeReason(size, " > ", ceiling, unit)
	if pol.Action != policy.Spill {
		r.Outcome, r.Reason, r.pending = Truncated, over, true
		return
	}
	// Where the spill file cannot be written, a harness may truncate
	// instead; spillway's hook never does, since what it cut would then be
	// nowhere: it leaves the output as it was and says so in its log.
	fallback := pol.OnSpillError
	if rp.hook {
		fallback = policy.FallbackKeep
	}
	if pol.Style == harness.HarnessRS {
		// What the harness itself could not write, it never spilled.
		if why := harness.HarnessRSUnwritable(it.r.Tool, it.r.CallID); why != "" {
			r.Reason = over + "; " + why
			if fallback == policy.FallbackTruncate {
				r.Outcome, r.pending = Truncated, true
				r.Reason += ": truncated instead"
			} else {
				r.Reason += ": the original stays"
			}
			if rp.hook {
				r.Warning = "spill file not written (" + why + "); the original stays inline"
			}
			return
		}
	}
	if rp.countsOnly {
		r.Outcome, r.Reason, r.pending = Spilled, over, true // rendered where it is counted
		return
	}
	// Only here is the text read (again, where it is read on demand): a
	// counts-only replay renders it where it is counted, if at all.
	s := rp.subject(r.Index, false)
	text, parts, f, ok := rp.spill(s, ceiling)
	if !ok {
		r.Reason = over + "; the notice alone would not fit, the original stays"
		return
	}
	r.Outcome, r.Reason, r.Text, r.parts, r.Locator = Spilled, over, text, parts, f.Locator
	if opt.Store == nil {
		rp.sharedSpill(f, r, ceiling)
		return
	}
	if rp.hook {
		// No file is written for a result the hook then leaves as it was.
		if _, leaves := rp.hookReceives(it, r.Index, text); leaves != "" {
			rp.unshape(it, r, over+"; "+leaves)
			return
		}
	}
	var where string
	var err error
	content := func() (string, error) {
		_, _, f, _ := rp.spill(rp.subject(r.Index, false), ceiling)
		return f.Content, rp.Prepared.TextErr()
	}
	var h *hookPersisted
	if rp.hook {
		h = rp.Prepared.hookView()[r.Index].persisted
	}
	if h != nil {
		// Read again from Claude Code's file when the spill file is
		// written, rather than held while planned: three 60 MB outputs
		// held 172 MB for as long as the replay.
		content = func() (string, error) {
			whole, err := rp.Prepared.persistedText(it, h)
			if err != nil {
				return "", err // a file gone writes nothing, not an empty file
			}
			_, _, f, _ := rp.spill(rp.hookSubjectOf(r.Index, whole), ceiling)
			return f.Content, nil
		}
	}
	if later, ok := opt.Store.(LaterStore); ok && (rp.Prepared.texts != nil || h != nil) {
		where, err = later.WriteLater(f, content)
	} else {
		where, err = opt.Store.Write(f)
	}
	if err == nil {
		r.SpillPath = where
		rp.sharedSpill(f, r, ceiling)
		return
	}
	rp.Totals.SpillFailures++
	r.Warning = fmt.Sprintf("spill file not written (%v)", err)
	if fallback == policy.FallbackTruncate && pol.Style == harness.HarnessRS {
		r.Outcome, r.Locator = Truncated, ""
		r.Text, r.parts = rp.truncate(it, s, ceiling)
		r.Warning += "; truncated instead"
	} else {
		r.Outcome, r.Text, r.parts, r.Locator = Kept, it.r.Text, nil, ""
		r.Warning += "; the original stays inline"
	}
	rp.Warnings = append(rp.Warnings, fmt.Sprintf("result %d (%s): %s", r.Index, it.r.Tool, r.Warning))
}

// sharedSpill notes r's spill file. Where the harness names two results'
// files alike (harness-rs keeps only letters, digits, '-' and '_' of a
// call id, so "c.1" and "c1" share .harness/spill/c1-<tool>.txt; Claude
// Code and AgentScope before 2026-07 name a file after the call id as it
// is, and logs repeat ids), it writes the later result over the earlier
// one's file, and so does the replay: the earlier result's locator then
// leads to the later result's text, which its warning says. A file written
// again with the same text (AgentScope's names hold a digest of it) is no
// overwrite.
func (rp *Run) sharedSpill(f harness.SpillFile, r *Result, ceiling int64) {
	if rp.spillFiles == nil {
		rp.spillFiles = map[string]spillWrite{}
	}
	if prev, ok := rp.spillFiles[f.File]; ok {
		// Rare: the earlier file is made again to be compared, rather
		// than every file's content hashed as it is written, which was
		// 7% of a tuning key.
		if _, _, earlierFile, _ := rp.spill(rp.subject(prev.result, false), prev.ceiling); earlierFile.Content != f.Content {
			earlier := &rp.Results[prev.result]
			earlier.Warning = fmt.Sprintf("its spill file %s was written over by result %d's, which the harness names alike", f.Locator, r.Index)
			rp.Warnings = append(rp.Warnings, fmt.Sprintf("result %d (%s): %s", earlier.Index, earlier.Source.Tool, earlier.Warning))
		}
	}
	rp.spillFiles[f.File] = spillWrite{result: r.Index, ceiling: ceiling}
}

// spillWrite is the last result written to a spill file, and the ceiling
// it was spilled at.
type spillWrite struct {
	result  int
	ceiling int64
}

// hookSubjectOf is result i as the hook shapes it, text its subject (a
// text of the hook's own): its sizes measured when needed (a persisted
// output's known), its tokens counted whole.
func (rp *Run) hookSubjectOf(i int, text string) harness.Subject {
	it, h := &rp.Prepared.items[i], &rp.Prepared.hookView()[i]
	s := harness.Subject{Text: text, Tool: it.r.Tool, CallID: it.r.CallID,
		Session: rp.Prepared.Session.ID, Dir: rp.Prepared.dir, Template: rp.Policy.SpillPath, Repeat: int(it.repeat), Counting: rp.countsOnly}
	if h.persisted != nil {
		s.JSONLen, s.UTF16Len = rp.Prepared.hookSize(i, unitIndex(policy.JSONBytes)), rp.Prepared.hookSize(i, unitIndex(policy.UTF16Units))
	}
	return s
}

// subject is result i as the styles render it, to be cut (truncated)
// where cut is set, spilled where not: the token indexes a rendering
// counts from are given for the style's and its own alone.
func (rp *Run) subject(i int, cut bool) harness.Subject {
	it := &rp.Prepared.items[i]
	if rp.hook && !rp.Prepared.hookView()[i].own {
		return rp.hookSubjectOf(i, rp.Prepared.hookSubject(i))
	}
	text := rp.Prepared.Text(it.r)
	s := harness.Subject{Text: text, Tool: it.r.Tool, CallID: it.r.CallID, Session: rp.Prepared.Session.ID,
		Dir: rp.Prepared.dir, Template: rp.Policy.SpillPath, JSONLen: it.size[unitIndex(policy.JSONBytes)],
		UTF16Len: it.size[unitIndex(policy.UTF16Units)], Repeat: int(it.repeat), Counting: rp.countsOnly}
	// What the style's rendering keeps of the item, made when it is first
	// needed: a list shapes hundreds of thousands of results.
	switch rp.Policy.Style {
	case harness.HarnessRS:
		if cut {
			c := it.cache()
			s.Serde = index(&c.serde, "")
			if rp.Prepared.texts == nil {
				s.Requoted = made(&c.requoted, func() *harness.Requoted { return new(harness.Requoted) }) // read again, its quoting would hold what the text is not to hold
			}
		}
	case harness.AgentScope:
		s.Raw, s.Digest = index(&it.cache().raw, it.r.Text), it.extra().textDigest(text)
	case harness.DeepSeek, harness.Codex:
		s.Raw = index(&it.cache().raw, it.r.Text)
	}
	return s
}

// truncate renders the style's truncation of it, as s.
func (rp *Run) truncate(it *item, s harness.Subject, ceiling int64) (string, []tokens.Part) {
	pol := &rp.Policy
	switch pol.Style {
	case harness.Codex:
		return rp.codexText(it, s)
	case harness.ClaudeCode:
		// Claude Code before 2.1.2 cut the output itself.
		return harness.ClaudeCut(s.Text, ceiling), nil
	default:
		// harness-rs keeps max_bytes of the serialized result: the ceiling.
		return harness.HarnessRSTruncate(s, bytesFor(ceiling, pol.Unit))
	}
}

// outputSize measures a Codex exec script's output, the part Codex cuts,
// in the units it counts; in another unit the whole text's size stands.
func outputSize(outputBytes int, u policy.Unit, whole int64) int64 {
	switch u {
	case policy.UTF8Bytes:
		return int64(outputBytes)
	case policy.ApproxTokens:
		return harness.ApproxTokens(int64(outputBytes))
	}
	return whole
}

// bytesFor converts a ceiling to the bytes a byte-cutting truncation keeps.
func bytesFor(n int64, u policy.Unit) int64 {
	if u == policy.ApproxTokens || u == policy.Tokens {
		return n * 4
	}
	return n
}

// spill renders the style's spill; ok is false when the style keeps the
// original instead.
func (rp *Run) spill(s harness.Subject, ceiling int64) (string, []tokens.Part, harness.SpillFile, bool) {
	pol := &rp.Policy
	switch pol.Style {
	case harness.AgentScope:
		text, parts, f := harness.AgentScopeSpill(s, pol.Agent, pol.PreviewHead, pol.PreviewTail)
		return text, parts, f, true
	case harness.DeepSeek:
		return harness.DeepSeekSpill(s, bytesFor(ceiling, pol.Unit))
	case harness.ClaudeCode:
		text, f := harness.ClaudeSpill(s, rp.claude, pol.PreviewHead, pol.LineAligned)
		return text, nil, f, true
	default:
		text, f := harness.HarnessRSSpill(s, pol.PreviewHead)
		return text, nil, f, true
	}
}

// finish fills the after-sizes and counts.
func (rp *Run) finish(it *item, r *Result) {
	t := &rp.Totals
	if t.Actions == nil {
		t.Actions = map[Outcome]int{}
		t.ByTool = map[string]ToolStat{}
	}
	r.BytesAfter = r.Bytes
	if r.Outcome == Kept || r.Outcome == Excluded {
		r.TokensAfter = r.Tokens
	} else {
		r.BytesAfter = r.afterBytes
		// A replacement longer than the result (a preview and notice
		// around a small result, a cut quoted again) saves a negative
		// amount: the calls that carry it cost more.
		r.Saved = rp.Calibration.apply(r.Tokens - r.TokensAfter)
	}
	t.Results++
	t.Actions[r.Outcome]++
	t.Bytes += r.Bytes
	t.BytesAfter += r.BytesAfter
	t.Tokens += r.Tokens
	t.TokensAfter += r.TokensAfter
	if r.Stale {
		t.Stale++
	}
	if r.Outcome == Suppressed && r.RepeatOf >= 0 { // -1: sent before the hook's batch
		copied := &rp.Prepared.items[r.RepeatOf]
		if copied.writes != "" {
			t.Repeats.AfterWrite++
		}
		if rp.Prepared.contextOf(r) != int(copied.segment) {
			t.Repeats.AcrossCompaction++
		}
	}
	st := t.ByTool[it.r.Tool]
	st.Results++
	if r.Outcome != Kept && r.Outcome != Excluded {
		st.Acted++
	}
	t.ByTool[it.r.Tool] = st
}

// price takes each result's saved tokens out of every call that carries
// it, fresh at the first and cached after, and prices every call again.
func (rp *Run) price() {
	p := rp.Prepared
	calls := p.Session.Calls
	n := len(calls)
	// What each call has taken out: nil while none has anything, as under
	// a policy that changes nothing.
	var fresh []int64
	var carried [2][]int64 // difference arrays: main chain, sidechain
	for i := range rp.Results {
		r := &rp.Results[i]
		it := &p.items[i]
		if r.Saved == 0 || r.SentAt >= n {
			continue
		}
		if fresh == nil {
			fresh, carried = make([]int64, n), [2][]int64{make([]int64, n+1), make([]int64, n+1)}
		}
		fresh[r.SentAt] += r.Saved
		chain := carried[b2i(it.sidechain)]
		if end := p.segEnd[it.segment]; r.SentAt+1 <= end {
			chain[r.SentAt+1] += r.Saved
			chain[end+1] -= r.Saved
		}
	}
	rp.Calls = callBufs.get(n)
	// One array each for the after figures, rather than an allocation per
	// call; made when a call first has something taken out.
	var usagesAfter []transcript.Usage
	var costsAfter []float64
	entries := modelPrices{}
	var running [2]int64
	t := &rp.Totals
	var before, after float64
	// recorded: some call records usage, though all may be copies ($0 here).
	recorded, unknown := false, false
	for j := range calls {
		c := &calls[j]
		out := Call{Index: j, Usage: c.Usage, Cost: p.costs[j]}
		if fresh != nil {
			for k := range running {
				running[k] += carried[k][j]
			}
			out.Fresh, out.Carried = fresh[j], running[b2i(c.Sidechain)]
		}
		if c.Usage == nil {
			rp.Calls[j] = out // estimated savings only: nothing to price
			t.SavedPerCall += out.Saved()
			continue
		}
		if out.Fresh == 0 && out.Carried == 0 {
			out.UsageAfter, out.CostAfter = c.Usage, out.Cost // nothing taken out: priced already
		} else {
			if usagesAfter == nil {
				usagesAfter, costsAfter = usageBufs.get(n), costBufs.get(n)
				rp.usagesAfter, rp.costsAfter = usagesAfter, costsAfter
			}
			usagesAfter[j] = p.remove(*c.Usage, out.Fresh, out.Carried)
			out.UsageAfter = &usagesAfter[j]
			if e := entries.of(p.Prices, c.Model); e.ok {
				costsAfter[j] = e.Cost(usagesAfter[j])
				out.CostAfter = &costsAfter[j]
			}
		}
		rp.Calls[j] = out
		recorded = true
		if c.CountedIn != "" {
			continue // a copy of a response another session counts: shown, not summed
		}
		t.RecordedCalls++
		t.Prompt += c.Usage.Prompt()
		t.PromptAfter += out.UsageAfter.Prompt()
		t.SavedPerCall += out.Saved()
		extra, priced := p.ExtraCost(c)
		if out.Cost == nil || out.CostAfter == nil || !priced {
			unknown = true
		} else {
			before += *out.Cost + extra
			after += *out.CostAfter + extra
		}
	}
	if recorded && !unknown {
		t.Cost, t.CostAfter = &before, &after
	}
}

// ExtraCost prices the usage a call billed on other models (Claude Code's
// advisor), each with its own model; the policy leaves it as it is. priced
// is false when one of them has no price.
func (p *Prepared) ExtraCost(c *transcript.Call) (usd float64, priced bool) {
	for _, x := range c.Extra {
		v, ok := p.Prices.Cost(x.Model, x.Usage)
		if !ok {
			return 0, false
		}
		usd += v
	}
	return usd, true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// batchOf is the model response whose tool calls it answers, for repeat
// suppression in the hook's replay: the batch the hook replays, else the
// call that made the tool call ("" for none: a batch of its own).
func batchOf(it *item, opt Options) string {
	if opt.Repeats != nil {
		return opt.Batch
	}
	if it.r.CallIndex < 0 {
		return ""
	}
	return strconv.Itoa(it.r.CallIndex)
}

// sizedCeiling is a ceiling in a unit.
type sizedCeiling struct {
	n    int64
	unit policy.Unit
}

// sizeReason says how a result's size compares with its ceiling, "6,197
// JSON bytes ≤ 24,576 JSON bytes": for every result of every replay, so
// it is built in one buffer, the ceiling's words once per replay.
func (rp *Run) sizeReason(size int64, cmp string, ceiling int64, unit policy.Unit) string {
	if rp.countsOnly {
		return "" // Options.CountsOnly: no one reads them
	}
	key := sizedCeiling{ceiling, unit}
	text, ok := rp.ceilingText[key]
	if !ok {
		if rp.ceilingText == nil {
			rp.ceilingText = map[sizedCeiling]string{}
		}
		text = policy.FormatSize(ceiling, unit)
		rp.ceilingText[key] = text
	}
	rp.reasonBuf = append(policy.AppendSize(rp.reasonBuf[:0], size, unit), cmp...)
	rp.reasonBuf = append(rp.reasonBuf, text...)
	return string(rp.reasonBuf)
}
