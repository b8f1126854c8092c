package transcript

import (
	"bytes"

	"github.com/valyala/fastjson"
)

// The Claude reader's fast path, taken when only sizes are kept. A scanner
// reads a line's fields into claudeFast in one pass and measures its tool
// results on the way, where the general path builds a tree of the line,
// visits it, then measures. A line the fast path does not expect in every
// detail (a field of another type, an escape in a key, a record it leaves
// to the general path, anything the general path would warn about) goes
// the general way instead, before anything of it is kept. Both paths
// therefore read every line alike: TestFastPath, TestSizesOnly and
// FuzzClaude compare them.

// claudeFast is what the fast path reads from one record.
type claudeFast struct {
	typ, uuid, sessionID, version, requestID, timestamp, subtype []byte
	apiError, sidechain, compactSummary, meta, visibleOnly       bool

	hasMessage bool
	id, model  []byte
	ended      bool // the message has a stop_reason
	hasUsage   bool
	usage      Usage
	rank       claudeRank
	advisors   []claudeAdvisor
	content    byte   // '"' for a string, '[' for blocks, 0 for none
	text       []byte // string content, as written, quotes included
	blocks     []claudeFastBlock
}

// hasContent is hasContent of the general path: a non-empty string (as
// written, quotes included) or list of blocks.
func (f *claudeFast) hasContent() bool {
	return f.content == '"' && len(f.text) > len(`""`) || f.content == '[' && len(f.blocks) > 0
}

type claudeFastBlock struct {
	typ, id, name, toolUseID []byte
	text                     []byte // a text block's text, as written, quotes included
	// input is a tool_use block's input: as written, in the line, or,
	// where canonical is set, written back as fastjson writes it, in a
	// slice of its own (see canonical).
	input               []byte
	canonical           bool
	isError             bool
	size, images, other int // a tool_result's content, measured
}

// fields notes which keys of an object were read: a repeated one makes the
// scanner give up, since the general path warns about it.
type fields uint32

func (f *fields) first(s *scanner, bit fields) bool {
	if *f&bit != 0 {
		s.fail()
		return false
	}
	*f |= bit
	return true
}

// str, int and flag read the value of the key bit stands for.
func (f *fields) str(s *scanner, bit fields) []byte {
	if !f.first(s, bit) {
		return nil
	}
	return s.str()
}

// int reads a token count; one above maxTokens makes the scanner give up,
// since the general path warns about it.
func (f *fields) int(s *scanner, bit fields) int64 {
	if !f.first(s, bit) {
		return 0
	}
	n := s.int()
	if n > maxTokens {
		s.fail()
		return 0
	}
	return n
}

// skip passes over the value.
func (f *fields) skip(s *scanner, bit fields) {
	if f.first(s, bit) {
		s.skip()
	}
}

// flag tells whether the value is true; a value other than true, false
// or null makes the scanner give up.
func (f *fields) flag(s *scanner, bit fields) bool {
	return f.first(s, bit) && s.literal() == 't'
}

// claudeReader reads lines by the fast path, each on its own: what it makes
// of a line depends on no line before it, so that the lines of a large log
// can be read ahead of the builder, on other goroutines (readahead.go),
// and applied in order (applyFast) as if read here.
type claudeReader struct {
	scan scanner
	fast claudeFast
	// unq parses the few strings and values handed to fastjson; raw is
	// scratch space for writing a value back (canonical).
	unq fastjson.Parser
	raw []byte
	// lastUsage is the message.usage read last, as written, and what was
	// read there (see readMessageUsage).
	lastUsage struct {
		raw   []byte
		depth int
		usage Usage
		rank  claudeRank
	}
}

// read reads line into l.fast and reports whether the fast path takes it;
// text is what promptText made of a user's record.
func (l *claudeReader) read(line []byte) (text string, ok bool) {
	f := &l.fast
	l.scan.reset(line)
	if !l.readFast(f) {
		return "", false
	}
	typ := f.typ
	switch string(typ) {
	case "assistant", "user":
		if !f.hasMessage {
			return "", false // warned about by the general path
		}
		if string(typ) == "assistant" && !f.apiError && string(f.model) != "<synthetic>" && !f.hasUsage && !f.hasContent() {
			return "", false // warned about and left out by the general path
		}
	case "system":
		if string(f.subtype) == "compact_boundary" {
			return "", false
		}
	case "", "summary", "ai-title", "custom-title":
		return "", false
	case "progress":
		if bytes.Contains(line, []byte(`"agent_progress"`)) {
			return "", false // may copy a sub-agent's call: agentProgress
		}
	}
	if string(typ) == "user" {
		return l.promptText(f)
	}
	return "", true
}

