package replay

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/guard/harness"
)

// HazardKind names what a policy may have cost the agent.
type HazardKind string

// Hazard kinds, as the report's JSON names them.
const (
	// UsedHidden: the agent's later output holds a distinctive string of
	// the part the policy hid, which it had from nowhere else.
	UsedHidden HazardKind = "used_hidden"
	// SuppressedUnseen: a repeat was suppressed while the copy it points
	// back to was itself cut, spilled or compacted away.
	SuppressedUnseen HazardKind = "suppressed_unseen"
	// StaleRepeat: a suppressed repeat whose real result had changed.
	StaleRepeat HazardKind = "stale"
)

// HazardKinds lists every kind in display order.
var HazardKinds = []HazardKind{UsedHidden, SuppressedUnseen, StaleRepeat}

// Hazard is the evidence that a policy hid from the agent something it
// went on to need.
type Hazard struct {
	Kind HazardKind
	// Retrievable: the hidden part was spilled, so one more call reading
	// the spill file would have found it; ExtraTokens estimates that
	// call's result (the locator and the lines around the used string).
	Retrievable bool
	ExtraTokens int64
	// CallIndex is the later call whose output holds the evidence; for a
	// repeat without evidence of use, the call that got the stub (the
	// number of calls when none did).
	CallIndex int
	// From names the part of that call's output: "text", "Bash input",
	// "compaction summary"; empty without evidence.
	From string
	// Match is the distinctive string, Evidence a short excerpt of the
	// output around it, whitespace made single spaces. Both are transcript
	// text: escape them to show them.
	Match, Evidence string
	// MatchFrom and MatchTo locate the string in the result's original
	// text; both -1 without evidence.
	MatchFrom, MatchTo int
	// Why says in a few words what was hidden.
	Why string
}

// HazardCounts sum hazards by kind.
type HazardCounts struct {
	UsedHidden       int `json:"used_hidden"`
	SuppressedUnseen int `json:"suppressed_unseen"`
	Stale            int `json:"stale"`
	// Retrievable counts the used_hidden ones a spill file held.
	Retrievable int `json:"-"`
}

// Total is every hazard.
func (h HazardCounts) Total() int { return h.UsedHidden + h.SuppressedUnseen + h.Stale }

// Add counts one hazard.
func (h *HazardCounts) Add(z *Hazard) {
	switch z.Kind {
	case UsedHidden:
		h.UsedHidden++
		if z.Retrievable {
			h.Retrievable++
		}
	case SuppressedUnseen:
		h.SuppressedUnseen++
	case StaleRepeat:
		h.Stale++
	}
}

// Plus sums two counts.
func (h HazardCounts) Plus(o HazardCounts) HazardCounts {
	return HazardCounts{h.UsedHidden + o.UsedHidden, h.SuppressedUnseen + o.SuppressedUnseen, h.Stale + o.Stale, h.Retrievable + o.Retrievable}
}

// evidenceContext is how much of the output around a match the evidence
// shows, each side; retrieveLines how many lines each side of the used
// string's line the extra call of a retrievable hazard reads.
const (
	evidenceContext = 48
	maxMatchShown   = 120
	retrieveLines   = 10
)

// hazardPass finds the hazards of one replay.
type hazardPass struct {
	rp *Run
	ix *hazardIndex
	// texts holds the originals read on demand last, newest first.
	texts [4]heldText
	// ends[k] bounds the head and tail of result k the model saw, for
	// styles that show the original's bytes unquoted.
	ends []shownEnds
}

// original is r's original text. Where the texts are read on demand,
// the last few read are kept for the pass, which asks of one result
// several times in a row; no more are held.
func (h *hazardPass) original(r *Result) string {
	if !h.rp.Prepared.TextsOnDemand() {
		return r.Source.Text
	}
	for _, t := range h.texts {
		if t.index == r.Index+1 {
			return t.text
		}
	}
	t := h.rp.Prepared.Text(r.Source)
	copy(h.texts[1:], h.texts[:])
	h.texts[0] = heldText{r.Index + 1, t}
	return t
}

// heldText is a text the hazard pass read; index is 1 + the result's.
type heldText struct {
	index int
	text  string
}

type shownEnds struct {
	head, tail int
	known      bool
}

