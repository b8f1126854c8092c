package transcript

import (
	"bytes"
	"time"
)

// Reading one line of a Codex CLI rollout: the scanner passes over the
// line once, noting where the fields the reader uses lie, and reads the
// hot ones as it passes: tool outputs are measured where only sizes are
// kept, and the usage of a token_count read. The rest is looked up in
// the payload, as written, by the records that use it (session_meta,
// thread settings, a tool call's action). As serde_json does, the last of
// a repeated key wins; a record that repeats any key is warned about.

// codexRecord is what the reader uses of one record: each field's value
// as written, nil where the record has none.
type codexRecord struct {
	typ, timestamp []byte
	// payload is the payload as written, and p what it holds where it is
	// an object.
	payload []byte
	p       codexPayload
	// dup: an object of the record repeats a key.
	dup bool
}

// codexPayload is what the reader uses of a record's payload.
type codexPayload struct {
	kind, callID, name, role, arguments, input, output, content []byte
	model, modelName, metadata                                  []byte
	// outputSize is the length of a string output once unescaped, and
	// outputMeasured whether it could be measured, where the reader
	// keeps sizes only.
	outputSize     int
	outputMeasured bool
	// outputAt is where output starts in the line.
	outputAt int
	// info is the value of info; where it is an object, last and total
	// are its usage objects' counts where hasLast and hasTotal say it has
	// them as objects, and infoModel, infoModelName and infoMetadata its
	// model fields as written.
	info                                   []byte
	hasLast, hasTotal                      bool
	last, total                            codexCounts
	infoModel, infoModelName, infoMetadata []byte
}

// codexCounts is a usage object's counts as read.
type codexCounts struct {
	input, cached, cacheWrite, output, reasoning, total count
}

// codexScan reads lines into records.
type codexScan struct {
	keyCheck
	// measure is set where the reader keeps no output's text, only its
	// size (Options.SizesOnly and DropResultTexts).
	measure bool
	// head is scratch space for the unescaped head of an output, and
	// scratch for a text unescaped to be copied.
	head, scratch []byte
	// lastName and lastID are the last tool name and call id read: a
	// name repeats from call to call and an output follows its call,
	// and sharing their strings spares an allocation each.
	lastName, lastID string
}

// scratchText is stringOf(v), unescaped where it must be into scratch
// space that the next call reuses: for a text the caller copies.
func (c *codexScan) scratchText(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	c.scratch = unescape(c.scratch[:0], v[1:len(v)-1])
	return c.scratch
}

// share returns b as a string, the one last holds where it is equal.
func share(last *string, b []byte) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

// read reads line into f and reports whether it is a JSON object.
func (c *codexScan) read(line []byte, f *codexRecord) bool {
	*f = codexRecord{}
	c.reset(line)
	if c.peek() != '{' {
		return false
	}
	c.enter('{')
	for c.more('}') {
		switch string(c.key(0)) {
		case "type":
			f.typ = c.value()
		case "timestamp":
			f.timestamp = c.value()
		case "payload":
			f.p = codexPayload{}
			if c.peek() != '{' {
				f.payload = c.value()
				break
			}
			start := c.pos
			c.readPayload(&f.p)
			f.payload = c.buf[start:c.pos]
		default:
			c.value()
		}
	}
	f.dup = c.dup
	return c.end()
}

