package transcript

import (
	"bytes"
	"strconv"
)

// Reading one line of a Claude Code log: the scanner passes over the line
// once and claudeRecord keeps what the reader uses of it, texts unescaped
// where the reader keeps them and measured where it keeps only their
// sizes. What a line records depends on no line before it, so the lines
// of a large log can be read ahead on other goroutines (readahead.go) and
// applied in order (claudeParser.apply, in claude.go).
//
// As JSON.parse does, the last of a repeated key wins; a record repeating
// a key the reader uses is warned about, where the reader goes on to use
// the object that repeats it. So each part of the record notes whether
// its keys repeat (a dup field), and apply tells which parts it used.

// claudeRecord is what the reader uses of one record.
type claudeRecord struct {
	typ, uuid, sessionID, version, requestID, timestamp, subtype []byte
	summary, aiTitle, customTitle                                []byte
	apiError, sidechain, compactSummary, meta, visibleOnly       bool

	// message is the kind of the message value (see scanner.kind), 0
	// for none; msg is what an object held.
	message byte
	msg     claudeMessage
	// compactMetadata's trigger and preTokens, and whether either repeats.
	trigger    []byte
	preTokens  int64
	compactDup bool
	// data's type and message, the message as written where it is an
	// object (a progress line's copy of a sub-agent's line), and whether
	// each repeats.
	dataType, dataMessage   []byte
	dataTypeDup, dataMsgDup bool
	// A cost-state record's totalCostUSD (cost, when costOK: a number),
	// hasUnknownModelCost and modelUsage's costUSD by model.
	costOK           bool
	totalCost        float64
	unknownModelCost bool
	modelCost        map[string]float64
	// dup: one of the record's own keys repeats.
	dup bool
}

// claudeMessage is what the reader uses of a record's message.
type claudeMessage struct {
	id, model []byte
	ended     bool // stop_reason is a string
	// usage is the kind of the usage value; counts, rank and fast what an
	// object held, and advisors its advisor iterations that name a model.
	usage    byte
	counts   claudeCounts
	advisors []claudeIteration
	// content is the kind of the content value: text a string's, blocks
	// a list's.
	content byte
	text    claudeText
	blocks  []claudeBlock
	// dup: one of the message's keys repeats; usageDup: one that
	// reading its usage looks up.
	dup, usageDup bool
}

// hasContent tells whether the content says anything: a non-empty string
// or list.
func (m *claudeMessage) hasContent() bool {
	return m.content == '"' && len(m.text.raw) > len(`""`) || m.content == '[' && len(m.blocks) > 0
}

// count is a token count as written: its value and what it is.
type count struct {
	n     int64
	state countState
}

// claudeCounts is a usage object's counts as read, each warned about
// where it is wrong when the usage is applied (claudeParser.usage).
type claudeCounts struct {
	input, cacheRead, output, created count
	// split is set when cache_creation is an object, of these parts.
	split            bool
	split1h, split5m count
	// speed is set where a speed is recorded, fast where it is "fast".
	speed, fast bool
}

// claudeIteration is an advisor's entry of usage.iterations: billed usage
// on another model.
type claudeIteration struct {
	model  []byte
	counts claudeCounts
}

// claudeText is a string the reader may keep: raw is the string as
// written, quotes included (nil where the value is absent or not a
// string), and text its text, unescaped, where decoded is set: where the
// reader keeps texts, and where a string it measures could not be
// measured (it is not valid UTF-8, or has a rare escape), for the builder
// to check.
type claudeText struct {
	raw     []byte
	text    string
	decoded bool
}

// claudeBlock is what the reader uses of a content block, of an
// assistant's message or a user's.
type claudeBlock struct {
	typ, id, name, toolUseID []byte
	text                     claudeText
	// input is a tool_use's input as the reader keeps it, without
	// whitespace between tokens: the line's own bytes, or, where owned is
	// set, a copy without the whitespace the line has.
	input   []byte
	owned   bool
	isError bool
	result  claudeResult // content, as a tool_result's
	// dup: one of the block's keys repeats; resultDup: one that reading
	// the content as a result looks up.
	dup, resultDup bool
}

// claudeResult is a tool_result's content: kind is its kind, and text
// its text blocks' texts joined, unescaped, or size their length where
// the reader keeps sizes only and could measure them all (text is then
// "").
type claudeResult struct {
	kind          byte
	text          string
	size          int
	images, other int
	at            int // where a string's quote is in the line
}

