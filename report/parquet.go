package report

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"
)

// The tables `report --format parquet` writes and `--format jsonl` streams:
// one row per session log, per API call and per tool result, flat, keyed so
// that they join (path and session_id; call_index; result_index), with
// money in integer micro-dollars and times in UTC. docs/report-formats.md
// lists the columns, generated from these types (TestFormatsDoc).

// SessionRow is a row of sessions.parquet: one per session log, sub-agents'
// included. A session's row sums its sub-agents as its JSON totals do; a
// sub-agent's row, marked by SubagentOf, has its own figures alone.
type SessionRow struct {
	SessionID  string  `json:"session_id"`
	Path       string  `json:"path"`
	SubagentOf *string `json:"subagent_of"`
	Format     string  `json:"format"`
	Version    string  `json:"agent_version"`
	Project    *string `json:"project"`
	Title      string  `json:"title"`
	ParentID   *string `json:"parent_id"`
	Relation   string  `json:"relation"`
	Models     string  `json:"models"`

	FirstTime *time.Time `json:"first_time"`
	LastTime  *time.Time `json:"last_time"`

	APICalls      int64 `json:"api_calls"`
	CopiedCalls   int64 `json:"copied_calls"`
	CallsNoData   int64 `json:"calls_without_usage"`
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_tokens"`
	CacheRead     int64 `json:"cache_read_tokens"`
	Output        int64 `json:"output_tokens"`

	CostMicroUSD       *int64 `json:"cost_micro_usd"`
	PricedCostMicroUSD int64  `json:"priced_cost_micro_usd"`
	UnpricedModels     string `json:"unpriced_models"`

	ToolResults       int64 `json:"tool_results"`
	ResultBytes       int64 `json:"result_bytes"`
	Compactions       int64 `json:"compactions"`
	LowerBoundOutputs int64 `json:"lower_bound_outputs"`
	Warnings          int64 `json:"warnings"`
	Lines             int64 `json:"lines"`

	Policy            *string `json:"policy"`
	PolicyCeiling     *int64  `json:"policy_ceiling"`
	PolicyUnit        *string `json:"policy_unit"`
	PromptTokens      int64   `json:"prompt_tokens"`
	PromptTokensAfter *int64  `json:"prompt_tokens_after"`
	SavedTokens       *int64  `json:"saved_tokens"`
	CostAfterMicroUSD *int64  `json:"cost_after_micro_usd"`
	Truncated         *int64  `json:"truncated"`
	Spilled           *int64  `json:"spilled"`
	Suppressed        *int64  `json:"suppressed"`
	Stale             *int64  `json:"stale"`
}

// CallRow is a row of calls.parquet and a line of `--format jsonl`: one
// API call with its session's keys.
type CallRow struct {
	SessionID  string  `json:"session_id"`
	Path       string  `json:"path"`
	SubagentOf *string `json:"subagent_of"`
	Format     string  `json:"format"`
	Project    *string `json:"project"`

	CallIndex int64      `json:"call_index"`
	Line      int64      `json:"line"`
	Time      *time.Time `json:"time"`
	Model     string     `json:"model"`
	Segment   int64      `json:"segment"`
	Sidechain bool       `json:"sidechain"`

	Input            *int64 `json:"input_tokens"`
	CacheCreation    *int64 `json:"cache_creation_tokens"`
	CacheRead        *int64 `json:"cache_read_tokens"`
	Output           *int64 `json:"output_tokens"`
	PromptTokens     *int64 `json:"prompt_tokens"`
	OutputLowerBound bool   `json:"output_lower_bound"`
	CostMicroUSD     *int64 `json:"cost_micro_usd"`

	ExtraModels        string `json:"extra_models"`
	ExtraInput         int64  `json:"extra_input_tokens"`
	ExtraCacheCreation int64  `json:"extra_cache_creation_tokens"`
	ExtraCacheRead     int64  `json:"extra_cache_read_tokens"`
	ExtraOutput        int64  `json:"extra_output_tokens"`
	ExtraCostMicroUSD  *int64 `json:"extra_cost_micro_usd"`

	ToolCalls int64   `json:"tool_calls"`
	CountedIn *string `json:"counted_in"`

	Policy            *string `json:"policy"`
	PromptTokensAfter *int64  `json:"prompt_tokens_after"`
	CostAfterMicroUSD *int64  `json:"cost_after_micro_usd"`
	SavedTokens       *int64  `json:"saved_tokens"`
}

