package transcript

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"
)

// codexParser reads Codex CLI rollouts. Nothing links a token_count event
// to the items it covers: the items since the previous counted event form
// one call, closed by the next token_count whose running total changed.
type codexParser struct {
	b         *builder
	model     string
	fast      bool
	open      int // index of the call being assembled, -1 between calls
	prevTotal codexTotals
	haveTotal bool
}

func newCodexParser(b *builder) *codexParser { return &codexParser{b: b, open: -1} }

type codexTotals struct{ input, cached, cacheWrite, output, reasoning, total int64 }

func readCodexTotals(v *fastjson.Value) codexTotals {
	return codexTotals{
		input:      v.GetInt64("input_tokens"),
		cached:     v.GetInt64("cached_input_tokens"),
		cacheWrite: v.GetInt64("cache_write_input_tokens"),
		output:     v.GetInt64("output_tokens"),
		reasoning:  v.GetInt64("reasoning_output_tokens"),
		total:      v.GetInt64("total_tokens"),
	}
}

func (p *codexParser) record(v *fastjson.Value, line int) {
	typ := string(v.GetStringBytes("type"))
	payload := v.Get("payload")
	if payload == nil || payload.Type() != fastjson.TypeObject {
		if typ == "compacted" {
			p.compacted(v, line)
			return
		}
		p.b.warnf(line, "%s record without a payload object", typ)
		return
	}
	t := parseTime(v.GetStringBytes("timestamp"))
	switch typ {
	case "session_meta":
		if id := payload.GetStringBytes("id"); len(id) > 0 {
			p.b.s.ID = string(id)
		} else if id := payload.GetStringBytes("session_id"); len(id) > 0 {
			p.b.s.ID = string(id)
		}
		if ver := payload.GetStringBytes("cli_version"); len(ver) > 0 {
			p.b.s.Version = string(ver)
		}
	case "turn_context":
		if m := payload.GetStringBytes("model"); len(m) > 0 {
			p.model = string(m)
		}
	case "response_item":
		p.responseItem(payload, line, t)
	case "event_msg":
		p.event(payload, line, t)
	case "compacted":
		p.compacted(v, line)
	default:
		p.b.skip(typ)
	}
}

func (p *codexParser) compacted(v *fastjson.Value, line int) {
	p.closeOpen()
	e := Event{Line: line, Time: parseTime(v.GetStringBytes("timestamp"))}
	e.Summary = string(v.GetStringBytes("payload", "message"))
	p.b.compaction(e)
}

func (p *codexParser) event(payload *fastjson.Value, line int, t time.Time) {
	sub := string(payload.GetStringBytes("type"))
	switch sub {
	case "token_count":
		p.tokenCount(payload, line, t)
	case "thread_settings_applied":
		if m := payload.GetStringBytes("thread_settings", "model"); len(m) > 0 {
			p.model = string(m)
		}
		if tier := payload.Get("thread_settings", "service_tier"); tier != nil {
			s := string(tier.GetStringBytes())
			p.fast = s == "fast" || s == "priority"
		}
	case "context_compacted":
		// Mirrors the compacted item; counted only when that item is missing.
		if p.b.lastCompaction() == nil {
			p.closeOpen()
			p.b.compaction(Event{Line: line, Time: t})
		} else {
			p.b.skip("event_msg/context_compacted (mirrors compacted)")
		}
	default:
		// user_message, agent_message, exec_command_end and the like mirror
		// response items or are UI-only: the model never saw them.
		p.b.skip("event_msg/" + sub)
	}
}

func (p *codexParser) tokenCount(payload *fastjson.Value, line int, t time.Time) {
	info := payload.Get("info")
	if info == nil || info.Type() == fastjson.TypeNull {
		p.b.skip("event_msg/token_count (no info)")
		return
	}
	last := info.Get("last_token_usage")
	if last == nil || last.Type() != fastjson.TypeObject {
		p.b.warnf(line, "token_count without last_token_usage")
		return
	}
	if total := info.Get("total_token_usage"); total != nil && total.Type() == fastjson.TypeObject {
		tt := readCodexTotals(total)
		if p.haveTotal && tt == p.prevTotal {
			p.b.skip("event_msg/token_count (total unchanged)")
			return
		}
		p.prevTotal, p.haveTotal = tt, true
	}
	u := readCodexTotals(last)
	uncached := u.input - u.cached - u.cacheWrite
	if uncached < 0 {
		p.b.warnf(line, "token_count: cached input exceeds input")
		uncached = 0
	}
	c := p.call(line, t)
	c.Usage = &Usage{
		Input: uncached, CacheRead: u.cached, CacheCreation: u.cacheWrite,
		Output: u.output, Reasoning: u.reasoning, Fast: p.fast,
	}
	if c.Model == "" {
		c.Model = p.model
		p.b.noteModel(p.model)
	}
	p.open = -1
}

