package transcript

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
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
	groups hashTable
	// lastGroup is the entry put in groups last: the lines of a response
	// follow one another, so most lines find their call there.
	lastGroup struct {
		key uint64
		idx int
		set bool
	}
	uuids hashTable
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
	// dup is set when the line being read repeats a key the reader uses.
	dup bool

	// line reads lines by the fast path (see claudescan.go).
	line claudeReader
}

type claudeCall struct {
	rank    claudeRank
	hasRank bool
	// final is set once a line of the response can carry its final output
	// count (see noteUsage); firstOutput is the output count of its first
	// line with usage, and disagreed is set once its lines were warned
	// about.
	final, hasFirst, disagreed bool
	firstOutput                int64
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
	return &claudeParser{b: b, groups: newHashTable(b.lines / 3), uuids: newHashTable(b.lines),
		calls: spareClaude.get(b.lines / 3), seed: maphash.MakeSeed()}
}

// release gives the parser's tables to the spares, once it is done.
func (p *claudeParser) release() {
	p.groups.release()
	p.uuids.release()
	spareClaude.put(p.calls)
	p.calls = nil
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
// gathered in one pass over its keys; as with JSON.parse, the last of
// repeated keys wins.
type claudeLine struct {
	typ, uuid, sessionID, version, requestID, timestamp, subtype *fastjson.Value
	message, compactMetadata, summary, aiTitle, customTitle      *fastjson.Value
	apiError, sidechain, compactSummary, meta, visibleOnly       *fastjson.Value
	data                                                         *fastjson.Value
}

func (l *claudeLine) read(o *fastjson.Object, dup *bool) {
	gather(o, dup, func(key []byte) **fastjson.Value {
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
		case "data":
			return &l.data
		}
		return nil
	})
}

// str is v's text when v is a string, else nil.
func str(v *fastjson.Value) []byte { return v.GetStringBytes() }

// isTrue tells whether v is JSON true.
func isTrue(v *fastjson.Value) bool { return v != nil && v.Type() == fastjson.TypeTrue }

// record reads one line. A repeated key of the objects it reads is warned
// about once, after the line is read.
func (p *claudeParser) record(v *fastjson.Value, line int) {
	p.dup = false
	p.recordLine(v, line)
	p.b.repeatedKeys(line, p.dup)
}

