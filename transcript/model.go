// Package transcript reads the JSONL logs that coding agents write (Claude
// Code, Codex CLI, Google Antigravity, and spillway's own generic format)
// into one model: a Session of API calls, each with its recorded usage, the
// tool calls it made and the tool results that came back before the next call.
package transcript

import (
	"encoding/json"
	"time"
)

// Format names a transcript dialect.
type Format string

// The formats spillway reads.
const (
	FormatClaude      Format = "claude-code"
	FormatCodex       Format = "codex"
	FormatAntigravity Format = "antigravity"
	FormatGeneric     Format = "generic"
)

// Formats lists every readable format, in detection order.
var Formats = []Format{FormatClaude, FormatCodex, FormatAntigravity, FormatGeneric}

// Session is one agent conversation as read from one file.
type Session struct {
	Path    string
	Format  Format
	ID      string
	Title   string
	Version string   // agent version, where the log records one
	Models  []string // in order of first use
	Calls   []Call
	Events  []Event
	// Started is when the session began, where the log records it (Codex:
	// its session_meta); a fork or sub-agent replays its parent's usage up
	// to this instant.
	Started time.Time
	// ParentID is the session this one was forked or spawned from, and
	// Relation how; both empty for a session of its own.
	ParentID string
	Relation Relation
	// Leading holds results and prompts that arrived before the first call
	// (a resumed session); its Index is -1.
	Leading Call

	// HarnessCost is what the harness itself reckoned the session cost,
	// where its log says (Claude Code's cost-state records); nil else.
	HarnessCost *HarnessCost

	// Warnings holds at most MaxWarnings entries; WarningCount counts all.
	Warnings     []Warning
	WarningCount int
	// Skipped counts lines of record types the reader does not use, per type.
	Skipped map[string]int
	Lines   int // lines read, including blank and skipped ones

	// Stdin: the log came on standard input, and Path only names it: no
	// file is there to read again. Cwd is then the working folder its start
	// records (see Cwd), "" when none.
	Stdin bool
	Cwd   string
}

// HarnessCost is a harness's own reckoning of a session's cost: Claude
// Code's last cost-state record.
type HarnessCost struct {
	Line int
	USD  float64 // totalCostUSD
	// ByModel is each model's share (modelUsage's costUSD).
	ByModel map[string]float64
	// UnknownModel: the harness had no price for a model it used
	// (hasUnknownModelCost), so USD leaves that model's calls out.
	UnknownModel bool
}

// Relation says how a session came from another one.
type Relation string

// Relations. The zero value is RelationNone.
const (
	RelationNone     Relation = ""
	RelationFork     Relation = "fork"     // a copy of the parent's conversation, continued apart
	RelationSubagent Relation = "subagent" // an agent the parent spawned for a task
)

// String names the relation, "none" for RelationNone.
func (r Relation) String() string {
	if r == RelationNone {
		return "none"
	}
	return string(r)
}

// MaxWarnings bounds the warnings kept per session; the rest are only counted.
const MaxWarnings = 1000

// Call is one model request.
type Call struct {
	Index int
	Line  int // line of the first record of this call
	Time  time.Time
	Model string
	// Usage is what the log recorded for this request; nil when nothing was.
	Usage *Usage
	// Segment counts the compactions before this call: calls of one segment
	// share a context window.
	Segment   int
	Sidechain bool
	// AgentCopy marks a copy of a sub-agent's call that a Claude Code
	// 2.1.38-2.1.39 parent log holds in an agent_progress line: it counts
	// unless a log read with it holds the call itself (Reconcile). Such a
	// call has no results or prompts: those after it belong to the log's
	// own call before it.
	AgentCopy bool
	// CountedIn is the path of another session read with this one that
	// already counts this call's usage (see Reconcile), or, for usage a
	// Codex fork or sub-agent replayed from a parent that was not read with
	// it, "session " and the parent's id. The usage is shown here but added
	// to no total.
	CountedIn string
	// MessageID and RequestID identify the response where the log names
	// it (Claude Code's message.id and requestId), and SessionID is the
	// session the log says the call belongs to (Claude Code's sessionId);
	// Reconcile finds copies by them.
	MessageID, RequestID, SessionID string
	// Extra is usage the request billed on models other than Model:
	// Claude Code's advisor (usage.iterations of type advisor_message).
	// It is priced with its own model and counted in its totals; Usage
	// stays the main model's, and the prompt and every after-policy figure
	// are computed from Usage alone.
	Extra []ModelUsage
	// Text is what the model wrote (text blocks only; thinking excluded).
	Text      string
	ToolCalls []ToolCall
	// Results came back after this call and before the next one, in order
	// (the next of the log's own: a copy of a sub-agent's call takes none).
	Results []ToolResult
	// Prompts are user messages that arrived after this call, before the
	// next (of the log's own, as results).
	Prompts []Prompt
}