// ResultRow is a row of results.parquet: one tool result and what the
// policy did to it.
type ResultRow struct {
	SessionID  string  `json:"session_id"`
	Path       string  `json:"path"`
	SubagentOf *string `json:"subagent_of"`

	ResultIndex int64  `json:"result_index"`
	CallIndex   int64  `json:"call_index"`
	CallID      string `json:"call_id"`
	Tool        string `json:"tool"`
	Line        int64  `json:"line"`
	IsError     bool   `json:"is_error"`
	Bytes       int64  `json:"bytes"`
	Images      int64  `json:"images"`
	Clipped     bool   `json:"clipped_by_log"`

	Policy            *string `json:"policy"`
	Action            string  `json:"action"`
	Reason            string  `json:"reason"`
	BytesAfter        int64   `json:"bytes_after"`
	Tokens            *int64  `json:"tokens"`
	TokensAfter       *int64  `json:"tokens_after"`
	SavedTokens       int64   `json:"saved_tokens"`
	SentAt            int64   `json:"sent_at_call"`
	SpillPath         *string `json:"spill_path"`
	Locator           *string `json:"spill_locator"`
	RepeatOf          *int64  `json:"repeat_of"`
	Stale             bool    `json:"stale"`
	CarryCostMicroUSD *int64  `json:"carry_cost_micro_usd"`
	CarryCalls        int64   `json:"carry_calls"`
	Warning           string  `json:"warning"`
}

// Rows are the rows of one session and its sub-agents.
type Rows struct {
	Sessions []SessionRow
	Calls    []CallRow
	Results  []ResultRow
	// Warnings say which figures did not fit their columns; each is also
	// counted in its session row's warnings.
	Warnings []RowWarning
}

// RowWarning is a warning about a figure of one of the tables.
type RowWarning struct {
	Table string // "sessions", "calls" or "results"
	Text  string
}

// Tables flattens s, with its sub-agents, into rows.
func Tables(s *Session) Rows {
	var out Rows
	addTables(&out, s, nil)
	for _, sub := range s.Subagents {
		addTables(&out, sub, &s.Path)
	}
	return out
}

