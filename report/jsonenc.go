package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// A session's JSON is appended field by field rather than by
// encoding/json's reflection, which was a third of `report --format json`'s
// CPU over many sessions (docs/speed.md#report); goccy/go-json, as fast,
// reads Go's runtime internals through unsafe. The bytes are
// encoding/json's, which TestSessionJSONAsStandard holds them to for every
// field of every type here, and for every shared log: where a type gains a
// field, that test fails until it is written here too. The per-session
// parts (totals, policy, warnings) still go through encoding/json.

// sessionJSON is s as encoding/json writes it, or, with calls false, the
// summary a grouped report lists without --calls: without calls, results
// and events, and with the sub-agents' summaries last.
func sessionJSON(s *Session, calls bool) ([]byte, error) {
	size := 4096 // a summary
	if calls {
		size += 896*len(s.Calls) + 448*len(s.Results)
	}
	b, err := appendSessionJSON(make([]byte, 0, size), s, calls)
	if cap(b)-len(b) > len(b)/8 {
		// A report may hold it a while (waiting on the sessions it is
		// reconciled with): not with room it never uses.
		b = bytes.Clone(b)
	}
	return b, err
}

// appendSessionJSON appends sessionJSON's bytes to b.
func appendSessionJSON(b []byte, s *Session, calls bool) ([]byte, error) {
	e := jsonEnc{b: b}
	e.session(s, calls)
	return e.b, e.err
}

// jsonEnc appends JSON to b; err is the first value encoding/json would
// have refused, after which what b holds does not matter.
type jsonEnc struct {
	b   []byte
	err error
}

func (e *jsonEnc) session(s *Session, calls bool) {
	e.raw(`{"path":`)
	e.str(s.Path)
	e.raw(`,"format":`)
	e.str(s.Format)
	e.raw(`,"session_id":`)
	e.str(s.SessionID)
	e.raw(`,"title":`)
	e.str(s.Title)
	e.raw(`,"agent_version":`)
	e.str(s.Version)
	e.raw(`,"parent_id":`)
	e.str(s.ParentID)
	e.raw(`,"relation":`)
	e.str(s.Relation)
	e.raw(`,"models":`)
	jsonList(e, s.Models, func(m *string) { e.str(*m) })
	if calls {
		e.raw(`,"calls":`)
		jsonList(e, s.Calls, e.call)
		e.raw(`,"results":`)
		jsonList(e, s.Results, e.result)
		e.raw(`,"events":`)
		e.std(s.Events)
	}
	e.raw(`,"totals":`)
	e.std(&s.Totals)
	e.raw(`,"warnings":`)
	e.std(s.Warnings)
	e.raw(`,"skipped_records":`)
	e.std(s.Skipped)
	e.raw(`,"lines":`)
	e.int(int64(s.Lines))
	e.raw(`,"policy":`)
	e.std(&s.Policy)
	e.raw(`,"tokens":`)
	e.std(&s.Tokens)
	if calls {
		e.subagents(s.Subagents, calls)
	}
	e.raw(`,"by_tool":`)
	e.std(s.ByTool)
	if !calls {
		// summary's own field, after the embedded session's.
		e.subagents(s.Subagents, calls)
	}
	e.raw("}")
}

func (e *jsonEnc) subagents(subs []*Session, calls bool) {
	if len(subs) == 0 {
		return
	}
	e.raw(`,"subagents":[`)
	for i, sub := range subs {
		if i > 0 {
			e.raw(",")
		}
		if sub == nil {
			e.raw("null")
			continue
		}
		e.session(sub, calls)
	}
	e.raw("]")
}

