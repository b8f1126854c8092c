package transcript

import (
	"fmt"
	"strings"
	"time"
)

// antigravityParser reads Google Antigravity step logs. A PLANNER_RESPONSE
// step is a model call; the tool steps after it answer its tool_calls in
// order, since no step carries a call id. No usage is recorded.
type antigravityParser struct {
	b       *builder
	pending []ToolCall // tool calls of the last planner step not yet answered
	// plannerLine is the line of the last planner step.
	plannerLine int
}

func newAntigravityParser(b *builder) *antigravityParser { return &antigravityParser{b: b} }

func (p *antigravityParser) line(v []byte, line int) bool {
	if v = object(v); v == nil {
		return false
	}
	p.b.repeatedKeys(line, repeatsKeys(v))
	get := func(key string) []byte { return member(v, key, true, nil) }
	typ := string(stringOf(get("type")))
	t := parseTime(stringOf(get("created_at")))
	content := textOf(get("content"))
	switch typ {
	case "PLANNER_RESPONSE":
		if len(p.pending) > 0 {
			p.b.warnf(line, "%d tool call(s) of the previous step got no result", len(p.pending))
		}
		p.plannerLine = line
		c := p.b.newCall(line, t, "", false)
		c.Text = p.b.text(line, content)
		step := bestInt(get("step_index"))
		p.pending = p.pending[:0]
		i := 0
		elements(get("tool_calls"), func(tc []byte) {
			call := ToolCall{
				ID:    fmt.Sprintf("step%d.%d", step, i),
				Name:  string(stringOf(member(tc, "name", true, nil))),
				Input: antigravityArgs(member(tc, "args", true, nil)),
			}
			i++
			p.b.addToolCall(c.Index, call, line)
			p.pending = append(p.pending, call)
		})
	case "USER_INPUT":
		p.b.addPrompt(Prompt{Line: line, Text: content})
	case "SYSTEM_MESSAGE":
		p.b.addPrompt(Prompt{Line: line, Text: content, Meta: true})
	case "CHECKPOINT":
		p.b.compaction(Event{Line: line, Time: t, Summary: content})
	case "CONVERSATION_HISTORY":
		p.b.skip(typ)
	case "ERROR_MESSAGE":
		// A tool call the harness could not run is answered by an error step.
		if len(p.pending) == 0 {
			p.b.skip(typ)
			return true
		}
		if content == "" {
			content = textOf(get("error"))
		}
		p.answer(v, line, t, content, true)
	case "":
		p.b.warnf(line, "step has no type")
	default:
		// Tool steps come from the model; a step of a type not known here
		// from any other source (SYSTEM, USER_…) answers no tool call.
		if src := stringOf(get("source")); len(src) > 0 && string(src) != "MODEL" {
			p.b.skip(typ)
			return true
		}
		status := string(stringOf(get("status")))
		p.answer(v, line, t, content, status == "ERROR" || get("error") != nil)
	}
	return true
}

func (p *antigravityParser) answer(v []byte, line int, t time.Time, content string, isErr bool) {
	get := func(key string) []byte { return member(v, key, true, nil) }
	r := ToolResult{Line: line, Time: t, Text: content, IsError: isErr, Status: string(stringOf(get("status")))}
	elements(get("truncated_fields"), func(f []byte) {
		if string(stringOf(f)) == "content" {
			r.Clipped = true
		}
	})
	if len(p.pending) == 0 {
		// A step with no call to answer: keep it, named by its step type.
		typ := stringOf(get("type"))
		r.Tool = strings.ToLower(string(typ))
		p.b.warnf(line, "%s step answers no pending tool call", typ)
		p.b.addResult(r)
		return
	}
	r.CallID = p.pending[0].ID
	p.pending = p.pending[1:]
	p.b.addResult(r)
}

// antigravityArgs turns args whose values are JSON-encoded strings into one
// JSON object of decoded values.
func antigravityArgs(args []byte) []byte {
	if args == nil {
		return nil
	}
	if args[0] != '{' {
		return deduped(nil, args)
	}
	out := []byte{'{'}
	for i, m := range lastMembers(args) {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(escapeString(out, m.key), ':')
		if m.value[0] != '"' {
			out = deduped(out, m.value)
			continue
		}
		s := stringOf(m.value)
		if dec := jsonValue(s); dec != nil {
			out = compact(out, dec)
			continue
		}
		out = escapeString(out, string(s))
	}
	return append(out, '}')
}

func (p *antigravityParser) snapshot() *Session { return snapshotOf(p.b) }

func (p *antigravityParser) finish() *Session {
	if len(p.pending) > 0 {
		p.b.warnf(p.plannerLine, "%d tool call(s) of the last step got no result", len(p.pending))
	}
	return p.b.session()
}