func addTables(out *Rows, s *Session, subagentOf *string) {
	t := s.Totals
	active := !s.Policy.Inert()
	project := nonEmpty(projectOf(s))
	var sr SessionRow
	// money is usd in micro-dollars, or nil with a warning where that is
	// past int64's range: as a token count past any real one is not
	// counted, such a figure is left empty rather than wrapped around.
	money := func(table, what string, usd *float64) *int64 {
		if usd == nil {
			return nil
		}
		v, ok := micro(*usd)
		if !ok {
			sr.Warnings++
			out.Warnings = append(out.Warnings, RowWarning{table, fmt.Sprintf("%s: %s of $%.6g is past what int64 micro-dollars hold ($%.6g): left empty", s.Path, what, *usd, math.MaxInt64/1e6)})
			return nil
		}
		return &v
	}
	sr = SessionRow{
		SessionID: s.SessionID, Path: s.Path, SubagentOf: subagentOf, Format: s.Format, Version: s.Version,
		Project: project, Title: s.Title, ParentID: nonEmpty(s.ParentID), Relation: s.Relation,
		Models:   strings.Join(s.Models, ","),
		APICalls: int64(t.APICalls), CopiedCalls: int64(t.CopiedCalls), CallsNoData: int64(t.CallsNoData),
		Input: t.Recorded.Input, CacheCreation: t.Recorded.CacheCreation, CacheRead: t.Recorded.CacheRead, Output: t.Recorded.Output,
		UnpricedModels: strings.Join(t.UnpricedModels, ","),
		ToolResults:    int64(t.ToolResults), ResultBytes: t.ResultBytes, Compactions: int64(t.Compactions),
		LowerBoundOutputs: int64(t.LowerBoundOutputs), Warnings: int64(t.Warnings), Lines: int64(s.Lines),
		PromptTokens: t.PromptTokens,
	}
	sr.CostMicroUSD = money("sessions", "its cost", t.CostUSD)
	if v := money("sessions", "its priced cost", &t.PricedCostUSD); v != nil {
		sr.PricedCostMicroUSD = *v
	} else {
		sr.PricedCostMicroUSD = math.MaxInt64 // the column has no empty: the most it holds, warned of
	}
	var policy *string
	if active {
		policy = &s.Policy.Name
		unit := string(s.Policy.Unit)
		sr.Policy, sr.PolicyCeiling, sr.PolicyUnit = policy, &s.Policy.Ceiling, &unit
		sr.PromptTokensAfter, sr.SavedTokens = t.PromptTokensAfter, t.SavedTokens
		sr.CostAfterMicroUSD = money("sessions", "its cost after", t.CostUSDAfter)
		count := func(action string) *int64 { n := int64(t.Actions[action]); return &n }
		sr.Truncated, sr.Spilled, sr.Suppressed = count("truncate"), count("spill"), count("suppress")
		stale := int64(t.Stale)
		sr.Stale = &stale
	}

	// A session's calls add up to its total to the micro-dollar: each
	// call's figure is what the running sum, rounded, grew by.
	var before, after running
	for i := range s.Calls {
		c := &s.Calls[i]
		if c.Time != nil {
			if sr.FirstTime == nil || c.Time.Before(*sr.FirstTime) {
				sr.FirstTime = c.Time
			}
			if sr.LastTime == nil || c.Time.After(*sr.LastTime) {
				sr.LastTime = c.Time
			}
		}
		copied := c.CountedIn != nil
		cr := CallRow{
			SessionID: s.SessionID, Path: s.Path, SubagentOf: subagentOf, Format: s.Format, Project: project,
			CallIndex: int64(c.Index), Line: int64(c.Line), Time: c.Time, Model: c.Model, Segment: int64(c.Segment),
			Sidechain: c.Sidechain, OutputLowerBound: c.OutputLowerBound, ToolCalls: int64(c.ToolCalls), CountedIn: c.CountedIn,
			Policy: policy,
		}
		if r := c.Recorded; r != nil {
			cr.Input, cr.CacheCreation, cr.CacheRead, cr.Output = &r.Input, &r.CacheCreation, &r.CacheRead, &r.Output
			cr.PromptTokens = c.PromptTokens
		}
		what := fmt.Sprintf("call %d's cost", c.Index)
		if c.CostUSD != nil {
			cr.CostMicroUSD = before.take(*c.CostUSD, copied, func(usd float64) *int64 { return money("calls", what, &usd) })
		}
		extraKnown := true
		var models []string
		var extra int64
		for _, x := range c.Extra {
			models = append(models, x.Model)
			cr.ExtraInput += x.Recorded.Input
			cr.ExtraCacheCreation += x.Recorded.CacheCreation
			cr.ExtraCacheRead += x.Recorded.CacheRead
			cr.ExtraOutput += x.Recorded.Output
			if x.CostUSD == nil {
				extraKnown = false
				continue
			}
			// In the running sum one model at a time, as the totals sum them.
			v := before.take(*x.CostUSD, copied, func(usd float64) *int64 { return money("calls", what+" for "+x.Model, &usd) })
			if v == nil || (*v > 0 && extra > math.MaxInt64-*v) || (*v < 0 && extra < math.MinInt64-*v) {
				extraKnown = false
				continue
			}
			extra += *v
		}
		cr.ExtraModels = strings.Join(models, ",")
		if extraKnown {
			cr.ExtraCostMicroUSD = &extra
		}
		if active {
			cr.PromptTokensAfter = c.PromptTokensAfter
			cr.SavedTokens = c.SavedTokens
			if c.CostUSDAfter != nil {
				cr.CostAfterMicroUSD = after.take(*c.CostUSDAfter, copied, func(usd float64) *int64 { return money("calls", what+" after", &usd) })
			}
		}
		out.Calls = append(out.Calls, cr)
	}
	out.Sessions = append(out.Sessions, sr)

	for i, r := range s.Results {
		rr := ResultRow{
			SessionID: s.SessionID, Path: s.Path, SubagentOf: subagentOf,
			ResultIndex: int64(i), CallIndex: int64(r.CallIndex), CallID: r.CallID, Tool: r.Tool, Line: int64(r.Line),
			IsError: r.IsError, Bytes: int64(r.Bytes), Images: int64(r.Images), Clipped: r.Clipped,
			Policy: policy, Action: r.Action, Reason: r.Reason, BytesAfter: r.BytesAfter,
			Tokens: r.Tokens, TokensAfter: r.TokensAfter, SavedTokens: r.SavedTokens, SentAt: int64(r.SentAt),
			SpillPath: nonEmpty(r.SpillPath), Locator: nonEmpty(r.Locator), Stale: r.Stale,
			CarryCostMicroUSD: money("results", fmt.Sprintf("result %d's carry cost", i), r.CarryCost), CarryCalls: int64(r.CarryCalls), Warning: r.Warning,
		}
		if r.RepeatOf != nil {
			v := int64(*r.RepeatOf)
			rr.RepeatOf = &v
		}
		out.Results = append(out.Results, rr)
	}
}

