package transcript

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// The Codex reader's fast path, taken when only sizes are kept. A scanner
// passes over a line once, noting where the fields the reader uses lie,
// then reads those: tool outputs are measured, not decoded, and only the
// head of an exec output, where its exit code is, is unescaped. Where the
// general path builds a tree of the line, removes repeated keys from every
// object in it, then visits it, this builds nothing.
//
// A line the fast path does not expect in every detail goes the general
// way instead, before anything of it is kept: a repeated key anywhere in
// it, a key or a field it reads with an escape, a field of another type,
// anything the general path would warn about, and the records it leaves
// to the general path (session_meta, compaction, thread settings, the
// tool calls whose action is kept as JSON). Both paths therefore read every
// line alike: TestCodexFastPath, TestSizesOnly and FuzzCodexFast compare
// them.

// codexScan is the fast path's scanner. keys holds the keys of the objects
// being read, outermost first, to find a repeated one.
type codexScan struct {
	scanner
	keys [][]byte
	// head is scratch space for the unescaped head of an output, quoted
	// for the bytes to unescape.
	head, quoted []byte
	unq          fastjson.Parser
	// lastName and lastID are the last tool name and call id read: a
	// name repeats from call to call and an output follows its call,
	// and sharing their strings spares an allocation each.
	lastName, lastID string
}

// share returns b as a string, the one last holds where it is equal.
func share(last *string, b []byte) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

// maxObjectKeys bounds the keys of one object the fast path reads, since
// it compares each with those before it; an object with more goes the
// general way.
const maxObjectKeys = 64

func (c *codexScan) reset(b []byte) {
	c.scanner.reset(b)
	c.keys = c.keys[:0]
}

// key reads the next key of the object whose first key is keys[start],
// and the colon after it; a key read before in that object, or one with
// an escape (which str does not read), makes the scanner give up.
func (c *codexScan) key(start int) []byte {
	k := c.str()
	if c.bad {
		return nil
	}
	if len(c.keys)-start >= maxObjectKeys {
		c.fail()
		return nil
	}
	for _, seen := range c.keys[start:] {
		if string(seen) == string(k) {
			c.fail()
			return nil
		}
	}
	c.keys = append(c.keys, k)
	c.colon()
	return k
}

// value passes over one value, checking the keys of every object in it
// as key does, and returns its bytes; nil once the scanner gave up.
func (c *codexScan) value() []byte {
	switch c.peek() {
	case '{':
		from := c.pos
		start := len(c.keys)
		c.enter('{')
		for c.more('}') {
			c.key(start)
			c.value()
		}
		c.keys = c.keys[:start]
		if c.bad {
			return nil
		}
		return c.buf[from:c.pos]
	case '[':
		from := c.pos
		c.enter('[')
		for c.more(']') {
			c.value()
		}
		if c.bad {
			return nil
		}
		return c.buf[from:c.pos]
	}
	return c.skip()
}

// codexFast is what the fast path finds in one record: each field's
// value as written, nil where the record has none.
type codexFast struct {
	typ, timestamp []byte
	payload        bool // the record has a payload object
	// The payload's fields that some kind of record uses.
	kind, callID, name, role, arguments, input, output, content []byte
	model, modelName, metadata                                  []byte
	// outputSize is the length of a string output once unescaped,
	// measured as the line is read.
	outputSize int
	// info is the value of info where it is not an object; an object's
	// usage objects are read as the line is: last and total, where
	// hasLast and hasTotal say it has them as objects, and its model
	// fields as written.
	info, infoModel, infoModelName, infoMetadata []byte
	infoObject, hasLast, hasTotal                bool
	last, total                                  codexTotals
}

// readFast reads the line the scanner holds into f, and reports whether
// it could.
func (c *codexScan) readFast(f *codexFast) bool {
	*f = codexFast{}
	if !c.enter('{') {
		return false
	}
	for c.more('}') {
		switch string(c.key(0)) {
		case "type":
			f.typ = c.value()
		case "timestamp":
			f.timestamp = c.value()
		case "payload":
			if c.peek() != '{' {
				return false // read, and warned about, by the general path
			}
			f.payload = true
			c.readPayload(f)
		default:
			c.value()
		}
	}
	return c.end()
}

