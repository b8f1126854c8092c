package transcript

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
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
	// replays maps a response's message id, session id and time to its
	// call, to find a sidechain line that replays it under a new request id.
	// It is built at the first sidechain line: a log without one needs none.
	replays map[uint64]int
	seed    maphash.Seed
	// Per call: the rank of the line whose usage is kept, and whether any
	// line recorded a stop_reason.
	calls []claudeCall
	model string // the last model named, so that each call need not copy it
	// sessionID is the last session id a call took, shared by the calls
	// that name the same one.
	sessionID string
	// advisors holds what the line being read records of advisor usage.
	advisors []claudeAdvisor

	// The fast path's (see claudescan.go): its scanner, the record it
	// reads, and a parser for the few strings it hands to fastjson.
	scan scanner
	fast claudeFast
	unq  fastjson.Parser
}

type claudeCall struct {
	rank    claudeRank
	hasRank bool
	ended   bool
	// advisors ranks the kept usage of each advisor iteration, by position.
	advisors []claudeRank
}

// sidechainKept tells whether the line whose usage c keeps is a sidechain's.
func (c *claudeCall) sidechainKept(call *Call) bool {
	if c.hasRank {
		return !c.rank.mainChain
	}
	return call.Sidechain
}

// claudeAdvisor is one advisor iteration of a line's usage: billed usage on
// another model, which ccusage prices with that model.
type claudeAdvisor struct {
	model []byte
	usage Usage
	rank  claudeRank
}

