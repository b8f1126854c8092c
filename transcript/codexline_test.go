package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/valyala/fastjson"
)

// sameBothWays fails unless data read as Codex keeping sizes only is the
// session read in full but for the texts.
func sameBothWays(t *testing.T, data []byte) {
	t.Helper()
	full, sizes, err := readBoth(t, data, "codex.jsonl", Options{Format: FormatCodex})
	if err != nil {
		if !errors.Is(err, ErrEmpty) {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	sameButTexts(t, full, sizes)
}

func codexFixtures(t *testing.T) []string {
	paths := []string{fixture("codex.jsonl")}
	err := filepath.WalkDir(filepath.Join("..", "testdata", "codex"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestCodexModes reads lines of every kind the Codex reader meets,
// ordinary and odd, and every Codex fixture and shared real log, as
// written and spaced out, keeping sizes only and in full: both modes must
// read the same session but for the texts.
func TestCodexModes(t *testing.T) {
	const (
		call  = `{"timestamp":"2026-05-02T20:55:05.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}`
		count = `{"timestamp":"2026-05-02T20:55:07.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":200,"output_tokens":50,"reasoning_output_tokens":10,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":200,"output_tokens":50,"reasoning_output_tokens":10,"total_tokens":1050}}}}`
	)
	out := func(output string) string {
		return `{"timestamp":"2026-05-02T20:55:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` + output + `}}`
	}
	item := func(payload string) string {
		return `{"timestamp":"2026-05-02T20:55:08.000Z","type":"response_item","payload":` + payload + `}`
	}
	event := func(payload string) string {
		return `{"timestamp":"2026-05-02T20:55:09.000Z","type":"event_msg","payload":` + payload + `}`
	}
	tokens := func(info string) string { return event(`{"type":"token_count","info":` + info + `}`) }
	tests := []struct {
		name string
		line string
	}{
		{"function call", strings.Replace(call, `"c1"`, `"c2"`, 1)},
		{"function call, arguments not JSON", item(`{"type":"function_call","name":"x","arguments":"not json","call_id":"c2"}`)},
		{"function call, no arguments", item(`{"type":"function_call","name":"x","call_id":"c2"}`)},
		{"custom tool call", item(`{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n<a> & \"b\"","call_id":"c2","status":"completed"}`)},
		{"tool name not a string", item(`{"type":"function_call","name":5,"call_id":"c2"}`)},
		{"output", out(`"Process exited with code 0\nOutput:\na\n"`)},
		{"output, exit 1", out(`"Chunk ID: a\nProcess exited with code 1\nOutput:\n"`)},
		{"output, exit -1", out(`"Process exited with code -1\n"`)},
		{"output, escaped exit code", out(`"\u001b[0mProcess exited with code \u0032\n"`)},
		{"output, script failed", out(`"Script failed\nTypeError"`)},
		{"output, script failed escaped", out(`"Script failed\u000aTypeError"`)},
		{"output items", out(`[{"type":"input_text","text":"Script "},{"type":"output_text","text":"failed\n"},{"type":"input_image","image_url":"x"},{"type":"file"},7,{"text":"no type"}]`)},
		{"output items, text not a string", out(`[{"type":"input_text","text":5},{"type":"text"}]`)},
		{"output items, type not a string", out(`[{"type":1,"text":"x"}]`)},
		{"output object", out(`{"content":"Process exited with code 0","success":false}`)},
		{"output object, content not a string", out(`{"content":[1],"success":true}`)},
		{"output null", out(`null`)},
		{"no output", item(`{"type":"custom_tool_call_output","call_id":"c1"}`)},
		{"local shell output", item(`{"type":"local_shell_call_output","call_id":"c1","output":"x"}`)},
		{"output for no call", strings.Replace(out(`"x"`), `"c1"`, `"c9"`, 1)},
		{"output astral", out(`"\ud83d\ude00 \ud83d x\u00e9→"`)},
		{"assistant message", item(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done.\n"}]}`)},
		{"user message", item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"x"}]}`)},
		{"developer message", item(`{"type":"message","role":"developer","content":"rules"}`)},
		{"message without role", item(`{"type":"message","content":{"a":1}}`)},
		{"reasoning", item(`{"type":"reasoning","summary":[],"encrypted_content":"gAAAA"}`)},
		{"other item", item(`{"type":"ghost_snapshot","commit":{"a":[1,{"b":null}]}}`)},
		{"item without type", item(`{"call_id":"c1"}`)},
		{"token count", tokens(`{"total_token_usage":{"input_tokens":2300,"cached_input_tokens":1000,"output_tokens":80,"reasoning_output_tokens":10,"total_tokens":2380},"last_token_usage":{"input_tokens":1300,"cached_input_tokens":800,"output_tokens":30,"reasoning_output_tokens":0,"total_tokens":1330},"model_context_window":258400}`)},
		{"token count repeated", count},
		{"total only", tokens(`{"total_token_usage":{"input_tokens":1500,"cached_input_tokens":300,"output_tokens":60,"total_tokens":1560}}`)},
		{"total went down", tokens(`{"total_token_usage":{"input_tokens":10,"cached_input_tokens":300,"output_tokens":60}}`)},
		{"last only", tokens(`{"last_token_usage":{"input_tokens":10,"cached_input_tokens":null,"cache_write_input_tokens":4,"output_tokens":6}}`)},
		{"last null, total", tokens(`{"last_token_usage":null,"total_token_usage":{"input_tokens":1500,"output_tokens":60}}`)},
		{"cached above input", tokens(`{"last_token_usage":{"input_tokens":10,"cached_input_tokens":20}}`)},
		{"no usage", tokens(`{"last_token_usage":{"input_tokens":0}}`)},
		{"info null", tokens(`null`)},
		{"no info", event(`{"type":"token_count","rate_limits":{}}`)},
		{"model on the event", event(`{"type":"token_count","model":" gpt-5.5 ","info":{"last_token_usage":{"input_tokens":10}}}`)},
		{"model in info", tokens(`{"model_name":"gpt-5.4","last_token_usage":{"input_tokens":10}}`)},
		{"model in metadata", tokens(`{"model":"  ","metadata":{"model":"gpt-5.3"},"last_token_usage":{"input_tokens":10}}`)},
		{"count at the bound", tokens(`{"last_token_usage":{"input_tokens":1000000000000}}`)},
		{"turn context", `{"type":"turn_context","payload":{"model":"gpt-5.5","cwd":"/w"}}`},
		{"turn context, model not a string", `{"type":"turn_context","payload":{"model":5,"model_name":"gpt-5.2"}}`},
		{"turn context, metadata list", `{"type":"turn_context","payload":{"metadata":["model"]}}`},
		{"other event", event(`{"type":"exec_command_end","call_id":"c1","aggregated_output":"a\\b","parsed_cmd":[{"type":"unknown","cmd":"ls"}]}`)},
		{"event without type", event(`{"message":"x"}`)},
		{"other record", `{"timestamp":"2026-05-02T20:55:09.000Z","type":"world_state","payload":{"files":{}}}`},
		{"no timestamp", `{"type":"response_item","payload":{"type":"reasoning"}}`},
		{"timestamp not a string", `{"timestamp":null,"type":"response_item","payload":{"type":"reasoning"}}`},
		{"timestamp spaced", `{"timestamp":" 2026-05-02T20:55:09Z ","type":"response_item","payload":{"type":"reasoning"}}`},
		{"timestamp not a time", `{"timestamp":"yesterday","type":"response_item","payload":{"type":"reasoning"}}`},
		{"payload first", `{"payload":{"type":"reasoning"},"type":"response_item","timestamp":"2026-05-02T20:55:09Z"}`},
		{"spaced", ` { "type" : "response_item" , "payload" : { "type" : "function_call_output" , "call_id" : "c1" , "output" : [ { "type" : "input_text" , "text" : "a" } ] } } `},
		{"unread key twice in another object", event(`{"type":"exec_command_end","a":{"k":1},"b":{"k":2}}`)},
		{"escaped unread string", event(`{"type":"agent_message","message":"\"hi\"\n"}`)},

		{"session meta", `{"timestamp":"2026-05-02T20:55:00.000Z","type":"session_meta","payload":{"id":"s","cli_version":"0.128.0"}}`},
		{"compacted", `{"type":"compacted","payload":{"message":"","replacement_history":[]}}`},
		{"context compacted", event(`{"type":"context_compacted"}`)},
		{"thread settings", event(`{"type":"thread_settings_applied","thread_settings":{"model":"gpt-5.4","service_tier":"fast"}}`)},
		{"web search", item(`{"type":"web_search_call","status":"completed","action":{"type":"search","query":"x"}}`)},
		{"local shell call", item(`{"type":"local_shell_call","call_id":"c3","action":{"command":["ls"]}}`)},
		{"numeric timestamp", `{"timestamp":1746219309,"type":"response_item","payload":{"type":"reasoning"}}`},
		{"escaped timestamp", `{"timestamp":"2026-05-02T20:55:09\u005a","type":"response_item","payload":{"type":"reasoning"}}`},
		{"no type", `{"payload":{"type":"reasoning"}}`},
		{"empty type", `{"type":"","payload":{"type":"reasoning"}}`},
		{"type not a string", `{"type":1,"payload":{"type":"reasoning"}}`},
		{"no payload", `{"type":"response_item"}`},
		{"payload not an object", `{"type":"response_item","payload":[]}`},
		{"not an object", `[1]`},
		{"invalid JSON", `{"type":"response_item","payload":{"type":"reasoning"}`},
		{"trailing bytes", `{"type":"response_item","payload":{"type":"reasoning"}} x`},
		{"type twice", `{"type":"response_item","type":"event_msg","payload":{"type":"reasoning"}}`},
		{"unread key twice", `{"type":"response_item","cwd":"a","cwd":"b","payload":{"type":"reasoning"}}`},
		{"key twice deep inside", event(`{"type":"exec_command_end","parsed_cmd":[{"cmd":"ls","cmd":"rm"}]}`)},
		{"escaped key", `{"typ\u0065":"response_item","payload":{"type":"reasoning"}}`},
		{"escaped unread key", event(`{"type":"agent_message","me\u0073sage":"x"}`)},
		{"escaped kind", item(`{"type":"reasonin\u0067"}`)},
		{"call without id", item(`{"type":"function_call","name":"x","arguments":"{}"}`)},
		{"escaped call id", item(`{"type":"function_call","name":"x","call_id":"c\u0032"}`)},
		{"escaped tool name", item(`{"type":"function_call","name":"\u0078","call_id":"c2"}`)},
		{"output without id", item(`{"type":"function_call_output","output":"x"}`)},
		{"output a number", out(`5`)},
		{"output invalid UTF-8", out("\"a\xffb\"")},
		{"output item invalid UTF-8", out("[{\"type\":\"input_text\",\"text\":\"a\xe2\x86\"},{\"type\":\"input_text\",\"text\":\"\x92b\"}]")},
		{"message invalid UTF-8", item("{\"type\":\"message\",\"role\":\"user\",\"content\":\"a\xff\"}")},
		{"escaped role", item(`{"type":"message","role":"\u0075ser","content":"x"}`)},
		{"info a string", tokens(`"x"`)},
		{"neither usage", tokens(`{"model_context_window":5}`)},
		{"count negative", tokens(`{"last_token_usage":{"input_tokens":-1}}`)},
		{"count a float", tokens(`{"last_token_usage":{"input_tokens":1.0}}`)},
		{"count a string", tokens(`{"last_token_usage":{"input_tokens":"1"}}`)},
		{"count above the bound", tokens(`{"last_token_usage":{"input_tokens":1000000000001}}`)},
		{"unread count negative", tokens(`{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":200,"output_tokens":50,"reasoning_output_tokens":10,"total_tokens":1050},"last_token_usage":{"input_tokens":-5}}`)},
		{"escaped model", event(`{"type":"token_count","model":"gpt\u002d5","info":{"last_token_usage":{"input_tokens":10}}}`)},
		{"escaped turn model", `{"type":"turn_context","payload":{"model":"gpt\u002d5"}}`},
		{"too deep", event(`{"type":"x","a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(call + "\n" + count + "\n" + tt.line + "\n")
			sameBothWays(t, data)
		})
	}

	t.Run("fixtures", func(t *testing.T) {
		paths := codexFixtures(t)
		paths = append(paths, sharedtest.Transcripts(t, "codex_*.jsonl")...)
		for _, path := range paths {
			t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				sameBothWays(t, data)
				sameBothWays(t, spaced(data))
			})
		}
	})

	t.Run("generated", func(t *testing.T) {
		sameBothWays(t, generatedCodex(t, 60))
	})
}

// generatedCodex is one generated Codex rollout of about calls calls.
func generatedCodex(t testing.TB, calls int) []byte {
	t.Helper()
	dir := t.TempDir()
	if _, err := corpus.WriteFleet(dir, corpus.Fleet{Codex: 1, MeanCalls: calls, ResultBytes: 2048}); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "codex", "sessions", "*", "*", "*", "*.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("generated %v, want one rollout", paths)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCodexByHand pins what the reader reads keeping sizes only to
// figures worked out by hand.
func TestCodexByHand(t *testing.T) {
	pad := strings.Repeat("x", 600)
	lines := []string{
		`{"timestamp":"2026-05-02T20:55:01.000Z","type":"turn_context","payload":{"model":"gpt-5.5"}}`,
		`{"timestamp":"2026-05-02T20:55:05.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"ls\"}","call_id":"c1"}}`,
		// "a\nb→c" unescapes to a, newline, b, three bytes of →, c: 7.
		`{"timestamp":"2026-05-02T20:55:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a\nb→c"}}`,
		// 300 escaped newlines unescape to 300 bytes: the exit code is
		// within the first 512, though 600 bytes into the line.
		`{"timestamp":"2026-05-02T20:55:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"` + strings.Repeat(`\n`, 300) + `Process exited with code 3\n"}}`,
		// Past the first 512 bytes the header is over: not an exit code.
		`{"timestamp":"2026-05-02T20:55:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"` + pad + `Process exited with code 3\n"}}`,
		// Items join: "Script " + "failed\n" heads a failure; ab and the
		// image and the file are 2 bytes, 1 image, 1 other.
		`{"timestamp":"2026-05-02T20:55:06.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":[{"type":"input_text","text":"Script "},{"type":"input_text","text":"failed\n"},{"type":"input_image"},{"type":"file"}]}}`,
		`{"timestamp":"2026-05-02T20:55:07.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":200,"output_tokens":50,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":200,"output_tokens":50,"reasoning_output_tokens":10,"total_tokens":1050}}}}`,
		// Only the total, which grew by 500 input (300 cached) and 20 output.
		`{"timestamp":"2026-05-02T20:55:09.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1500,"cached_input_tokens":500,"output_tokens":70,"total_tokens":1570}}}}`,
	}
	b := newBuilder("codex.jsonl", FormatCodex, 0)
	b.sizesOnly = true
	p := newCodexParser(b)
	for i, line := range lines {
		if !p.line([]byte(line), i+1) {
			t.Fatalf("line %d not read", i+1)
		}
	}
	s := p.finish()
	if len(s.Calls) != 2 {
		t.Fatalf("%d calls, want 2", len(s.Calls))
	}
	want := []Usage{
		{Input: 800, CacheRead: 200, Output: 50, Reasoning: 10, LoggedTotal: 1050},
		{Input: 200, CacheRead: 300, Output: 20, LoggedTotal: 520},
	}
	for i, c := range s.Calls {
		u := *c.Usage
		u.At = time.Time{}
		if u != want[i] || c.Model != "gpt-5.5" {
			t.Errorf("call %d: %s %+v, want gpt-5.5 %+v", i, c.Model, u, want[i])
		}
	}
	if in := string(s.Calls[0].ToolCalls[0].Input); in != `{"cmd": "ls"}` {
		t.Errorf("tool input %s", in)
	}
	type got struct {
		bytes, images, other int
		failed               bool
	}
	var results []got
	for _, r := range s.Results() {
		results = append(results, got{r.Bytes(), r.Images, r.Other, r.IsError})
	}
	wantResults := []got{{7, 0, 0, false}, {300 + 27, 0, 0, true}, {600 + 27, 0, 0, false}, {14, 1, 1, true}}
	if diff := cmp.Diff(wantResults, results, cmp.AllowUnexported(got{})); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if s.WarningCount != 0 {
		t.Errorf("warnings %v", s.Warnings)
	}
}

// fastjsonString is fastjson's unescaping of the string whose contents
// are raw; ok is false where fastjson does not read it.
func fastjsonString(raw []byte) (text []byte, ok bool) {
	var p fastjson.Parser
	v, err := p.ParseBytes([]byte(`"` + string(raw) + `"`))
	if err != nil {
		return nil, false
	}
	return bytes.Clone(v.GetStringBytes()), true
}

// TestCodexHead checks the head of a text the reader unescapes against
// the start of fastjson's unescaping of the whole, cut anywhere.
func TestCodexHead(t *testing.T) {
	texts := []string{
		`plain`,
		`a\nb\"c\\d\/e\u00e9\ud83d\ude00f`,
		`\ud83d\u0041 \ud83d \ud83dx \uzz \q \u12`,
		strings.Repeat(`\n`, 40) + strings.Repeat("é", 30),
		`a\nb\"c\\d\/e\bf\fg\rh\ti`,
		`Script failed\n` + strings.Repeat(`ab\t`, 10) + `\u00e9\q`,
	}
	var c codexScan
	for _, text := range texts {
		whole, ok := fastjsonString([]byte(text))
		if !ok {
			t.Fatalf("fastjson does not read %q", text)
		}
		for want := 1; want <= len(whole)+1; want++ {
			c.head = c.head[:0]
			c.appendHead([]byte(text), want)
			if len(c.head) < min(want, len(whole)) || !bytes.HasPrefix(whole, c.head) {
				t.Fatalf("%q: head of %d is %q, whole %q", text, want, c.head, whole)
			}
		}
	}
}

// FuzzCodexHead checks appendHead against fastjson's unescaping of the
// whole text, as TestCodexHead does.
func FuzzCodexHead(f *testing.F) {
	f.Add([]byte(`a\nb\u00e9\ud83d\ude00\q`), 3)
	f.Add([]byte(strings.Repeat(`\n`, 30)+`Process exited with code 1`), 40)
	f.Fuzz(func(t *testing.T, raw []byte, want int) {
		if want < 0 || want > 1<<12 || stringEnd(raw, 0) >= 0 || bytes.HasSuffix(raw, []byte(`\`)) {
			return // not the contents of one string
		}
		whole, ok := fastjsonString(raw)
		if !ok {
			return
		}
		var c codexScan
		c.appendHead(raw, want)
		if len(c.head) < min(want, len(whole)) || !bytes.HasPrefix(whole, c.head) {
			t.Fatalf("%q: head of %d is %q, whole %q", raw, want, c.head, whole)
		}
	})
}

// FuzzCodexModes reads arbitrary bytes as Codex keeping sizes only and in
// full, which must agree but for the texts.
func FuzzCodexModes(f *testing.F) {
	for _, name := range []string{"codex.jsonl", "../codex/service-tier/session.jsonl", "../codex/fork-replay/2026-05-12T08-03-00-fork.jsonl", "../codex/numeric-timestamp/session.jsonl"} {
		data, err := os.ReadFile(fixture(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(spaced(data))
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"` + strings.Repeat(`\n`, 250) + `\u0050rocess exited with code 3"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameBothWays(t, data)
	})
}

// TestUTCTime checks the fast path's reading of timestamps against
// parseTime's.
func TestUTCTime(t *testing.T) {
	for _, s := range []string{
		"2026-05-02T20:55:07.000Z", "2026-05-02T20:55:07Z", "2026-05-02T20:55:07.1Z", "2026-05-02T20:55:07.123456789Z",
		"2026-05-02T20:55:07.1234567891Z", "2026-05-02T20:55:07.Z", "2026-05-02T20:55:07.12aZ", "2026-05-02T20:55:07+02:00",
		"2026-05-02T20:55:07.000z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2000-02-29T23:59:59Z", "1900-02-29T00:00:00Z",
		"2026-04-31T00:00:00Z", "2026-12-31T23:59:59.999Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z",
		"2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
		"2026-01-01 00:00:00Z", "2026-1-01T00:00:00Z", "+026-01-01T00:00:00Z", "2026-01-01T00:00:0-Z", "", "Z",
	} {
		if got, want := utcTime([]byte(s)), parseTime([]byte(s)); got != want {
			t.Errorf("%q: %v, parseTime reads %v", s, got, want)
		}
	}
}

func FuzzUTCTime(f *testing.F) {
	f.Add("2026-05-02T20:55:07.000Z")
	f.Add("2024-02-29T23:59:59.123456789Z")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := utcTime([]byte(s)), parseTime([]byte(s)); got != want {
			t.Fatalf("%q: %v, parseTime reads %v", s, got, want)
		}
	})
}

// FuzzStrLen checks that the scanner's strLen, which measures a tool
// output as it finds its end, reads a string as stringEnd finds its end
// and escapedLen measures it.
func FuzzStrLen(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\"c`, `"\u00e9\ud83d\ude00\ud83d"`, `"\u12"`, `"\ud83d\u12"`, "\"a\xe2\x86\"", `"abcdefghijklmnop\n"`, `"unterminated`} {
		f.Add([]byte(s))
	}
	for _, s := range measureSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = append([]byte(`"`), data...)
		var s scanner
		s.reset(data)
		n, quoted, measured := s.strLen()
		end := stringEnd(data, 1)
		if end < 0 {
			if !s.bad {
				t.Fatalf("%q: strLen read an unterminated string", data)
			}
			return
		}
		want, ok := escapedLen(data[1:end])
		switch {
		case s.bad || !bytes.Equal(quoted, data[:end+1]) || s.pos != end+1:
			t.Fatalf("%q: strLen read %q (gave up: %v), want %q", data, quoted, s.bad, data[:end+1])
		case measured != ok:
			t.Fatalf("%q: strLen measured it: %v, escapedLen: %v", data, measured, ok)
		case ok && n != want:
			t.Fatalf("%q: strLen measured %d bytes, escapedLen %d", data, n, want)
		}
	})
}