func (c *codexScan) readPayload(f *codexFast) {
	start := len(c.keys)
	c.enter('{')
	for c.more('}') {
		var field *[]byte
		switch string(c.key(start)) {
		case "type":
			field = &f.kind
		case "call_id":
			field = &f.callID
		case "name":
			field = &f.name
		case "role":
			field = &f.role
		case "arguments":
			field = &f.arguments
		case "input":
			field = &f.input
		case "output":
			if c.peek() == '"' {
				f.outputSize, f.output = c.strLen()
				continue
			}
			field = &f.output
		case "content":
			field = &f.content
		case "info":
			if c.peek() == '{' {
				c.readInfo(f)
				continue
			}
			field = &f.info
		case "model":
			field = &f.model
		case "model_name":
			field = &f.modelName
		case "metadata":
			field = &f.metadata
		default:
			c.value()
			continue
		}
		*field = c.value()
	}
	c.keys = c.keys[:start]
}

// plain is the text of a string value v as written, as GetStringBytes
// reads it: nil for no value or one that is not a string. ok is false for
// a string with an escape, which the general path unescapes.
func plain(v []byte) (text []byte, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return nil, true
	}
	text = v[1 : len(v)-1]
	return text, bytes.IndexByte(text, '\\') < 0
}

// fastTime is codexTime for a timestamp as written; ok is false for a
// number, which the general path reads.
func fastTime(v []byte) (t time.Time, ok bool) {
	if len(v) == 0 {
		return time.Time{}, true
	}
	switch v[0] {
	case '"':
		text, ok := plain(v)
		return utcTime(bytes.TrimSpace(text)), ok
	case '{', '[', 't', 'f', 'n':
		return time.Time{}, true
	}
	return time.Time{}, false
}

// utcTime is parseTime for a time in UTC as Codex and Claude Code write it,
// 2006-01-02T15:04:05.000Z with 1 to 9 digits of fraction or none, read
// without time.Parse, which returns what time.Date does for it; any other
// form, or a field out of range, goes to parseTime.
func utcTime(s []byte) time.Time {
	const whole = len("2006-01-02T15:04:05Z")
	if len(s) < whole || len(s) > whole+10 || len(s) == whole+1 || s[len(s)-1] != 'Z' ||
		s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return parseTime(s)
	}
	ok := true
	num := func(b []byte) int {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				ok = false
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(s[0:4]), num(s[5:7]), num(s[8:10])
	hour, minute, sec := num(s[11:13]), num(s[14:16]), num(s[17:19])
	nsec := 0
	if frac := s[19 : len(s)-1]; len(frac) > 0 {
		if frac[0] != '.' {
			return parseTime(s)
		}
		nsec = num(frac[1:])
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	if !ok || month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return parseTime(s)
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
}

// daysIn is the number of days of month in year.
func daysIn(month time.Month, year int) int {
	if month == time.February && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		return 29
	}
	return int(monthDays[month-1])
}

