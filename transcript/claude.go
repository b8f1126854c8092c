package transcript

import (
	"hash/maphash"
	"strings"
	"time"

	"github.com/valyala/fastjson"
)

// claudeParser reads Claude Code session logs. Claude Code writes one line
// per content block of a streamed response, each repeating the response's
// usage, so lines are grouped into calls by message id (and request id).
type claudeParser struct {
	b *builder
	// groups maps a response's key (a hash of message id and request id)
	// to its call; uuids holds hashes of the line ids seen. 64-bit hashes
	// keep the hot path free of allocations; a collision in one session is
	// about as likely as a cosmic-ray bit flip.
	groups map[uint64]int
	uuids  map[uint64]struct{}
	seed   maphash.Seed
	// Per call: the rank of the line whose usage is kept, and whether any
	// line recorded a stop_reason.
	calls []claudeCall
}

type claudeCall struct {
	rank    claudeRank
	hasRank bool
	ended   bool
}

func newClaudeParser(b *builder) *claudeParser {
	return &claudeParser{b: b, groups: map[uint64]int{}, uuids: map[uint64]struct{}{}, seed: maphash.MakeSeed()}
}

// claudeRank orders the lines of one response when choosing whose usage to
// keep: a main-chain copy first, then the larger token total, then one that
// records its speed. Identical inputs make this "output as the maximum".
type claudeRank struct {
	mainChain bool
	total     int64
	hasSpeed  bool
}

func (r claudeRank) less(o claudeRank) bool {
	if r.mainChain != o.mainChain {
		return !r.mainChain
	}
	if r.total != o.total {
		return r.total < o.total
	}
	return !r.hasSpeed && o.hasSpeed
}

func (p *claudeParser) record(v *fastjson.Value, line int) {
	typ := string(v.GetStringBytes("type"))
	switch typ {
	case "assistant", "user":
		if uuid := v.GetStringBytes("uuid"); len(uuid) > 0 {
			h := maphash.Bytes(p.seed, uuid)
			if _, dup := p.uuids[h]; dup {
				p.b.skip(typ + " (repeated uuid)")
				return
			}
			p.uuids[h] = struct{}{}
		}
		p.noteSession(v)
		if typ == "assistant" {
			p.assistant(v, line)
		} else {
			p.user(v, line)
		}
	case "system":
		sub := string(v.GetStringBytes("subtype"))
		if sub != "compact_boundary" {
			p.b.skip("system/" + sub)
			return
		}
		p.b.compaction(Event{
			Line:      line,
			Time:      parseTime(v.GetStringBytes("timestamp")),
			Trigger:   string(v.GetStringBytes("compactMetadata", "trigger")),
			PreTokens: v.GetInt64("compactMetadata", "preTokens"),
		})
	case "summary":
		// Before 2.x a summary line is the session's title, not a compaction.
		if p.b.s.Title == "" {
			p.b.s.Title = string(v.GetStringBytes("summary"))
		}
	case "ai-title":
		if p.b.s.Title == "" {
			p.b.s.Title = string(v.GetStringBytes("aiTitle"))
		}
	case "custom-title":
		p.b.s.Title = string(v.GetStringBytes("customTitle"))
	default:
		if typ == "" {
			p.b.warnf(line, "record has no type")
			return
		}
		p.b.skip(typ)
	}
}

func (p *claudeParser) noteSession(v *fastjson.Value) {
	s := p.b.s
	if s.ID == "" {
		s.ID = string(v.GetStringBytes("sessionId"))
	}
	if ver := v.GetStringBytes("version"); len(ver) > 0 && string(ver) != s.Version {
		s.Version = string(ver)
	}
}

func (p *claudeParser) assistant(v *fastjson.Value, line int) {
	msg := v.Get("message")
	if msg == nil || msg.Type() != fastjson.TypeObject {
		p.b.warnf(line, "assistant record without a message object")
		return
	}
	if v.GetBool("isApiErrorMessage") {
		p.b.skip("assistant (API error)")
		return
	}
	model := string(msg.GetStringBytes("model"))
	if model == "<synthetic>" {
		p.b.skip("assistant (<synthetic>)")
		return
	}
	sidechain := v.GetBool("isSidechain")
	key, keyed := p.groupKey(msg.GetStringBytes("id"), v.GetStringBytes("requestId"))
	idx, seen := p.groups[key]
	if !seen || !keyed {
		c := p.b.newCall(line, parseTime(v.GetStringBytes("timestamp")), model, sidechain)
		idx = c.Index
		p.calls = append(p.calls, claudeCall{})
		if keyed {
			p.groups[key] = idx
		}
	}
	cc := &p.calls[idx]
	if sr := msg.Get("stop_reason"); sr != nil && sr.Type() == fastjson.TypeString {
		cc.ended = true
	}
	if u := msg.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
		usage, rank := claudeUsage(u, line, p.b)
		rank.mainChain = !sidechain
		if !cc.hasRank || cc.rank.less(rank) {
			cc.rank, cc.hasRank = rank, true
			p.b.s.Calls[idx].Usage = usage
		}
	}
	if u := p.b.s.Calls[idx].Usage; u != nil && u.OutputLowerBound == cc.ended {
		fixed := *u
		fixed.OutputLowerBound = !cc.ended
		p.b.s.Calls[idx].Usage = &fixed
	}
	switch content := msg.Get("content"); {
	case content == nil:
	case content.Type() == fastjson.TypeString:
		p.b.s.Calls[idx].Text += p.b.text(line, string(content.GetStringBytes()))
	case content.Type() == fastjson.TypeArray:
		for _, block := range content.GetArray() {
			p.assistantBlock(idx, block, line)
		}
	}
}