// claudeReader reads lines into records; keep tells it to keep texts,
// measureResults to measure the tool results' all the same, and copies
// that it reads the copies of a sub-agent's lines that progress lines
// hold, whose advisor usage is not read.
type claudeReader struct {
	scan           scanner
	rec            claudeRecord
	keep           bool
	measureResults bool
	copies         bool
	// buf is scratch space for texts unescaped to be measured.
	buf []byte
	// lastUsage is the message.usage read last, as written, and what was
	// read there (see readUsageOnce).
	lastUsage struct {
		raw    []byte
		depth  int
		counts claudeCounts
		dup    bool
	}
}

// scratch is a reader with nothing of l but its scratch space.
func (l *claudeReader) scratch() claudeReader {
	return claudeReader{scan: scanner{keyBuf: l.scan.keyBuf[:0]}, buf: l.buf[:0],
		rec: claudeRecord{msg: claudeMessage{blocks: l.rec.msg.blocks[:0], advisors: l.rec.msg.advisors[:0]}}}
}

// read reads line into l.rec and reports whether it is a JSON object.
func (l *claudeReader) read(line []byte) bool {
	r := &l.rec
	*r = claudeRecord{msg: claudeMessage{blocks: r.msg.blocks[:0], advisors: r.msg.advisors[:0]}}
	s := &l.scan
	s.reset(line)
	if s.peek() != '{' {
		return false
	}
	l.readRecord(r)
	return s.end()
}

// once notes that a key was read: a second time sets *dup.
func once(seen *uint32, bit uint32, dup *bool) {
	if *seen&bit != 0 {
		*dup = true
	}
	*seen |= bit
}

func (l *claudeReader) readRecord(r *claudeRecord) {
	s := &l.scan
	var seen uint32
	s.enter('{')
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "type":
			once(&seen, 1<<0, &r.dup)
			r.typ = l.str()
		case "uuid":
			once(&seen, 1<<1, &r.dup)
			r.uuid = l.str()
		case "sessionId":
			once(&seen, 1<<2, &r.dup)
			r.sessionID = l.str()
		case "version":
			once(&seen, 1<<3, &r.dup)
			r.version = l.str()
		case "requestId":
			once(&seen, 1<<4, &r.dup)
			r.requestID = l.str()
		case "timestamp":
			once(&seen, 1<<5, &r.dup)
			r.timestamp = nil
			if s.peek() == '"' {
				r.timestamp = s.str()
			} else if v := s.skip(); string(v) != "null" {
				// Kept as written, to be warned of as no time (a number
				// was dropped in silence).
				r.timestamp = v
			}
		case "subtype":
			once(&seen, 1<<6, &r.dup)
			r.subtype = l.str()
		case "message":
			once(&seen, 1<<7, &r.dup)
			r.msg = claudeMessage{blocks: r.msg.blocks[:0], advisors: r.msg.advisors[:0]}
			if r.message = s.kind(); r.message == '{' {
				l.readMessage(&r.msg)
			} else {
				s.skip()
			}
		case "isApiErrorMessage":
			once(&seen, 1<<8, &r.dup)
			r.apiError = s.isTrue()
		case "isSidechain":
			once(&seen, 1<<9, &r.dup)
			r.sidechain = s.isTrue()
		case "isCompactSummary":
			once(&seen, 1<<10, &r.dup)
			r.compactSummary = s.isTrue()
		case "isMeta":
			once(&seen, 1<<11, &r.dup)
			r.meta = s.isTrue()
		case "isVisibleInTranscriptOnly":
			once(&seen, 1<<12, &r.dup)
			r.visibleOnly = s.isTrue()
		case "compactMetadata":
			once(&seen, 1<<13, &r.dup)
			l.readCompactMetadata(r)
		case "summary":
			once(&seen, 1<<14, &r.dup)
			r.summary = l.str()
		case "aiTitle":
			once(&seen, 1<<15, &r.dup)
			r.aiTitle = l.str()
		case "customTitle":
			once(&seen, 1<<16, &r.dup)
			r.customTitle = l.str()
		case "data":
			once(&seen, 1<<17, &r.dup)
			l.readData(r)
		case "totalCostUSD":
			once(&seen, 1<<18, &r.dup)
			r.totalCost, r.costOK = l.float()
		case "hasUnknownModelCost":
			once(&seen, 1<<19, &r.dup)
			r.unknownModelCost = s.isTrue()
		case "modelUsage":
			once(&seen, 1<<20, &r.dup)
			l.readModelUsage(r)
		default:
			s.skip()
		}
	}
}

// float reads a number, or skips a value of another kind.
func (l *claudeReader) float() (float64, bool) {
	if l.scan.kind() != '0' {
		l.scan.skip()
		return 0, false
	}
	f, err := strconv.ParseFloat(string(l.scan.skip()), 64)
	return f, err == nil
}