func (p *claudeParser) recordLine(v *fastjson.Value, line int) {
	var l claudeLine
	l.read(v.GetObject(), &p.dup)
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
			Time:      utcTime(str(l.timestamp)),
			Trigger:   string(str(lastOf(l.compactMetadata, "trigger", &p.dup))),
			PreTokens: lastOf(l.compactMetadata, "preTokens", &p.dup).GetInt64(),
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
	case "progress":
		if !p.agentProgress(&l, line) {
			p.b.skip("progress")
		}
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
	if p.uuids.put(maphash.Bytes(p.seed, uuid), 0) {
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

func (m *claudeMessage) read(o *fastjson.Object, dup *bool) {
	gather(o, dup, func(key []byte) **fastjson.Value {
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
	msg.read(l.message.GetObject(), &p.dup)
	model := str(msg.model)
	if string(model) == "<synthetic>" {
		p.b.skip("assistant (<synthetic>)")
		return
	}
	hasUsage := msg.usage != nil && msg.usage.Type() == fastjson.TypeObject
	if !hasUsage && !hasContent(msg.content) {
		// Nothing to price or show: a call row would be empty.
		p.b.warnf(line, "assistant record with neither usage nor content; left out")
		return
	}
	sidechain := isTrue(l.sidechain)
	idx, replay := p.call(str(msg.id), str(l.requestID), str(l.sessionID), model, sidechain, str(l.timestamp), line)
	ended := false
	if sr := msg.stopReason; sr != nil && sr.Type() == fastjson.TypeString {
		ended = true
	}
	if u := msg.usage; hasUsage {
		p.advisors = p.advisors[:0]
		usage, rank := claudeUsage(u, line, p.b, &p.advisors, &p.dup)
		p.noteUsage(idx, line, ended, &usage, rank, sidechain, str(l.requestID), p.advisors)
	} else {
		p.noteUsage(idx, line, ended, nil, claudeRank{}, sidechain, nil, nil)
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

// hasContent tells whether an assistant message's content says anything:
// a non-empty string or list of blocks.
func hasContent(v *fastjson.Value) bool {
	switch {
	case v == nil:
		return false
	case v.Type() == fastjson.TypeString:
		return len(v.GetStringBytes()) > 0
	case v.Type() == fastjson.TypeArray:
		return len(v.GetArray()) > 0
	}
	return false
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
	if g := &p.lastGroup; keyed && g.set && g.key == key {
		return g.idx, false
	}
	if idx, seen := p.groups.get(key); seen && keyed {
		return idx, false
	}
	t := utcTime(timestamp)
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
			p.group(key, idx)
			return idx, true
		}
	}
	if string(model) != p.model {
		p.model = string(model)
	}
	c := p.b.newCall(line, t, p.model, sidechain)
	idx = c.Index
	c.MessageID, c.RequestID = p.b.ids.keep(msgID), p.b.ids.keep(requestID)
	if string(sessionID) != p.sessionID {
		p.sessionID = string(sessionID)
	}
	c.SessionID = p.sessionID
	p.calls = append(p.calls, claudeCall{})
	if keyed {
		p.group(key, idx)
	}
	if byReplay && !seen {
		p.replays[rkey] = idx
	}
	return idx, false
}

// group files the response of key under call idx.
func (p *claudeParser) group(key uint64, idx int) {
	p.groups.put(key, idx)
	p.lastGroup.key, p.lastGroup.idx, p.lastGroup.set = key, idx, true
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
//
// The kept output is a lower bound unless a line of the response can be
// final. Claude Code 2.0 to 2.1.22 wrote every line as the stream began,
// with the stream-start count and no stop_reason; 2.1.38 and 2.1.39 also
// write no stop_reason, but log the lines as the stream goes on, the last
// with the final count. So a line can be final when it has a stop_reason,
// or when it records more output than the response's first line did: the
// stream was logged past its start. A line that records more output than
// the kept one (the largest total, as ccusage keeps) but a smaller total
// is warned about: the response's lines disagree, and the kept output may
// be short.
func (p *claudeParser) noteUsage(idx, line int, ended bool, usage *Usage, rank claudeRank, sidechain bool, requestID []byte, advisors []claudeAdvisor) {
	cc := &p.calls[idx]
	cc.final = cc.final || ended
	if usage != nil {
		if !cc.hasFirst {
			cc.firstOutput, cc.hasFirst = usage.Output, true
		} else if usage.Output > cc.firstOutput {
			cc.final = true
		}
		rank.mainChain = !sidechain
		if kept := p.b.s.Calls[idx].Usage; cc.hasRank && !cc.disagreed && rank.mainChain == cc.rank.mainChain &&
			!cc.rank.less(rank) && usage.Output > kept.Output {
			cc.disagreed = true
			p.b.warnf(line, "the response's lines disagree: the one kept, of the largest total, records %d output tokens, this later one %d",
				kept.Output, usage.Output)
		}
		if !cc.hasRank || cc.rank.less(rank) {
			cc.rank, cc.hasRank = rank, true
			c := &p.b.s.Calls[idx]
			c.Usage = p.b.keepUsage(c.Usage, *usage) // a copy: usage is the line's
			if string(requestID) != c.RequestID {
				c.RequestID = string(requestID)
			}
		}
	}
	if len(advisors) > 0 {
		p.noteAdvisors(idx, sidechain, advisors)
	}
	if u := p.b.s.Calls[idx].Usage; u != nil && u.OutputLowerBound == cc.final {
		fixed := *u
		fixed.OutputLowerBound = !cc.final
		p.b.s.Calls[idx].Usage = p.b.keepUsage(u, fixed)
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
	// Two one-shot hashes, the second mixed by a bijection so that the
	// pair is ordered: half the time of streaming both into one
	// maphash.Hash.
	m, r := maphash.Bytes(p.seed, msgID), maphash.Bytes(p.seed, requestID)
	return m ^ bits.RotateLeft64(r*0x9e3779b97f4a7c15, 29), true
}

// claudeBlock holds the fields of a content block the reader uses, of an
// assistant's or a user's message alike.
type claudeBlock struct {
	typ, id, name, toolUseID, text, input, isError, content *fastjson.Value
}

func (b *claudeBlock) read(v *fastjson.Value, dup *bool) {
	o := v.GetObject()
	if o == nil {
		return
	}
	gather(o, dup, func(key []byte) **fastjson.Value {
		switch string(key) {
		case "type":
			return &b.typ
		case "id":
			return &b.id
		case "name":
			return &b.name
		case "tool_use_id":
			return &b.toolUseID
		case "text":
			return &b.text
		case "input":
			return &b.input
		case "is_error":
			return &b.isError
		case "content":
			return &b.content
		}
		return nil
	})
}

func (p *claudeParser) assistantBlock(idx int, v *fastjson.Value, line int, replay bool) {
	var block claudeBlock
	block.read(v, &p.dup)
	switch string(str(block.typ)) {
	case "text":
		if text := p.b.textOf(line, block.text); !replay {
			p.b.s.Calls[idx].Text += text
		}
	case "tool_use":
		id := string(str(block.id))
		if id == "" {
			p.b.warnf(line, "tool_use block without an id")
		}
		var input []byte
		if block.input != nil {
			input = p.b.marshal(block.input)
		}
		p.b.addToolCall(idx, ToolCall{ID: id, Name: p.b.toolName(str(block.name)), Input: input}, line)
	}
}

// claudeUsage reads message.usage. When usage.cache_creation splits writes by
// lifetime, its parts replace cache_creation_input_tokens. Where advisors
// is not nil, the advisor iterations of usage.iterations are appended to it.
// A count out of range (see tokenCount) is warned about and not counted.
func claudeUsage(u *fastjson.Value, line int, b *builder, advisors *[]claudeAdvisor, dup *bool) (Usage, claudeRank) {
	var input, cacheRead, output, speed, creation, split, iterations *fastjson.Value
	gather(u.GetObject(), dup, func(key []byte) **fastjson.Value {
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
	usage := Usage{
		Input:     b.tokenCount(input, line, "usage.", "input_tokens"),
		CacheRead: b.tokenCount(cacheRead, line, "usage.", "cache_read_input_tokens"),
		Output:    b.tokenCount(output, line, "usage.", "output_tokens"),
		Fast:      string(str(speed)) == "fast",
	}
	created := b.tokenCount(creation, line, "usage.", "cache_creation_input_tokens")
	if split != nil && split.Type() == fastjson.TypeObject {
		usage.CacheCreation1h = b.tokenCount(lastOf(split, "ephemeral_1h_input_tokens", dup), line, "usage.", "ephemeral_1h_input_tokens")
		usage.CacheCreation = b.tokenCount(lastOf(split, "ephemeral_5m_input_tokens", dup), line, "usage.", "ephemeral_5m_input_tokens") + usage.CacheCreation1h
	} else {
		usage.CacheCreation = created
	}
	rank := claudeRank{
		total:    usage.Input + usage.Output + created + usage.CacheRead,
		hasSpeed: speed != nil,
	}
	if iterations != nil && iterations.Type() == fastjson.TypeArray {
		for _, it := range iterations.GetArray() {
			if it.Type() != fastjson.TypeObject || string(str(lastOf(it, "type", dup))) != "advisor_message" {
				continue
			}
			model := str(lastOf(it, "model", dup))
			if len(model) == 0 {
				continue // ccusage, too, prices no advisor without a model
			}
			a := claudeAdvisor{model: model}
			a.usage, a.rank = claudeUsage(it, line, b, nil, dup)
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
	summary := isTrue(l.compactSummary)
	t := p.userTime(str(l.timestamp), summary)
	meta := summary || isTrue(l.meta) || isTrue(l.visibleOnly)
	prompt := Prompt{Line: line, Meta: meta}
	var m claudeMessage
	m.read(msg.GetObject(), &p.dup)
	content := m.content
	switch {
	case content == nil:
	case content.Type() == fastjson.TypeString:
		prompt.Text = string(content.GetStringBytes())
	case content.Type() == fastjson.TypeArray:
		var text strings.Builder
		for _, v := range content.GetArray() {
			var block claudeBlock
			block.read(v, &p.dup)
			switch string(str(block.typ)) {
			case "tool_result":
				p.toolResult(&block, line, t)
			case "text":
				text.Write(str(block.text))
			case "image":
				prompt.Images++
			}
		}
		prompt.Text = text.String()
	}
	p.prompt(prompt, summary, t)
}

// userTime is the time of a user record, for its results and prompt:
// keeping totals only, none but a compaction's summary's, which may start
// the compaction's event.
func (p *claudeParser) userTime(timestamp []byte, summary bool) time.Time {
	if p.b.totals && !summary {
		return time.Time{}
	}
	return utcTime(timestamp)
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

func (p *claudeParser) toolResult(block *claudeBlock, line int, t time.Time) {
	id := string(str(block.toolUseID))
	if id == "" {
		p.b.warnf(line, "tool_result block without a tool_use_id")
	}
	r := ToolResult{CallID: id, Line: line, Time: t, IsError: isTrue(block.isError)}
	content := block.content
	if p.b.sizesOnly && content != nil {
		var ok bool
		if r.DroppedBytes, r.Images, r.Other, ok = p.b.contentSize(content, "text", "image", &p.dup); ok {
			p.b.addResult(r)
			return
		}
	}
	switch {
	case content == nil || content.Type() == fastjson.TypeNull:
	case content.Type() == fastjson.TypeString:
		r.Text = string(content.GetStringBytes())
	case content.Type() == fastjson.TypeArray:
		r.Text, r.Images, r.Other = joinBlocks(content.GetArray(), "text", "image", &p.dup)
	default:
		p.b.warnf(line, "tool_result content is a %s, not text or blocks", content.Type())
	}
	p.b.addResult(r)
}

// joinBlocks concatenates the text of blocks whose type is textType and
// counts image and other blocks; *dup is set if a block repeats a key.
func joinBlocks(blocks []*fastjson.Value, textType, imageType string, dup *bool) (text string, images, other int) {
	var sb strings.Builder
	for _, b := range blocks {
		switch string(str(lastOf(b, "type", dup))) {
		case textType:
			sb.Write(str(lastOf(b, "text", dup)))
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

// agentProgress reads the sub-agent's call an agent_progress line copies:
// Claude Code 2.1.38 and 2.1.39 record in the parent's log each line its
// sub-agent logs, under data.message, whose assistant lines are calls
// billed as the sub-agent's own log's are (ccusage's daily counts them
// from there). The lines of one response make one call, a sidechain's,
// marked AgentCopy: no result or prompt of the log is filed after it. It
// reports whether the line held one.
func (p *claudeParser) agentProgress(l *claudeLine, line int) bool {
	if string(str(lastOf(l.data, "type", &p.dup))) != "agent_progress" {
		return false
	}
	copied := lastOf(l.data, "message", &p.dup)
	if copied == nil || copied.Type() != fastjson.TypeObject {
		return false
	}
	var c claudeLine
	c.read(copied.GetObject(), &p.dup)
	if string(str(c.typ)) != "assistant" || c.message == nil || c.message.Type() != fastjson.TypeObject || isTrue(c.apiError) {
		return false
	}
	var msg claudeMessage
	msg.read(c.message.GetObject(), &p.dup)
	if msg.usage == nil || msg.usage.Type() != fastjson.TypeObject || string(str(msg.model)) == "<synthetic>" {
		return false
	}
	usage, rank := claudeUsage(msg.usage, line, p.b, nil, &p.dup)
	n := len(p.b.s.Calls)
	idx, _ := p.call(str(msg.id), str(c.requestID), str(l.sessionID), str(msg.model), true, str(c.timestamp), line)
	if idx >= n {
		p.b.s.Calls[idx].AgentCopy = true
	}
	ended := msg.stopReason != nil && msg.stopReason.Type() == fastjson.TypeString
	p.noteUsage(idx, line, ended, &usage, rank, true, str(c.requestID), nil)
	return true
}