// findHazards sets every shaped result's Hazard and counts them.
func (rp *Run) findHazards() {
	p := rp.Prepared
	h := &hazardPass{rp: rp}
	for i := range rp.Results {
		r := &rp.Results[i]
		switch r.Outcome {
		case Truncated, Spilled, Suppressed:
		default:
			continue
		}
		if h.ix == nil {
			h.ix = p.hazardIndex()
		}
		var z *Hazard
		switch {
		case r.Outcome == Suppressed && r.Stale:
			z = &Hazard{Kind: StaleRepeat, CallIndex: r.SentAt, MatchFrom: -1, MatchTo: -1,
				Why: fmt.Sprintf("repeat of result %d, whose real result had changed", r.RepeatOf)}
		case r.Outcome == Suppressed:
			if why := h.unseen(r); why != "" {
				z = h.used(i)
				if z == nil {
					z = &Hazard{CallIndex: r.SentAt, MatchFrom: -1, MatchTo: -1}
				}
				z.Kind, z.Why = SuppressedUnseen, why
			} else if r.RepeatOf < 0 || h.rp.Prepared.items[r.RepeatOf].writes == "" {
				// A repeat of the agent's own write hides nothing it did
				// not write itself.
				z = h.used(i)
			}
		default:
			z = h.used(i)
		}
		if z != nil {
			r.Hazard = z
			rp.Totals.Hazards.Add(z)
		}
	}
}

// unseen says how the copy a suppressed repeat points back to was out of
// the model's sight, or "" when it was in full view.
func (h *hazardPass) unseen(r *Result) string {
	k := r.RepeatOf
	if k < 0 {
		return ""
	}
	earlier := &h.rp.Results[k]
	switch earlier.Outcome {
	case Truncated:
		return fmt.Sprintf("repeat of result %d, which was truncated", k)
	case Spilled:
		return fmt.Sprintf("repeat of result %d, which was spilled", k)
	}
	p := h.rp.Prepared
	if int(p.items[k].segment) != p.contextOf(r) {
		return fmt.Sprintf("repeat of result %d, which a compaction had taken out of the context", k)
	}
	return ""
}

// contextOf is the context r is sent in: the segment of the call that
// carries it first, its own when none does.
func (p *Prepared) contextOf(r *Result) int {
	if r.SentAt < len(p.Session.Calls) {
		return p.Session.Calls[r.SentAt].Segment
	}
	return int(p.items[r.Index].segment)
}

// used finds the earliest later output that holds a distinctive string of
// result i's hidden part which the model had from nowhere else.
func (h *hazardPass) used(i int) *Hazard {
	r := &h.rp.Results[i]
	it := &h.rp.Prepared.items[i]
	for _, ko := range h.ix.keysOf(i) {
		ref := &h.ix.refs[ko.ref]
		call := int(ref.pos / 2)
		if call <= int(it.arrival) {
			continue // the agent wrote it before it saw the result
		}
		if int(h.ix.prompt[ko.ref]) < call {
			continue // a user message said it
		}
		if h.known(ko.ref, i, call) {
			continue
		}
		src := &h.ix.srcs[ref.src]
		z := &Hazard{Kind: UsedHidden, CallIndex: int(src.call), From: src.from(), Match: ref.key,
			Evidence:  excerpt(src.text, int(ref.from), int(ref.to)),
			MatchFrom: int(ko.from), MatchTo: int(ko.to)}
		switch r.Outcome {
		case Spilled:
			z.Retrievable = true
			z.Why = "used a string of the spilled part"
			z.ExtraTokens = h.rp.Prepared.items[i].extra().retrieved(int(ko.from), r.Locator, func() int64 { return h.retrieval(r, int(ko.from)) })
		case Truncated:
			z.Why = "used a string of the part cut off"
		default:
			z.Why = "used a string of the suppressed result"
		}
		return z
	}
	return nil
}

// known tells whether the model had string ref, first output at call,
// from what it saw: the shown part of result self, or any other result
// that came back before call and since the last compaction, as the
// policy showed them. A compaction summary (output at the call after it)
// was written from the context the compaction ended, and is judged
// against that one.
func (h *hazardPass) known(ref int32, self, call int) bool {
	items := h.rp.Prepared.items
	key := h.ix.refs[ref].key
	calls := h.rp.Prepared.Session.Calls
	writer := call // the call whose context the output was written in
	if h.ix.refs[ref].pos%2 == 0 {
		writer-- // a summary's: the last call before the compaction
	}
	segment := -1 // that context; results of another left it at a compaction
	if writer >= 0 && writer < len(calls) {
		segment = calls[writer].Segment
	}
	// What costs a search of a replacement comes after what does not.
	for _, search := range []bool{false, true} {
		for _, o := range h.ix.occsOf(ref) {
			k := int(o.item)
			if k != self && (int(items[k].arrival) >= call || segment >= 0 && int(items[k].segment) != segment) {
				continue
			}
			if h.visible(k, key, o, search) {
				return true
			}
		}
	}
	return false
}