func (c *codexScan) readPayload(f *codexPayload) {
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
			kind := c.peek()
			f.outputAt = c.pos
			if c.measure && kind == '"' {
				f.outputSize, f.output, f.outputMeasured = c.strLen()
				continue
			}
			field = &f.output
		case "content":
			field = &f.content
		case "info":
			f.hasLast, f.hasTotal, f.last, f.total = false, false, codexCounts{}, codexCounts{}
			f.infoModel, f.infoModelName, f.infoMetadata = nil, nil, nil
			if c.peek() == '{' {
				from := c.pos
				c.readInfo(f)
				f.info = c.buf[from:c.pos]
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

// readInfo reads a token_count's info object into f.
func (c *codexScan) readInfo(f *codexPayload) {
	start := len(c.keys)
	c.enter('{')
	for c.more('}') {
		switch string(c.key(start)) {
		case "last_token_usage":
			f.hasLast = c.readCounts(&f.last)
		case "total_token_usage":
			f.hasTotal = c.readCounts(&f.total)
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

// readCounts reads a usage object into t, and reports whether the value
// is an object.
func (c *codexScan) readCounts(t *codexCounts) bool {
	*t = codexCounts{}
	if c.peek() != '{' {
		c.value()
		return false
	}
	start := len(c.keys)
	c.enter('{')
	for c.more('}') {
		var n *count
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
		if b := c.peek(); b >= '0' && b <= '9' {
			n.n, n.state = c.count()
			continue
		}
		n.n, n.state = countOf(c.value())
	}
	c.keys = c.keys[:start]
	return true
}

// codexTime reads a record's timestamp as written: RFC 3339 text, or a
// number of seconds (milliseconds above 10^10) since the epoch.
func codexTime(v []byte) time.Time {
	switch kindOf(v) {
	case '"':
		return utcTime(bytes.TrimSpace(stringOf(v)))
	case '0':
		n, ok := uintOf(v)
		if !ok || n > 1<<62 {
			return time.Time{}
		}
		if n > 10_000_000_000 {
			return time.UnixMilli(int64(n)).UTC()
		}
		return time.Unix(int64(n), 0).UTC()
	}
	return time.Time{}
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

// codexModel is the model an object names, from its model, model_name and
// metadata fields as written: model, model_name or metadata.model, the
// first that is not blank.
func codexModel(model, modelName, metadata []byte) string {
	for _, v := range [][]byte{model, modelName, member(metadata, "model", true, nil)} {
		if m := bytes.TrimSpace(stringOf(v)); len(m) > 0 {
			return string(m)
		}
	}
	return ""
}

// measureContent reads the content v as codexContent does, a string or a
// list of items, and returns the length of its text once unescaped and
// its count of images and of other items; with head set, c.head gets the
// start of its text, unescaped, as codexFailed needs it. ok is false
// where a text could not be measured (not valid UTF-8, a rare escape):
// the caller then unescapes the texts.
func (c *codexScan) measureContent(v []byte, head bool) (size, images, other int, ok bool) {
	switch kindOf(v) {
	case '"':
		return c.text(v, head)
	case '[':
	default:
		return 0, 0, 0, true // neither text nor items: no text
	}
	ok = true
	elements(v, func(item []byte) {
		if kindOf(item) != '{' {
			other++
			return
		}
		switch string(stringOf(member(item, "type", true, nil))) {
		case "input_text", "output_text", "text":
			text := member(item, "text", true, nil)
			if kindOf(text) != '"' {
				return // no text to add
			}
			n, _, _, fine := c.text(text, head)
			size += n
			ok = ok && fine
		case "input_image", "image":
			images++
		default:
			other++
		}
	})
	return size, images, other, ok
}

// text measures the string value v, and with head set appends the start
// of its text to c.head until that holds codexHeadBytes bytes.
func (c *codexScan) text(v []byte, head bool) (size, images, other int, ok bool) {
	raw := v[1 : len(v)-1]
	size, ok = escapedLen(raw)
	if !ok || !head || len(c.head) >= codexHeadBytes {
		return size, 0, 0, ok
	}
	c.appendHead(raw, codexHeadBytes-len(c.head))
	return size, 0, 0, ok
}

// appendHead appends to c.head at least the first want bytes of the text
// raw (a string's contents) once unescaped, or all of it. Two-byte
// escapes it unescapes itself; at another it hands the head to
// appendHeadAt.
func (c *codexScan) appendHead(raw []byte, want int) {
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
			c.appendHeadAt(raw, want)
			return
		}
		c.head = append(c.head, unescaped[raw[i+1]])
		i += 2
	}
}

// unescaped is what each two-byte escape unescapes to, by the byte after
// its backslash; 0 where that is not one.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendHeadAt is appendHead for a text with any escape: its start, cut
// between escapes, as escape measures them, is unescaped, so that the
// cut unescapes to the start of what the whole does.
func (c *codexScan) appendHeadAt(raw []byte, want int) {
	i, n := 0, 0
	for i < len(raw) && n < want {
		if raw[i] != '\\' {
			i++
			n++
			continue
		}
		span, out, ok := escape(raw[i:])
		if !ok {
			span, out = 2, 2 // a backslash before a byte above 0x7F: kept as written
		}
		i, n = i+span, n+out
	}
	c.head = unescape(c.head, raw[:min(i, len(raw))])
}
