package transcript

import (
	"fmt"
	"strings"
	"time"

	"github.com/valyala/fastjson"
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

func (p *antigravityParser) record(v *fastjson.Value, line int) {
	p.b.dedupe(v, line)
	typ := string(v.GetStringBytes("type"))
	t := parseTime(v.GetStringBytes("created_at"))
	content := string(v.GetStringBytes("content"))
	switch typ {
	case "PLANNER_RESPONSE":
		if len(p.pending) > 0 {
			p.b.warnf(line, "%d tool call(s) of the previous step got no result", len(p.pending))
		}
		p.plannerLine = line
		c := p.b.newCall(line, t, "", false)
		c.Text = p.b.text(line, content)
		step := v.GetInt("step_index")
		p.pending = p.pending[:0]
		for i, tc := range v.GetArray("tool_calls") {
			call := ToolCall{
				ID:    fmt.Sprintf("step%d.%d", step, i),
				Name:  string(tc.GetStringBytes("name")),
				Input: antigravityArgs(tc.Get("args")),
			}
			p.b.addToolCall(c.Index, call, line)
			p.pending = append(p.pending, call)
		}
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
			return
		}
		if content == "" {
			content = string(v.GetStringBytes("error"))
		}
		p.answer(v, line, t, content, true)
	case "":
		p.b.warnf(line, "step has no type")
	default:
		// Tool steps come from the model; a step of a type not known here
		// from any other source (SYSTEM, USER_…) answers no tool call.
		if src := v.GetStringBytes("source"); len(src) > 0 && string(src) != "MODEL" {
			p.b.skip(typ)
			return
		}
		status := string(v.GetStringBytes("status"))
		p.answer(v, line, t, content, status == "ERROR" || v.Exists("error"))
	}
}

func (p *antigravityParser) answer(v *fastjson.Value, line int, t time.Time, content string, isErr bool) {
	r := ToolResult{Line: line, Time: t, Text: content, IsError: isErr, Status: string(v.GetStringBytes("status"))}
	for _, f := range v.GetArray("truncated_fields") {
		if string(f.GetStringBytes()) == "content" {
			r.Clipped = true
		}
	}
	if len(p.pending) == 0 {
		// A step with no call to answer: keep it, named by its step type.
		r.Tool = strings.ToLower(string(v.GetStringBytes("type")))
		p.b.warnf(line, "%s step answers no pending tool call", v.GetStringBytes("type"))
		p.b.addResult(r)
		return
	}
	r.CallID = p.pending[0].ID
	p.pending = p.pending[1:]
	p.b.addResult(r)
}

// antigravityArgs turns args whose values are JSON-encoded strings into one
// JSON object of decoded values.
func antigravityArgs(args *fastjson.Value) []byte {
	if args == nil {
		return nil
	}
	obj, err := args.Object()
	if err != nil {
		return args.MarshalTo(nil)
	}
	var a fastjson.Arena
	out := a.NewObject()
	obj.Visit(func(key []byte, val *fastjson.Value) {
		if s, err := val.StringBytes(); err == nil {
			var p fastjson.Parser
			if dec, err := p.ParseBytes(s); err == nil {
				out.Set(string(key), dec)
				return
			}
		}
		out.Set(string(key), val)
	})
	return out.MarshalTo(nil)
}

func (p *antigravityParser) snapshot() *Session { return snapshotOf(p.b) }

func (p *antigravityParser) finish() *Session {
	if len(p.pending) > 0 {
		p.b.warnf(p.plannerLine, "%d tool call(s) of the last step got no result", len(p.pending))
	}
	return p.b.session()
}
