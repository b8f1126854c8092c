package transcript

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"time"
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
	// advisors holds what the line being applied records of advisor
	// usage, and texts what its prompt says, in parts.
	advisors []claudeAdvisor
	texts    []*claudeText

	// reader reads each line into a record (claudeline.go), and copies
	// the copy of a sub-agent's line a progress line holds.
	reader, copies claudeReader
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

func newClaudeParser(b *builder) *claudeParser { return initClaudeParser(new(claudeParser), b) }

// initClaudeParser makes p a new parser for b, keeping only the scratch
// space of its readers.
func initClaudeParser(p *claudeParser, b *builder) *claudeParser {
	reader, copies := p.reader.scratch(), p.copies.scratch()
	reader.keep, copies.copies = !b.sizesOnly, true
	reader.measureResults = b.dropResults // dropped once measured: not decoded
	*p = claudeParser{b: b, groups: newHashTable(b.lines / 3), uuids: newHashTable(b.lines),
		calls: spareClaude.get(b.lines / 3), seed: maphash.MakeSeed(), reader: reader, copies: copies}
	return p
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

// line reads line n into a record and applies it; ok is false where the
// line is not a JSON object.
func (p *claudeParser) line(line []byte, n int) (ok bool) {
	if !p.reader.read(line) {
		return false
	}
	p.apply(&p.reader.rec, n)
	return true
}

// apply adds what line n recorded, read into r, to the session. A
// repeated key of the objects it uses is warned about once, after the
// line is applied.
func (p *claudeParser) apply(r *claudeRecord, line int) {
	dup := r.dup
	p.applyRecord(r, line, &dup)
	p.b.repeatedKeys(line, dup)
}

func (p *claudeParser) applyRecord(r *claudeRecord, line int, dup *bool) {
	typ := r.typ
	if p.repeated(r.uuid, typ) {
		return
	}
	switch string(typ) {
	case "assistant", "user":
		p.noteSession(r.sessionID, r.version)
		if string(typ) == "assistant" {
			p.assistant(r, line, dup)
		} else {
			p.user(r, line, dup)
		}
	case "system":
		sub := string(r.subtype)
		if sub != "compact_boundary" {
			p.b.skip("system/" + sub)
			return
		}
		*dup = *dup || r.compactDup
		p.b.compaction(Event{Line: line, Time: utcTime(r.timestamp), Trigger: string(r.trigger), PreTokens: r.preTokens})
	case "summary":
		// Before 2.x a summary line is the session's title, not a compaction.
		if p.b.s.Title == "" {
			p.b.s.Title = string(r.summary)
		}
	case "ai-title":
		if p.b.s.Title == "" {
			p.b.s.Title = string(r.aiTitle)
		}
	case "custom-title":
		p.b.s.Title = string(r.customTitle)
	case "cost-state":
		p.costState(r, line)
	case "progress":
		if !p.agentProgress(r, line, dup) {
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

// costState reads Claude Code's own reckoning of the session's cost
// (2.1.292 and later write it as the session goes; the last stands).
func (p *claudeParser) costState(r *claudeRecord, line int) {
	if !r.costOK {
		p.b.warnf(line, "cost-state record without a totalCostUSD number")
		return
	}
	p.b.s.HarnessCost = &HarnessCost{Line: line, USD: r.totalCost, UnknownModel: r.unknownModelCost, ByModel: r.modelCost}
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

func (p *claudeParser) assistant(r *claudeRecord, line int, dup *bool) {
	if r.message != '{' {
		p.b.warnf(line, "assistant record without a message object")
		return
	}
	if r.apiError {
		p.b.skip("assistant (API error)")
		return
	}
	m := &r.msg
	*dup = *dup || m.dup
	if string(m.model) == "<synthetic>" {
		p.b.skip("assistant (<synthetic>)")
		return
	}
	if m.usage != '{' && !m.hasContent() {
		// Nothing to price or show: a call row would be empty.
		p.b.warnf(line, "assistant record with neither usage nor content; left out")
		return
	}
	idx, replay := p.call(m.id, r.requestID, r.sessionID, m.model, r.sidechain, r.timestamp, line)
	if m.usage == '{' {
		*dup = *dup || m.usageDup
		usage, rank := p.b.usage(&m.counts, line)
		p.advisors = p.advisors[:0]
		for i := range m.advisors {
			a := &m.advisors[i]
			u, rank := p.b.usage(&a.counts, line)
			p.advisors = append(p.advisors, claudeAdvisor{model: a.model, usage: u, rank: rank})
		}
		p.noteUsage(idx, line, m.ended, &usage, rank, r.sidechain, r.requestID, p.advisors)
	} else {
		p.noteUsage(idx, line, m.ended, nil, claudeRank{}, r.sidechain, nil, nil)
	}
	switch m.content {
	case '"':
		if text := p.b.keptText(line, &m.text); !replay { // a replay repeats what the call already says
			p.b.s.Calls[idx].Text += text
		}
	case '[':
		for i := range m.blocks {
			b := &m.blocks[i]
			*dup = *dup || b.dup
			p.assistantBlock(idx, b, line, replay)
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
	if g := &p.lastGroup; keyed && g.set && g.key == key {
		return g.idx, false
	}
	if idx, seen := p.groups.get(key); seen && keyed {
		return idx, false
	}
	t := utcTime(timestamp)
	if t.IsZero() && len(timestamp) > 0 {
		// The call has no time: a cut by date leaves it out, a group by
		// date has no day for it.
		p.b.warnf(line, "timestamp %q is not a time the reader knows: the call has none", string(timestamp[:min(len(timestamp), 40)]))
	}
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

func (p *claudeParser) assistantBlock(idx int, b *claudeBlock, line int, replay bool) {
	switch string(b.typ) {
	case "text":
		if text := p.b.keptText(line, &b.text); !replay {
			p.b.s.Calls[idx].Text += text
		}
	case "tool_use":
		if len(b.id) == 0 {
			p.b.warnf(line, "tool_use block without an id")
		}
		if p.b.totals {
			p.b.noteToolCall(idx, b.id, b.name, b.input, line)
			return
		}
		input := b.input
		if !b.owned {
			input = bytes.Clone(input) // the line's own bytes
		}
		p.b.addToolCall(idx, ToolCall{ID: string(b.id), Name: p.b.toolName(b.name), Input: input}, line)
	}
}

// usage is the usage c records, each count out of range (see tokenCount)
// warned about and not counted. When cache_creation splits writes by
// lifetime, its parts replace cache_creation_input_tokens.
func (b *builder) usage(c *claudeCounts, line int) (Usage, claudeRank) {
	u := Usage{
		Input:     b.tokenCount(c.input, line, "usage.", "input_tokens"),
		CacheRead: b.tokenCount(c.cacheRead, line, "usage.", "cache_read_input_tokens"),
		Output:    b.tokenCount(c.output, line, "usage.", "output_tokens"),
		Fast:      c.fast,
	}
	created := b.tokenCount(c.created, line, "usage.", "cache_creation_input_tokens")
	if c.split {
		u.CacheCreation1h = b.tokenCount(c.split1h, line, "usage.", "ephemeral_1h_input_tokens")
		u.CacheCreation = b.tokenCount(c.split5m, line, "usage.", "ephemeral_5m_input_tokens") + u.CacheCreation1h
	} else {
		u.CacheCreation = created
	}
	return u, claudeRank{total: u.Input + u.Output + created + u.CacheRead, hasSpeed: c.speed}
}

func (p *claudeParser) user(r *claudeRecord, line int, dup *bool) {
	if r.message != '{' {
		p.b.warnf(line, "user record without a message object")
		return
	}
	m := &r.msg
	*dup = *dup || m.dup
	summary := r.compactSummary
	t := p.userTime(r.timestamp, summary)
	prompt := Prompt{Line: line, Meta: summary || r.meta || r.visibleOnly}
	var texts []*claudeText // what the prompt says, in parts
	switch m.content {
	case '"':
		texts = append(p.texts[:0], &m.text)
	case '[':
		texts = p.texts[:0]
		for i := range m.blocks {
			b := &m.blocks[i]
			*dup = *dup || b.dup
			switch string(b.typ) {
			case "tool_result":
				*dup = *dup || b.resultDup
				p.toolResult(b, line, t)
			case "text":
				texts = append(texts, &b.text)
			case "image":
				prompt.Images++
			}
		}
	}
	p.texts = texts
	p.prompt(prompt, texts, summary, t)
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

// prompt keeps what a user line said besides tool results, its text
// joined from texts; a compaction's summary also goes to its event.
func (p *claudeParser) prompt(prompt Prompt, texts []*claudeText, summary bool, t time.Time) {
	said, decoded := false, false
	for _, t := range texts {
		said = said || len(t.raw) > len(`""`)
		decoded = decoded || t.decoded
	}
	if p.b.sizesOnly && !summary && !decoded {
		// Not kept, and measured in parts, so valid: no need to join.
		if said || prompt.Images > 0 {
			p.b.addPrompt(prompt)
		}
		return
	}
	prompt.Text = joinedText(texts)
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

// joinedText joins texts, each unescaped.
func joinedText(texts []*claudeText) string {
	if len(texts) == 1 && texts[0].decoded {
		return texts[0].text
	}
	var b []byte
	for _, t := range texts {
		switch {
		case t.decoded:
			b = append(b, t.text...)
		case len(t.raw) >= 2:
			b = unescape(b, t.raw[1:len(t.raw)-1])
		}
	}
	return string(b)
}

func (p *claudeParser) toolResult(b *claudeBlock, line int, t time.Time) {
	if len(b.toolUseID) == 0 {
		p.b.warnf(line, "tool_result block without a tool_use_id")
	}
	c := &b.result
	r := ToolResult{Line: line, Time: t, IsError: b.isError}
	switch c.kind {
	case 0, 'n':
	case '"', '[':
		r.Text, r.DroppedBytes, r.Images, r.Other = c.text, c.size, c.images, c.other
		if c.kind == '"' && c.at <= math.MaxInt32 {
			r.TextAt = int32(c.at)
		}
	default:
		p.b.warnf(line, "tool_result content is a %s, not text or blocks", typeName(c.kind))
	}
	p.b.addResultOf(r, b.toolUseID)
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
func (p *claudeParser) agentProgress(r *claudeRecord, line int, dup *bool) bool {
	*dup = *dup || r.dataTypeDup
	if string(r.dataType) != "agent_progress" {
		return false
	}
	*dup = *dup || r.dataMsgDup
	if r.dataMessage == nil {
		return false
	}
	p.copies.read(r.dataMessage) // an object the scanner read whole
	c := &p.copies.rec
	*dup = *dup || c.dup
	if string(c.typ) != "assistant" || c.message != '{' || c.apiError {
		return false
	}
	m := &c.msg
	*dup = *dup || m.dup
	if m.usage != '{' || string(m.model) == "<synthetic>" {
		return false
	}
	*dup = *dup || m.usageDup
	usage, rank := p.b.usage(&m.counts, line)
	n := len(p.b.s.Calls)
	idx, _ := p.call(m.id, c.requestID, r.sessionID, m.model, true, c.timestamp, line)
	if idx >= n {
		p.b.s.Calls[idx].AgentCopy = true
	}
	p.noteUsage(idx, line, m.ended, &usage, rank, true, c.requestID, nil)
	return true
}
