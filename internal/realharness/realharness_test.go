package realharness

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The stand-ins carry a tool call to each real harness and its result
// back, and each harness writes its log where it keeps them.
func TestRealClaudeRoundTrip(t *testing.T) {
	bin := ClaudeBin(t)
	run := RunClaude(t, bin, []Turn{{Calls: []Call{{ID: "toolu_01", Name: "Bash", Input: map[string]any{"command": "printf 'hello\\nworld'", "description": "greet"}}}}}, ClaudeOptions{})
	got := run.Standin.Results()["toolu_01"]
	if got.Text != "hello\nworld" || got.IsError {
		t.Errorf("Claude Code sent %q (error %v), want the command's output", got.Text, got.IsError)
	}
	if !strings.HasSuffix(run.Transcript, ".jsonl") {
		t.Errorf("transcript %q", run.Transcript)
	}
}

func TestRealCodexRoundTrip(t *testing.T) {
	bin := CodexBin(t)
	run := RunCodex(t, bin, []Turn{{Calls: []Call{{ID: "call_1", Name: "exec_command", Input: map[string]any{"cmd": "printf 'hello\\nworld'"}}}}}, CodexOptions{})
	got := run.Standin.Results()["call_1"]
	if !strings.HasSuffix(got.Text, "Output:\nhello\nworld") {
		t.Errorf("Codex sent %q, want its exec header and the command's output", got.Text)
	}
	if !strings.Contains(run.Transcript, "rollout-") {
		t.Errorf("transcript %q", run.Transcript)
	}
}

// TestStandin: the stand-in plays its script to the main loop only (a
// warm-up or a request for a summary gets text), gives every answer ids
// of its own, and reports the usage a turn says.
func TestStandin(t *testing.T) {
	st := ServeAnthropic(t, []Turn{
		{Calls: []Call{{ID: "toolu_1", Name: "Read", Input: map[string]any{"file_path": "/a"}}}, Usage: &Usage{Input: 990_000, Output: 1}},
	})
	post := func(path string, body any) string {
		raw, _ := json.Marshal(body)
		resp, err := http.Post(st.URL+path, "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return string(out)
	}
	tools := []any{map[string]any{"name": "Read"}}
	user := func(text string) []any { return []any{map[string]any{"role": "user", "content": text}} }
	warm := post("/v1/messages", map[string]any{"tools": tools, "messages": user("Warmup")})
	summary := post("/v1/messages", map[string]any{"tools": tools, "messages": append(user("Your task is to create a detailed summary of the conversation so far."),
		map[string]any{"role": "system", "content": "tokens left"})})
	main := post("/v1/messages", map[string]any{"tools": tools, "messages": user("go")})
	done := post("/v1/messages", map[string]any{"tools": tools, "messages": user("go")})
	for name, tt := range map[string]struct{ answer, has string }{
		"warm-up": {warm, `"text":"ok"`}, "summary": {summary, Summary},
		"main loop": {main, `"id":"toolu_1"`}, "script spent": {done, `"text":"done"`},
	} {
		if !strings.Contains(tt.answer, tt.has) {
			t.Errorf("%s: %s", name, tt.answer)
		}
	}
	if !strings.Contains(main, `"input_tokens":990000`) || !strings.Contains(main, `"id":"msg_standin_003"`) {
		t.Errorf("the main loop's answer: %s", main)
	}
}

// The test MCP server answers the requests Claude Code makes of it.
func TestServeMCP(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"none"}}`,
	}, "\n")
	var out strings.Builder
	serveMCP(strings.NewReader(in), &out, []MCPTool{{Name: "echo", Text: "hi\n"}})
	want := `{"id":1,"jsonrpc":"2.0","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-06-18","serverInfo":{"name":"spillway-test","version":"1"}}}
{"id":2,"jsonrpc":"2.0","result":{"tools":[{"description":"answers a fixed text","inputSchema":{"properties":{},"type":"object"},"name":"echo"}]}}
{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"hi\n","type":"text"}]}}
{"error":{"code":-32602,"message":"no such tool"},"id":4,"jsonrpc":"2.0"}
`
	if out.String() != want {
		t.Errorf("got\n%s", out.String())
	}
}
