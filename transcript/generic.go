package transcript

import (
	"github.com/valyala/fastjson"
)

// genericParser reads spillway's own JSONL, one message per line, which any
// harness can export to. Its shape is documented in the README:
//
//	{"spillway":"transcript/v1","session_id":"…","title":"…"}        optional header
//	{"role":"user","content":"…"}
//	{"role":"assistant","model":"…","content":"…","tool_calls":[{"id":"…","name":"…","arguments":{…}}],
//	 "usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}
//	{"role":"tool","tool_call_id":"…","content":"…","is_error":false}
//	{"role":"system","compaction":true,"content":"summary"}
//
// content is a string or a list of {"type":"text","text":…} and
// {"type":"image",…} blocks. Every assistant line is one API call.
type genericParser struct{ b *builder }

func newGenericParser(b *builder) *genericParser { return &genericParser{b: b} }

func (p *genericParser) record(v *fastjson.Value, line int) {
	p.b.dedupe(v, line)
	var dup bool // dedupe left no key repeated
	if id := v.GetStringBytes("session_id"); len(id) > 0 {
		p.b.s.ID = string(id)
	}
	if title := v.GetStringBytes("title"); len(title) > 0 {
		p.b.s.Title = string(title)
	}
	role := string(v.GetStringBytes("role"))
	t := parseTime(v.GetStringBytes("timestamp"))
	text, images, other, ok := genericContent(v.Get("content"))
	if !ok {
		p.b.warnf(line, "content is a %s, not text or blocks", v.Get("content").Type())
	}
	switch role {
	case "assistant":
		c := p.b.newCall(line, t, string(v.GetStringBytes("model")), v.GetBool("sidechain"))
		c.Text = p.b.text(line, text)
		if u := v.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
			usage, _ := claudeUsage(u, line, p.b, nil, &dup)
			usage.Reasoning = p.b.tokenCount(u.Get("reasoning_tokens"), line, "usage.", "reasoning_tokens")
			c.Usage = &usage
		}
		idx := c.Index
		for _, tc := range v.GetArray("tool_calls") {
			call := ToolCall{ID: string(tc.GetStringBytes("id")), Name: string(tc.GetStringBytes("name"))}
			if call.ID == "" {
				p.b.warnf(line, "tool call without an id")
			}
			if args := tc.Get("arguments"); args != nil {
				if s, err := args.StringBytes(); err == nil {
					call.Input = rawJSON(s)
				} else {
					call.Input = p.b.marshal(args)
				}
			}
			p.b.addToolCall(idx, call, line)
		}
	case "tool":
		id := string(v.GetStringBytes("tool_call_id"))
		if id == "" {
			p.b.warnf(line, "tool message without a tool_call_id")
		}
		p.b.addResult(ToolResult{
			CallID: id, Tool: string(v.GetStringBytes("name")), Line: line, Time: t,
			Text: text, Images: images, Other: other, IsError: v.GetBool("is_error"),
		})
	case "user":
		p.b.addPrompt(Prompt{Line: line, Text: text, Images: images})
	case "system":
		if v.GetBool("compaction") {
			p.b.compaction(Event{Line: line, Time: t, Summary: text})
			return
		}
		p.b.addPrompt(Prompt{Line: line, Text: text, Images: images, Meta: true})
	case "":
		if !v.Exists("spillway") {
			p.b.warnf(line, "message without a role")
		}
	default:
		p.b.skip("role " + role)
	}
}

// genericContent reads content, a string or a list of blocks; ok is false
// for anything else (null and absence are no content, and fine).
func genericContent(v *fastjson.Value) (text string, images, other int, ok bool) {
	var dup bool // the record's keys were deduped
	if v == nil {
		return "", 0, 0, true
	}
	switch v.Type() {
	case fastjson.TypeString:
		return string(v.GetStringBytes()), 0, 0, true
	case fastjson.TypeArray:
		text, images, other = joinBlocks(v.GetArray(), "text", "image", &dup)
		return text, images, other, true
	case fastjson.TypeNull:
		return "", 0, 0, true
	}
	return "", 0, 0, false
}

func (p *genericParser) snapshot() *Session { return snapshotOf(p.b) }

func (p *genericParser) finish() *Session { return p.b.session() }