// fastLine reads a line by the fast path and reports whether it could.
func (p *claudeParser) fastLine(line []byte, n int) bool {
	text, ok := p.line.read(line)
	if ok {
		p.applyFast(&p.line.fast, text, n)
	}
	return ok
}

// applyFast adds what line n, read into f and taken by the fast path,
// records to the session; text is what read returned.
func (p *claudeParser) applyFast(f *claudeFast, text string, n int) {
	typ := f.typ
	if p.repeated(f.uuid, typ) {
		return
	}
	switch string(typ) {
	case "assistant":
		p.noteSession(f.sessionID, f.version)
		p.assistantFast(f, n)
	case "user":
		p.noteSession(f.sessionID, f.version)
		p.userFast(f, text, n)
	case "system":
		p.b.skip("system/" + string(f.subtype))
	default:
		p.b.skip(string(typ))
	}
}

func (p *claudeParser) assistantFast(f *claudeFast, line int) {
	if f.apiError {
		p.b.skip("assistant (API error)")
		return
	}
	if string(f.model) == "<synthetic>" {
		p.b.skip("assistant (<synthetic>)")
		return
	}
	idx, _ := p.call(f.id, f.requestID, f.sessionID, f.model, f.sidechain, f.timestamp, line)
	if f.hasUsage {
		p.noteUsage(idx, line, f.ended, &f.usage, f.rank, f.sidechain, f.requestID, f.advisors)
	} else {
		p.noteUsage(idx, line, f.ended, nil, claudeRank{}, f.sidechain, nil, nil)
	}
	for i := range f.blocks { // texts were checked while read, and are not kept
		b := &f.blocks[i]
		switch {
		case string(b.typ) != "tool_use":
		case p.b.totals:
			p.b.noteToolCall(idx, b.id, b.name, b.input, line)
		default:
			input := b.input
			if !b.canonical {
				input = bytes.Clone(input) // the line's own bytes
			}
			p.b.addToolCall(idx, ToolCall{ID: string(b.id), Name: p.b.toolName(b.name), Input: input}, line)
		}
	}
}

// userFast reads a user record; text is what promptText made of it.
func (p *claudeParser) userFast(f *claudeFast, text string, line int) {
	summary := f.compactSummary
	t := p.userTime(f.timestamp, summary)
	prompt := Prompt{Line: line, Meta: summary || f.meta || f.visibleOnly, Text: text}
	for i := range f.blocks {
		switch b := &f.blocks[i]; string(b.typ) {
		case "tool_result":
			p.b.addResultOf(ToolResult{Line: line, Time: t, IsError: b.isError,
				DroppedBytes: b.size, Images: b.images, Other: b.other}, b.toolUseID)
		case "image":
			prompt.Images++
		}
	}
	p.prompt(prompt, summary, t)
}

// promptText joins what a user record says in text: its string content,
// or its text blocks.
func (l *claudeReader) promptText(f *claudeFast) (string, bool) {
	if f.content == '"' {
		return l.unquote(f.text)
	}
	var text []byte
	for i := range f.blocks {
		if b := &f.blocks[i]; string(b.typ) == "text" {
			t, ok := l.unquote(b.text)
			if !ok {
				return "", false
			}
			text = append(text, t...)
		}
	}
	return string(text), true
}

// readFast reads the record the scanner holds into f, and reports whether
// it could.
func (l *claudeReader) readFast(f *claudeFast) bool {
	s := &l.scan
	*f = claudeFast{blocks: f.blocks[:0], advisors: f.advisors[:0]}
	var seen fields
	if !s.enter('{') {
		return false
	}
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "type":
			f.typ = seen.str(s, 1<<0)
		case "uuid":
			f.uuid = seen.str(s, 1<<1)
		case "sessionId":
			f.sessionID = seen.str(s, 1<<2)
		case "version":
			f.version = seen.str(s, 1<<3)
		case "requestId":
			f.requestID = seen.str(s, 1<<4)
		case "timestamp":
			f.timestamp = seen.str(s, 1<<5)
		case "subtype":
			f.subtype = seen.str(s, 1<<6)
		case "message":
			if seen.first(s, 1<<7) {
				f.hasMessage = true
				l.readMessage(f)
			}
		case "isApiErrorMessage":
			f.apiError = seen.flag(s, 1<<8)
		case "isSidechain":
			f.sidechain = seen.flag(s, 1<<9)
		case "isCompactSummary":
			f.compactSummary = seen.flag(s, 1<<10)
		case "isMeta":
			f.meta = seen.flag(s, 1<<11)
		case "isVisibleInTranscriptOnly":
			f.visibleOnly = seen.flag(s, 1<<12)
		// Read only by the general path, which the records that use them
		// take; a repeat of them is warned about on every record.
		case "compactMetadata":
			seen.skip(s, 1<<13)
		case "summary":
			seen.skip(s, 1<<14)
		case "aiTitle":
			seen.skip(s, 1<<15)
		case "customTitle":
			seen.skip(s, 1<<16)
		default:
			s.skip()
		}
	}
	return s.end()
}

