package transcript

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

func (p *genericParser) line(v []byte, line int) bool {
	if v = object(v); v == nil {
		return false
	}
	p.b.repeatedKeys(line, repeatsKeys(v))
	get := func(key string) []byte { return member(v, key, true, nil) }
	if id := stringOf(get("session_id")); len(id) > 0 {
		p.b.s.ID = p.b.valid(line, string(id))
	}
	if title := stringOf(get("title")); len(title) > 0 {
		p.b.s.Title = p.b.valid(line, string(title))
	}
	role := string(stringOf(get("role")))
	ts := get("timestamp")
	t := parseTime(stringOf(ts))
	if t.IsZero() && len(ts) > 0 && kindOf(ts) != 'n' {
		p.b.warnf(line, "timestamp %s is not a time the reader knows: the line has none", p.b.valid(line, string(ts[:min(len(ts), 40)])))
	}
	content := get("content")
	text, images, other, ok := joinedContent(content, "text", "image", "text")
	if !ok {
		p.b.warnf(line, "content is a %s, not text or blocks", typeName(kindOf(content)))
	}
	switch role {
	case "assistant":
		c := p.b.newCall(line, t, string(stringOf(get("model"))), kindOf(get("sidechain")) == 't')
		c.Text = p.b.text(line, text)
		if u := get("usage"); kindOf(u) == '{' {
			var counts claudeCounts
			var s scanner
			s.reset(u)
			readUsage(&s, &counts, nil, nil)
			usage, _ := p.b.usage(&counts, line)
			var reasoning count
			reasoning.n, reasoning.state = countOf(member(u, "reasoning_tokens", true, nil))
			usage.Reasoning = p.b.tokenCount(reasoning, line, "usage.", "reasoning_tokens")
			c.Usage = &usage
		}
		idx := c.Index
		elements(get("tool_calls"), func(tc []byte) {
			call := ToolCall{ID: string(stringOf(member(tc, "id", true, nil))), Name: string(stringOf(member(tc, "name", true, nil)))}
			if call.ID == "" {
				p.b.warnf(line, "tool call without an id")
			}
			if args := member(tc, "arguments", true, nil); args != nil {
				if args[0] == '"' {
					call.Input = rawJSON(stringOf(args))
				} else {
					call.Input = deduped(nil, args)
				}
			}
			p.b.addToolCall(idx, call, line)
		})
	case "tool":
		id := string(stringOf(get("tool_call_id")))
		if id == "" {
			p.b.warnf(line, "tool message without a tool_call_id")
		}
		p.b.addResult(ToolResult{
			CallID: id, Tool: string(stringOf(get("name"))), Line: line, Time: t,
			Text: text, Images: images, Other: other, IsError: kindOf(get("is_error")) == 't',
		})
	case "user":
		p.b.addPrompt(Prompt{Line: line, Text: text, Images: images})
	case "system":
		if kindOf(get("compaction")) == 't' {
			p.b.compaction(Event{Line: line, Time: t, Summary: text})
			return true
		}
		p.b.addPrompt(Prompt{Line: line, Text: text, Images: images, Meta: true})
	case "":
		if member(v, "spillway", true, nil) == nil {
			p.b.warnf(line, "message without a role")
		}
	default:
		p.b.skip("role " + role)
	}
	return true
}

// joinedContent reads content, a string or a list of items: the texts
// (under textKey) of the items of textType joined, and the images (items of
// imageType) and other items counted; ok is false for anything else
// (null and absence are no content, and fine).
func joinedContent(content []byte, textType, imageType, textKey string) (text string, images, other int, ok bool) {
	switch kindOf(content) {
	case 0, 'n':
		return "", 0, 0, true
	case '"':
		return textOf(content), 0, 0, true
	case '[':
		var b []byte
		elements(content, func(item []byte) {
			switch string(stringOf(member(item, "type", true, nil))) {
			case textType:
				b = append(b, stringOf(member(item, textKey, true, nil))...)
			case imageType:
				images++
			default:
				other++
			}
		})
		return string(b), images, other, true
	}
	return "", 0, 0, false
}

// countOf classifies a count written v, absent or null being none.
func countOf(v []byte) (int64, countState) {
	if v == nil || string(v) == "null" {
		return 0, countNone
	}
	return parseCount(v)
}

func (p *genericParser) snapshot() *Session { return snapshotOf(p.b) }

func (p *genericParser) finish() *Session { return p.b.session() }