// Usage is the recorded token usage of one request. The four billed kinds
// are disjoint and add up to what the provider billed.
type Usage struct {
	Input           int64 // uncached input
	CacheCreation   int64 // cache writes, all lifetimes
	CacheCreation1h int64 // part of CacheCreation written with a one-hour lifetime
	CacheRead       int64 // cached input read
	Output          int64 // includes reasoning
	Reasoning       int64 // part of Output, where recorded
	// At is when the log recorded this usage where that is apart from the
	// call's start (Codex: its token_count event), and LoggedTotal the total
	// the log recorded with it (Codex total_tokens). Reconcile tells replayed
	// usage apart by them.
	At          time.Time
	LoggedTotal int64
	// OutputLowerBound means the log wrote usage before the response ended:
	// no line of it can be final, since none has a stop_reason and none
	// records more output than the first (Claude Code 2.0 to 2.1.22
	// always, 1.0.x often), so the output count is the one at the stream's
	// start.
	OutputLowerBound bool
	Fast             bool // the request ran in fast mode
}

// ModelUsage is usage recorded for one model.
type ModelUsage struct {
	Model string
	Usage Usage
}

// Prompt is the size of the prompt the request sent: every input kind.
func (u Usage) Prompt() int64 { return u.Input + u.CacheCreation + u.CacheRead }

// Total is every billed token of the request.
func (u Usage) Total() int64 { return u.Prompt() + u.Output }

// ToolCall is a tool invocation the model asked for.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage // arguments as JSON (a JSON string for free-text tools)
}

// ToolResult is what came back from one tool call, as the model saw it.
type ToolResult struct {
	CallID string
	Tool   string          // name of the linked tool call; empty when unlinked
	Input  json.RawMessage // input of the linked tool call
	// CallIndex is the API call that made the tool call, -1 when unlinked.
	CallIndex int
	Line      int
	Time      time.Time
	// Text is the exact text the model received: the text blocks, concatenated.
	Text    string
	IsError bool
	// Clipped means the log itself shortened the text: the real result was larger.
	Clipped bool
	// TextAt is where, in line Line as the reader read it, the JSON
	// string the text was decoded from starts (its quote), so that the
	// text can be read again from there alone (ResultText); 0 where it
	// is not one string, or was not valid UTF-8 as written.
	TextAt int32
	Images int // image blocks: counted, not decoded
	Other  int // other non-text blocks
	// Status carries a format's own state where it has one (Antigravity: RUNNING).
	Status string
	// DroppedBytes is the size of a text the reader measured but did not
	// keep (Options.SizesOnly); Text is then empty.
	DroppedBytes int
}

// Bytes is the UTF-8 size of the result text.
func (r ToolResult) Bytes() int { return len(r.Text) + r.DroppedBytes }

// Prompt is a user message.
type Prompt struct {
	Line   int
	Text   string
	Images int
	Meta   bool // injected by the harness rather than typed (summaries, reminders)
}

// EventKind classifies a session event.
type EventKind string

// Event kinds.
const (
	EventCompaction     EventKind = "compaction"
	EventSidechainStart EventKind = "sidechain-start"
	EventSidechainEnd   EventKind = "sidechain-end"
)

// Event is something that changes the context between calls.
type Event struct {
	Kind EventKind
	Line int
	Time time.Time
	// BeforeCall is the index of the first call after the event.
	BeforeCall int
	Trigger    string // compaction: "auto" or "manual", where recorded
	PreTokens  int64  // compaction: context size before, where recorded
	Summary    string // compaction: the summary the model continues from
}

// Warning is a problem with one line that did not stop the reading.
type Warning struct {
	Line    int
	Message string
}

// Results returns every tool result in transcript order.
func (s *Session) Results() []*ToolResult {
	n := len(s.Leading.Results)
	for i := range s.Calls {
		n += len(s.Calls[i].Results)
	}
	out := make([]*ToolResult, 0, n)
	for j := range s.Leading.Results {
		out = append(out, &s.Leading.Results[j])
	}
	for i := range s.Calls {
		for j := range s.Calls[i].Results {
			out = append(out, &s.Calls[i].Results[j])
		}
	}
	return out
}