// readModelUsage reads a cost-state's modelUsage: each model's costUSD.
// As JSON.parse does, the last of a repeated model or key wins.
func (l *claudeReader) readModelUsage(r *claudeRecord) {
	s := &l.scan
	r.modelCost = nil
	if s.kind() != '{' {
		s.skip()
		return
	}
	s.enter('{')
	for model, ok := s.member(); ok; model, ok = s.member() {
		if s.kind() != '{' {
			s.skip()
			continue
		}
		name := string(model)
		s.enter('{')
		for key, ok := s.member(); ok; key, ok = s.member() {
			if string(key) != "costUSD" {
				s.skip()
				continue
			}
			if usd, ok := l.float(); ok {
				if r.modelCost == nil {
					r.modelCost = map[string]float64{}
				}
				r.modelCost[name] = usd
			}
		}
	}
}

// str is strOrSkip of the reader's scanner.
func (l *claudeReader) str() []byte { return strOrSkip(&l.scan) }

func (l *claudeReader) readCompactMetadata(r *claudeRecord) {
	s := &l.scan
	r.trigger, r.preTokens, r.compactDup = nil, 0, false
	if s.kind() != '{' {
		s.skip()
		return
	}
	var seen uint32
	s.enter('{')
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "trigger":
			once(&seen, 1<<0, &r.compactDup)
			r.trigger = l.str()
		case "preTokens":
			once(&seen, 1<<1, &r.compactDup)
			r.preTokens = intOf(s.skip())
		default:
			s.skip()
		}
	}
}

// readData reads a progress line's data: its type, and its message
// where that is an object, left as written for agentProgress to read.
func (l *claudeReader) readData(r *claudeRecord) {
	s := &l.scan
	r.dataType, r.dataMessage, r.dataTypeDup, r.dataMsgDup = nil, nil, false, false
	if s.kind() != '{' {
		s.skip()
		return
	}
	var seen uint32
	s.enter('{')
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "type":
			once(&seen, 1<<0, &r.dataTypeDup)
			r.dataType = l.str()
		case "message":
			once(&seen, 1<<1, &r.dataMsgDup)
			r.dataMessage = nil
			if s.kind() == '{' {
				r.dataMessage = s.skip()
			} else {
				s.skip()
			}
		default:
			s.skip()
		}
	}
}

// readMessage reads message, an object: the fields of an assistant's and
// of a user's.
func (l *claudeReader) readMessage(m *claudeMessage) {
	s := &l.scan
	var seen uint32
	s.enter('{')
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "id":
			once(&seen, 1<<0, &m.dup)
			m.id = l.str()
		case "model":
			once(&seen, 1<<1, &m.dup)
			m.model = l.str()
		case "stop_reason":
			once(&seen, 1<<2, &m.dup)
			m.ended = s.peek() == '"'
			s.skip()
		case "usage":
			once(&seen, 1<<3, &m.dup)
			m.counts, m.advisors, m.usageDup = claudeCounts{}, m.advisors[:0], false
			if m.usage = s.kind(); m.usage == '{' {
				l.readUsageOnce(m)
			} else {
				s.skip()
			}
		case "content":
			once(&seen, 1<<4, &m.dup)
			l.readContent(m)
		default:
			s.skip()
		}
	}
}

// readUsageOnce reads message.usage. The lines of a response mostly
// repeat its usage byte for byte: a usage written as the one read last
// is taken as read then, the scanner moving past it, since reading the
// same bytes at the same depth reads the same. One with advisors is read
// each time: what it keeps of them points into its own line.
func (l *claudeReader) readUsageOnce(m *claudeMessage) {
	s, last := &l.scan, &l.lastUsage
	if len(last.raw) > 0 && last.depth == s.depth && bytes.HasPrefix(s.buf[s.pos:], last.raw) {
		s.pos += len(last.raw)
		s.opened = false // as more, which read the closing brace, left it
		m.counts, m.usageDup = last.counts, last.dup
		return
	}
	start, depth := s.pos, s.depth
	advisors := &m.advisors
	if l.copies {
		advisors = nil
	}
	m.usageDup = readUsage(s, &m.counts, advisors, nil)
	last.raw = last.raw[:0]
	if !s.bad && len(m.advisors) == 0 {
		last.raw = append(last.raw, s.buf[start:s.pos]...)
		last.counts, last.depth, last.dup = m.counts, depth, m.usageDup
	}
}