var monthDays = [12]uint8{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// fastModel is codexModel for an object's model, model_name and metadata
// fields as written.
func (c *codexScan) fastModel(model, modelName, metadata []byte) (string, bool) {
	for _, v := range [][]byte{model, modelName} {
		text, ok := plain(v)
		if !ok {
			return "", false
		}
		if m := bytes.TrimSpace(text); len(m) > 0 {
			return string(m), true
		}
	}
	if len(metadata) == 0 || metadata[0] != '{' {
		return "", true
	}
	var inner []byte
	c.reset(metadata)
	c.enter('{')
	for c.more('}') {
		if string(c.key(0)) == "model" {
			inner = c.value()
		} else {
			c.value()
		}
	}
	text, ok := plain(inner)
	return string(bytes.TrimSpace(text)), ok && !c.bad
}

// fastLine reads a line by the fast path and reports whether it could.
func (p *codexParser) fastLine(line []byte, n int) bool {
	c, f := &p.scan, &p.fastRec
	c.reset(line)
	if !c.readFast(f) || !f.payload {
		return false
	}
	typ, ok := plain(f.typ)
	if !ok || len(typ) == 0 {
		return false
	}
	t, ok := fastTime(f.timestamp)
	if !ok {
		return false
	}
	switch string(typ) {
	case "session_meta", "compacted":
		return false
	case "turn_context":
		m, ok := c.fastModel(f.model, f.modelName, f.metadata)
		if !ok {
			return false
		}
		if m != "" {
			p.model = m
		}
	case "response_item":
		return p.responseItemFast(f, n, t)
	case "event_msg":
		return p.eventFast(f, n, t)
	default:
		p.b.skip(string(typ))
	}
	return true
}

func (p *codexParser) eventFast(f *codexFast, line int, t time.Time) bool {
	sub, ok := plain(f.kind)
	if !ok {
		return false
	}
	switch string(sub) {
	case "token_count":
		return p.tokenCountFast(f, line, t)
	case "thread_settings_applied", "context_compacted":
		return false
	}
	p.b.skip("event_msg/" + string(sub))
	return true
}

// tokenCountFast is tokenCount.
func (p *codexParser) tokenCountFast(f *codexFast, line int, t time.Time) bool {
	c := &p.scan
	if !f.infoObject {
		if len(f.info) == 0 || f.info[0] == 'n' {
			p.b.skip("event_msg/token_count (no info)")
			return true
		}
		return false // warned about by the general path
	}
	if !f.hasLast && !f.hasTotal {
		return false
	}
	m, ok := c.fastModel(f.model, f.modelName, f.metadata)
	if !ok {
		return false
	}
	if m == "" {
		if m, ok = c.fastModel(f.infoModel, f.infoModelName, f.infoMetadata); !ok {
			return false
		}
	}
	p.burst.event(t)
	u, advanced, fromLast := f.last, true, f.hasLast
	if f.hasTotal {
		var since codexTotals
		since, advanced, fromLast = p.noteTotal(f.total, f.hasLast)
		if !fromLast {
			u = since
		}
	}
	p.countUsage(u, fromLast, advanced, m, line, t)
	return true
}

// readInfo reads a token_count's info object into f.
func (c *codexScan) readInfo(f *codexFast) {
	f.infoObject = true
	start := len(c.keys)
	c.enter('{')
	for c.more('}') {
		switch string(c.key(start)) {
		case "last_token_usage":
			f.hasLast = c.readTotals(&f.last)
		case "total_token_usage":
			f.hasTotal = c.readTotals(&f.total)
		case "model":
			f.infoModel = c.value()
		case "model_name":
			f.infoModelName = c.value()
		case "metadata":
			f.infoMetadata = c.value()
		default:
			c.value()
		}
	}
	c.keys = c.keys[:start]
}

// readTotals reads a usage object as readCodexTotals does, and reports
// whether the value is an object; a count readCodexTotals would warn about
// makes the scanner give up.
func (c *codexScan) readTotals(t *codexTotals) bool {
	if c.peek() != '{' {
		c.value()
		return false
	}
	start := len(c.keys)
	c.enter('{')
	for c.more('}') {
		var n *int64
		switch string(c.key(start)) {
		case "input_tokens":
			n = &t.input
		case "cached_input_tokens":
			n = &t.cached
		case "cache_write_input_tokens":
			n = &t.cacheWrite
		case "output_tokens":
			n = &t.output
		case "reasoning_output_tokens":
			n = &t.reasoning
		case "total_tokens":
			n = &t.total
		default:
			c.value()
			continue
		}
		if c.peek() == 'n' {
			c.literal() // null counts 0
			continue
		}
		if *n = c.int(); *n > maxTokens {
			c.fail()
		}
	}
	c.keys = c.keys[:start]
	return true
}

func (p *codexParser) responseItemFast(f *codexFast, line int, t time.Time) bool {
	kind, ok := plain(f.kind)
	if !ok {
		return false
	}
	switch string(kind) {
	case "function_call", "custom_tool_call":
		id, okID := plain(f.callID)
		name, okName := plain(f.name)
		if !okID || !okName || len(id) == 0 {
			return false
		}
		if p.b.totals {
			return p.toolCallTotals(f, kind, id, name, line, t)
		}
		tc := ToolCall{ID: share(&p.scan.lastID, id), Name: share(&p.scan.lastName, name)}
		if string(kind) == "function_call" {
			args, ok := p.scan.unquote(f.arguments)
			if !ok {
				return false
			}
			tc.Input = rawJSON(args)
		} else {
			in, ok := p.scan.unquote(f.input)
			if !ok {
				return false
			}
			tc.Input = quoteJSON(string(in))
		}
		c := p.call(line, t)
		p.b.addToolCall(c.Index, tc, line)
	case "local_shell_call", "web_search_call", "tool_search_call":
		return false
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		return p.outputFast(f, line, t)
	case "message":
		role, ok := plain(f.role)
		if !ok {
			return false
		}
		// The text is checked, and dropped as the builder drops it.
		_, images, _, ok := p.scan.measure(f.content, false)
		if !ok {
			return false
		}
		if string(role) == "assistant" {
			p.call(line, t)
			return true
		}
		p.b.addPrompt(Prompt{Line: line, Images: images, Meta: string(role) != "user"})
	case "reasoning":
		p.call(line, t)
	default:
		p.b.skip("response_item/" + string(kind))
	}
	return true
}

// toolCallTotals is responseItemFast for a function_call or
// custom_tool_call, keeping totals only: the tool call is not kept, but
// warned about as addToolCall would warn about the one kept otherwise.
// Its input would be the arguments as read where they are JSON, else
// quoted, as a custom tool's input is, which makes any text valid UTF-8.
func (p *codexParser) toolCallTotals(f *codexFast, kind, id, name []byte, line int, t time.Time) bool {
	var input []byte // the input kept otherwise, where not valid UTF-8
	if string(kind) == "function_call" {
		args, ok := p.scan.unquote(f.arguments)
		if !ok {
			return false
		}
		if !utf8.Valid(args) && json.Valid(args) {
			input = args
		}
	} else if _, ok := p.scan.unquote(f.input); !ok {
		return false
	}
	c := p.call(line, t)
	p.b.noteToolCall(c.Index, id, name, input, line)
	return true
}

// outputFast is output.
func (p *codexParser) outputFast(f *codexFast, line int, t time.Time) bool {
	c := &p.scan
	id, ok := plain(f.callID)
	if !ok || len(id) == 0 {
		return false
	}
	r := ToolResult{Line: line, Time: t}
	if !p.b.totals {
		r.CallID = share(&c.lastID, id)
	}
	out := f.output
	c.head = c.head[:0]
	switch {
	case len(out) == 0 || out[0] == 'n':
	case out[0] == '"':
		r.DroppedBytes = f.outputSize
		ok = c.appendHead(out[1:len(out)-1], codexHeadBytes)
	case out[0] == '[':
		r.DroppedBytes, r.Images, r.Other, ok = c.measure(out, true)
	case out[0] == '{':
		// Older rollouts: {"content": "...", "success": bool}.
		var content []byte
		c.reset(out)
		c.enter('{')
		for c.more('}') {
			switch string(c.key(0)) {
			case "content":
				content = c.value()
			case "success":
				r.IsError = string(c.value()) == "false"
			default:
				c.value()
			}
		}
		if ok = !c.bad; ok && len(content) > 0 && content[0] == '"' {
			r.DroppedBytes, _, _, ok = c.measure(content, true)
		}
	default:
		return false // warned about by the general path
	}
	if !ok {
		return false
	}
	if codexFailed(c.head) {
		r.IsError = true
	}
	if p.b.totals {
		p.b.addResultOf(r, id)
	} else {
		p.b.addResult(r)
	}
	return true
}

// measure reads the content v as codexContent does, a string or a list of
// items, and returns the length of its text once unescaped and its count
// of images and of other items; with head set, c.head gets the start of
// its text, unescaped, as codexFailed needs it. ok is false for a text
// that escapedLen does not measure (invalid UTF-8, which the general path
// warns about, or a rare escape) or whose items are not as expected.
func (c *codexScan) measure(v []byte, head bool) (size, images, other int, ok bool) {
	if len(v) == 0 {
		return 0, 0, 0, true
	}
	switch v[0] {
	case '"':
		return c.text(v, head)
	case '[':
	default:
		return 0, 0, 0, true // neither text nor items: no text
	}
	c.reset(v)
	c.enter('[')
	for c.more(']') {
		if c.peek() != '{' {
			c.value()
			other++
			continue
		}
		var typ, text []byte
		c.enter('{')
		start := len(c.keys)
		for c.more('}') {
			switch string(c.key(start)) {
			case "type":
				typ = c.value()
			case "text":
				text = c.value()
			default:
				c.value()
			}
		}
		c.keys = c.keys[:start]
		kind, fine := plain(typ)
		if !fine {
			return 0, 0, 0, false
		}
		switch string(kind) {
		case "input_text", "output_text", "text":
			if len(text) == 0 || text[0] != '"' {
				continue // no text to add
			}
			n, _, _, fine := c.text(text, head)
			if !fine {
				return 0, 0, 0, false
			}
			size += n
		case "input_image", "image":
			images++
		default:
			other++
		}
	}
	return size, images, other, !c.bad
}

// text measures the string value v, and with head set appends the start
// of its text to c.head until that holds codexHeadBytes bytes.
func (c *codexScan) text(v []byte, head bool) (size, images, other int, ok bool) {
	raw := v[1 : len(v)-1]
	size, ok = escapedLen(raw)
	if !ok || !head || len(c.head) >= codexHeadBytes {
		return size, 0, 0, ok
	}
	ok = c.appendHead(raw, codexHeadBytes-len(c.head))
	return size, 0, 0, ok
}

// appendHead appends to c.head at least the first want bytes of the text
// raw (a string's contents) once unescaped, or all of it. Two-byte
// escapes it unescapes itself; at another it hands the head to appendHeadAt.
func (c *codexScan) appendHead(raw []byte, want int) bool {
	from := len(c.head)
	for i := 0; i < len(raw) && len(c.head)-from < want; {
		// In a string's contents a quote follows a backslash, so this
		// finds the next escape.
		j := quoteOrBackslash(raw, i)
		if j < 0 {
			j = len(raw)
		}
		if step := min(j-i, want-(len(c.head)-from)); step > 0 {
			c.head = append(c.head, raw[i:i+step]...)
			i += step
			continue
		}
		if i+1 == len(raw) || unescaped[raw[i+1]] == 0 {
			c.head = c.head[:from]
			return c.appendHeadAt(raw, want)
		}
		c.head = append(c.head, unescaped[raw[i+1]])
		i += 2
	}
	return true
}

// unescaped is what each two-byte escape unescapes to, by the byte after
// its backslash; 0 where that is not one.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendHeadAt is appendHead for a text with any escape: fastjson
// unescapes its start, cut between escapes, as escape measures them, so
// that the cut unescapes to the start of what the whole does.
func (c *codexScan) appendHeadAt(raw []byte, want int) bool {
	i, n := 0, 0
	for i < len(raw) && n < want {
		if raw[i] != '\\' {
			i++
			n++
			continue
		}
		span, out, ok := escape(raw[i:])
		if !ok {
			return false
		}
		i, n = i+span, n+out
	}
	c.quoted = append(append(append(c.quoted[:0], '"'), raw[:i]...), '"')
	text, ok := c.unquote(c.quoted)
	c.head = append(c.head, text...)
	return ok
}

// unquote is the text of a string value v as GetStringBytes reads it,
// unescaped: nil for no value or one that is not a string. It stays valid
// until the next unquote. ok is false where fastjson does not read v.
func (c *codexScan) unquote(v []byte) (text []byte, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return nil, true
	}
	if text, ok := plain(v); ok {
		return text, true
	}
	s, err := c.unq.ParseBytes(v)
	if err != nil {
		return nil, false
	}
	return s.GetStringBytes(), true
}
