package realharness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// mcpEnv names the file of tools a re-executed test binary serves over
// MCP (ServeMCPIfAsked).
const mcpEnv = "SPILLWAY_TEST_MCP_TOOLS"

// MCPTool is a tool the test MCP server offers: a call of it answers Text
// as one text block.
type MCPTool struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// MCPConfig is the --mcp-config of a Claude Code run whose server named
// server is this test binary, re-executed, serving tools. The test package
// must call ServeMCPIfAsked first thing in its TestMain. Claude Code names
// each tool mcp__<server>__<name>.
func MCPConfig(t testing.TB, server string, tools []MCPTool) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tools.json")
	data, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	config, err := json.Marshal(map[string]any{"mcpServers": map[string]any{server: map[string]any{
		"type": "stdio", "command": exe, "args": []string{"-test.run=^$"}, "env": map[string]string{mcpEnv: file},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(config)
}

// ServeMCPIfAsked serves, when this process was started by MCPConfig's
// configuration, the tools it names over MCP's stdio transport, and exits
// when the client closes standard input. Otherwise it returns at once.
func ServeMCPIfAsked() {
	file := os.Getenv(mcpEnv)
	if file == "" {
		return
	}
	data, err := os.ReadFile(file)
	var tools []MCPTool
	if err == nil {
		err = json.Unmarshal(data, &tools)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "test MCP server:", err)
		os.Exit(1)
	}
	serveMCP(os.Stdin, os.Stdout, tools)
	os.Exit(0)
}

// serveMCP answers JSON-RPC requests, one a line, until in ends.
func serveMCP(in io.Reader, out io.Writer, tools []MCPTool) {
	byName := map[string]MCPTool{}
	var list []any
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	for _, tool := range tools {
		byName[tool.Name] = tool
		list = append(list, obj{"name": tool.Name, "description": "answers a fixed text",
			"inputSchema": obj{"type": "object", "properties": obj{}}})
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Name            string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		var result any
		switch req.Method {
		case "initialize":
			result = obj{"protocolVersion": req.Params.ProtocolVersion, "capabilities": obj{"tools": obj{}},
				"serverInfo": obj{"name": "spillway-test", "version": "1"}}
		case "tools/list":
			result = obj{"tools": list}
		case "tools/call":
			tool, ok := byName[req.Params.Name]
			if !ok {
				enc.Encode(obj{"jsonrpc": "2.0", "id": req.ID, "error": obj{"code": -32602, "message": "no such tool"}})
				continue
			}
			result = obj{"content": []any{obj{"type": "text", "text": tool.Text}}}
		default:
			result = obj{}
		}
		enc.Encode(obj{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}