// readUsage reads a usage object into c and reports whether a key it
// looks up repeats. Where advisors is not nil, the advisor entries of
// usage.iterations that name a model are appended to it. An entry of
// iterations is read by readUsage too, with it set: the entry shares
// usage's counts, and has a type and a model besides.
func readUsage(s *scanner, c *claudeCounts, advisors *[]claudeIteration, it *iterationKeys) (dup bool) {
	var seen uint32
	s.enter('{')
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "iterations":
			if advisors == nil {
				s.skip()
				break
			}
			once(&seen, 1<<6, &dup)
			*advisors = (*advisors)[:0]
			dup = readIterations(s, advisors) || dup
		case "type":
			if it == nil {
				s.skip()
				break
			}
			once(&it.seen, 1<<0, &it.typeDup)
			it.typ = strOrSkip(s)
		case "model":
			if it == nil {
				s.skip()
				break
			}
			once(&it.seen, 1<<1, &it.modelDup)
			it.model = strOrSkip(s)
		case "input_tokens":
			once(&seen, 1<<0, &dup)
			c.input.n, c.input.state = s.count()
		case "cache_read_input_tokens":
			once(&seen, 1<<1, &dup)
			c.cacheRead.n, c.cacheRead.state = s.count()
		case "output_tokens":
			once(&seen, 1<<2, &dup)
			c.output.n, c.output.state = s.count()
		case "cache_creation_input_tokens":
			once(&seen, 1<<3, &dup)
			c.created.n, c.created.state = s.count()
		case "speed":
			once(&seen, 1<<4, &dup)
			c.speed = true
			c.fast = string(strOrSkip(s)) == "fast"
		case "cache_creation":
			once(&seen, 1<<5, &dup)
			c.split, c.split1h, c.split5m = false, count{}, count{}
			if s.kind() != '{' {
				s.skip()
				break
			}
			c.split = true
			var parts uint32
			s.enter('{')
			for key, ok := s.member(); ok; key, ok = s.member() {
				switch string(key) {
				case "ephemeral_5m_input_tokens":
					once(&parts, 1<<0, &dup)
					c.split5m.n, c.split5m.state = s.count()
				case "ephemeral_1h_input_tokens":
					once(&parts, 1<<1, &dup)
					c.split1h.n, c.split1h.state = s.count()
				default:
					s.skip()
				}
			}
		default:
			s.skip()
		}
	}
	return dup
}

// iterationKeys is what an entry of usage.iterations says besides its
// counts, and whether its type and model repeat.
type iterationKeys struct {
	typ, model        []byte
	seen              uint32
	typeDup, modelDup bool
}

// readIterations reads usage.iterations, appending its advisor entries
// that name a model, and reports whether a key it looks up repeats: the
// type of any entry, the model of an advisor's, and the counts of one
// that names a model.
func readIterations(s *scanner, advisors *[]claudeIteration) (dup bool) {
	if s.kind() != '[' {
		s.skip()
		return false
	}
	s.enter('[')
	for s.more(']') {
		if s.kind() != '{' {
			s.skip()
			continue
		}
		var it iterationKeys
		var c claudeCounts
		countsDup := readUsage(s, &c, nil, &it)
		dup = dup || it.typeDup
		if string(it.typ) != "advisor_message" {
			continue
		}
		dup = dup || it.modelDup
		if len(it.model) == 0 {
			continue // ccusage, too, prices no advisor without a model
		}
		dup = dup || countsDup
		*advisors = append(*advisors, claudeIteration{model: it.model, counts: c})
	}
	return dup
}

// strOrSkip is scanner.str for a value of any kind: nil for one that is
// not a string.
func strOrSkip(s *scanner) []byte {
	if s.peek() != '"' {
		s.skip()
		return nil
	}
	return s.str()
}

// readContent reads message.content: a string, or blocks.
func (l *claudeReader) readContent(m *claudeMessage) {
	s := &l.scan
	m.text, m.blocks = claudeText{}, m.blocks[:0]
	switch m.content = s.kind(); m.content {
	case '"':
		m.text = l.readText()
	case '[':
		s.enter('[')
		for s.more(']') {
			m.blocks = append(m.blocks, claudeBlock{})
			l.readBlock(&m.blocks[len(m.blocks)-1])
		}
	default:
		s.skip()
	}
}

// readText reads a string the reader may keep: its text where it keeps
// texts, else its size, and its text where it cannot measure it.
func (l *claudeReader) readText() claudeText {
	s := &l.scan
	if l.keep {
		raw, esc := s.raw()
		t := claudeText{raw: s.buf[s.pos-len(raw)-2 : s.pos], decoded: true}
		t.text = l.text(raw, esc)
		return t
	}
	_, quoted, measured := s.strLen()
	t := claudeText{raw: quoted}
	if !measured && quoted != nil {
		t.text, t.decoded = l.text(quoted[1:len(quoted)-1], true), true
	}
	return t
}