// visible tells whether the model saw occurrence o of key in result k;
// without search, only as far as it can tell without searching k's
// replacement (false may then be wrong, true is not). The model saw it
// when the bytes it spans appear in what the policy showed of k. That
// holds for every occurrence inside k's Seen ranges, and for one the shown
// text repeats elsewhere; it costs a search of the replacement where
// working the ranges out costs many.
func (h *hazardPass) visible(k int, key string, o occ, search bool) bool {
	r := &h.rp.Results[k]
	switch r.Outcome {
	case Kept, Excluded:
		return true
	case Suppressed:
		return false
	}
	if h.rp.Policy.Style == harness.HarnessRS {
		if h.ends == nil {
			h.ends = make([]shownEnds, len(h.rp.Results))
		}
		e := &h.ends[k]
		if !e.known {
			*e = shownEnds{-1, 0, true}
			head, hook := h.rp.hookHead(r)
			switch {
			case hook:
				e.head = head
			case r.Outcome == Truncated:
				// The marker's head is the first bytes_kept bytes of the
				// result serialized: the original's bytes whose escapes
				// fit in them.
				if kept, ok := bytesKept(r.Text); ok {
					e.head = h.rp.Prepared.items[k].extra().serdeHead(h.original(r), kept-1)
				}
			case strings.HasSuffix(r.Locator, ".txt"):
				// The text is its own dominant string: the preview is its
				// first bytes, back to a character boundary.
				e.head = len(headBytes(h.original(r), int(h.rp.Policy.PreviewHead)))
			}
		}
		if e.head >= 0 {
			// The shown head is a head of the original: where it holds the
			// string, so does the index, unless inside a longer word. A run
			// never is (it starts a word and holds spaces), so only a word
			// needs the search.
			return int(o.to) <= e.head || search && !isRun(key) && strings.Contains(r.Text, key)
		}
	}
	if h.rp.Policy.Style != harness.HarnessRS {
		// The shown text holds the original's bytes as they are: the head
		// and tail it shares with the original bound most of what it shows.
		if h.ends == nil {
			h.ends = make([]shownEnds, len(h.rp.Results))
		}
		e := &h.ends[k]
		if !e.known {
			ends := sharedEnds(h.original(r), r.Text)
			*e = shownEnds{ends[0], ends[1], true}
		}
		if int(o.to) <= e.head || int(o.from) >= e.tail {
			return true
		}
	}
	if !search {
		return false
	}
	if strings.Contains(r.Text, key) {
		return true
	}
	return harness.Shown(h.rp.Policy.Style, h.original(r)[o.from:o.to], r.Text)
}

// sharedEnds finds how much of original's head and tail replacement shows
// as they are: original[:head] and original[tail:] appear in it.
func sharedEnds(original, replacement string) [2]int {
	const probe = 32
	n := len(original)
	out := [2]int{0, n}
	if n < probe {
		return out
	}
	if p := strings.Index(replacement, original[:probe]); p >= 0 {
		out[0] = commonPrefix(replacement[p:], original)
	}
	if q := strings.LastIndex(replacement, original[n-probe:]); q >= 0 {
		out[1] = n - commonSuffix(replacement[:q+probe], original[out[0]:])
	}
	return out
}

// isRun tells a run's key from a word's: a word holds no space, and a
// quoted string that does is seldom exactly runLen bytes.
func isRun(key string) bool { return len(key) == runLen && strings.IndexByte(key, ' ') >= 0 }

// headBytes is the longest head of s of at most n bytes that ends at a
// character boundary.
func headBytes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// bytesKept reads a harness-rs truncation marker's bytes_kept.
func bytesKept(marker string) (int, bool) {
	const key = `{"bytes_kept":`
	if !strings.HasPrefix(marker, key) {
		return 0, false
	}
	n, i := 0, len(key)
	for ; i < len(marker) && marker[i] >= '0' && marker[i] <= '9'; i++ {
		n = n*10 + int(marker[i]-'0')
	}
	return n, i > len(key)
}

