package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/spillway-dev/spillway/internal/validutf8"
)

// builder holds what every reader needs while it assembles a Session: the
// calls so far, where each tool call lives, the current context segment and
// the warnings.
type builder struct {
	s *Session
	// toolCalls maps an id to the latest call of it, an index into refs:
	// the calls of an id form a list from there, through earlier. Both
	// are made at the first tool call: a reader keeping totals only
	// (Options.TotalsOnly) makes none.
	toolCalls map[string]int
	refs      []toolRef
	// names holds the tool names read so far, so that each call need not
	// copy its own.
	names     map[string]string
	models    map[string]bool
	segment   int
	sidechain bool
	// leading collects what arrived before the first call.
	leading Call
	// invalidLine is the last line warned about for invalid UTF-8, dupLine
	// the last warned about for a repeated key.
	invalidLine, dupLine int
	// sizesOnly: see Options.SizesOnly.
	sizesOnly bool
	// lines is how many lines the input is expected to have.
	lines int
	// dropResults: Options.DropResultTexts.
	dropResults bool
	// totals: Options.TotalsOnly, with SizesOnly. No tool call, prompt or
	// link of a result to its call is kept; toolIDs maps the hash of each
	// tool call id (by seed) to the latest call that made one of it, for
	// the warnings toolCalls gives otherwise.
	totals  bool
	toolIDs hashTable
	seed    maphash.Seed
	// The arrays the calls' tool calls, results and prompts are appended
	// in: most calls have one or two of each, and an array of their own
	// for each was a third of the allocations of reading.
	toolCallArr chunk[ToolCall]
	resultArr   chunk[ToolResult]
	promptArr   chunk[Prompt]
	// usages holds the usage the calls keep, one slot each. The slots
	// before usagesSeen may have been seen outside the builder, in a
	// snapshot or the session it returned, and never change.
	usages     []Usage
	usagesSeen int
	// arena, when set, gives the session's arrays (Options.Arena).
	arena *Arena
	// ids holds the calls' message and request ids.
	ids stringSlab
	// size is the input's size where known, and read how many of its
	// bytes the lines fed so far took, for growing Calls (growCalls).
	size, read int64
}

// keepUsage returns a pointer to a copy of u, to replace old (which may
// be nil): old itself, when it is the newest slot and no one else has
// seen it (the lines of a response follow one another, each replacing
// the last one's usage), else a slot of its own.
func (b *builder) keepUsage(old *Usage, u Usage) *Usage {
	if n := len(b.usages); n > b.usagesSeen && old == &b.usages[n-1] {
		*old = u
		return old
	}
	if len(b.usages) == cap(b.usages) {
		n := max(min(2*cap(b.usages), maxChunk), 16)
		if b.arena != nil {
			b.usages = b.arena.usages.get(n)
		} else {
			b.usages = make([]Usage, 0, n)
		}
		b.usagesSeen = 0
	}
	b.usages = append(b.usages, u)
	return &b.usages[len(b.usages)-1]
}

// chunk is an array that the slices of several owners are cut from, one
// after another: the owner whose slice ends where the array's filled part
// does appends in place, any other as append does. Each slice is cut with
// its capacity at its length, so that an append by anyone else copies it
// rather than writing over the next owner's elements.
type chunk[T any] struct {
	arr  []T
	from *pile[T] // gives the arrays, when set (Options.Arena)
}

// maxChunk bounds a chunk's length, and so what a chunk holds unused.
const maxChunk = 2048