func newClaudeParser(b *builder) *claudeParser {
	return &claudeParser{b: b, groups: make(map[uint64]int, b.lines/3), uuids: make(map[uint64]struct{}, b.lines),
		calls: make([]claudeCall, 0, b.lines/3), seed: maphash.MakeSeed()}
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

// claudeLine holds the top-level fields of a record that the reader uses,
// gathered in one pass over its keys; as with Get, the first of repeated
// keys wins.
type claudeLine struct {
	typ, uuid, sessionID, version, requestID, timestamp, subtype *fastjson.Value
	message, compactMetadata, summary, aiTitle, customTitle      *fastjson.Value
	apiError, sidechain, compactSummary, meta, visibleOnly       *fastjson.Value
}

func (l *claudeLine) read(o *fastjson.Object) {
	gather(o, func(key []byte) **fastjson.Value {
		switch string(key) {
		case "type":
			return &l.typ
		case "uuid":
			return &l.uuid
		case "sessionId":
			return &l.sessionID
		case "version":
			return &l.version
		case "requestId":
			return &l.requestID
		case "timestamp":
			return &l.timestamp
		case "subtype":
			return &l.subtype
		case "message":
			return &l.message
		case "compactMetadata":
			return &l.compactMetadata
		case "summary":
			return &l.summary
		case "aiTitle":
			return &l.aiTitle
		case "customTitle":
			return &l.customTitle
		case "isApiErrorMessage":
			return &l.apiError
		case "isSidechain":
			return &l.sidechain
		case "isCompactSummary":
			return &l.compactSummary
		case "isMeta":
			return &l.meta
		case "isVisibleInTranscriptOnly":
			return &l.visibleOnly
		}
		return nil
	})
}

// str is v's text when v is a string, else nil.
func str(v *fastjson.Value) []byte { return v.GetStringBytes() }

// isTrue tells whether v is JSON true.
func isTrue(v *fastjson.Value) bool { return v != nil && v.Type() == fastjson.TypeTrue }

// gather visits o's keys once; field says where a key's value goes, nil to
// skip it. As with Get, the first of repeated keys wins.
func gather(o *fastjson.Object, field func(key []byte) **fastjson.Value) {
	o.Visit(func(key []byte, v *fastjson.Value) {
		if f := field(key); f != nil && *f == nil {
			*f = v
		}
	})
}

func (p *claudeParser) record(v *fastjson.Value, line int) {
	var l claudeLine
	l.read(v.GetObject())
	typ := str(l.typ)
	if p.repeated(str(l.uuid), typ) {
		return
	}
	switch string(typ) {
	case "assistant", "user":
		p.noteSession(str(l.sessionID), str(l.version))
		if string(typ) == "assistant" {
			p.assistant(&l, line)
		} else {
			p.user(&l, line)
		}
	case "system":
		sub := string(str(l.subtype))
		if sub != "compact_boundary" {
			p.b.skip("system/" + sub)
			return
		}
		p.b.compaction(Event{
			Line:      line,
			Time:      parseTime(str(l.timestamp)),
			Trigger:   string(l.compactMetadata.GetStringBytes("trigger")),
			PreTokens: l.compactMetadata.GetInt64("preTokens"),
		})
	case "summary":
		// Before 2.x a summary line is the session's title, not a compaction.
		if p.b.s.Title == "" {
			p.b.s.Title = string(str(l.summary))
		}
	case "ai-title":
		if p.b.s.Title == "" {
			p.b.s.Title = string(str(l.aiTitle))
		}
	case "custom-title":
		p.b.s.Title = string(str(l.customTitle))
	default:
		if len(typ) == 0 {
			p.b.warnf(line, "record has no type")
			return
		}
		p.b.skip(string(typ))
	}
}

// repeated tells whether a line with this id was read before, and counts
// it skipped if so: a resumed session can repeat earlier lines, of any
// type, and each line id is read once.
func (p *claudeParser) repeated(uuid, typ []byte) bool {
	if len(uuid) == 0 {
		return false
	}
	seen := len(p.uuids)
	if p.uuids[maphash.Bytes(p.seed, uuid)] = struct{}{}; len(p.uuids) == seen {
		p.b.skip(string(typ) + " (repeated uuid)")
		return true
	}
	return false
}

func (p *claudeParser) noteSession(id, version []byte) {
	s := p.b.s
	if s.ID == "" {
		s.ID = string(id)
	}
	if len(version) > 0 && string(version) != s.Version {
		s.Version = string(version)
	}
}

// claudeMessage holds the fields of an assistant message the reader uses.
type claudeMessage struct {
	id, model, stopReason, usage, content *fastjson.Value
}

func (m *claudeMessage) read(o *fastjson.Object) {
	gather(o, func(key []byte) **fastjson.Value {
		switch string(key) {
		case "id":
			return &m.id
		case "model":
			return &m.model
		case "stop_reason":
			return &m.stopReason
		case "usage":
			return &m.usage
		case "content":
			return &m.content
		}
		return nil
	})
}

func (p *claudeParser) assistant(l *claudeLine, line int) {
	if l.message == nil || l.message.Type() != fastjson.TypeObject {
		p.b.warnf(line, "assistant record without a message object")
		return
	}
	if isTrue(l.apiError) {
		p.b.skip("assistant (API error)")
		return
	}
	var msg claudeMessage
	msg.read(l.message.GetObject())
	model := str(msg.model)
	if string(model) == "<synthetic>" {
		p.b.skip("assistant (<synthetic>)")
		return
	}
	sidechain := isTrue(l.sidechain)
	idx, replay := p.call(str(msg.id), str(l.requestID), str(l.sessionID), model, sidechain, str(l.timestamp), line)
	ended := false
	if sr := msg.stopReason; sr != nil && sr.Type() == fastjson.TypeString {
		ended = true
	}
	if u := msg.usage; u != nil && u.Type() == fastjson.TypeObject {
		p.advisors = p.advisors[:0]
		usage, rank := claudeUsage(u, line, p.b, &p.advisors)
		p.noteUsage(idx, ended, &usage, rank, sidechain, str(l.requestID), p.advisors)
	} else {
		p.noteUsage(idx, ended, nil, claudeRank{}, sidechain, nil, nil)
	}
	switch content := msg.content; {
	case content == nil:
	case content.Type() == fastjson.TypeString:
		text := p.b.text(line, string(content.GetStringBytes()))
		if !replay { // a replay repeats what the call already says
			p.b.s.Calls[idx].Text += text
		}
	case content.Type() == fastjson.TypeArray:
		for _, block := range content.GetArray() {
			p.assistantBlock(idx, block, line, replay)
		}
	}
}

// call returns the index of the call a response line belongs to, starting
// one for a response not seen before. replay reports a line that joined its
// call as a sidechain's replay of the response (or as the response a
// sidechain replayed first) under another request id: the /btw aside of
// Claude Code repeats its parent's message, whose usage is the parent's.
// As in ccusage, such a line matches by message id, session id and time
// when it or the line kept so far is a sidechain's.
func (p *claudeParser) call(msgID, requestID, sessionID, model []byte, sidechain bool, timestamp []byte, line int) (idx int, replay bool) {
	key, keyed := p.groupKey(msgID, requestID)
	if idx, seen := p.groups[key]; seen && keyed {
		return idx, false
	}
	t := parseTime(timestamp)
	if sidechain && p.replays == nil {
		p.indexReplays()
	}
	var rkey uint64
	byReplay := p.replays != nil && len(msgID) > 0 && !t.IsZero()
	seen := false
	if byReplay {
		rkey = p.replayKey(msgID, sessionID, t)
		var idx int
		if idx, seen = p.replays[rkey]; seen && (sidechain || p.calls[idx].sidechainKept(&p.b.s.Calls[idx])) {
			p.groups[key] = idx
			return idx, true
		}
	}
	if string(model) != p.model {
		p.model = string(model)
	}
	c := p.b.newCall(line, t, p.model, sidechain)
	idx = c.Index
	if len(msgID) > 0 {
		c.MessageID = string(msgID)
	}
	if len(requestID) > 0 {
		c.RequestID = string(requestID)
	}
	if string(sessionID) != p.sessionID {
		p.sessionID = string(sessionID)
	}
	c.SessionID = p.sessionID
	p.calls = append(p.calls, claudeCall{})
	if keyed {
		p.groups[key] = idx
	}
	if byReplay && !seen {
		p.replays[rkey] = idx
	}
	return idx, false
}

// indexReplays starts the replays index with the calls read so far, each
// keyed, as call keys every later one, by what its first line recorded.
func (p *claudeParser) indexReplays() {
	p.replays = make(map[uint64]int, len(p.b.s.Calls))
	for i := range p.b.s.Calls {
		c := &p.b.s.Calls[i]
		if c.MessageID == "" || c.Time.IsZero() {
			continue
		}
		rkey := p.replayKey([]byte(c.MessageID), []byte(c.SessionID), c.Time)
		if _, seen := p.replays[rkey]; !seen {
			p.replays[rkey] = i
		}
	}
}

// replayKey hashes what a sidechain replay shares with the response it
// repeats.
func (p *claudeParser) replayKey(msgID, sessionID []byte, t time.Time) uint64 {
	var h maphash.Hash
	h.SetSeed(p.seed)
	h.Write(msgID)
	h.WriteByte(0)
	h.Write(sessionID)
	h.WriteByte(0)
	var ns [8]byte
	binary.LittleEndian.PutUint64(ns[:], uint64(t.UnixNano()))
	h.Write(ns[:])
	return h.Sum64()
}

// noteUsage takes what one line of a response records: whether it has a
// stop_reason, and its usage (nil when it has none) and advisor usage,
// each kept if it ranks above what was kept so far. The call takes the
// request id of the line whose usage it keeps.
func (p *claudeParser) noteUsage(idx int, ended bool, usage *Usage, rank claudeRank, sidechain bool, requestID []byte, advisors []claudeAdvisor) {
	cc := &p.calls[idx]
	// A line without a stop_reason was written as the stream began (2.0 to
	// 2.1.22 always, 1.0.x mostly): its output count is a lower bound.
	cc.ended = cc.ended || ended
	if usage != nil {
		rank.mainChain = !sidechain
		if !cc.hasRank || cc.rank.less(rank) {
			cc.rank, cc.hasRank = rank, true
			kept := *usage // a copy, so that only the kept usage is allocated
			c := &p.b.s.Calls[idx]
			c.Usage = &kept
			if string(requestID) != c.RequestID {
				c.RequestID = string(requestID)
			}
		}
	}
	if len(advisors) > 0 {
		p.noteAdvisors(idx, sidechain, advisors)
	}
	if u := p.b.s.Calls[idx].Usage; u != nil && u.OutputLowerBound == cc.ended {
		fixed := *u
		fixed.OutputLowerBound = !cc.ended
		p.b.s.Calls[idx].Usage = &fixed
	}
}

// noteAdvisors keeps each advisor iteration's usage, by position, as ccusage
// dedupes them: each as an entry of its own.
func (p *claudeParser) noteAdvisors(idx int, sidechain bool, advisors []claudeAdvisor) {
	cc := &p.calls[idx]
	c := &p.b.s.Calls[idx]
	extra, changed := c.Extra, false
	for i := range advisors {
		a := &advisors[i]
		a.rank.mainChain = !sidechain
		if i < len(extra) && !cc.advisors[i].less(a.rank) {
			continue
		}
		if !changed { // a new slice, so that a snapshot never sees the change
			extra, changed = slices.Clone(extra), true
		}
		if i == len(extra) {
			extra = append(extra, ModelUsage{})
			cc.advisors = append(cc.advisors, claudeRank{})
		}
		model := string(a.model)
		p.b.noteModel(model)
		extra[i], cc.advisors[i] = ModelUsage{Model: model, Usage: a.usage}, a.rank
	}
	c.Extra = extra
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

func (p *claudeParser) assistantBlock(idx int, block *fastjson.Value, line int, replay bool) {
	switch string(block.GetStringBytes("type")) {
	case "text":
		if text := p.b.textOf(line, block.Get("text")); !replay {
			p.b.s.Calls[idx].Text += text
		}
	case "tool_use":
		id := string(block.GetStringBytes("id"))
		if id == "" {
			p.b.warnf(line, "tool_use block without an id")
		}
		var input []byte
		if in := block.Get("input"); in != nil {
			input = p.b.marshal(in)
		}
		p.b.addToolCall(idx, ToolCall{ID: id, Name: string(block.GetStringBytes("name")), Input: input}, line)
	}
}

// claudeUsage reads message.usage. When usage.cache_creation splits writes by
// lifetime, its parts replace cache_creation_input_tokens. Where advisors
// is not nil, the advisor iterations of usage.iterations are appended to it.
func claudeUsage(u *fastjson.Value, line int, b *builder, advisors *[]claudeAdvisor) (Usage, claudeRank) {
	var input, cacheRead, output, speed, creation, split, iterations *fastjson.Value
	gather(u.GetObject(), func(key []byte) **fastjson.Value {
		switch string(key) {
		case "iterations":
			if advisors == nil {
				return nil
			}
			return &iterations
		case "input_tokens":
			return &input
		case "cache_read_input_tokens":
			return &cacheRead
		case "output_tokens":
			return &output
		case "speed":
			return &speed
		case "cache_creation_input_tokens":
			return &creation
		case "cache_creation":
			return &split
		}
		return nil
	})
	num := func(f *fastjson.Value, key string) int64 {
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
	usage := Usage{
		Input:     num(input, "input_tokens"),
		CacheRead: num(cacheRead, "cache_read_input_tokens"),
		Output:    num(output, "output_tokens"),
		Fast:      string(str(speed)) == "fast",
	}
	created := num(creation, "cache_creation_input_tokens")
	if split != nil && split.Type() == fastjson.TypeObject {
		usage.CacheCreation1h = num(split.Get("ephemeral_1h_input_tokens"), "ephemeral_1h_input_tokens")
		usage.CacheCreation = num(split.Get("ephemeral_5m_input_tokens"), "ephemeral_5m_input_tokens") + usage.CacheCreation1h
	} else {
		usage.CacheCreation = created
	}
	rank := claudeRank{
		total:    usage.Input + usage.Output + created + usage.CacheRead,
		hasSpeed: speed != nil,
	}
	if iterations != nil && iterations.Type() == fastjson.TypeArray {
		for _, it := range iterations.GetArray() {
			if it.Type() != fastjson.TypeObject || string(it.GetStringBytes("type")) != "advisor_message" {
				continue
			}
			model := it.GetStringBytes("model")
			if len(model) == 0 {
				continue // ccusage, too, prices no advisor without a model
			}
			a := claudeAdvisor{model: model}
			a.usage, a.rank = claudeUsage(it, line, b, nil)
			*advisors = append(*advisors, a)
		}
	}
	return usage, rank
}

func (p *claudeParser) user(l *claudeLine, line int) {
	msg := l.message
	if msg == nil || msg.Type() != fastjson.TypeObject {
		p.b.warnf(line, "user record without a message object")
		return
	}
	t := parseTime(str(l.timestamp))
	summary := isTrue(l.compactSummary)
	meta := summary || isTrue(l.meta) || isTrue(l.visibleOnly)
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
	p.prompt(prompt, summary, t)
}

// prompt keeps what a user line said besides tool results; a compaction's
// summary also goes to its event.
func (p *claudeParser) prompt(prompt Prompt, summary bool, t time.Time) {
	if summary {
		if e := p.b.lastCompaction(); e != nil {
			e.Summary = prompt.Text
		} else {
			p.b.compaction(Event{Line: prompt.Line, Time: t, Summary: prompt.Text})
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
