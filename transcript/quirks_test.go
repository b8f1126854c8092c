package transcript

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readQuirk reads log in full and by size, checks that both read it
// alike, and returns the full reading.
func readQuirk(t *testing.T, log string, format Format) *Session {
	t.Helper()
	full, sizes, err := readBoth(t, []byte(log), "quirk.jsonl", Options{Format: format})
	if err != nil {
		t.Fatal(err)
	}
	sameButTexts(t, full, sizes)
	if full.WarningCount != len(full.Warnings) {
		t.Errorf("%d warnings counted, %d kept", full.WarningCount, len(full.Warnings))
	}
	return full
}

// usages is the usage of each call, a zero Usage for a call without.
func usages(s *Session) []Usage {
	var us []Usage
	for _, c := range s.Calls {
		u := Usage{}
		if c.Usage != nil {
			u = *c.Usage
			u.At = u.At.UTC()
		}
		us = append(us, u)
	}
	return us
}

// TestTokenCountsOutOfRange pins what a reader makes of a count no API call
// records: it is warned about with its line and not counted.
func TestTokenCountsOutOfRange(t *testing.T) {
	claude := func(usage string) string {
		return `{"type":"assistant","uuid":"a1","sessionId":"s","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":` + usage + `,"content":[]}}`
	}
	codex := func(usage string) string {
		return `{"type":"session_meta","payload":{"id":"c"}}` + "\n" +
			`{"type":"turn_context","payload":{"model":"gpt-5"}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":` + usage + `}}}`
	}
	tests := []struct {
		name     string
		format   Format
		log      string
		want     []Usage
		warnings []Warning
	}{
		{
			name:   "Claude input_tokens of 2^63-1",
			format: FormatClaude,
			log:    claude(`{"input_tokens":9223372036854775807,"cache_read_input_tokens":20,"output_tokens":5}`),
			want:   []Usage{{CacheRead: 20, Output: 5}},
			warnings: []Warning{{Line: 1,
				Message: "usage.input_tokens is 9223372036854775807, above any real count: not counted"}},
		},
		{
			name:   "Claude counts at the bound are kept",
			format: FormatClaude,
			log: claude(`{"input_tokens":1000000000000,"cache_read_input_tokens":1000000000000,"output_tokens":1000000000000,` +
				`"cache_creation":{"ephemeral_5m_input_tokens":1000000000000,"ephemeral_1h_input_tokens":1000000000000}}`),
			want: []Usage{{Input: 1e12, CacheRead: 1e12, Output: 1e12, CacheCreation: 2e12, CacheCreation1h: 1e12}},
		},
		{
			name:   "Claude a cache write one above the bound",
			format: FormatClaude,
			log:    claude(`{"input_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":1000000000001,"ephemeral_1h_input_tokens":4}}`),
			want:   []Usage{{Input: 1, CacheCreation: 4, CacheCreation1h: 4}},
			warnings: []Warning{{Line: 1,
				Message: "usage.ephemeral_5m_input_tokens is 1000000000001, above any real count: not counted"}},
		},
		{
			name:   "Claude counts negative, fractional, in exponent form, too long for int64",
			format: FormatClaude,
			log:    claude(`{"input_tokens":-3,"output_tokens":2.5,"cache_read_input_tokens":1e3,"cache_creation_input_tokens":99999999999999999999}`),
			want:   []Usage{{}},
			warnings: []Warning{
				{Line: 1, Message: "usage.input_tokens is not a non-negative integer: not counted"},
				{Line: 1, Message: "usage.cache_read_input_tokens is not a non-negative integer: not counted"},
				{Line: 1, Message: "usage.output_tokens is not a non-negative integer: not counted"},
				{Line: 1, Message: "usage.cache_creation_input_tokens is not a non-negative integer: not counted"},
			},
		},
		{
			name:   "Codex output_tokens of 2^63-1",
			format: FormatCodex,
			log:    codex(`{"input_tokens":100,"cached_input_tokens":40,"output_tokens":9223372036854775807}`),
			want:   []Usage{{Input: 60, CacheRead: 40}},
			warnings: []Warning{{Line: 3,
				Message: "last_token_usage.output_tokens is 9223372036854775807, above any real count: not counted"}},
		},
		{
			name:   "Codex a negative count",
			format: FormatCodex,
			log:    codex(`{"input_tokens":100,"output_tokens":-7}`),
			want:   []Usage{{Input: 100}},
			warnings: []Warning{{Line: 3,
				Message: "last_token_usage.output_tokens is not a non-negative integer: not counted"}},
		},
		{
			name:   "generic reasoning_tokens above the bound",
			format: FormatGeneric,
			log:    `{"role":"assistant","model":"m","usage":{"input_tokens":4,"output_tokens":9,"reasoning_tokens":1000000000001}}`,
			want:   []Usage{{Input: 4, Output: 9}},
			warnings: []Warning{{Line: 1,
				Message: "usage.reasoning_tokens is 1000000000001, above any real count: not counted"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readQuirk(t, tt.log, tt.format)
			if diff := cmp.Diff(tt.want, usages(s)); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, s.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRepeatedToolCallIDs pins that a result answers the latest call of its
// id not yet answered, and that the repeated id is warned about.
func TestRepeatedToolCallIDs(t *testing.T) {
	call := func(uuid, msg, text string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","sessionId":"s","requestId":"r` + msg + `","message":{"id":"m` + msg +
			`","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2},` +
			`"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"` + text + `"}}]}}`
	}
	result := func(uuid string) string {
		return `{"type":"user","uuid":"` + uuid + `","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`
	}
	tests := []struct {
		name     string
		format   Format
		log      []string
		links    []int // the call each result links to
		inputs   []string
		warnings []Warning
	}{
		{
			name:   "Claude: each call answered in turn",
			format: FormatClaude,
			log:    []string{call("a1", "1", "x"), result("u1"), call("a2", "2", "y"), result("u2")},
			links:  []int{0, 1},
			inputs: []string{`{"file_path":"x"}`, `{"file_path":"y"}`},
			warnings: []Warning{{Line: 3,
				Message: `tool call id "t1" repeats the id of a call on line 1`}},
		},
		{
			name:   "Claude: two calls before their results, the latest first",
			format: FormatClaude,
			log:    []string{call("a1", "1", "x"), call("a2", "2", "y"), result("u1"), result("u2")},
			links:  []int{1, 0},
			inputs: []string{`{"file_path":"y"}`, `{"file_path":"x"}`},
			warnings: []Warning{{Line: 2,
				Message: `tool call id "t1" repeats the id of a call on line 1`}},
		},
		{
			name:   "Claude: a result more than the calls goes to the latest",
			format: FormatClaude,
			log:    []string{call("a1", "1", "x"), result("u1"), result("u2")},
			links:  []int{0, 0},
			inputs: []string{`{"file_path":"x"}`, `{"file_path":"x"}`},
		},
		{
			name:   "generic",
			format: FormatGeneric,
			log: []string{
				`{"role":"assistant","model":"m","tool_calls":[{"id":"t1","name":"Read","arguments":{"n":1}}]}`,
				`{"role":"tool","tool_call_id":"t1","content":"ok"}`,
				`{"role":"assistant","model":"m","tool_calls":[{"id":"t1","name":"Read","arguments":{"n":2}}]}`,
				`{"role":"tool","tool_call_id":"t1","content":"ok"}`,
			},
			links:  []int{0, 1},
			inputs: []string{`{"n":1}`, `{"n":2}`},
			warnings: []Warning{{Line: 3,
				Message: `tool call id "t1" repeats the id of a call on line 1`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readQuirk(t, strings.Join(tt.log, "\n"), tt.format)
			var links []int
			var inputs []string
			for _, r := range s.Results() {
				links = append(links, r.CallIndex)
				inputs = append(inputs, string(r.Input))
			}
			if diff := cmp.Diff(tt.links, links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.inputs, inputs); diff != "" {
				t.Errorf("inputs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, s.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRepeatedKeys pins that of repeated keys the last value is read, as
// JSON.parse reads it, with one warning for the line.
func TestRepeatedKeys(t *testing.T) {
	const warn = "an object repeats a key: its last value is kept"
	type got struct {
		Calls    int
		Usage    []Usage
		Results  []string // the tool each result links to
		Sizes    []int    // each result's size
		Prompts  []string
		Warnings []Warning
	}
	tests := []struct {
		name   string
		format Format
		log    string
		want   got
	}{
		{
			name:   "Claude record type",
			format: FormatClaude,
			log:    `{"type":"user","type":"assistant","uuid":"a1","requestId":"r1","message":{"id":"m1","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1},"content":[]}}`,
			want:   got{Calls: 1, Usage: []Usage{{Input: 1}}, Warnings: []Warning{{Line: 1, Message: warn}}},
		},
		{
			name:   "Claude usage counts, twice on one line: one warning",
			format: FormatClaude,
			log:    `{"type":"assistant","uuid":"a1","requestId":"r1","message":{"id":"m1","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2,"output_tokens":30,"input_tokens":4},"content":[]}}`,
			want:   got{Calls: 1, Usage: []Usage{{Input: 4, Output: 30}}, Warnings: []Warning{{Line: 1, Message: warn}}},
		},
		{
			name:   "Claude cache_creation parts",
			format: FormatClaude,
			log:    `{"type":"assistant","uuid":"a1","requestId":"r1","message":{"id":"m1","model":"m","stop_reason":"end_turn","usage":{"cache_creation":{"ephemeral_1h_input_tokens":1,"ephemeral_1h_input_tokens":6}},"content":[]}}`,
			want:   got{Calls: 1, Usage: []Usage{{CacheCreation: 6, CacheCreation1h: 6}}, Warnings: []Warning{{Line: 1, Message: warn}}},
		},
		{
			name:   "Claude message stop_reason, and a tool_use id",
			format: FormatClaude,
			log: `{"type":"assistant","uuid":"a1","requestId":"r1","message":{"id":"m1","model":"m","stop_reason":"tool_use","stop_reason":null,"usage":{"output_tokens":3},"content":[{"type":"tool_use","id":"t0","name":"Read","id":"t1","input":{}}]}}` + "\n" +
				`{"type":"user","uuid":"u1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"abc","content":"abcdef"}]}}`,
			want: got{Calls: 1, Usage: []Usage{{Output: 3, OutputLowerBound: true}}, Results: []string{"Read"}, Sizes: []int{6},
				Warnings: []Warning{{Line: 1, Message: warn}, {Line: 2, Message: warn}}},
		},
		{
			name:   "Claude result blocks and prompt text",
			format: FormatClaude,
			log: `{"type":"user","uuid":"u1","message":{"content":[{"type":"text","text":"old","text":"new"},` +
				`{"type":"tool_result","tool_use_id":"t9","content":[{"type":"image","type":"text","text":"ab","text":"abcd"}]}]}}`,
			want: got{Results: []string{""}, Sizes: []int{4}, Prompts: []string{"new"},
				Warnings: []Warning{{Line: 1, Message: `tool result for unknown call id "t9"`}, {Line: 1, Message: warn}}},
		},
		{
			name:   "Claude summary key repeated on an assistant line",
			format: FormatClaude,
			log:    `{"type":"assistant","summary":"a","summary":"b","uuid":"a1","requestId":"r1","message":{"id":"m1","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1},"content":[]}}`,
			want:   got{Calls: 1, Usage: []Usage{{Input: 1}}, Warnings: []Warning{{Line: 1, Message: warn}}},
		},
		{
			name:   "Claude a repeated key the reader does not use",
			format: FormatClaude,
			log:    `{"type":"assistant","cwd":"/a","cwd":"/b","uuid":"a1","requestId":"r1","message":{"id":"m1","model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"server_tool_use":1,"server_tool_use":2},"content":[]}}`,
			want:   got{Calls: 1, Usage: []Usage{{Input: 1}}},
		},
		{
			name:   "Codex payload type and usage",
			format: FormatCodex,
			log: `{"type":"session_meta","payload":{"id":"c"}}` + "\n" +
				`{"type":"turn_context","payload":{"model":"gpt-5"}}` + "\n" +
				`{"type":"event_msg","payload":{"type":"agent_message","type":"token_count","info":{"last_token_usage":{"input_tokens":5,"input_tokens":50,"output_tokens":2}}}}`,
			want: got{Calls: 1, Usage: []Usage{{Input: 50, Output: 2}}, Warnings: []Warning{{Line: 3, Message: warn}}},
		},
		{
			name:   "generic role and content",
			format: FormatGeneric,
			log:    `{"role":"assistant","role":"user","content":"a","content":"b"}`,
			want:   got{Prompts: []string{"b"}, Warnings: []Warning{{Line: 1, Message: warn}}},
		},
		{
			name:   "Antigravity step type",
			format: FormatAntigravity,
			log:    `{"step_index":1,"source":"MODEL","type":"USER_INPUT","type":"PLANNER_RESPONSE","content":"go"}`,
			want:   got{Calls: 1, Usage: []Usage{{}}, Warnings: []Warning{{Line: 1, Message: warn}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readQuirk(t, tt.log, tt.format)
			g := got{Calls: len(s.Calls), Usage: usages(s), Warnings: s.Warnings}
			for _, r := range s.Results() {
				g.Results = append(g.Results, r.Tool)
				g.Sizes = append(g.Sizes, r.Bytes())
			}
			for _, c := range append([]Call{s.Leading}, s.Calls...) {
				for _, p := range c.Prompts {
					g.Prompts = append(g.Prompts, p.Text)
				}
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestOutputLowerBound reads the two shapes of a response whose lines
// record different output counts without a stop_reason.
func TestOutputLowerBound(t *testing.T) {
	tests := []struct {
		file     string
		want     []Usage
		warnings []Warning
	}{
		{
			// 2.1.38 and 2.1.39 log a response's lines as it streams, with no
			// stop_reason: the count rises from 8 to 572, the last is final.
			// A response of one line cannot tell, and stays a lower bound.
			file: "stream-logged-2.1.38.jsonl",
			want: []Usage{
				{Input: 3, CacheCreation: 1200, CacheRead: 15000, Output: 572},
				{Input: 5, CacheCreation: 40, CacheRead: 16200, Output: 6, OutputLowerBound: true},
			},
		},
		{
			// A glm-5 response records its prompt on the first line with no
			// output, and its output on later lines with no prompt: the line
			// of the largest total, which ccusage keeps, says 0.
			file: "lines-disagree-glm-5.jsonl",
			want: []Usage{{Input: 9000, CacheRead: 2000}},
			warnings: []Warning{{Line: 3,
				Message: "the response's lines disagree: the one kept, of the largest total, records 0 output tokens, this later one 116"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile("../testdata/claude/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			s := readQuirk(t, string(data), FormatClaude)
			if diff := cmp.Diff(tt.want, usages(s)); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, s.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAgentProgressCopies: a Claude Code 2.1.38 parent log copies each line
// its sub-agent logs into an agent_progress line (data.message); the
// assistant ones are the sub-agent's calls, billed as its own log's are.
// testdata/claude/agent-progress-2.1.38.jsonl copies a sub-agent of two
// calls, the first streamed over two lines (12, then 240 output tokens);
// -agent.jsonl is that sub-agent's own log. Read alone, the parent counts
// its two calls and the two copied, where they were logged, as sidechain
// calls that take no result (the Task's result stays its call's): what
// ccusage's daily counts for these logs. Read with the sub-agent's log, the copies count there
// and not in the parent, whichever is read first: every call once.
func TestAgentProgressCopies(t *testing.T) {
	parentData, err := os.ReadFile("../testdata/claude/agent-progress-2.1.38.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	parent := readQuirk(t, string(parentData), FormatClaude)
	type call struct {
		Model            string
		Sidechain, Copy  bool
		Usage            Usage
		Results, Prompts int
	}
	var got []call
	for _, c := range parent.Calls {
		got = append(got, call{c.Model, c.Sidechain, c.AgentCopy, *c.Usage, len(c.Results), len(c.Prompts)})
	}
	want := []call{
		{"claude-opus-4-6", false, false, Usage{Input: 3, CacheCreation: 2000, CacheRead: 10000, Output: 120, OutputLowerBound: true}, 1, 0},
		{"claude-haiku-4-5-20251001", true, true, Usage{Input: 5, CacheCreation: 800, Output: 240}, 0, 0},
		{"claude-haiku-4-5-20251001", true, true, Usage{Input: 8, CacheCreation: 300, CacheRead: 800, Output: 90, OutputLowerBound: true}, 0, 0},
		{"claude-opus-4-6", false, false, Usage{Input: 4, CacheCreation: 500, CacheRead: 12000, Output: 60, OutputLowerBound: true}, 0, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if n := parent.Skipped["progress"]; n != 2 {
		t.Errorf("%d progress lines skipped, want the 2 that copy the sub-agent's user lines", n)
	}

	agent, err := ReadFile("../testdata/claude/agent-progress-2.1.38-agent.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]*Session{{parent, agent}, {agent, parent}} {
		Reconcile(order)
		var marks []string
		for _, s := range []*Session{parent, agent} {
			for _, c := range s.Calls {
				marks = append(marks, c.CountedIn)
			}
		}
		if diff := cmp.Diff([]string{"", agent.Path, agent.Path, "", "", ""}, marks); diff != "" {
			t.Errorf("counted in (-want +got):\n%s", diff)
		}
	}
}
