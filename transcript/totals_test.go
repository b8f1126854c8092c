package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// totalsView is what a caller that only totals (the session index) takes
// from a session: everything but the tool calls, the prompts, which call
// each result answers and when, plus the keys reconciling links it by.
type totalsView struct {
	Session *Session
	Results [][]ToolResult // Leading's, then each call's
	Keys    []uint64
}

func totalsOf(s *Session) totalsView {
	c := *s
	v := totalsView{Keys: ReconcileKeys(s)}
	strip := func(call Call) Call {
		rs := slices.Clone(call.Results)
		for i := range rs {
			rs[i].CallID, rs[i].Tool, rs[i].Input, rs[i].CallIndex, rs[i].Time = "", "", nil, 0, time.Time{}
		}
		v.Results = append(v.Results, rs)
		call.ToolCalls, call.Prompts, call.Results = nil, nil, nil
		return call
	}
	strip(c.Leading)
	// Leading is set where what came before the first call is kept:
	// prompts are not, and only its results count.
	c.Leading = Call{}
	c.Calls = slices.Clone(c.Calls)
	for i := range c.Calls {
		c.Calls[i] = strip(c.Calls[i])
	}
	v.Session = &c
	return v
}

// readTotals reads data as sizes only, then totals only, checks that the
// two agree on everything the totals keep and that the totals keep no
// tool calls, prompts or links of results to calls, and returns the
// totals-only session.
func readTotals(t *testing.T, data []byte, name string) *Session {
	t.Helper()
	sizes, err := Read(bytes.NewReader(data), name, Options{SizesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{SizesOnly: true, TotalsOnly: true}
	totals, err := Read(bytes.NewReader(data), name, opt)
	if err != nil {
		t.Fatal(err)
	}
	sameAhead(t, data, name, opt, totals, nil)
	if a, b := totalsOf(sizes), totalsOf(totals); !reflect.DeepEqual(a, b) {
		t.Fatalf("reading totals only changed what the totals keep (-sizes +totals):\n%s", cmp.Diff(a, b))
	}
	for _, c := range append([]Call{totals.Leading}, totals.Calls...) {
		if len(c.ToolCalls) > 0 || len(c.Prompts) > 0 {
			t.Fatalf("call %d kept %d tool calls and %d prompts", c.Index, len(c.ToolCalls), len(c.Prompts))
		}
		for _, r := range c.Results {
			if r.Tool != "" || r.Input != nil || r.CallIndex != -1 || !r.Time.IsZero() {
				t.Fatalf("result on line %d names call %d (%q), at %v", r.Line, r.CallIndex, r.Tool, r.Time)
			}
		}
	}
	return totals
}

// TestTotalsOnlyShared reads every shared log, as written and spaced out,
// with and without TotalsOnly, and reconciles the logs read each way.
func TestTotalsOnlyShared(t *testing.T) {
	paths := sharedtest.Transcripts(t, "*.jsonl")
	var sizes, totals []*Session
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			readTotals(t, spaced(data), path)
			totals = append(totals, readTotals(t, data, path))
		})
		s, err := Read(bytes.NewReader(data), path, Options{SizesOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, s)
	}
	if len(sizes) != len(totals) {
		t.Fatal("a log failed")
	}
	Reconcile(sizes)
	Reconcile(totals)
	for i := range sizes {
		if a, b := totalsOf(sizes[i]), totalsOf(totals[i]); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s reconciled: (-sizes +totals):\n%s", paths[i], cmp.Diff(a, b))
		}
	}
}

