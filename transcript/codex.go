package transcript

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// codexParser reads Codex CLI rollouts. Nothing links a token_count event
// to the items it covers: the items since the previous counted event form
// one call, closed by the next token_count that records new usage. Each
// line is read into a record (codexline.go), then applied.
type codexParser struct {
	b         *builder
	model     string
	fast      bool
	open      int // index of the call being assembled, -1 between calls
	prevTotal codexTotals
	haveTotal bool
	sawMeta   bool // the first session_meta, the file's own, was read
	burst     codexBurst

	// scan reads each line into rec.
	scan codexScan
	rec  codexRecord
}

func newCodexParser(b *builder) *codexParser { return initCodexParser(new(codexParser), b) }

// initCodexParser makes p a new parser for b, keeping only the scratch
// space of its scanner.
func initCodexParser(p *codexParser, b *builder) *codexParser {
	head, scratch := p.scan.head[:0], p.scan.scratch[:0]
	*p = codexParser{b: b, open: -1, scan: codexScan{measure: b.sizesOnly || b.dropResults, head: head, scratch: scratch}}
	return p
}

type codexTotals struct{ input, cached, cacheWrite, output, reasoning, total int64 }

// totals is a usage object's counts, named name in warnings; a count out
// of range (see tokenCount) is warned about and is 0.
func (p *codexParser) totals(c *codexCounts, line int, name string) codexTotals {
	return codexTotals{
		input:      p.b.tokenCount(c.input, line, name, "input_tokens"),
		cached:     p.b.tokenCount(c.cached, line, name, "cached_input_tokens"),
		cacheWrite: p.b.tokenCount(c.cacheWrite, line, name, "cache_write_input_tokens"),
		output:     p.b.tokenCount(c.output, line, name, "output_tokens"),
		reasoning:  p.b.tokenCount(c.reasoning, line, name, "reasoning_output_tokens"),
		total:      p.b.tokenCount(c.total, line, name, "total_tokens"),
	}
}

// since is what t adds to an earlier running total, field by field; a
// field that went down (a reset) adds nothing.
func (t codexTotals) since(prev codexTotals) codexTotals {
	sub := func(a, b int64) int64 { return max(a-b, 0) }
	return codexTotals{
		input: sub(t.input, prev.input), cached: sub(t.cached, prev.cached),
		cacheWrite: sub(t.cacheWrite, prev.cacheWrite), output: sub(t.output, prev.output),
		reasoning: sub(t.reasoning, prev.reasoning), total: sub(t.total, prev.total),
	}
}

func (t codexTotals) empty() bool {
	return t.input == 0 && t.cached == 0 && t.cacheWrite == 0 && t.output == 0 && t.reasoning == 0
}

// codexBurst finds the replay a fork or sub-agent rollout opens with.
// Codex writes the parent's history into the child in one go, stamped with
// the fork instant, so its usage events come back to back; the child's own
// first request follows a real pause. A file whose first two usage events
// are at most codexBurstPause apart opens with such a burst.
type codexBurst struct {
	seen  int
	first time.Time
	found bool
}

// codexBurstPause is the longest pause inside a replayed burst. Bursts in
// real fork logs span tens of milliseconds and the pause after them several
// seconds (figures ccusage measured and uses).
const codexBurstPause = time.Second

func (b *codexBurst) event(t time.Time) {
	if t.IsZero() || b.seen >= 2 {
		return
	}
	b.seen++
	if b.seen == 1 {
		b.first = t
		return
	}
	d := t.Sub(b.first)
	b.found = d >= 0 && d <= codexBurstPause
}

// replayMark is CountedIn for usage replayed from a parent session that
// was not read.
func replayMark(parentID string) string { return "session " + parentID }

// markBurst marks the usage of the burst a fork or sub-agent rollout opens
// with as its parent's: the usage events from the first on, for as long as
// each follows the one before within codexBurstPause. Calls without usage
// are no events and neither extend nor end the burst.
func markBurst(s *Session, b codexBurst, mark string) {
	if s.ParentID == "" || !b.found {
		return
	}
	prev := b.first
	for i := range s.Calls {
		c := &s.Calls[i]
		if c.Usage == nil {
			continue
		}
		if d := c.Usage.At.Sub(prev); c.Usage.At.IsZero() || d < 0 || d > codexBurstPause {
			return
		}
		c.CountedIn, prev = mark, c.Usage.At
	}
}

