package realharness

import (
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
