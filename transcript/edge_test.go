package transcript

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEdgeCases reads small hand-written logs that each show one quirk,
// and checks what a reader makes of it: the warnings it gives, what it
// counts as skipped, and the part of the session the quirk touches.
func TestEdgeCases(t *testing.T) {
	const (
		claudeA = `{"type":"assistant","uuid":"a1","sessionId":"s","version":"%V","timestamp":"2026-01-01T00:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":1,"output_tokens":7},"content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}`
		claudeU = `{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`
		compact = `{"type":"system","subtype":"compact_boundary","uuid":"b1","timestamp":"2026-01-01T00:00:02Z","compactMetadata":{"trigger":"auto","preTokens":9}}`
		planner = `{"step_index":1,"source":"MODEL","type":"PLANNER_RESPONSE","content":"go","tool_calls":[{"name":"view_file","args":{}},{"name":"run_command","args":{}}]}`
	)
	claudeV := func(version string) string { return strings.Replace(claudeA, "%V", version, 1) }
	type summary struct {
		Calls, Results, Compactions int
		Links                       []string // tool name of each result, "" when unlinked
		Errors                      int      // results marked as errors
		LowerBound                  bool     // the first call's output is a lower bound
		Warnings                    []Warning
		Skipped                     map[string]int
	}
	tests := []struct {
		name string
		log  string
		want summary
	}{
		{
			name: "byte-order mark before the first line",
			log:  "\uFEFF" + `{"spillway":"transcript/v1","session_id":"bom"}` + "\n" + `{"role":"assistant","model":"m","content":"hi"}`,
			want: summary{Calls: 1},
		},
		{
			name: "invalid UTF-8 in the header's title is warned about",
			log:  `{"spillway":"transcript/v1","session_id":"s","title":"caf` + "\xe9" + `"}` + "\n" + `{"role":"assistant","model":"m","content":"hi"}`,
			want: summary{Calls: 1, Warnings: []Warning{{Line: 1, Message: "invalid UTF-8 replaced with U+FFFD"}}},
		},
		{
			name: "a resumed session repeats every line, the compaction too",
			log:  strings.Repeat(claudeV("2.1.126")+"\n"+claudeU+"\n"+compact+"\n", 2),
			want: summary{Calls: 1, Results: 1, Compactions: 1, Links: []string{"Read"}, LowerBound: true,
				Skipped: map[string]int{"assistant (repeated uuid)": 1, "user (repeated uuid)": 1, "system (repeated uuid)": 1}},
		},
		{
			// sniffly's 1.0.17 log has a line of 18,205 content bytes whose
			// output_tokens is 22: without a stop_reason it is the count
			// at the stream's start.
			name: "1.0.x without a stop_reason wrote usage as the stream began",
			log:  claudeV("1.0.17") + "\n" + claudeU,
			want: summary{Calls: 1, Results: 1, Links: []string{"Read"}, LowerBound: true},
		},
		{
			name: "a stop_reason marks the final output",
			log:  strings.Replace(claudeV("1.0.17"), `"usage"`, `"stop_reason":"tool_use","usage"`, 1) + "\n" + claudeU,
			want: summary{Calls: 1, Results: 1, Links: []string{"Read"}},
		},
		{
			name: "2.1.22 writes usage at the start of the stream",
			log:  claudeV("2.1.22") + "\n" + claudeU,
			want: summary{Calls: 1, Results: 1, Links: []string{"Read"}, LowerBound: true},
		},
		{
			name: "a tool_result without an id is warned about once",
			log:  claudeV("2.1.22") + "\n" + strings.Replace(claudeU, `"tool_use_id":"t1",`, "", 1),
			want: summary{Calls: 1, Results: 1, Links: []string{""}, LowerBound: true,
				Warnings: []Warning{{Line: 2, Message: "tool_result block without a tool_use_id"}}},
		},
		{
			name: "a Codex output without a call_id is warned about once",
			log: `{"type":"session_meta","payload":{"id":"c"}}` + "\n" +
				`{"type":"response_item","payload":{"type":"function_call_output","output":"x"}}`,
			want: summary{Results: 1, Links: []string{""},
				Warnings: []Warning{{Line: 2, Message: "tool output without a call_id"}}},
		},
		{
			name: "Codex 0.144's exec reports a failed script in its header",
			log: `{"type":"session_meta","payload":{"id":"c"}}` + "\n" +
				`{"type":"response_item","payload":{"type":"custom_tool_call","name":"exec","input":"x","call_id":"e1"}}` + "\n" +
				`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"e1","output":[{"type":"input_text","text":"Script failed\nWall time 0.0 seconds\nOutput:\n"},{"type":"input_text","text":"Script error:\napply_patch verification failed"}]}}` + "\n" +
				`{"type":"response_item","payload":{"type":"custom_tool_call","name":"exec","input":"y","call_id":"e2"}}` + "\n" +
				`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"e2","output":[{"type":"input_text","text":"Script completed\nWall time 0.1 seconds\nOutput:\nScript failed\n"}]}}`,
			want: summary{Calls: 1, Results: 2, Links: []string{"exec", "exec"}, Errors: 1,
				Warnings: []Warning{{Line: 2, Message: "the last request has no token count (the log ends before it was recorded)"}}},
		},
		{
			name: "an Antigravity step of an unknown type from the system answers no tool call",
			log: planner + "\n" +
				`{"step_index":2,"source":"SYSTEM","type":"EPHEMERAL_MESSAGE","content":"reminder"}` + "\n" +
				`{"step_index":3,"source":"MODEL","type":"VIEW_FILE","status":"DONE","content":"file"}` + "\n" +
				`{"step_index":4,"source":"MODEL","type":"RUN_COMMAND","status":"DONE","content":"ls"}`,
			want: summary{Calls: 1, Results: 2, Links: []string{"view_file", "run_command"},
				Skipped: map[string]int{"EPHEMERAL_MESSAGE": 1}},
		},
		{
			name: "an Antigravity step of an unknown type from the model is a tool step",
			log:  planner + "\n" + `{"step_index":2,"source":"MODEL","type":"ASK_QUESTION","status":"DONE","content":"?"}`,
			want: summary{Calls: 1, Results: 1, Links: []string{"view_file"},
				Warnings: []Warning{{Line: 1, Message: "1 tool call(s) of the last step got no result"}}},
		},
		{
			// Each would be a call row with nothing in it.
			name: "a Claude response with neither usage nor content is warned about and left out",
			log: claudeV("2.1.126") + "\n" +
				`{"type":"assistant","uuid":"a2","message":{}}` + "\n" +
				`{"type":"assistant","uuid":"a3","requestId":"r3","message":{"id":"m3","model":"claude-sonnet-4-5","content":[]}}` + "\n" +
				`{"type":"assistant","uuid":"a4","requestId":"r4","message":{"id":"m4","model":"claude-sonnet-4-5","usage":"none","content":7}}` + "\n" +
				claudeU,
			want: summary{Calls: 1, Results: 1, Links: []string{"Read"}, LowerBound: true, Warnings: []Warning{
				{Line: 2, Message: "assistant record with neither usage nor content; left out"},
				{Line: 3, Message: "assistant record with neither usage nor content; left out"},
				{Line: 4, Message: "assistant record with neither usage nor content; left out"},
			}},
		},
		{
			name: "a Claude response without usage that says something is a call",
			log:  `{"type":"assistant","uuid":"a2","requestId":"r2","message":{"id":"m2","model":"claude-sonnet-4-5","content":"hi"}}`,
			want: summary{Calls: 1},
		},
		{
			name: "generic content that is neither text nor blocks",
			log:  `{"role":"assistant","model":"m","content":42}`,
			want: summary{Calls: 1, Warnings: []Warning{{Line: 1, Message: "content is a number, not text or blocks"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Read(strings.NewReader(tt.log), "edge.jsonl", Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := summary{Calls: len(s.Calls), Warnings: s.Warnings, Skipped: s.Skipped}
			for _, e := range s.Events {
				if e.Kind == EventCompaction {
					got.Compactions++
				}
			}
			for _, r := range s.Results() {
				got.Results++
				got.Links = append(got.Links, r.Tool)
				if r.IsError {
					got.Errors++
				}
			}
			if len(s.Calls) > 0 && s.Calls[0].Usage != nil {
				got.LowerBound = s.Calls[0].Usage.OutputLowerBound
			}
			if len(got.Skipped) == 0 {
				got.Skipped = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if s.WarningCount != len(s.Warnings) {
				t.Errorf("%d warnings counted, %d kept", s.WarningCount, len(s.Warnings))
			}
		})
	}
}