// append returns s with v appended.
func (c *chunk[T]) append(s []T, v T) []T {
	n := len(s)
	if n > 0 && (n > len(c.arr) || &c.arr[len(c.arr)-n] != &s[0]) {
		return append(s, v)
	}
	if len(c.arr) == cap(c.arr) {
		// The slice ending the full array moves to the next one.
		// Starting small: a result read again on its own line
		// (app.FileTexts) decodes a session of one line, and a first
		// array of 16 results was 8% of what re-tuning the 2 GB fleet
		// allocated.
		size := max(min(2*cap(c.arr), maxChunk), 2, 2*(n+1))
		var arr []T
		if c.from != nil {
			arr = c.from.get(size)[:n]
		} else {
			arr = make([]T, n, size)
		}
		copy(arr, s)
		c.arr = arr
	}
	c.arr = append(c.arr, v)
	end := len(c.arr)
	return c.arr[end-n-1 : end : end]
}

type toolRef struct {
	call int // index into s.Calls
	pos  int // index into that call's ToolCalls
	// matched is set once a result is paired with the call; earlier is the
	// call named by the same id before it, an index into refs, or -1.
	matched bool
	earlier int
}

// newBuilder starts a session expected to run to about lines lines.
func newBuilder(path string, format Format, lines int) *builder {
	return makeBuilder(nil, path, format, lines, nil)
}

// makeBuilder is newBuilder whose session's arrays come from arena, when
// it is not nil, made in the memory of reuse and its session, when it is
// not nil (LineReader).
func makeBuilder(reuse *builder, path string, format Format, lines int, arena *Arena) *builder {
	var b *builder
	if reuse == nil {
		b = &builder{s: &Session{Skipped: map[string]int{}}, models: map[string]bool{}}
	} else {
		b = reuse
		s, skipped, models := b.s, b.s.Skipped, b.models
		clear(skipped)
		clear(models)
		*s = Session{Skipped: skipped}
		*b = builder{s: s, models: models}
	}
	b.s.Path, b.s.Format = path, format
	b.leading, b.lines, b.arena = Call{Index: -1}, lines, arena
	if arena != nil {
		b.s.Calls = arena.calls.get(lines / 3)
		b.toolCallArr.from, b.resultArr.from, b.promptArr.from = &arena.toolCalls, &arena.results, &arena.prompts
	} else {
		b.s.Calls = make([]Call, 0, lines/3)
	}
	return b
}

func (b *builder) warnf(line int, format string, args ...any) {
	b.s.WarningCount++
	if len(b.s.Warnings) < MaxWarnings {
		b.s.Warnings = append(b.s.Warnings, Warning{Line: line, Message: fmt.Sprintf(format, args...)})
	}
}

func (b *builder) skip(kind string) { b.s.Skipped[kind]++ }

// valid returns s with invalid UTF-8 replaced by U+FFFD, warning once per
// line. Only the text spillway keeps is checked: what it ignores cannot
// mislead it.
func (b *builder) valid(line int, s string) string {
	if validutf8.String(s) {
		return s
	}
	b.noteInvalid(line)
	return strings.ToValidUTF8(s, "\uFFFD")
}

// noteInvalid warns, once per line, that a text of line n is not valid
// UTF-8.
func (b *builder) noteInvalid(line int) {
	if line != b.invalidLine {
		b.invalidLine = line
		b.warnf(line, "invalid UTF-8 replaced with U+FFFD")
	}
}

// text returns s made valid to keep, or "" when the reader keeps only
// sizes; s is checked either way, so both modes warn alike.
func (b *builder) text(line int, s string) string {
	s = b.valid(line, s)
	if b.sizesOnly {
		return ""
	}
	return s
}

// keptText is text for a string the reader read: its text made valid,
// or "" when the reader keeps only sizes, having checked it either way so
// that both modes warn alike (a string it measured is valid).
func (b *builder) keptText(line int, t *claudeText) string {
	if !t.decoded {
		return "" // measured: valid
	}
	return b.text(line, t.text)
}

