package transcript

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"
)

// codexParser reads Codex CLI rollouts. Nothing links a token_count event
// to the items it covers: the items since the previous counted event form
// one call, closed by the next token_count that records new usage.
//
// Keeping sizes only, most lines are read by the fast path of
// codexscan.go instead: a change to what this reader keeps from a line
// must be made there too.
type codexParser struct {
	b         *builder
	model     string
	fast      bool
	open      int // index of the call being assembled, -1 between calls
	prevTotal codexTotals
	haveTotal bool
	sawMeta   bool // the first session_meta, the file's own, was read
	burst     codexBurst

	// The fast path's (see codexscan.go): its scanner and the record it
	// reads.
	scan    codexScan
	fastRec codexFast
}

func newCodexParser(b *builder) *codexParser { return &codexParser{b: b, open: -1} }

type codexTotals struct{ input, cached, cacheWrite, output, reasoning, total int64 }

// readCodexTotals reads a usage object, named name in warnings; a count
// out of range (see tokenCount) is warned about and is 0.
func (p *codexParser) readCodexTotals(v *fastjson.Value, line int, name string) codexTotals {
	n := func(key string) int64 { return p.b.tokenCount(v.Get(key), line, name, key) }
	return codexTotals{
		input: n("input_tokens"), cached: n("cached_input_tokens"), cacheWrite: n("cache_write_input_tokens"),
		output: n("output_tokens"), reasoning: n("reasoning_output_tokens"), total: n("total_tokens"),
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

// codexTime reads a record's timestamp: RFC 3339 text, or a number of
// seconds (milliseconds above 10^10) since the epoch.
func codexTime(v *fastjson.Value) time.Time {
	ts := v.Get("timestamp")
	if ts == nil {
		return time.Time{}
	}
	switch ts.Type() {
	case fastjson.TypeString:
		return parseTime(bytes.TrimSpace(ts.GetStringBytes()))
	case fastjson.TypeNumber:
		n, err := ts.Uint64()
		if err != nil || n > 1<<62 {
			return time.Time{}
		}
		if n > 10_000_000_000 {
			return time.UnixMilli(int64(n)).UTC()
		}
		return time.Unix(int64(n), 0).UTC()
	}
	return time.Time{}
}

// codexModel is the model an object names: model, model_name or
// metadata.model, the first that is not blank.
func codexModel(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	for _, path := range [][]string{{"model"}, {"model_name"}, {"metadata", "model"}} {
		if m := strings.TrimSpace(string(v.GetStringBytes(path...))); m != "" {
			return m
		}
	}
	return ""
}

// sessionMeta takes the file's identity from its first session_meta. A fork
// or sub-agent rollout embeds its parent's session_meta after its own; that
// one names the parent, not this file.
func (p *codexParser) sessionMeta(v, payload *fastjson.Value) {
	if p.sawMeta {
		p.b.skip("session_meta (embedded parent)")
		return
	}
	p.sawMeta = true
	s := p.b.s
	if id := payload.GetStringBytes("id"); len(id) > 0 {
		s.ID = string(id)
	} else if id := payload.GetStringBytes("session_id"); len(id) > 0 {
		s.ID = string(id)
	}
	if ver := payload.GetStringBytes("cli_version"); len(ver) > 0 {
		s.Version = string(ver)
	}
	s.Started = codexTime(v)
	spawnedBy := string(payload.GetStringBytes("source", "subagent", "thread_spawn", "parent_thread_id"))
	if forkedFrom := string(payload.GetStringBytes("forked_from_id")); forkedFrom != "" {
		s.ParentID = forkedFrom
	} else {
		s.ParentID = spawnedBy
	}
	switch {
	case payload.Exists("source", "subagent"):
		// thread_spawn names the parent; a review or compaction agent
		// names none.
		s.Relation = RelationSubagent
	case s.ParentID != "":
		s.Relation = RelationFork
	}
}

func (p *codexParser) record(v *fastjson.Value, line int) {
	p.b.dedupe(v, line)
	typ := string(v.GetStringBytes("type"))
	if typ == "" {
		p.b.warnf(line, `record without a "type" field (session_meta, response_item, event_msg, ...)`)
		return
	}
	payload := v.Get("payload")
	if payload == nil || payload.Type() != fastjson.TypeObject {
		if typ == "compacted" {
			p.compacted(v, line)
			return
		}
		p.b.warnf(line, "%s record without a payload object", typ)
		return
	}
	t := codexTime(v)
	switch typ {
	case "session_meta":
		p.sessionMeta(v, payload)
	case "turn_context":
		if m := codexModel(payload); m != "" {
			p.model = m
		}
	case "response_item":
		p.responseItem(payload, line, t)
	case "event_msg":
		p.event(payload, line, t)
	case "compacted":
		p.compacted(v, line)
	default:
		p.b.skip(typ)
	}
}

func (p *codexParser) compacted(v *fastjson.Value, line int) {
	p.closeOpen()
	e := Event{Line: line, Time: codexTime(v)}
	e.Summary = string(v.GetStringBytes("payload", "message"))
	p.b.compaction(e)
}

func (p *codexParser) event(payload *fastjson.Value, line int, t time.Time) {
	sub := string(payload.GetStringBytes("type"))
	switch sub {
	case "token_count":
		p.tokenCount(payload, line, t)
	case "thread_settings_applied":
		if m := payload.GetStringBytes("thread_settings", "model"); len(m) > 0 {
			p.model = string(m)
		}
		if tier := payload.Get("thread_settings", "service_tier"); tier != nil {
			s := string(tier.GetStringBytes())
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
func (p *codexParser) tokenCount(payload *fastjson.Value, line int, t time.Time) {
	info := payload.Get("info")
	if info == nil || info.Type() == fastjson.TypeNull {
		p.b.skip("event_msg/token_count (no info)")
		return
	}
	last, total := info.Get("last_token_usage"), info.Get("total_token_usage")
	hasLast := last != nil && last.Type() == fastjson.TypeObject
	hasTotal := total != nil && total.Type() == fastjson.TypeObject
	if !hasLast && !hasTotal {
		p.b.warnf(line, "token_count without last_token_usage or total_token_usage")
		return
	}
	p.burst.event(t)
	var u codexTotals
	advanced, fromLast := true, hasLast
	if hasTotal {
		var since codexTotals
		since, advanced, fromLast = p.noteTotal(p.readCodexTotals(total, line, "total_token_usage."), hasLast)
		if fromLast {
			u = p.readCodexTotals(last, line, "last_token_usage.")
		} else {
			u = since
		}
	} else {
		u = p.readCodexTotals(last, line, "last_token_usage.")
	}
	// The event's own model, where it names one, is the model from then on.
	model := codexModel(payload)
	if model == "" {
		model = codexModel(info)
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

func (p *codexParser) responseItem(item *fastjson.Value, line int, t time.Time) {
	kind := string(item.GetStringBytes("type"))
	switch kind {
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		c := p.call(line, t)
		tc := ToolCall{ID: string(item.GetStringBytes("call_id")), Name: string(item.GetStringBytes("name"))}
		switch kind {
		case "function_call":
			tc.Input = rawJSON(item.GetStringBytes("arguments"))
		case "custom_tool_call":
			tc.Input = quoteJSON(string(item.GetStringBytes("input")))
		default:
			if tc.Name == "" {
				tc.Name = kind[:len(kind)-len("_call")]
			}
			if a := item.Get("action"); a != nil {
				tc.Input = p.b.marshal(a)
			}
		}
		if tc.ID == "" && (kind == "function_call" || kind == "custom_tool_call") {
			p.b.warnf(line, "%s without a call_id", kind)
		}
		p.b.addToolCall(c.Index, tc, line)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		p.output(item, line, t)
	case "message":
		role := string(item.GetStringBytes("role"))
		text, images, _ := codexContent(item.Get("content"))
		if role == "assistant" {
			c := p.call(line, t)
			c.Text += p.b.text(line, text)
			return
		}
		p.b.addPrompt(Prompt{Line: line, Text: text, Images: images, Meta: role != "user"})
	case "reasoning":
		p.call(line, t)
	default:
		p.b.skip("response_item/" + kind)
	}
}

func (p *codexParser) output(item *fastjson.Value, line int, t time.Time) {
	r := ToolResult{CallID: string(item.GetStringBytes("call_id")), Line: line, Time: t}
	if r.CallID == "" {
		p.b.warnf(line, "tool output without a call_id")
	}
	out := item.Get("output")
	switch {
	case out == nil || out.Type() == fastjson.TypeNull:
	case out.Type() == fastjson.TypeString:
		r.Text = string(out.GetStringBytes())
	case out.Type() == fastjson.TypeArray:
		r.Text, r.Images, r.Other = codexContent(out)
	case out.Type() == fastjson.TypeObject:
		// Older rollouts: {"content": "...", "success": bool}.
		r.Text = string(out.GetStringBytes("content"))
		if s := out.Get("success"); s != nil && s.Type() == fastjson.TypeFalse {
			r.IsError = true
		}
	default:
		p.b.warnf(line, "tool output is a %s, not text or items", out.Type())
	}
	if codexFailed([]byte(r.Text[:min(len(r.Text), codexHeadBytes)])) {
		r.IsError = true
	}
	// The call in progress is the last one: outputs file after it and reach
	// the model in the next call.
	p.b.addResult(r)
}

// codexContent joins input_text/output_text items and counts images.
func codexContent(v *fastjson.Value) (text string, images, other int) {
	if v == nil {
		return "", 0, 0
	}
	if v.Type() == fastjson.TypeString {
		return string(v.GetStringBytes()), 0, 0
	}
	var buf bytes.Buffer
	for _, it := range v.GetArray() {
		switch string(it.GetStringBytes("type")) {
		case "input_text", "output_text", "text":
			buf.Write(it.GetStringBytes("text"))
		case "input_image", "image":
			images++
		default:
			other++
		}
	}
	return buf.String(), images, other
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