// call returns the call being assembled, starting one when none is.
func (p *codexParser) call(line int, t time.Time) *Call {
	if p.open < 0 {
		p.open = p.b.newCall(line, t, "", false).Index
	}
	return &p.b.s.Calls[p.open]
}

// closeOpen ends a call that never got a token count.
func (p *codexParser) closeOpen() {
	if p.open >= 0 {
		if c := &p.b.s.Calls[p.open]; c.Model == "" {
			c.Model = p.model
			p.b.noteModel(p.model)
		}
	}
	p.open = -1
}

func (p *codexParser) responseItem(item *fastjson.Value, line int, t time.Time) {
	kind := string(item.GetStringBytes("type"))
	switch kind {
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		c := p.call(line, t)
		tc := ToolCall{ID: string(item.GetStringBytes("call_id")), Name: string(item.GetStringBytes("name"))}
		switch kind {
		case "function_call":
			tc.Input = rawJSON(item.GetStringBytes("arguments"))
		case "custom_tool_call":
			tc.Input = quoteJSON(string(item.GetStringBytes("input")))
		default:
			if tc.Name == "" {
				tc.Name = kind[:len(kind)-len("_call")]
			}
			if a := item.Get("action"); a != nil {
				tc.Input = p.b.marshal(a)
			}
		}
		if tc.ID == "" && (kind == "function_call" || kind == "custom_tool_call") {
			p.b.warnf(line, "%s without a call_id", kind)
		}
		p.b.addToolCall(c.Index, tc, line)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		p.output(item, line, t)
	case "message":
		role := string(item.GetStringBytes("role"))
		text, images, _ := codexContent(item.Get("content"))
		if role == "assistant" {
			c := p.call(line, t)
			c.Text += p.b.text(line, text)
			return
		}
		p.b.addPrompt(Prompt{Line: line, Text: text, Images: images, Meta: role != "user"})
	case "reasoning":
		p.call(line, t)
	default:
		p.b.skip("response_item/" + kind)
	}
}

func (p *codexParser) output(item *fastjson.Value, line int, t time.Time) {
	r := ToolResult{CallID: string(item.GetStringBytes("call_id")), Line: line, Time: t}
	if r.CallID == "" {
		p.b.warnf(line, "tool output without a call_id")
	}
	out := item.Get("output")
	switch {
	case out == nil || out.Type() == fastjson.TypeNull:
	case out.Type() == fastjson.TypeString:
		r.Text = string(out.GetStringBytes())
	case out.Type() == fastjson.TypeArray:
		r.Text, r.Images, r.Other = codexContent(out)
	case out.Type() == fastjson.TypeObject:
		// Older rollouts: {"content": "...", "success": bool}.
		r.Text = string(out.GetStringBytes("content"))
		if s := out.Get("success"); s != nil && s.Type() == fastjson.TypeFalse {
			r.IsError = true
		}
	default:
		p.b.warnf(line, "tool output is a %s, not text or items", out.Type())
	}
	if code, ok := codexExitCode(r.Text); ok && code != 0 {
		r.IsError = true
	}
	// 0.144's exec tool heads its output "Script completed" or "Script
	// failed" (a patch that did not apply, a script that threw).
	if strings.HasPrefix(r.Text, "Script failed\n") {
		r.IsError = true
	}
	// The call in progress is the last one: outputs file after it and reach
	// the model in the next call.
	p.b.addResult(r)
}

// codexContent joins input_text/output_text items and counts images.
func codexContent(v *fastjson.Value) (text string, images, other int) {
	if v == nil {
		return "", 0, 0
	}
	if v.Type() == fastjson.TypeString {
		return string(v.GetStringBytes()), 0, 0
	}
	var buf bytes.Buffer
	for _, it := range v.GetArray() {
		switch string(it.GetStringBytes("type")) {
		case "input_text", "output_text", "text":
			buf.Write(it.GetStringBytes("text"))
		case "input_image", "image":
			images++
		default:
			other++
		}
	}
	return buf.String(), images, other
}

// codexExitCode finds "Process exited with code N" in an exec output's header.
func codexExitCode(text string) (int, bool) {
	const marker = "Process exited with code "
	head := text
	if len(head) > 512 {
		head = head[:512]
	}
	i := bytes.Index([]byte(head), []byte(marker))
	if i < 0 {
		return 0, false
	}
	rest := head[i+len(marker):]
	j := 0
	for j < len(rest) && (rest[j] == '-' || rest[j] >= '0' && rest[j] <= '9') {
		j++
	}
	n, err := strconv.Atoi(rest[:j])
	return n, err == nil
}

func (p *codexParser) snapshot() *Session { return snapshotOf(p.b) }

func (p *codexParser) finish() *Session {
	if p.open >= 0 {
		if c := p.b.s.Calls[p.open]; c.Usage == nil {
			p.b.warnf(c.Line, "the last request has no token count (the log ends before it was recorded)")
		}
		p.closeOpen()
	}
	return p.b.session()
}