// newCall appends a call and returns it. Pointers into s.Calls stay valid
// only until the next newCall.
func (b *builder) newCall(line int, t time.Time, model string, sidechain bool) *Call {
	if sidechain != b.sidechain {
		kind := EventSidechainEnd
		if sidechain {
			kind = EventSidechainStart
		}
		b.s.Events = append(b.s.Events, Event{Kind: kind, Line: line, Time: t, BeforeCall: len(b.s.Calls)})
		b.sidechain = sidechain
	}
	b.noteModel(model)
	if len(b.s.Calls) == cap(b.s.Calls) {
		b.growCalls()
	}
	b.s.Calls = append(b.s.Calls, Call{
		Index: len(b.s.Calls), Line: line, Time: t, Model: model,
		Segment: b.segment, Sidechain: sidechain,
	})
	return &b.s.Calls[len(b.s.Calls)-1]
}

// growCalls makes room in Calls for the calls the rest of the input
// holds, projected from the part read so far. Calls grew by a quarter each
// time, and a 1 GB log's 180,000 calls (46 MB) were copied four times over,
// a sixth of its reading. The projection is bounded to four times the calls
// so far, for an input whose first part is unlike the rest.
func (b *builder) growCalls() {
	n := len(b.s.Calls)
	want := n + n/4 + 16
	if b.size > 0 && b.read > 0 && b.read < b.size {
		projected := int(float64(n)*float64(b.size)/float64(b.read)*1.05) + 16
		want = max(want, min(projected, 4*n))
	}
	if b.arena == nil {
		b.s.Calls = slices.Grow(b.s.Calls, want-n)
		return
	}
	b.s.Calls = append(b.arena.calls.get(want), b.s.Calls...)
}

func (b *builder) noteModel(model string) {
	if model == "" || b.models[model] {
		return
	}
	b.models[model] = true
	b.s.Models = append(b.s.Models, model)
}

// last is the call that new results and prompts belong after: the latest
// of the log's own, not a copy of a sub-agent's (AgentCopy).
func (b *builder) last() *Call {
	i := len(b.s.Calls) - 1
	for i >= 0 && b.s.Calls[i].AgentCopy {
		i--
	}
	if i < 0 {
		return &b.leading
	}
	return &b.s.Calls[i]
}

// addToolCall records a tool call on the given call. An id the same call
// already holds (a line of the response read again) adds nothing; an id of
// an earlier call is kept for both, and warned about: results then pair
// with the latest call of the id not yet answered.
func (b *builder) addToolCall(callIndex int, tc ToolCall, line int) {
	tc.Name = b.valid(line, tc.Name)
	if !utf8.Valid(tc.Input) {
		tc.Input = json.RawMessage(b.valid(line, string(tc.Input)))
	}
	if b.totals {
		b.noteToolCall(callIndex, []byte(tc.ID), nil, nil, line) // name and input checked above
		return
	}
	c := &b.s.Calls[callIndex]
	ref := toolRef{call: callIndex, pos: len(c.ToolCalls), earlier: -1}
	if b.toolCalls == nil {
		b.toolCalls = make(map[string]int, b.lines/3)
		b.refs = make([]toolRef, 0, b.lines/3)
	}
	if tc.ID != "" {
		if prev, dup := b.toolCalls[tc.ID]; dup {
			if b.refs[prev].call == callIndex {
				return
			}
			b.warnf(line, "tool call id %q repeats the id of a call on line %d", tc.ID, b.s.Calls[b.refs[prev].call].Line)
			ref.earlier = prev
		}
		b.toolCalls[tc.ID] = len(b.refs)
		b.refs = append(b.refs, ref)
	}
	c.ToolCalls = b.toolCallArr.append(c.ToolCalls, tc)
}

// noteToolCall is addToolCall for a reader keeping totals only, with the
// call's id, name and input as read: it warns as addToolCall does, of
// invalid UTF-8 in the name or input and of an id an earlier call made.
func (b *builder) noteToolCall(callIndex int, id, name, input []byte, line int) {
	if !utf8.Valid(name) {
		b.valid(line, string(name))
	}
	if !utf8.Valid(input) {
		b.valid(line, string(input))
	}
	if len(id) > 0 {
		if e := b.noteToolKey(callIndex, maphash.Bytes(b.seed, id)); e >= 0 {
			b.warnf(line, "tool call id %q repeats the id of a call on line %d", id, b.s.Calls[e].Line)
		}
	}
}