// escBlock is how many bytes of a text each entry of itemMore.escaped
// covers.
const escBlock = 256

// escLen is the length of each byte as serde_json escapes it.
var escLen = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			t[c] = 2
		case c < 0x20:
			t[c] = 6
		default:
			t[c] = 1
		}
	}
	return t
}()

// serdeHead is how many bytes of text (the item's) serde_json's escapes
// fit in budget bytes. The escaped length of every escBlock bytes is
// worked out once per result, so that each new ceiling walks one block.
func (c *itemMore) serdeHead(text string, budget int) int {
	c.escOnce.Do(func() {
		c.escaped = make([]int32, 0, len(text)/escBlock+1)
		pos := int32(0)
		for k := 0; k < len(text); k++ {
			if k%escBlock == 0 {
				c.escaped = append(c.escaped, pos)
			}
			pos += int32(escLen[text[k]])
		}
	})
	b, _ := slices.BinarySearch(c.escaped, int32(budget)+1)
	if b == 0 {
		return 0
	}
	k, pos := (b-1)*escBlock, int(c.escaped[b-1])
	for ; k < len(text); k++ {
		if pos+int(escLen[text[k]]) > budget {
			return k
		}
		pos += int(escLen[text[k]])
	}
	return len(text)
}

// commonPrefix is the length of the longest common prefix of a and b,
// compared a block at a time.
func commonPrefix(a, b string) int {
	const block = 256
	n := min(len(a), len(b))
	k := 0
	for k+block <= n && a[k:k+block] == b[k:k+block] {
		k += block
	}
	for k < n && a[k] == b[k] {
		k++
	}
	return k
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b string) int {
	const block = 256
	n := min(len(a), len(b))
	m := 0
	for m+block <= n && a[len(a)-m-block:len(a)-m] == b[len(b)-m-block:len(b)-m] {
		m += block
	}
	for m < n && a[len(a)-1-m] == b[len(b)-1-m] {
		m++
	}
	return m
}

// retrieval estimates the tokens of reading the used string back from
// the spill file: the locator and retrieveLines lines each side of it.
func (h *hazardPass) retrieval(r *Result, at int) int64 {
	text := h.original(r)
	from := strings.LastIndexByte(text[:at], '\n') + 1 // the used string's line
	for n := 0; n < retrieveLines && from > 0; n++ {
		from = strings.LastIndexByte(text[:from-1], '\n') + 1
	}
	to := at
	for n := 0; n <= retrieveLines; n++ {
		k := strings.IndexByte(text[to:], '\n')
		if k < 0 {
			to = len(text)
			break
		}
		to += k + 1
	}
	c := h.rp.Prepared.Counter
	if c == nil {
		return 0
	}
	return h.rp.Calibration.apply(int64(c.Count(r.Locator + "\n" + text[from:to])))
}

// retrieved is the extra tokens of reading the string at offset at back
// from the spill file named locator, worked out by count the first time:
// replays ask again, mostly of the same file, but another style (or
// DeepSeek's at another ceiling) names it otherwise, which is counted.
func (c *itemMore) retrieved(at int, locator string, count func() int64) int64 {
	c.retrieveMu.Lock()
	defer c.retrieveMu.Unlock()
	if c.retrieveAt != at+1 || c.retrieveLocator != locator {
		c.retrieveAt, c.retrieveLocator, c.retrieveTokens = at+1, locator, count()
	}
	return c.retrieveTokens
}

// excerpt shows text[from:to] with evidenceContext bytes each side, at
// whole characters, whitespace made single spaces.
func excerpt(text string, from, to int) string {
	if to-from > maxMatchShown {
		to = from + maxMatchShown
	}
	a, b := max(from-evidenceContext, 0), min(to+evidenceContext, len(text))
	for a > 0 && !utf8.RuneStart(text[a]) {
		a--
	}
	for b < len(text) && !utf8.RuneStart(text[b]) {
		b++
	}
	var sb strings.Builder
	if a > 0 {
		sb.WriteString("…")
	}
	sb.WriteString(strings.Join(strings.Fields(text[a:b]), " "))
	if b < len(text) {
		sb.WriteString("…")
	}
	return sb.String()
}