// groupKey hashes a response's message id and request id (either may be
// missing); keyed is false when both are.
func (p *claudeParser) groupKey(msgID, requestID []byte) (key uint64, keyed bool) {
	if len(msgID) == 0 && len(requestID) == 0 {
		return 0, false
	}
	var h maphash.Hash
	h.SetSeed(p.seed)
	h.Write(msgID)
	h.WriteByte(0)
	h.Write(requestID)
	return h.Sum64(), true
}

func (p *claudeParser) assistantBlock(idx int, block *fastjson.Value, line int) {
	switch string(block.GetStringBytes("type")) {
	case "text":
		p.b.s.Calls[idx].Text += p.b.text(line, string(block.GetStringBytes("text")))
	case "tool_use":
		id := string(block.GetStringBytes("id"))
		if id == "" {
			p.b.warnf(line, "tool_use block without an id")
		}
		var input []byte
		if in := block.Get("input"); in != nil {
			input = in.MarshalTo(nil)
		}
		p.b.addToolCall(idx, ToolCall{ID: id, Name: string(block.GetStringBytes("name")), Input: input}, line)
	}
}

// claudeUsage reads message.usage. When usage.cache_creation splits writes by
// lifetime, its parts replace cache_creation_input_tokens.
func claudeUsage(u *fastjson.Value, line int, b *builder) (*Usage, claudeRank) {
	num := func(v *fastjson.Value, key string) int64 {
		f := v.Get(key)
		if f == nil || f.Type() == fastjson.TypeNull {
			return 0
		}
		n, err := f.Int64()
		if err != nil || n < 0 {
			b.warnf(line, "usage.%s is not a non-negative integer", key)
			return 0
		}
		return n
	}
	usage := &Usage{
		Input:     num(u, "input_tokens"),
		CacheRead: num(u, "cache_read_input_tokens"),
		Output:    num(u, "output_tokens"),
		Fast:      string(u.GetStringBytes("speed")) == "fast",
	}
	creation := num(u, "cache_creation_input_tokens")
	if cc := u.Get("cache_creation"); cc != nil && cc.Type() == fastjson.TypeObject {
		usage.CacheCreation1h = num(cc, "ephemeral_1h_input_tokens")
		usage.CacheCreation = num(cc, "ephemeral_5m_input_tokens") + usage.CacheCreation1h
	} else {
		usage.CacheCreation = creation
	}
	rank := claudeRank{
		total:    usage.Input + usage.Output + creation + usage.CacheRead,
		hasSpeed: u.Exists("speed"),
	}
	return usage, rank
}

func (p *claudeParser) user(v *fastjson.Value, line int) {
	msg := v.Get("message")
	if msg == nil || msg.Type() != fastjson.TypeObject {
		p.b.warnf(line, "user record without a message object")
		return
	}
	t := parseTime(v.GetStringBytes("timestamp"))
	summary := v.GetBool("isCompactSummary")
	meta := summary || v.GetBool("isMeta") || v.GetBool("isVisibleInTranscriptOnly")
	prompt := Prompt{Line: line, Meta: meta}
	content := msg.Get("content")
	switch {
	case content == nil:
	case content.Type() == fastjson.TypeString:
		prompt.Text = string(content.GetStringBytes())
	case content.Type() == fastjson.TypeArray:
		var text strings.Builder
		for _, block := range content.GetArray() {
			switch string(block.GetStringBytes("type")) {
			case "tool_result":
				p.toolResult(block, line, t)
			case "text":
				text.Write(block.GetStringBytes("text"))
			case "image":
				prompt.Images++
			}
		}
		prompt.Text = text.String()
	}
	if summary {
		if e := p.b.lastCompaction(); e != nil {
			e.Summary = prompt.Text
		} else {
			p.b.compaction(Event{Line: line, Time: t, Summary: prompt.Text})
		}
	}
	if prompt.Text != "" || prompt.Images > 0 {
		p.b.addPrompt(prompt)
	}
}

func (p *claudeParser) toolResult(block *fastjson.Value, line int, t time.Time) {
	id := string(block.GetStringBytes("tool_use_id"))
	if id == "" {
		p.b.warnf(line, "tool_result block without a tool_use_id")
	}
	r := ToolResult{CallID: id, Line: line, Time: t, IsError: block.GetBool("is_error")}
	content := block.Get("content")
	if p.b.sizesOnly && content != nil {
		var ok bool
		if r.DroppedBytes, r.Images, r.Other, ok = p.b.contentSize(content, "text", "image"); ok {
			p.b.addResult(r)
			return
		}
	}
	switch {
	case content == nil || content.Type() == fastjson.TypeNull:
	case content.Type() == fastjson.TypeString:
		r.Text = string(content.GetStringBytes())
	case content.Type() == fastjson.TypeArray:
		r.Text, r.Images, r.Other = joinBlocks(content.GetArray(), "text", "image")
	default:
		p.b.warnf(line, "tool_result content is a %s, not text or blocks", content.Type())
	}
	p.b.addResult(r)
}

// joinBlocks concatenates the text of blocks whose type is textType and
// counts image and other blocks.
func joinBlocks(blocks []*fastjson.Value, textType, imageType string) (text string, images, other int) {
	var sb strings.Builder
	for _, b := range blocks {
		switch string(b.GetStringBytes("type")) {
		case textType:
			sb.Write(b.GetStringBytes("text"))
		case imageType:
			images++
		default:
			other++
		}
	}
	return sb.String(), images, other
}

func (p *claudeParser) snapshot() *Session { return snapshotOf(p.b) }

func (p *claudeParser) finish() *Session { return p.b.session() }