// readMessage reads message: the fields of an assistant's and of a user's.
func (l *claudeReader) readMessage(f *claudeFast) {
	s := &l.scan
	var seen fields
	if !s.enter('{') {
		return
	}
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "id":
			f.id = seen.str(s, 1<<0)
		case "model":
			f.model = seen.str(s, 1<<1)
		case "stop_reason":
			if seen.first(s, 1<<2) {
				f.ended = s.peek() == '"'
				s.skip()
			}
		case "usage":
			if seen.first(s, 1<<3) {
				f.hasUsage = true
				l.readMessageUsage(f)
			}
		case "content":
			if seen.first(s, 1<<4) {
				l.readContent(f)
			}
		default:
			s.skip()
		}
	}
}

// readMessageUsage reads message.usage. The lines of a response mostly
// repeat its usage byte for byte: a usage written as the one read last
// is taken as read then, the scanner moving past it, since reading the
// same bytes at the same depth reads the same. One with advisors is read
// each time: what it keeps of them points into its own line.
func (l *claudeReader) readMessageUsage(f *claudeFast) {
	s, last := &l.scan, &l.lastUsage
	if len(last.raw) > 0 && last.depth == s.depth && bytes.HasPrefix(s.buf[s.pos:], last.raw) {
		s.pos += len(last.raw)
		s.opened = false // as more, which read the closing brace, left it
		f.usage, f.rank = last.usage, last.rank
		return
	}
	start, depth := s.pos, s.depth
	f.rank = readUsage(s, &f.usage, &f.advisors, nil)
	last.raw = last.raw[:0]
	if !s.bad && len(f.advisors) == 0 && start < len(s.buf) && s.buf[start] == '{' {
		last.raw = append(last.raw, s.buf[start:s.pos]...)
		last.usage, last.rank, last.depth = f.usage, f.rank, depth
	}
}

// readUsage reads message.usage as claudeUsage does, giving up where
// claudeUsage would warn or find null, and appends its advisor iterations
// to advisors. An iteration is read with it set: usage and iteration
// share their fields, and it takes the iteration's type and model.
func readUsage(s *scanner, u *Usage, advisors *[]claudeAdvisor, it *claudeIteration) claudeRank {
	var seen fields
	var rank claudeRank
	var created, split5m, split1h int64
	hasSplit := false
	if !s.enter('{') {
		return rank
	}
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "iterations":
			if advisors == nil {
				s.skip()
			} else if seen.first(s, 1<<6) {
				readIterations(s, advisors)
			}
		case "type", "model":
			if it == nil {
				s.skip()
			} else if key[0] == 't' {
				it.typ = seen.str(s, 1<<7)
			} else {
				it.model = seen.str(s, 1<<8)
			}
		case "input_tokens":
			u.Input = seen.int(s, 1<<0)
		case "cache_read_input_tokens":
			u.CacheRead = seen.int(s, 1<<1)
		case "output_tokens":
			u.Output = seen.int(s, 1<<2)
		case "cache_creation_input_tokens":
			created = seen.int(s, 1<<3)
		case "speed":
			if seen.first(s, 1<<4) {
				rank.hasSpeed = true
				u.Fast = string(s.str()) == "fast"
			}
		case "cache_creation":
			if seen.first(s, 1<<5) {
				hasSplit = true
				var parts fields
				s.enter('{')
				for key, ok := s.member(); ok; key, ok = s.member() {
					switch string(key) {
					case "ephemeral_5m_input_tokens":
						split5m = parts.int(s, 1<<0)
					case "ephemeral_1h_input_tokens":
						split1h = parts.int(s, 1<<1)
					default:
						s.skip()
					}
				}
			}
		default:
			s.skip()
		}
	}
	if hasSplit {
		u.CacheCreation1h = split1h
		u.CacheCreation = split5m + split1h
	} else {
		u.CacheCreation = created
	}
	rank.total = u.Input + u.Output + created + u.CacheRead
	return rank
}