// sessionMeta takes the file's identity from its first session_meta. A fork
// or sub-agent rollout embeds its parent's session_meta after its own; that
// one names the parent, not this file.
func (p *codexParser) sessionMeta(f *codexRecord) {
	if p.sawMeta {
		p.b.skip("session_meta (embedded parent)")
		return
	}
	p.sawMeta = true
	s := p.b.s
	payload := f.payload
	if id := stringOf(path(payload, "id")); len(id) > 0 {
		s.ID = string(id)
	} else if id := stringOf(path(payload, "session_id")); len(id) > 0 {
		s.ID = string(id)
	}
	if ver := stringOf(path(payload, "cli_version")); len(ver) > 0 {
		s.Version = string(ver)
	}
	s.Started = codexTime(f.timestamp)
	spawnedBy := string(stringOf(path(payload, "source", "subagent", "thread_spawn", "parent_thread_id")))
	if forkedFrom := string(stringOf(path(payload, "forked_from_id"))); forkedFrom != "" {
		s.ParentID = forkedFrom
	} else {
		s.ParentID = spawnedBy
	}
	switch {
	case path(payload, "source", "subagent") != nil:
		// thread_spawn names the parent; a review or compaction agent
		// names none.
		s.Relation = RelationSubagent
	case s.ParentID != "":
		s.Relation = RelationFork
	}
}

// line reads line n into a record and applies it; ok is false where the
// line is not a JSON object.
func (p *codexParser) line(line []byte, n int) bool {
	f := &p.rec
	if !p.scan.read(line, f) {
		return false
	}
	p.b.repeatedKeys(n, f.dup)
	// typ and kind below stay bytes: a string of them would escape to
	// the warnings, and cost an allocation a line.
	typ := stringOf(f.typ)
	if len(typ) == 0 {
		p.b.warnf(n, `record without a "type" field (session_meta, response_item, event_msg, ...)`)
		return true
	}
	if kindOf(f.payload) != '{' {
		if string(typ) == "compacted" {
			p.compacted(f, n)
			return true
		}
		p.b.warnf(n, "%s record without a payload object", typ)
		return true
	}
	t := codexTime(f.timestamp)
	switch string(typ) {
	case "session_meta":
		p.sessionMeta(f)
	case "turn_context":
		if m := codexModel(f.p.model, f.p.modelName, f.p.metadata); m != "" {
			p.model = m
		}
	case "response_item":
		p.responseItem(f, n, t)
	case "event_msg":
		p.event(f, n, t)
	case "compacted":
		p.compacted(f, n)
	default:
		p.b.skip(string(typ))
	}
	return true
}

func (p *codexParser) compacted(f *codexRecord, line int) {
	p.closeOpen()
	e := Event{Line: line, Time: codexTime(f.timestamp)}
	e.Summary = textOf(path(f.payload, "message"))
	p.b.compaction(e)
}