// running rounds a running sum of dollars to micro-dollars.
type running struct {
	sum     float64
	rounded int64
	past    bool // the sum went past int64 micro-dollars
}

// take adds usd and returns what the rounded sum grew by; a figure left
// out of the session's totals (a copy), or any once the sum is past what
// int64 micro-dollars hold, is own, usd as money rounds it on its own.
func (r *running) take(usd float64, alone bool, own func(float64) *int64) *int64 {
	if alone || r.past {
		return own(usd)
	}
	r.sum += usd
	now, ok := micro(r.sum)
	if !ok {
		r.past = true
		return own(usd)
	}
	d := now - r.rounded
	r.rounded = now
	return &d
}

// micro is usd in micro-dollars, rounded to the nearest; false past
// int64's range (about $9.2 trillion) or for no number.
func micro(usd float64) (int64, bool) {
	v := math.Round(usd * 1e6)
	if !(v >= math.MinInt64 && v < math.MaxInt64) {
		return 0, false
	}
	return int64(v), true
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// parquetWriter writes sessions.parquet, calls.parquet and results.parquet
// into a folder, a row group at a time: the three are put in place when
// the report ends, all of them or none (outFiles), so a failed or
// interrupted run leaves the folder as it was.
type parquetWriter struct {
	dir      string
	out      outFiles
	sessions *pqTable[SessionRow]
	calls    *pqTable[CallRow]
	results  *pqTable[ResultRow]
	pending  handles[Rows]
	warn     func(string)
}

func (p *parquetWriter) warnTo(warn func(string)) { p.warn = warn }

// rowGroupRows is how many rows a row group holds, at least: rows are
// flushed between sessions once a table has buffered this many.
var rowGroupRows = 100_000

var parquetTables = []string{"sessions.parquet", "calls.parquet", "results.parquet"}

func (p *parquetWriter) Begin() error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return fmt.Errorf("parquet output folder: %w", err)
	}
	p.out.dir = p.dir
	var ws []io.Writer
	for _, name := range parquetTables {
		f, err := p.out.create(name)
		if err != nil {
			p.out.Abort()
			return fmt.Errorf("parquet output: %w", err)
		}
		ws = append(ws, f)
	}
	var err error
	if p.sessions, err = newPQTable[SessionRow](ws[0]); err != nil {
		return err
	}
	if p.calls, err = newPQTable[CallRow](ws[1]); err != nil {
		return err
	}
	p.results, err = newPQTable[ResultRow](ws[2])
	return err
}

// Abort removes the files begun; see outFiles.Abort.
func (p *parquetWriter) Abort() { p.out.Abort() }

func (p *parquetWriter) Render(s *Session) ([]byte, error) {
	return p.pending.put(Tables(s)), nil
}

func (p *parquetWriter) Write(handle []byte) error {
	rows := p.pending.take(handle)
	for _, w := range rows.Warnings {
		if p.warn != nil {
			p.warn(w.Text)
		}
	}
	for i := range rows.Sessions {
		p.sessions.add(&rows.Sessions[i])
	}
	for i := range rows.Calls {
		p.calls.add(&rows.Calls[i])
	}
	for i := range rows.Results {
		p.results.add(&rows.Results[i])
	}
	for _, err := range []error{flushAt(p.sessions), flushAt(p.calls), flushAt(p.results)} {
		if err != nil {
			p.out.Abort()
			return err
		}
	}
	return nil
}

func flushAt[R any](t *pqTable[R]) error {
	if t.rows < rowGroupRows {
		return nil
	}
	return t.flush()
}

func (p *parquetWriter) End() error {
	for i, err := range []error{p.sessions.close(), p.calls.close(), p.results.close()} {
		if err != nil {
			p.out.Abort()
			return fmt.Errorf("write %s: %w", parquetTables[i], err)
		}
	}
	return p.out.commit()
}

// handles pass values from Render, which may run on several goroutines,
// to Write as the handles Writer's interface carries.
type handles[T any] struct {
	mu   sync.Mutex
	next uint64
	held map[uint64]T
}

func (h *handles[T]) put(v T) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[uint64]T{}
	}
	h.next++
	h.held[h.next] = v
	return binary.LittleEndian.AppendUint64(nil, h.next)
}

func (h *handles[T]) take(handle []byte) T {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := binary.LittleEndian.Uint64(handle)
	v := h.held[id]
	delete(h.held, id)
	return v
}
