package transcript

import (
	"github.com/valyala/fastjson"
)

// claudeTypes are record types seen in Claude Code logs (1.0.x to 2.1.x).
var claudeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true,
	"progress": true, "attachment": true, "file-history-snapshot": true,
	"queue-operation": true, "permission-mode": true, "last-prompt": true,
	"ai-title": true, "custom-title": true, "agent-name": true,
}

// codexTypes are the envelope kinds of Codex CLI rollouts.
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true,
	"turn_context": true, "compacted": true, "world_state": true,
}

// detect names the format of one record, or "" when the record does not tell.
func detect(v *fastjson.Value) Format {
	typ := string(v.GetStringBytes("type"))
	switch {
	case v.Exists("payload") && codexTypes[typ]:
		return FormatCodex
	case v.Exists("step_index") && v.Exists("source") && typ != "":
		return FormatAntigravity
	case claudeTypes[typ] && (v.Exists("sessionId") || v.Exists("uuid") || v.Exists("message") ||
		typ == "summary" || typ == "file-history-snapshot"):
		return FormatClaude
	case v.Exists("sessionId") && v.Exists("uuid"):
		return FormatClaude
	case typ == "" && v.Get("role") != nil && v.Get("role").Type() == fastjson.TypeString:
		return FormatGeneric
	case v.Exists("spillway"):
		return FormatGeneric
	}
	return ""
}

// codexShapeMissing names what a record shaped like a Codex CLI one (a
// timestamp and a payload object) lacks to be read as one; "" when it is
// not so shaped or lacks nothing.
func codexShapeMissing(v *fastjson.Value) string {
	payload := v.Get("payload")
	if payload == nil || payload.Type() != fastjson.TypeObject || !v.Exists("timestamp") {
		return ""
	}
	if typ := v.Get("type"); typ == nil || typ.Type() != fastjson.TypeString {
		return `its lines have a Codex CLI "timestamp" and "payload" but no "type" field`
	}
	return ""
}