// text is the text of a string's contents raw, unescaped where esc says
// it has an escape: in one allocation, as a result read again on its own
// line has no buffer of earlier texts to unescape it into.
func (l *claudeReader) text(raw []byte, esc bool) string {
	if !esc {
		return string(raw)
	}
	return unescapedString(raw)
}

func (l *claudeReader) readBlock(b *claudeBlock) {
	s := &l.scan
	if s.kind() != '{' {
		s.skip()
		return
	}
	var seen uint32
	s.enter('{')
	for key, ok := s.member(); ok; key, ok = s.member() {
		switch string(key) {
		case "type":
			once(&seen, 1<<0, &b.dup)
			b.typ = l.str()
		case "id":
			once(&seen, 1<<1, &b.dup)
			b.id = l.str()
		case "name":
			once(&seen, 1<<2, &b.dup)
			b.name = l.str()
		case "tool_use_id":
			once(&seen, 1<<3, &b.dup)
			b.toolUseID = l.str()
		case "text":
			once(&seen, 1<<4, &b.dup)
			if s.peek() == '"' {
				b.text = l.readText()
			} else {
				b.text = claudeText{}
				s.skip()
			}
		case "input":
			once(&seen, 1<<5, &b.dup)
			s.peek()
			s.spaced = false
			if b.input, b.owned = s.skip(), false; s.spaced && b.input != nil {
				b.input, b.owned = compact(nil, b.input), true
			}
		case "is_error":
			once(&seen, 1<<6, &b.dup)
			b.isError = s.isTrue()
		case "content":
			once(&seen, 1<<7, &b.dup)
			b.resultDup = l.readResult(&b.result)
		default:
			s.skip()
		}
	}
}

// readResult reads a tool_result's content, a string or blocks whose text
// blocks are joined and whose images and others are counted, and reports
// whether a block repeats a key it looks up (its type, and a text
// block's text).
func (l *claudeReader) readResult(r *claudeResult) (dup bool) {
	s := &l.scan
	*r = claudeResult{kind: s.kind()}
	keep := l.keep && !l.measureResults
	switch r.kind {
	case '"':
		r.at = s.pos
		if keep {
			raw, esc := s.raw()
			r.text = l.text(raw, esc)
			return false
		}
		var measured bool
		var quoted []byte
		if r.size, quoted, measured = s.strLen(); !measured && quoted != nil {
			r.text = l.text(quoted[1:len(quoted)-1], true)
		}
		return false
	case '[':
	default:
		s.skip()
		return false
	}
	start := s.pos
	measured := true
	l.buf = l.buf[:0] // the texts joined, where kept
	s.enter('[')
	for s.more(']') {
		if s.kind() != '{' {
			s.skip()
			r.other++
			continue
		}
		var typ, text []byte
		size := 0
		var typeSeen, textSeen uint32
		var typeDup, textDup bool
		s.enter('{')
		for key, ok := s.member(); ok; key, ok = s.member() {
			switch string(key) {
			case "type":
				once(&typeSeen, 1, &typeDup)
				typ = strOrSkip(s)
			case "text":
				once(&textSeen, 1, &textDup)
				text, size = nil, 0
				switch {
				case s.peek() != '"':
					s.skip()
				case keep:
					text = s.str()
				default:
					var ok bool
					size, _, ok = s.strLen()
					measured = measured && ok
				}
			default:
				s.skip()
			}
		}
		dup = dup || typeDup
		switch string(typ) {
		case "text":
			dup = dup || textDup
			l.buf = append(l.buf, text...)
			r.size += size
		case "image":
			r.images++
		default:
			r.other++
		}
	}
	switch {
	case keep:
		r.text = string(l.buf)
	case !measured:
		// A text not measured: the builder checks the texts joined.
		r.text, r.size = string(joinTexts(l.buf[:0], s.buf[start:s.pos])), 0
	}
	return dup
}

// joinTexts appends the texts of blocks' text blocks, unescaped.
func joinTexts(dst, blocks []byte) []byte {
	elements(blocks, func(b []byte) {
		if string(stringOf(member(b, "type", true, nil))) == "text" {
			if t := member(b, "text", true, nil); len(t) > 0 && t[0] == '"' {
				dst = unescape(dst, t[1:len(t)-1])
			}
		}
	})
	return dst
}