func (p *codexParser) event(f *codexRecord, line int, t time.Time) {
	sub := string(stringOf(f.p.kind))
	switch sub {
	case "token_count":
		p.tokenCount(&f.p, line, t)
	case "thread_settings_applied":
		if m := stringOf(path(f.payload, "thread_settings", "model")); len(m) > 0 {
			p.model = string(m)
		}
		if tier := path(f.payload, "thread_settings", "service_tier"); tier != nil {
			s := string(stringOf(tier))
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

// tokenCount closes the call being assembled with the usage of one
// request: last_token_usage, or, where the event records only the running
// total, what the total grew by since the previous event. An event whose
// total did not move repeats the previous one.
func (p *codexParser) tokenCount(f *codexPayload, line int, t time.Time) {
	if k := kindOf(f.info); k == 0 || k == 'n' {
		p.b.skip("event_msg/token_count (no info)")
		return
	}
	if !f.hasLast && !f.hasTotal {
		p.b.warnf(line, "token_count without last_token_usage or total_token_usage")
		return
	}
	p.burst.event(t)
	var u codexTotals
	advanced, fromLast := true, f.hasLast
	if f.hasTotal {
		var since codexTotals
		since, advanced, fromLast = p.noteTotal(p.totals(&f.total, line, "total_token_usage."), f.hasLast)
		if fromLast {
			u = p.totals(&f.last, line, "last_token_usage.")
		} else {
			u = since
		}
	} else {
		u = p.totals(&f.last, line, "last_token_usage.")
	}
	// The event's own model, where it names one, is the model from then on.
	model := codexModel(f.model, f.modelName, f.metadata)
	if model == "" {
		model = codexModel(f.infoModel, f.infoModelName, f.infoMetadata)
	}
	p.countUsage(u, fromLast, advanced, model, line, t)
}

// noteTotal takes the running total tt of a token_count event: since is
// what it grew by (from zero before the first total), advanced whether it
// moved, and fromLast whether the event's last_token_usage, where hasLast
// says it has one, is the usage to count.
func (p *codexParser) noteTotal(tt codexTotals, hasLast bool) (since codexTotals, advanced, fromLast bool) {
	advanced = !p.haveTotal || tt != p.prevTotal
	since = tt.since(p.prevTotal)
	p.prevTotal, p.haveTotal = tt, true
	return since, advanced, hasLast && advanced
}

// countUsage closes the call being assembled with the usage u of a
// token_count event, read from its last_token_usage where fromLast is set;
// advanced tells whether its total moved, and model is the model the event
// names ("" for none).
func (p *codexParser) countUsage(u codexTotals, fromLast, advanced bool, model string, line int, t time.Time) {
	// Cached input and cache writes are parts of the input. A difference
	// of totals can break that (a reset, a counter that moved between
	// kinds) and is cut back as ccusage does; a recorded usage that breaks
	// it is warned about.
	if u.cached > u.input {
		if fromLast {
			p.b.warnf(line, "token_count: cached input exceeds input")
		}
		u.cached = u.input
	}
	u.cacheWrite = min(u.cacheWrite, u.input-u.cached)
	if u.empty() {
		if advanced {
			p.b.skip("event_msg/token_count (no usage)")
		} else {
			p.b.skip("event_msg/token_count (total unchanged)")
		}
		return
	}
	if model != "" {
		p.model = model
	}
	c := p.call(line, t)
	c.Usage = &Usage{
		Input: u.input - u.cached - u.cacheWrite, CacheRead: u.cached, CacheCreation: u.cacheWrite,
		Output: u.output, Reasoning: u.reasoning, Fast: p.fast, At: t, LoggedTotal: u.total,
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

func (p *codexParser) responseItem(f *codexRecord, line int, t time.Time) {
	item := &f.p
	kind := stringOf(item.kind)
	switch string(kind) {
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		id, name := stringOf(item.callID), stringOf(item.name)
		if len(id) == 0 && (string(kind) == "function_call" || string(kind) == "custom_tool_call") {
			p.b.warnf(line, "%s without a call_id", kind)
		}
		c := p.call(line, t)
		if p.b.totals {
			p.b.noteToolCall(c.Index, id, name, p.totalsInput(f, kind), line)
			return
		}
		var input []byte
		switch string(kind) {
		case "function_call":
			input = rawJSON(p.scan.scratchText(item.arguments)) // a copy
		case "custom_tool_call":
			input = quoteJSON(textOf(item.input))
		default:
			if len(name) == 0 {
				name = kind[:len(kind)-len("_call")]
			}
			if a := path(f.payload, "action"); a != nil {
				input = deduped(nil, a)
			}
		}
		p.b.addToolCall(c.Index, ToolCall{ID: share(&p.scan.lastID, id), Name: share(&p.scan.lastName, name), Input: input}, line)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		p.output(item, line, t)
	case "message":
		role := string(stringOf(item.role))
		text, images := "", 0
		if !p.b.sizesOnly {
			text, images, _ = codexContent(item.content)
		} else if _, n, _, ok := p.scan.measureContent(item.content, false); ok {
			images = n // the text is valid, and not kept
		} else {
			text, images, _ = codexContent(item.content)
		}
		if role == "assistant" {
			c := p.call(line, t)
			c.Text += p.b.text(line, text)
			return
		}
		p.b.addPrompt(Prompt{Line: line, Text: text, Images: images, Meta: role != "user"})
	case "reasoning":
		p.call(line, t)
	default:
		p.b.skip("response_item/" + string(kind))
	}
}

// totalsInput is a tool call's input as far as a reader keeping totals
// needs it, which keeps no input but warns where it is not valid UTF-8:
// the input where it may not be, nil where it is. A function's arguments
// are kept as read where they are JSON, else quoted, as a custom tool's
// input is, which makes any text valid UTF-8.
func (p *codexParser) totalsInput(f *codexRecord, kind []byte) []byte {
	switch string(kind) {
	case "function_call":
		// Unescaping keeps a text's validity as UTF-8 (an escape gives
		// valid UTF-8 or stays as written), so the arguments are
		// unescaped only where they are not valid as written.
		if raw := f.p.arguments; kindOf(raw) != '"' || utf8.Valid(raw[1:len(raw)-1]) {
			return nil
		}
		if args := stringOf(f.p.arguments); json.Valid(args) {
			return args
		}
		return nil
	case "custom_tool_call":
		return nil
	}
	if a := path(f.payload, "action"); a != nil {
		return deduped(nil, a)
	}
	return nil
}

func (p *codexParser) output(item *codexPayload, line int, t time.Time) {
	id := stringOf(item.callID)
	if len(id) == 0 {
		p.b.warnf(line, "tool output without a call_id")
	}
	r := ToolResult{Line: line, Time: t}
	c := &p.scan
	c.head = c.head[:0]
	out := item.output
	switch kindOf(out) {
	case 0, 'n':
	case '"':
		if item.outputMeasured {
			r.DroppedBytes = item.outputSize
			c.appendHead(out[1:len(out)-1], codexHeadBytes)
		} else {
			r.Text = textOf(out)
		}
		if item.outputAt <= math.MaxInt32 {
			r.TextAt = int32(item.outputAt)
		}
	case '[':
		ok := false
		if c.measure {
			r.DroppedBytes, r.Images, r.Other, ok = c.measureContent(out, true)
		}
		if !ok {
			c.head = c.head[:0]
			r.DroppedBytes = 0
			r.Text, r.Images, r.Other = codexContent(out)
		}
	case '{':
		// Older rollouts: {"content": "...", "success": bool}.
		content := member(out, "content", true, nil)
		ok := false
		if c.measure && kindOf(content) == '"' {
			r.DroppedBytes, _, _, ok = c.measureContent(content, true)
		}
		if !ok {
			c.head = c.head[:0]
			r.DroppedBytes = 0
			r.Text = textOf(content)
		}
		if kindOf(member(out, "success", true, nil)) == 'f' {
			r.IsError = true
		}
	default:
		p.b.warnf(line, "tool output is a %s, not text or items", typeName(kindOf(out)))
	}
	if r.Text != "" {
		c.head = append(c.head[:0], r.Text[:min(len(r.Text), codexHeadBytes)]...)
	}
	if codexFailed(c.head) {
		r.IsError = true
	}
	// The call in progress is the last one: outputs file after it and reach
	// the model in the next call.
	if p.b.totals {
		p.b.addResultOf(r, id)
		return
	}
	r.CallID = share(&c.lastID, id)
	p.b.addResult(r)
}

// codexContent joins input_text/output_text items and counts images.
func codexContent(v []byte) (text string, images, other int) {
	if kindOf(v) == '"' {
		return textOf(v), 0, 0
	}
	var buf []byte
	elements(v, func(it []byte) {
		switch string(stringOf(member(it, "type", true, nil))) {
		case "input_text", "output_text", "text":
			buf = append(buf, stringOf(member(it, "text", true, nil))...)
		case "input_image", "image":
			images++
		default:
			other++
		}
	})
	return string(buf), images, other
}

// codexHeadBytes is how much of an exec output's text its header can fill.
const codexHeadBytes = 512

// codexFailed tells from the head of an exec output's text (its first
// codexHeadBytes bytes, or all of a shorter text) whether the command
// failed: a non-zero exit code in its header or, from 0.144's exec tool,
// which heads its output "Script completed" or "Script failed", the latter
// (a patch that did not apply, a script that threw).
func codexFailed(head []byte) bool {
	if code, ok := codexExitCode(head); ok && code != 0 {
		return true
	}
	return bytes.HasPrefix(head, []byte("Script failed\n"))
}

// codexExitCode finds "Process exited with code N" in an exec output's header.
func codexExitCode(text []byte) (int, bool) {
	const marker = "Process exited with code "
	head := text[:min(len(text), codexHeadBytes)]
	i := bytes.Index(head, []byte(marker))
	if i < 0 {
		return 0, false
	}
	rest := head[i+len(marker):]
	j := 0
	for j < len(rest) && (rest[j] == '-' || rest[j] >= '0' && rest[j] <= '9') {
		j++
	}
	n, err := strconv.Atoi(string(rest[:j]))
	return n, err == nil
}

func (p *codexParser) snapshot() *Session {
	s := snapshotOf(p.b)
	markBurst(s, p.burst, replayMark(s.ParentID))
	return s
}

func (p *codexParser) finish() *Session {
	if p.open >= 0 {
		if c := p.b.s.Calls[p.open]; c.Usage == nil {
			p.b.warnf(c.Line, codexNoLastCount)
		}
		p.closeOpen()
	}
	s := p.b.session()
	markBurst(s, p.burst, replayMark(s.ParentID))
	return s
}

const codexNoLastCount = "the last request has no token count (the log ends before it was recorded)"

// finished is what finish would return now, on a copy: p reads on as if
// the log had not ended, so a log that grows can be continued.
func (p *codexParser) finished() *Session {
	s := snapshotOf(p.b)
	if p.open >= 0 {
		c := &s.Calls[p.open]
		if c.Usage == nil {
			s.WarningCount++
			if len(s.Warnings) < MaxWarnings {
				s.Warnings = append(s.Warnings, Warning{Line: c.Line, Message: codexNoLastCount})
			}
		}
		if c.Model == "" && p.model != "" {
			c.Model = p.model
			if !slices.Contains(s.Models, p.model) {
				s.Models = append(s.Models, p.model)
			}
		}
	}
	markBurst(s, p.burst, replayMark(s.ParentID))
	return s
}