// claudeIteration is what an entry of usage.iterations says besides usage.
type claudeIteration struct{ typ, model []byte }

// readIterations reads usage.iterations and appends its advisor entries,
// as claudeUsage does. Each entry is read whole, whatever its type, since
// the type may come after the counts.
func readIterations(s *scanner, advisors *[]claudeAdvisor) {
	if !s.enter('[') {
		return
	}
	for s.more(']') {
		if s.peek() != '{' {
			s.skip() // not an entry claudeUsage reads
			continue
		}
		var it claudeIteration
		var a claudeAdvisor
		a.rank = readUsage(s, &a.usage, nil, &it)
		if string(it.typ) == "advisor_message" && len(it.model) > 0 {
			a.model = it.model
			*advisors = append(*advisors, a)
		}
	}
}

// readContent reads message.content: a string, or blocks.
func (l *claudeReader) readContent(f *claudeFast) {
	s := &l.scan
	switch s.peek() {
	case '"':
		f.content = '"'
		// An assistant's text is only checked; a user's is kept.
		_, f.text = s.strLen()
	case '[':
		f.content = '['
		s.enter('[')
		for s.more(']') {
			f.blocks = append(f.blocks, claudeFastBlock{})
			l.readBlock(&f.blocks[len(f.blocks)-1])
		}
	default:
		s.fail()
	}
}

func (l *claudeReader) readBlock(b *claudeFastBlock) {
	s := &l.scan
	var seen fields
	if !s.enter('{') {
		return
	}
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "type":
			b.typ = seen.str(s, 1<<0)
		case "id":
			b.id = seen.str(s, 1<<1)
		case "name":
			b.name = seen.str(s, 1<<2)
		case "tool_use_id":
			b.toolUseID = seen.str(s, 1<<3)
		case "text":
			if seen.first(s, 1<<4) {
				_, b.text = s.strLen()
			}
		case "input":
			if seen.first(s, 1<<5) {
				s.peek()
				s.spaced = false
				if b.input = s.skip(); s.spaced && b.input != nil {
					b.input, b.canonical = l.canonical(b.input), true
				}
			}
		case "is_error":
			b.isError = seen.flag(s, 1<<6)
		case "content":
			if seen.first(s, 1<<7) {
				readResultContent(s, b)
			}
		default:
			s.skip()
		}
	}
	// What the general path would warn about is left to it.
	switch string(b.typ) {
	case "tool_use":
		if len(b.id) == 0 {
			s.fail()
		}
	case "tool_result":
		if len(b.toolUseID) == 0 {
			s.fail()
		}
	}
}

// readResultContent measures a tool_result's content: a string, or blocks
// whose text blocks are measured and whose images and others are counted.
func readResultContent(s *scanner, b *claudeFastBlock) {
	switch s.peek() {
	case '"':
		b.size, _ = s.strLen()
	case 'n':
		s.literal() // null: no content
	case '[':
		s.enter('[')
		for s.more(']') {
			var typ []byte
			size := 0
			var seen fields
			s.enter('{')
			for key, ok := s.member(); ok; key, ok = s.member() {
				switch string(key) {
				case "type":
					typ = seen.str(s, 1<<0)
				case "text":
					if seen.first(s, 1<<1) {
						size, _ = s.strLen()
					}
				default:
					s.skip()
				}
			}
			switch string(typ) {
			case "text":
				b.size += size
			case "image":
				b.images++
			default:
				b.other++
			}
		}
	default:
		s.fail()
	}
}

// unquote returns the text of a JSON string, q with its quotes, as
// fastjson unescapes it; ok is false if fastjson does not read q.
func (l *claudeReader) unquote(q []byte) (text string, ok bool) {
	if len(q) < 2 {
		return "", true // no text
	}
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), true
	}
	v, err := l.unq.ParseBytes(q)
	if err != nil {
		return "", false
	}
	return string(v.GetStringBytes()), true
}

// canonical returns a copy of a value the scanner passed whitespace in
// (its spaced set) as the general path keeps a tool's input: as fastjson
// writes it back, without the whitespace between tokens. fastjson writes
// a value it has just parsed token for token as read, so a value passed
// without whitespace is its own canonical form, and is kept as read: the
// scanner read it whole, and it accepts nothing fastjson refuses.
func (l *claudeReader) canonical(raw []byte) []byte {
	v, err := l.unq.ParseBytes(raw)
	if err != nil {
		l.scan.fail()
		return nil
	}
	l.raw = v.MarshalTo(l.raw[:0])
	return bytes.Clone(l.raw)
}