// TestTotalsOnly reads small logs with and without TotalsOnly: the
// warnings the tool calls and results give stay, however the lines are
// written (keys escaped, spaced out).
func TestTotalsOnly(t *testing.T) {
	const (
		use    = `{"type":"assistant","uuid":"U","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","requestId":"R","message":{"id":"M","model":"claude-sonnet-4-6","stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":7},"content":[{"type":"tool_use","id":"T","name":"Read","input":{"file_path":"/a"}}]}}`
		result = `{"type":"user","uuid":"U","timestamp":"2026-03-01T09:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"T","content":"a\nb→c"}]}}`
		prompt = `{"type":"user","uuid":"U","timestamp":"2026-03-01T09:00:02Z","message":{"role":"user","content":[{"type":"text","text":"fix \"it\""},{"type":"image","source":{}}]}}`
	)
	// line is one of the lines above with its ids' X replaced.
	line := func(l, uuid, msg, tool string) string {
		l = strings.Replace(l, `"uuid":"U"`, `"uuid":"`+uuid+`"`, 1)
		l = strings.Replace(l, `"id":"M"`, `"id":"`+msg+`"`, 1)
		l = strings.Replace(l, `"requestId":"R"`, `"requestId":"r`+msg+`"`, 1)
		l = strings.Replace(l, `"T"`, `"`+tool+`"`, 1)
		return l
	}
	escapedKey := func(l string) string { // a line with a key escaped
		return strings.Replace(l, `"uuid"`, `"c\u0077d":"/a","uuid"`, 1)
	}
	for _, l := range []string{use, result, prompt, strings.Replace(use, `"/a"`, "\"/\xff\"", 1), escapedKey(use), escapedKey(result)} {
		var r claudeReader
		if !r.read([]byte(l)) {
			t.Fatalf("the reader does not read %s", l)
		}
	}
	tests := []struct {
		name     string
		lines    []string
		warnings []string
	}{
		{"answered", []string{line(use, "1", "m1", "t1"), line(result, "2", "", "t1"), line(prompt, "3", "", "")}, nil},
		{"unknown id", []string{line(use, "1", "m1", "t1"), line(result, "2", "", "t9")},
			[]string{`tool result for unknown call id "t9"`}},
		{"result first", []string{line(result, "2", "", "t1"), line(use, "1", "m1", "t1")},
			[]string{`tool result for unknown call id "t1"`}},
		{"id of an earlier call", []string{line(use, "1", "m1", "t1"), line(result, "2", "", "t1"), line(use, "3", "m2", "t1"), line(result, "4", "", "t1")},
			[]string{`tool call id "t1" repeats the id of a call on line 1`}},
		{"id twice in a call", []string{line(use, "1", "m1", "t1"), line(use, "2", "m1", "t1"), line(result, "3", "", "t1")}, nil},
		{"id on a line with an escaped key", []string{escapedKey(line(use, "1", "m1", "t1")), line(result, "2", "", "t1"), line(use, "3", "m2", "t1"), escapedKey(line(result, "4", "", "t5"))},
			[]string{`tool call id "t1" repeats the id of a call on line 1`, `tool result for unknown call id "t5"`}},
		{"input spaced", []string{strings.Replace(line(use, "1", "m1", "t1"), `{"file_path":"/a"}`, "{ \"a b\" :\t[1 , {\"c\":\"d\"}] }", 1), line(result, "2", "", "t1")}, nil},
		{"name invalid", []string{strings.Replace(line(use, "1", "m1", "t1"), `"Read"`, "\"R\xffad\"", 1)},
			[]string{"invalid UTF-8"}},
		{"input invalid", []string{strings.Replace(line(use, "1", "m1", "t1"), `"/a"`, "\"/\xff\"", 1)},
			[]string{"invalid UTF-8"}},
		{"name and input invalid", []string{strings.Replace(strings.Replace(line(use, "1", "m1", "t1"), `"/a"`, "\"/\xff\"", 1), `"Read"`, "\"R\xffad\"", 1)},
			[]string{"invalid UTF-8"}},
		{"prompt invalid", []string{escapedKey(strings.Replace(line(prompt, "1", "", ""), `it`, "i\xfft", 1))},
			[]string{"invalid UTF-8"}},
		{"compaction", []string{line(use, "1", "m1", "t1"), `{"type":"system","uuid":"c","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":5}}`,
			strings.Replace(line(prompt, "2", "", ""), `"type":"user",`, `"type":"user","isCompactSummary":true,`, 1), line(use, "3", "m2", "t2")}, nil},
	}
	const (
		meta  = `{"timestamp":"2026-05-02T20:55:00.000Z","type":"session_meta","payload":{"id":"s","cli_version":"0.128.0"}}`
		count = `{"timestamp":"2026-05-02T20:55:07.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1000,"output_tokens":50,"total_tokens":1050}}}}`
	)
	codexCall := func(id, args string) string {
		return `{"timestamp":"2026-05-02T20:55:05.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":` + args + `,"call_id":"` + id + `"}}`
	}
	codexCustom := func(id, input string) string {
		return `{"timestamp":"2026-05-02T20:55:05.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":` + input + `,"call_id":"` + id + `"}}`
	}
	codexOutput := func(id string) string {
		return `{"timestamp":"2026-05-02T20:55:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"` + id + `","output":"a\nb"}}`
	}
	tests = append(tests, []struct {
		name     string
		lines    []string
		warnings []string
	}{
		{"codex answered", []string{meta, codexCall("c1", `"{\"cmd\":\"ls\"}"`), codexOutput("c1"), count}, nil},
		{"codex unknown id", []string{meta, codexCall("c1", `"{}"`), codexOutput("c9"), count},
			[]string{`tool result for unknown call id "c9"`}},
		{"codex id of an earlier call", []string{meta, codexCall("c1", `"{}"`), codexOutput("c1"), count, codexCall("c1", `"{}"`), codexOutput("c1"), count},
			[]string{`repeats the id of a call`}},
		{"codex arguments invalid", []string{meta, codexCall("c1", "\"{\\\"cmd\\\":\\\"l\xffs\\\"}\""), count},
			[]string{"invalid UTF-8"}},
		{"codex arguments not JSON, invalid", []string{meta, codexCall("c1", "\"l\xffs\""), count}, nil},
		{"codex custom input invalid", []string{meta, codexCustom("c1", "\"l\xffs\""), count}, nil},
		{"codex name invalid", []string{meta, strings.Replace(codexCall("c1", `"{}"`), "exec_command", "exec\xff", 1), count},
			[]string{"invalid UTF-8"}},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(strings.Join(tt.lines, "\n") + "\n")
			for _, text := range [][]byte{data, spaced(data)} {
				s := readTotals(t, text, "totals.jsonl")
				if s.WarningCount != len(tt.warnings) {
					t.Fatalf("%d warnings, want %d: %v", s.WarningCount, len(tt.warnings), s.Warnings)
				}
				for i, w := range tt.warnings {
					if !strings.Contains(s.Warnings[i].Message, w) {
						t.Errorf("warning %d is %q, want %q", i, s.Warnings[i].Message, w)
					}
				}
			}
			// Without SizesOnly, TotalsOnly changes nothing.
			full, err := Read(bytes.NewReader(data), "totals.jsonl", Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Read(bytes.NewReader(data), "totals.jsonl", Options{TotalsOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(full, got); d != "" {
				t.Fatalf("TotalsOnly without SizesOnly changed the session:\n%s", d)
			}
		})
	}
}

// TestUnreadableTimestamp: a response whose timestamp the reader cannot
// read is counted without a time and says so, where it went silently
// timeless; read for totals only, the same.
func TestUnreadableTimestamp(t *testing.T) {
	// A number too (epoch seconds): it was dropped in silence.
	for ts, shown := range map[string]string{`"yesterday"`: "yesterday", `1767380000`: "1767380000"} {
		line := `{"type":"assistant","uuid":"U","sessionId":"s","timestamp":` + ts + `,"requestId":"R","message":{"id":"M","model":"claude-sonnet-4-6","usage":{"input_tokens":3,"output_tokens":7},"content":[{"type":"text","text":"hi"}]}}`
		s := readTotals(t, []byte(line+"\n"), "t.jsonl")
		want := []Warning{{Line: 1, Message: `timestamp "` + shown + `" is not a time the reader knows: the call has none`}}
		if diff := cmp.Diff(want, s.Warnings); diff != "" || len(s.Calls) != 1 || !s.Calls[0].Time.IsZero() {
			t.Errorf("%s: warnings (-want +got):\n%s%d calls", ts, diff, len(s.Calls))
		}
	}
}

// TestGenericUnreadableTimestamp: so in the generic format, where any
// timestamp that was not a time went unsaid; null is no time, unsaid.
func TestGenericUnreadableTimestamp(t *testing.T) {
	line := func(ts string) string {
		return `{"role":"assistant","model":"claude-sonnet-4-5","timestamp":` + ts + `,"content":"x","usage":{"input_tokens":1,"output_tokens":1}}` + "\n"
	}
	s, err := Read(strings.NewReader(line("1767380000")+line(`"soon"`)+line("null")+line(`"2026-03-01T09:00:01Z"`)), "g.jsonl", Options{Format: FormatGeneric})
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{
		{Line: 1, Message: "timestamp 1767380000 is not a time the reader knows: the line has none"},
		{Line: 2, Message: `timestamp "soon" is not a time the reader knows: the line has none`},
	}
	if diff := cmp.Diff(want, s.Warnings); diff != "" || len(s.Calls) != 4 || s.Calls[3].Time.IsZero() {
		t.Errorf("warnings (-want +got):\n%s%d calls", diff, len(s.Calls))
	}
}
