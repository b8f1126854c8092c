package realharness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

// MCPPath is where the stand-in serves an MCP server (streamable HTTP,
// JSON answers) beside the model API. Its one tool, MCPTool, answers with
// the content of the file its "path" argument names, as one text block:
// a script reaches an MCP result of any size by writing the file first.
const (
	MCPPath = "/mcp"
	MCPTool = "cat"
	// MCPServer is the name the runs give the server: Claude Code calls
	// its tool mcp__standin__cat, Codex standin__cat.
	MCPServer = "standin"
)

// MCPURL is the stand-in's MCP server.
func (s *Standin) MCPURL() string { return s.URL + MCPPath }

// serveMCP answers one JSON-RPC message of an MCP client.
func (s *Standin) serveMCP(w http.ResponseWriter, body []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Path string `json:"path"`
			} `json:"arguments"`
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		s.fail("an MCP message that is not JSON: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if msg.ID == nil { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result any
	switch msg.Method {
	case "initialize":
		version := msg.Params.ProtocolVersion
		if version == "" {
			version = "2025-06-18"
		}
		result = obj{"protocolVersion": version, "capabilities": obj{"tools": obj{}},
			"serverInfo": obj{"name": MCPServer, "version": "1.0.0"}}
	case "tools/list":
		result = obj{"tools": []any{obj{
			"name": MCPTool, "description": "The content of a file.",
			"inputSchema": obj{"type": "object", "properties": obj{"path": obj{"type": "string"}}, "required": []string{"path"}},
		}}}
	case "tools/call":
		text, err := os.ReadFile(msg.Params.Arguments.Path)
		if msg.Params.Name != MCPTool || err != nil {
			result = obj{"content": []any{obj{"type": "text", "text": fmt.Sprintf("no such tool or file: %s %v", msg.Params.Name, err)}}, "isError": true}
		} else {
			result = obj{"content": []any{obj{"type": "text", "text": string(text)}}}
		}
	default:
		result = obj{}
	}
	w.Header().Set("Content-Type", "application/json")
	raw, err := json.Marshal(obj{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	if err != nil {
		panic(err)
	}
	w.Write(raw)
}