// noteToolKey files a tool call id's hash, key, in toolIDs under call
// callIndex and returns the earlier call that made one of the id, -1 for
// none: a line of the same call read again is none.
func (b *builder) noteToolKey(callIndex int, key uint64) (earlier int) {
	if b.toolIDs.keys == nil {
		b.toolIDs = newHashTable(b.lines / 3)
	}
	earlier, dup := b.toolIDs.get(key)
	if dup && earlier == callIndex {
		return -1
	}
	b.toolIDs.put(key, callIndex)
	if !dup {
		return -1
	}
	return earlier
}

// knownToolKey tells whether a tool call was read whose id has the hash key.
func (b *builder) knownToolKey(key uint64) bool {
	_, ok := b.toolIDs.get(key)
	return ok
}

// toolName returns name as a string, the same string for every call of
// a tool (up to a few hundred tools).
func (b *builder) toolName(name []byte) string {
	if n, ok := b.names[string(name)]; ok {
		return n
	}
	n := string(name)
	if len(b.names) < 256 {
		if b.names == nil {
			b.names = map[string]string{}
		}
		b.names[n] = n
	}
	return n
}

// answer pairs a result with the latest call of an id not yet answered,
// or, when all are, with the latest; head is the id's entry in toolCalls,
// ok whether it has one.
func (b *builder) answer(head int, ok bool) (ref toolRef, found bool) {
	if !ok {
		return toolRef{}, false
	}
	if r := &b.refs[head]; !r.matched {
		r.matched = true
		return *r, true
	}
	for i := b.refs[head].earlier; i >= 0; i = b.refs[i].earlier {
		if r := &b.refs[i]; !r.matched {
			r.matched = true
			return *r, true
		}
	}
	return b.refs[head], true
}

// addResultOf is addResult for a result whose CallID is still to be set
// to id: a result of a known call shares the call's id rather than
// copying it.
func (b *builder) addResultOf(r ToolResult, id []byte) {
	if b.totals {
		// Only a result of an unknown id keeps it, for the warning.
		if len(id) > 0 && !b.knownToolKey(maphash.Bytes(b.seed, id)) {
			r.CallID = string(id)
		}
		b.fileResult(r, 0, false)
		return
	}
	head, ok := b.toolCalls[string(id)]
	if ok {
		ref := b.refs[head]
		r.CallID = b.s.Calls[ref.call].ToolCalls[ref.pos].ID
	} else {
		r.CallID = string(id)
	}
	b.fileResult(r, head, ok)
}

// addResult links a result to its tool call and files it after the latest call.
func (b *builder) addResult(r ToolResult) {
	if b.totals {
		if r.CallID != "" && b.knownToolKey(maphash.String(b.seed, r.CallID)) {
			r.CallID = ""
		}
		b.fileResult(r, 0, false)
		return
	}
	head, ok := b.toolCalls[r.CallID]
	b.fileResult(r, head, ok)
}

// fileResult is addResult for a result whose CallID's entry in toolCalls
// was looked up: head, and whether there is one.
func (b *builder) fileResult(r ToolResult, head int, known bool) {
	if !validutf8.String(r.Text) {
		r.Text, r.TextAt = b.valid(r.Line, r.Text), 0 // not as written
	}
	if b.sizesOnly || b.dropResults {
		r.DroppedBytes += len(r.Text)
		r.Text = ""
	}
	r.CallIndex = -1
	if b.totals {
		r.Time = time.Time{}
	}
	// A missing id is the reader's to warn about, once: only a given id
	// that matches no call is warned about here.
	if ref, ok := b.answer(head, known); ok {
		tc := b.s.Calls[ref.call].ToolCalls[ref.pos]
		r.Tool, r.Input, r.CallIndex = tc.Name, tc.Input, ref.call
	} else if r.CallID != "" {
		b.warnf(r.Line, "tool result for unknown call id %q", r.CallID)
	}
	last := b.last()
	last.Results = b.resultArr.append(last.Results, r)
}

