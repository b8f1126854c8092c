package transcript

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

// shape is what detection looks at in a record: the value of each key
// that tells a format, the first of a repeated one (detection reads a
// record before its format, and so how it takes repeated keys, is known).
type shape struct {
	typ, payload, stepIndex, source, sessionID, uuid, message []byte
	role, spillway, timestamp, requestID, parentUUID          []byte
}

// shapeOf reads the shape of line; ok is false where line is not a JSON
// object.
func shapeOf(line []byte) (sh shape, ok bool) {
	v := object(line)
	if v == nil {
		return sh, false
	}
	members(v, func(key, val []byte) {
		var field *[]byte
		switch string(key) {
		case "type":
			field = &sh.typ
		case "payload":
			field = &sh.payload
		case "step_index":
			field = &sh.stepIndex
		case "source":
			field = &sh.source
		case "sessionId":
			field = &sh.sessionID
		case "uuid":
			field = &sh.uuid
		case "message":
			field = &sh.message
		case "role":
			field = &sh.role
		case "spillway":
			field = &sh.spillway
		case "timestamp":
			field = &sh.timestamp
		case "requestId":
			field = &sh.requestID
		case "parentUuid":
			field = &sh.parentUUID
		default:
			return
		}
		if *field == nil {
			*field = val
		}
	})
	return sh, true
}

// format names the format of a record of this shape, or "" when the
// record does not tell.
func (sh *shape) format() Format {
	typ := string(stringOf(sh.typ))
	switch {
	case sh.payload != nil && codexTypes[typ]:
		return FormatCodex
	case sh.stepIndex != nil && sh.source != nil && typ != "":
		return FormatAntigravity
	case claudeTypes[typ] && (sh.sessionID != nil || sh.uuid != nil || sh.message != nil ||
		typ == "summary" || typ == "file-history-snapshot"):
		return FormatClaude
	case sh.sessionID != nil && sh.uuid != nil:
		return FormatClaude
	case typ == "" && kindOf(sh.role) == '"':
		return FormatGeneric
	case sh.spillway != nil:
		return FormatGeneric
	}
	return ""
}

// codexShapeMissing names what a record shaped like a Codex CLI one (a
// timestamp and a payload object) lacks to be read as one; "" when it is
// not so shaped or lacks nothing.
func (sh *shape) codexShapeMissing() string {
	if kindOf(sh.payload) != '{' || sh.timestamp == nil {
		return ""
	}
	if kindOf(sh.typ) != '"' {
		return `its lines have a Codex CLI "timestamp" and "payload" but no "type" field`
	}
	return ""
}

// claudeField is the first top-level field of Claude Code records, in
// the order claudeFields names them, that a record of this shape has.
func (sh *shape) claudeField() string {
	for _, f := range []struct {
		name string
		v    []byte
	}{{"message", sh.message}, {"sessionId", sh.sessionID}, {"requestId", sh.requestID}, {"uuid", sh.uuid}, {"parentUuid", sh.parentUUID}} {
		if f.v != nil {
			return f.name
		}
	}
	return ""
}