func (e *jsonEnc) call(c *Call) {
	e.raw(`{"index":`)
	e.int(int64(c.Index))
	e.raw(`,"line":`)
	e.int(int64(c.Line))
	e.raw(`,"time":`)
	e.time(c.Time)
	e.raw(`,"model":`)
	e.str(c.Model)
	e.raw(`,"segment":`)
	e.int(int64(c.Segment))
	e.raw(`,"sidechain":`)
	e.bool(c.Sidechain)
	e.raw(`,"recorded":`)
	if c.Recorded == nil {
		e.raw("null")
	} else {
		e.tokens(c.Recorded)
	}
	e.raw(`,"prompt_tokens":`)
	e.intPtr(c.PromptTokens)
	e.raw(`,"output_tokens":`)
	e.intPtr(c.OutputTokens)
	e.raw(`,"output_lower_bound":`)
	e.bool(c.OutputLowerBound)
	e.raw(`,"cost_usd":`)
	e.floatPtr(c.CostUSD)
	e.raw(`,"tool_calls":`)
	e.int(int64(c.ToolCalls))
	e.raw(`,"prompt_tokens_after":`)
	e.intPtr(c.PromptTokensAfter)
	e.raw(`,"cost_usd_after":`)
	e.floatPtr(c.CostUSDAfter)
	e.raw(`,"saved_tokens":`)
	e.intPtr(c.SavedTokens)
	e.raw(`,"counted_in":`)
	if c.CountedIn == nil {
		e.raw("null")
	} else {
		e.str(*c.CountedIn)
	}
	e.raw(`,"extra":`)
	jsonList(e, c.Extra, func(x *ExtraUsage) {
		e.raw(`{"model":`)
		e.str(x.Model)
		e.raw(`,"recorded":`)
		e.tokens(&x.Recorded)
		e.raw(`,"cost_usd":`)
		e.floatPtr(x.CostUSD)
		e.raw("}")
	})
	e.raw(`,"cost_parts":`)
	if p := c.CostParts; p == nil {
		e.raw("null")
	} else {
		e.raw(`{"new_context":`)
		e.float(p.NewContext)
		e.raw(`,"carried":`)
		e.float(p.Carried)
		e.raw(`,"cache_rewrite":`)
		e.float(p.CacheRewrite)
		e.raw(`,"long_context":`)
		e.float(p.LongContext)
		e.raw(`,"output":`)
		e.float(p.Output)
		e.raw("}")
	}
	e.raw(`,"cost_detail":`)
	if d := c.CostDetail; d == nil {
		e.raw("null")
	} else {
		e.costDetail(d)
	}
	e.raw("}")
}

func (e *jsonEnc) costDetail(d *CostDetail) {
	e.raw(`{"cause":`)
	e.str(d.Cause)
	e.raw(`,"new_tokens":`)
	e.int(d.NewTokens)
	e.raw(`,"carried_tokens":`)
	e.int(d.CarriedTokens)
	e.raw(`,"rewrite_tokens":`)
	e.int(d.RewriteTokens)
	e.raw(`,"growth_tokens":`)
	e.int(d.GrowthTokens)
	e.raw(`,"after_call":`)
	e.smallIntPtr(d.AfterCall)
	k := &d.ByKind
	e.raw(`,"by_kind":{"input":`)
	e.float(k.Input)
	e.raw(`,"cache_creation":`)
	e.float(k.CacheCreation)
	e.raw(`,"cache_read":`)
	e.float(k.CacheRead)
	e.raw(`,"output":`)
	e.float(k.Output)
	e.raw(`,"tool_results":`)
	e.floatPtr(k.ToolResults)
	e.raw(`},"rewrite":`)
	if r := d.Rewrite; r == nil {
		e.raw("null")
	} else {
		e.raw(`{"tokens":`)
		e.int(r.Tokens)
		e.raw(`,"usd":`)
		e.float(r.USD)
		e.raw(`,"why":`)
		e.str(r.Why)
		e.raw(`,"after_call":`)
		e.int(int64(r.AfterCall))
		e.raw(`,"pause_seconds":`)
		e.floatPtr(r.PauseSeconds)
		e.raw("}")
	}
	e.raw("}")
}