func (b *builder) addPrompt(p Prompt) {
	p.Text = b.text(p.Line, p.Text)
	if b.totals {
		return
	}
	last := b.last()
	last.Prompts = b.promptArr.append(last.Prompts, p)
}

// compaction starts a new context segment before the next call.
func (b *builder) compaction(e Event) {
	e.Kind = EventCompaction
	e.BeforeCall = len(b.s.Calls)
	b.s.Events = append(b.s.Events, e)
	b.segment++
}

// lastCompaction returns the compaction event that no call has followed yet.
func (b *builder) lastCompaction() *Event {
	for i := len(b.s.Events) - 1; i >= 0; i-- {
		e := &b.s.Events[i]
		if e.BeforeCall != len(b.s.Calls) {
			return nil
		}
		if e.Kind == EventCompaction {
			return e
		}
	}
	return nil
}

func (b *builder) session() *Session {
	s := b.s
	b.usagesSeen = len(b.usages)
	if len(b.leading.Results) > 0 || len(b.leading.Prompts) > 0 {
		s.Leading = b.leading
	}
	return s
}

// rawJSON returns raw as JSON, quoting it as a string when it is not JSON.
func rawJSON(raw []byte) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if json.Valid(raw) {
		return json.RawMessage(append([]byte(nil), raw...))
	}
	return quoteJSON(string(raw))
}

// quoteJSON quotes s as a JSON string, leaving <, > and & as they are.
func quoteJSON(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func parseTime(s []byte) time.Time {
	if len(s) == 0 {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	if err != nil {
		return time.Time{}
	}
	return t
}

// snapshotOf copies what reading goes on changing, so the copy can be read
// while the builder keeps appending. Inner slices are only ever appended to
// beyond the copied lengths, so sharing their arrays is safe.
func snapshotOf(b *builder) *Session {
	s := *b.session()
	s.Calls = slices.Clone(s.Calls)
	for i := range s.Calls {
		c := &s.Calls[i]
		c.ToolCalls = slices.Clip(c.ToolCalls)
		c.Results = slices.Clip(c.Results)
		c.Prompts = slices.Clip(c.Prompts)
	}
	s.Leading.Results = slices.Clip(s.Leading.Results)
	s.Leading.Prompts = slices.Clip(s.Leading.Prompts)
	s.Events = slices.Clone(s.Events)
	s.Models = slices.Clip(s.Models)
	s.Warnings = slices.Clip(s.Warnings)
	s.Skipped = maps.Clone(s.Skipped)
	return &s
}

// stringSlab makes strings of many short byte runs (a call's ids), copied
// one after another into a shared array that is only ever appended to, so
// that the strings never change: one allocation for a few hundred calls,
// where a copy of its own for each call's ids was 1.6% of the index's
// time. Its arrays must never be truncated, reused or kept in an Arena.
type stringSlab struct{ buf []byte }

// A slab's first array is small, so that a short log pins little; each
// next one is twice the last, up to slabBytes. A run longer than
// slabBytes/16 gets a string of its own.
const (
	slabFirst = 512
	slabBytes = 16 << 10
)

// keep returns b as a string.
func (s *stringSlab) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > slabBytes/16 {
		return string(b)
	}
	if len(s.buf)+len(b) > cap(s.buf) {
		s.buf = make([]byte, 0, max(min(2*cap(s.buf), slabBytes), slabFirst, len(b)))
	}
	start := len(s.buf)
	s.buf = append(s.buf, b...) // within its capacity: never moved
	return unsafe.String(&s.buf[start], len(b))
}