func (e *jsonEnc) result(r *Result) {
	e.raw(`{"call_id":`)
	e.str(r.CallID)
	e.raw(`,"tool":`)
	e.str(r.Tool)
	e.raw(`,"call_index":`)
	e.int(int64(r.CallIndex))
	e.raw(`,"line":`)
	e.int(int64(r.Line))
	e.raw(`,"is_error":`)
	e.bool(r.IsError)
	e.raw(`,"bytes":`)
	e.int(int64(r.Bytes))
	e.raw(`,"images":`)
	e.int(int64(r.Images))
	e.raw(`,"clipped_by_log":`)
	e.bool(r.Clipped)
	e.raw(`,"action":`)
	e.str(r.Action)
	e.raw(`,"reason":`)
	e.str(r.Reason)
	e.raw(`,"bytes_after":`)
	e.int(r.BytesAfter)
	e.raw(`,"tokens":`)
	e.intPtr(r.Tokens)
	e.raw(`,"tokens_after":`)
	e.intPtr(r.TokensAfter)
	e.raw(`,"saved_tokens":`)
	e.int(r.SavedTokens)
	e.raw(`,"sent_at_call":`)
	e.int(int64(r.SentAt))
	e.raw(`,"spill_path":`)
	e.str(r.SpillPath)
	e.raw(`,"spill_locator":`)
	e.str(r.Locator)
	e.raw(`,"repeat_of":`)
	e.smallIntPtr(r.RepeatOf)
	e.raw(`,"stale":`)
	e.bool(r.Stale)
	e.raw(`,"carry_cost_usd":`)
	e.floatPtr(r.CarryCost)
	e.raw(`,"carry_calls":`)
	e.int(int64(r.CarryCalls))
	e.raw(`,"warning":`)
	e.str(r.Warning)
	e.raw(`,"hazard":`)
	if h := r.Hazard; h == nil {
		e.raw("null")
	} else {
		e.raw(`{"kind":`)
		e.str(h.Kind)
		e.raw(`,"retrievable":`)
		e.bool(h.Retrievable)
		if h.ExtraTokens != nil {
			e.raw(`,"extra_tokens":`)
			e.int(*h.ExtraTokens)
		}
		e.raw(`,"call_index":`)
		e.int(int64(h.CallIndex))
		e.raw(`,"evidence":`)
		e.str(h.Evidence)
		e.raw("}")
	}
	if r.Text != nil {
		e.raw(`,"text":`)
		e.str(*r.Text)
	}
	if r.TextAfter != nil {
		e.raw(`,"text_after":`)
		e.str(*r.TextAfter)
	}
	e.raw(`,"realized":`)
	if r.Realized == nil {
		e.raw("null")
	} else {
		e.std(r.Realized)
	}
	e.raw("}")
}

// jsonList appends items as a JSON array, null for a nil slice.
func jsonList[T any](e *jsonEnc, items []T, each func(*T)) {
	if items == nil {
		e.raw("null")
		return
	}
	e.raw("[")
	for i := range items {
		if i > 0 {
			e.raw(",")
		}
		each(&items[i])
	}
	e.raw("]")
}

func (e *jsonEnc) tokens(t *Tokens) {
	e.raw(`{"input":`)
	e.int(t.Input)
	e.raw(`,"cache_creation":`)
	e.int(t.CacheCreation)
	e.raw(`,"cache_read":`)
	e.int(t.CacheRead)
	e.raw(`,"output":`)
	e.int(t.Output)
	e.raw("}")
}

func (e *jsonEnc) raw(s string) { e.b = append(e.b, s...) }

func (e *jsonEnc) int(n int64) { e.b = strconv.AppendInt(e.b, n, 10) }

func (e *jsonEnc) intPtr(n *int64) {
	if n == nil {
		e.raw("null")
		return
	}
	e.int(*n)
}

func (e *jsonEnc) smallIntPtr(n *int) {
	if n == nil {
		e.raw("null")
		return
	}
	e.int(int64(*n))
}

func (e *jsonEnc) bool(v bool) {
	if v {
		e.raw("true")
	} else {
		e.raw("false")
	}
}

// float is encoding/json's float64: ES6 number formatting, and an error
// for what JSON cannot hold.
func (e *jsonEnc) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.fail(fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64)))
		e.raw("null")
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, 64)
	if n := len(e.b); format == 'e' && n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
		e.b[n-2] = e.b[n-1] // e-09 as e-9
		e.b = e.b[:n-1]
	}
}

func (e *jsonEnc) floatPtr(f *float64) {
	if f == nil {
		e.raw("null")
		return
	}
	e.float(*f)
}

// time is time.Time's MarshalJSON: RFC 3339 with nanoseconds, refused for
// years it cannot write.
func (e *jsonEnc) time(t *time.Time) {
	if t == nil {
		e.raw("null")
		return
	}
	e.b = append(e.b, '"')
	b, err := t.AppendText(e.b)
	if err != nil {
		e.fail(fmt.Errorf("json: %w", err))
		return
	}
	e.b = append(b, '"')
}

// std appends v as encoding/json writes it.
func (e *jsonEnc) std(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		e.fail(err)
		return
	}
	e.b = append(e.b, data...)
}

func (e *jsonEnc) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// str is encoding/json's string with HTML escaping: the quote, the
// backslash, controls, <, > and &, invalid UTF-8 as U+FFFD, and U+2028
// and U+2029.
func (e *jsonEnc) str(s string) {
	b := append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	e.b = append(b, '"')
}

const hexDigits = "0123456789abcdef"

// jsonSafe holds the ASCII bytes a JSON string with HTML escaping carries
// as they are.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := range safe {
		safe[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()
