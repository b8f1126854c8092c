package replay

import (
	"context"
	"hash/maphash"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/transcript"
)

// Prepared holds what replays of one session share whatever the policy:
// every result's sizes in every unit, its token count, its repeat keys,
// where it is carried, the tokenizer calibration and the recorded costs.
// Build it once with Prepare; Replay is then cheap.
type Prepared struct {
	Session     *transcript.Session
	Counter     TokenCounter
	Prices      *pricing.Table
	Calibration Calibration
	// ByteRate prices the results' carry where their tokens are not
	// counted (no Counter).
	ByteRate ByteRate

	items []item
	// Sizes in each unit are measured for every item the first time a
	// replay needs them, and the repeat keys of the items a replay may
	// suppress (keys); replays may run concurrently.
	sized  [len(unitOrder)]sync.Once
	keysMu sync.Mutex
	wrote  bool // every item's writes is known
	// segEnd[s] is the last call of context segment s.
	segEnd          []int
	usesCacheWrites bool
	costs           []*float64 // recorded cost of each call, nil when unknown
	textsDropped    bool       // the reader kept sizes only (transcript.Options.SizesOnly)
	dir             string     // the transcript's folder, absolute

	// parts is each call's cost split by CostParts, made once.
	partsOnce  sync.Once
	parts      []*CostParts
	hazardOnce sync.Once
	// hazards is built by the first replay that shapes a result, and
	// looked at without building it by one that leaves hazards for later
	// (Options.HazardsLater).
	hazards atomic.Pointer[hazardIndex]

	// Persisted holds, by the file Claude Code would persist them to,
	// outputs whose file is not written yet, as the model would receive
	// them whole: spillway's hook sees an output before Claude Code
	// persists it, and replays it as the log of the session without the
	// hook will show it (claudehook.go).
	Persisted map[string]string

	// The session as spillway's hook in Claude Code sees its results
	// (claudehook.go), worked out by the first replay that needs it.
	hookOnce  sync.Once
	hookItems []hookItem
	hookSized [len(unitOrder)]sync.Once

	// texts reads the results' texts the session was read without
	// (PrepareTexts); nil when the session holds them. textErr is the
	// first read that failed.
	texts   TextSource
	textErr atomic.Pointer[error]

	// noReuse renders every shaped result in every replay (shaped.go): the
	// figures reuse is checked against.
	noReuse bool
}

// TextSource gives the text of a result the session was read without:
// what a full read gives its Text. One that can tell the texts changed
// since (a Current() error method, as app.FileTexts has) is asked by every
// replay first: a replay that reuses what it rendered reads no text, and
// would not see it otherwise.
type TextSource interface {
	Text(r *transcript.ToolResult) (string, error)
}

// item is one tool result and what every policy needs to know about it.
// A list holds one for each of millions of results: its fields are as
// narrow as they can be, what only Codex outputs need is apart.
type item struct {
	r *transcript.ToolResult
	// arrival is the call after which it came back; -1 before the first.
	// sentAt is the first call whose prompt carries it; len(calls) when
	// none. repeat is how many earlier results answer a call of the same
	// id. carryN counts the calls that carried it (carry).
	arrival, sentAt, segment, repeat, carryN int32
	sidechain                                bool
	// keyed: the repeat sums below are worked out.
	keyed bool
	// With texts read on demand, what the replays ask of every text is
	// worked out once, as it is counted: whether Claude Code shaped it
	// already, and a hash of it that tells repeats apart (sum).
	claudeShaped bool
	size         [len(unitOrder)]int64
	tokens       int64   // estimated with the tokenizer
	carry        float64 // recorded dollars its tokens cost over the calls that carried it
	// The sums (textSum) of its repeat keys, once keyed: its tool name
	// and canonical arguments; a Read's path and range, and that path (0
	// for others).
	argsSum, readSum, readPath uint64
	writes                     string // path an edit or write tool changed
	sum                        [2]uint64

	// shaped is what its last rendering in a counts-only replay gave
	// (shaped.go).
	shaped atomic.Pointer[shapedMemo]

	// ix is made the first time a replay shapes the item or looks into
	// it: most results are never shaped, and a list holds millions.
	ix atomic.Pointer[itemCache]

	// codex is nil but for a Codex output with something to it.
	codex *codexItem
}

// codexItem is what Codex's outputs need of an item.
type codexItem struct {
	// out is the text taken apart as Codex lays out and cuts its tool
	// outputs (status lines, its own cut), worked out once here, not on
	// every replay: a replay then reads no text to shape what it keeps.
	out harness.CodexOutput
	// maxOutput is the max_output_tokens the call set (Codex's command
	// tools), where hasMaxOutput: 0 keeps nothing of the output.
	maxOutput    int64
	hasMaxOutput bool
}

// noCodex is the codexItem of the items that have none.
var noCodex codexItem

// codexOf is it's codexItem, noCodex where it has none; not to be
// written to.
func (it *item) codexOf() *codexItem {
	if it.codex == nil {
		return &noCodex
	}
	return it.codex
}

// setCodex sets what Codex's outputs need of it, keeping nothing where
// that is nothing.
func (it *item) setCodex(out harness.CodexOutput, maxOutput int64, hasMaxOutput bool) {
	if out == (harness.CodexOutput{}) && !hasMaxOutput {
		it.codex = nil
		return
	}
	it.codex = &codexItem{out: out, maxOutput: maxOutput, hasMaxOutput: hasMaxOutput}
}

// itemCache keeps what cutting an item's text again needs, each part made
// when first needed (made): the token indexes of the text and of its
// serialization quoted again, for the cuts and previews that count from
// them, that quoting as far as it was needed, and what the hazard pass
// and AgentScope's spills ask of the text. A list shapes hundreds of
// thousands of results, most of which need one part or none.
type itemCache struct {
	raw, serde atomic.Pointer[tokens.Index]
	requoted   atomic.Pointer[harness.Requoted]
	more       atomic.Pointer[itemMore]
}

// itemMore is what the hazard pass and AgentScope's spills keep of a text.
type itemMore struct {
	digestOnce sync.Once
	digest     string // of the text, as AgentScope names spill files

	escOnce sync.Once
	escaped []int32 // the text's escaped length before every escBlock bytes (hazards)

	retrieveMu      sync.Mutex
	retrieveAt      int // 1 + the offset retrieveTokens is for; 0 for none
	retrieveLocator string
	retrieveTokens  int64
}

func (m *itemMore) textDigest(text string) string {
	m.digestOnce.Do(func() { m.digest = harness.SHA256Name(text) })
	return m.digest
}

func (it *item) cache() *itemCache { return made(&it.ix, func() *itemCache { return new(itemCache) }) }

// extra is what the hazard pass and AgentScope keep of it.
func (it *item) extra() *itemMore {
	return made(&it.cache().more, func() *itemMore { return new(itemMore) })
}

// made is what *at holds, made now if it holds nothing.
func made[T any](at *atomic.Pointer[T], create func() *T) *T {
	if v := at.Load(); v != nil {
		return v
	}
	v := create()
	if !at.CompareAndSwap(nil, v) {
		return at.Load()
	}
	return v
}

// index is the token index *at holds, made now of text if it holds none.
// A text read again when needed is not held by its index (text is ""):
// the parts cut from it carry their bytes, and are counted as such.
func index(at *atomic.Pointer[tokens.Index], text string) *tokens.Index {
	return made(at, func() *tokens.Index { return tokens.NewIndex(text) })
}

// sumSeeds hash the texts read on demand, so that repeats are told apart
// without holding both.
var sumSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// unitOrder indexes item.size.
var unitOrder = [...]policy.Unit{policy.JSONBytes, policy.UTF8Bytes, policy.UTF16Units, policy.Codepoints, policy.ApproxTokens, policy.Tokens}

func unitIndex(u policy.Unit) int {
	for i, x := range unitOrder {
		if x == u {
			return i
		}
	}
	return 0
}

// TokenCounter counts tokens; *tokens.Cache is the real one.
type TokenCounter interface {
	Count(text string) int
}

// encodingOf names a counter's encoding for notes.
func encodingOf(c TokenCounter) string {
	if k, ok := c.(interface{ Encoding() tokens.Encoding }); ok {
		return string(k.Encoding())
	}
	return "estimated"
}

// ResultCounter is a TokenCounter that counts the results' own texts,
// which Prepare asks it for, apart from the others (replacements,
// calibration): a counter given to every reading of a session can keep
// the counts of these alone.
type ResultCounter interface {
	TokenCounter
	CountResult(text string) int
}

// Progress reports counting: done of total texts.
type Progress func(done, total int)

// Prepare measures and counts every result of s. Counting runs on all
// CPUs; ctx stops it early.
func Prepare(ctx context.Context, s *transcript.Session, counter TokenCounter, prices *pricing.Table, progress Progress) (*Prepared, error) {
	return PrepareTexts(ctx, s, counter, prices, progress, nil)
}

// PrepareTexts is Prepare for a session read without its results' texts
// (transcript.Options.DropResultTexts), which texts gives when they are
// needed: counting reads each once, and a replay those it shapes. No
// text is held beyond the replay that needed it. A text that cannot be
// read is taken as empty and its error kept (TextErr). texts nil is
// Prepare.
func PrepareTexts(ctx context.Context, s *transcript.Session, counter TokenCounter, prices *pricing.Table, progress Progress, texts TextSource) (*Prepared, error) {
	p := &Prepared{Session: s, Counter: counter, Prices: prices, texts: texts}
	// The transcript's folder, for paths that live beside it (Claude Code's
	// tool-results): absolute for a file on disk, as given otherwise
	// (standard input, the demo), so that replays do not depend on where
	// spillway runs.
	p.dir = filepath.Dir(s.Path)
	if _, err := os.Stat(s.Path); err == nil {
		if abs, err := filepath.Abs(s.Path); err == nil {
			p.dir = filepath.Dir(abs)
		}
	}
	p.segEnd = segmentEnds(s)
	n := len(s.Leading.Results)
	for i := range s.Calls {
		n += len(s.Calls[i].Results)
	}
	p.items = make([]item, 0, n) // never grown: an item is not to be copied
	ids := make(map[string]int, n)
	add := func(r *transcript.ToolResult, arrival, segment int, sidechain bool) {
		sentAt := arrival + 1
		for sentAt < len(s.Calls) && s.Calls[sentAt].AgentCopy {
			sentAt++ // a sub-agent's call a parent log copied sends none of the log's results
		}
		if sentAt < len(s.Calls) && s.Calls[sentAt].Segment != segment {
			sentAt = len(s.Calls) // summarized away before any call sent it
		}
		p.items = append(p.items, item{r: r, arrival: int32(arrival), segment: int32(segment), sidechain: sidechain,
			sentAt: int32(sentAt), repeat: int32(ids[r.CallID])})
		it := &p.items[len(p.items)-1]
		n, hasMax := harness.InputNumber(r.Input, "max_output_tokens")
		hasMax = hasMax && n >= 0
		it.setCodex(harness.ParseCodexOutput(r.Text), int64(max(n, 0)), hasMax)
		ids[r.CallID]++
		if r.DroppedBytes > 0 && (texts == nil || counter == nil) {
			p.textsDropped = true
		}
	}
	for j := range s.Leading.Results {
		add(&s.Leading.Results[j], -1, 0, false)
	}
	for i := range s.Calls {
		c := &s.Calls[i]
		if c.Usage != nil && c.Usage.CacheCreation > 0 {
			p.usesCacheWrites = true
		}
		for j := range c.Results {
			add(&c.Results[j], i, c.Segment, c.Sidechain)
		}
	}
	if err := p.count(ctx, progress); err != nil {
		return nil, err
	}
	if counter != nil {
		p.Calibration = calibrate(s, counter, p.resultTokens())
		// The texts counted to prepare the session, each result's and
		// the calibration's, are counted once each from now on: a memo
		// of them would only hold memory for as long as the session is
		// held (70 MB of 94 on a list of 2,000 sessions).
		if m, ok := counter.(interface{ Forget() }); ok {
			m.Forget()
		}
	} else {
		p.Calibration = Calibration{Factor: 1, Note: "tokens not counted: the policy never changes a result"}
		p.ByteRate = fitByteRate(s)
	}
	p.priceRecorded()
	return p, nil
}

// Text is r's text: as the session holds it, or read again where it was
// read without (PrepareTexts). A text that cannot be read is "", and the
// error is kept for TextErr.
func (p *Prepared) Text(r *transcript.ToolResult) string {
	if p.texts == nil || r.DroppedBytes == 0 {
		return r.Text
	}
	t, err := p.texts.Text(r)
	if err != nil {
		p.textErr.CompareAndSwap(nil, &err)
		return ""
	}
	return t
}

// TextErr is the first error reading a text again, nil when none failed:
// the figures that needed it took it as empty.
func (p *Prepared) TextErr() error {
	if e := p.textErr.Load(); e != nil {
		return *e
	}
	return nil
}

// claudeShaped is harness.ClaudeShaped of it's text, worked out once
// where the texts are read on demand.
func (p *Prepared) claudeShaped(it *item) bool {
	if p.texts != nil {
		return it.claudeShaped
	}
	return harness.ClaudeShaped(it.r.Text)
}

// textsHeld tells whether the texts a replay would read again are held
// still, as read: a session read with them, to be dropped once prepared
// and replayed (app.Options.TextFiles).
func (p *Prepared) textsHeld() bool {
	for i := range p.items {
		if r := p.items[i].r; r.DroppedBytes > 0 {
			return r.Text != ""
		}
	}
	return true
}

// TextsOnDemand says the results' texts are read again when needed, not
// held by the session.
func (p *Prepared) TextsOnDemand() bool { return p.texts != nil }

// resultTokens sums the counted tokens of the results after each call.
func (p *Prepared) resultTokens() []int64 {
	sums := make([]int64, len(p.Session.Calls))
	for i := range p.items {
		if a := int(p.items[i].arrival); a >= 0 {
			sums[a] += p.items[i].tokens
		}
	}
	return sums
}

// unitSizes is text's size in every unit of unitOrder but Tokens.
func unitSizes(t string) [len(unitOrder)]int64 {
	var n [len(unitOrder)]int64
	m := harness.Measure(t)
	n[unitIndex(policy.JSONBytes)] = m.JSON
	n[unitIndex(policy.UTF8Bytes)] = int64(len(t))
	n[unitIndex(policy.UTF16Units)] = m.UTF16
	n[unitIndex(policy.Codepoints)] = m.Runes
	n[unitIndex(policy.ApproxTokens)] = harness.ApproxTokens(int64(len(t)))
	return n
}

func segmentEnds(s *transcript.Session) []int {
	var ends []int
	for i, c := range s.Calls {
		for len(ends) <= c.Segment {
			ends = append(ends, i)
		}
		ends[c.Segment] = i
	}
	return ends
}

// measure makes sure every item's size in unit u is known.
func (p *Prepared) measure(u policy.Unit) {
	k := unitIndex(u)
	p.sized[k].Do(func() {
		if u == policy.Tokens {
			return // counted by Prepare
		}
		for i := range p.items {
			t := p.items[i].r.Text
			var n int64
			switch u {
			case policy.JSONBytes:
				n = harness.JSONLen(t)
			case policy.UTF16Units:
				n = harness.UTF16Len(t)
			case policy.Codepoints:
				n = harness.Measure(t).Runes
			case policy.ApproxTokens:
				n = harness.ApproxTokens(int64(len(t)))
			default:
				n = int64(len(t))
			}
			p.items[i].size[k] = n
		}
	})
}

// keys makes sure the repeat keys of every item pol may suppress are
// known, and every item's written path. Only those items' arguments are
// written canonically: the others' took most of the time a repeat
// suppression turned on took on a list of 2,000 sessions.
func (p *Prepared) keys(pol *policy.Policy) {
	p.keysMu.Lock()
	defer p.keysMu.Unlock()
	for i := range p.items {
		it := &p.items[i]
		if !p.wrote {
			it.keyWrites()
		}
		if !it.keyed && dedupeEligible(pol, pol.Risk.Classify(it.r.Tool), it.r.Tool) {
			it.keyRepeats()
		}
	}
	p.wrote = true
}

// keyWrites notes the path an edit or a write changed.
func (it *item) keyWrites() {
	switch it.r.Tool {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		it.writes = harness.InputField(it.r.Input, "file_path", "notebook_path")
	}
}

// keyRepeats works out the sums repeat suppression compares.
func (it *item) keyRepeats() {
	it.argsSum = textSum(it.r.Tool + "(" + harness.CanonicalJSON(it.r.Input) + ")")
	if it.r.Tool == "Read" {
		if key := harness.ReadKey(it.r.Input); key != "" {
			path, _, _ := strings.Cut(key, "\x00")
			it.readSum, it.readPath = textSum(key), textSum(path)
		}
	}
	it.keyed = true
}

// dedupeEligible tells whether pol may suppress a repeat of a call of
// tool, of risk as pol classifies it.
func dedupeEligible(pol *policy.Policy, risk policy.Risk, tool string) bool {
	dd := &pol.Dedupe
	return risk == policy.ReadOnly && (len(dd.Tools) == 0 || slices.Contains(dd.Tools, tool))
}

// Encoding names what counted the results; empty when nothing did.
func (p *Prepared) Encoding() string {
	if p.Counter == nil {
		return ""
	}
	return encodingOf(p.Counter)
}

// count tokenizes every result on all CPUs. Without a counter nothing is
// counted and token figures stay unknown (-1): policies that never act
// need none.
func (p *Prepared) count(ctx context.Context, progress Progress) error {
	if p.Counter == nil {
		for i := range p.items {
			p.items[i].tokens, p.items[i].size[unitIndex(policy.Tokens)] = -1, -1
		}
		return nil
	}
	var next, done atomic.Int64
	var wg sync.WaitGroup
	total := len(p.items)
	// Where the texts are read again from their files, the hazard index
	// takes what it needs of each as it is counted, rather than reading
	// them all again; where they are still held as read (the session
	// list's first read, which drops them once replayed), the first
	// replay that looks for hazards builds it. So does the view of
	// spillway's hook in Claude Code, which every replay of a Claude Code
	// session under another harness's policy looks through.
	var hz *hazardIndex
	var hzScan tokenScanner
	var hooks []hookItem
	if p.texts != nil {
		if !p.textsHeld() {
			hz, hzScan = newHazardIndex(p)
		}
		if p.Session.Format == transcript.FormatClaude {
			hooks = make([]hookItem, total)
		}
		defer func() {
			for k := range p.sized {
				p.sized[k].Do(func() {}) // measured as counted
			}
			hzScan.release()
			if ctx.Err() == nil && hz != nil {
				hz.finish()
				p.hazardOnce.Do(func() { p.hazards.Store(hz) })
			}
			if ctx.Err() == nil && hooks != nil {
				p.hookOnce.Do(func() { p.hookItems = hooks })
			}
		}()
	}
	work := func() {
		ts := hzScan // each its own scratch
		for ctx.Err() == nil {
			i := int(next.Add(1)) - 1
			if i >= total {
				return
			}
			it := &p.items[i]
			text := it.r.Text
			if p.texts != nil {
				text = p.Text(it.r)
				it.size = unitSizes(text)
				it.claudeShaped = harness.ClaudeShaped(text)
				c := it.codexOf()
				it.setCodex(harness.ParseCodexOutput(text), c.maxOutput, c.hasMaxOutput)
				it.sum = [2]uint64{maphash.String(sumSeeds[0], text), maphash.String(sumSeeds[1], text)}
				if hz != nil {
					hz.found[i] = hz.scan(&ts, text)
				}
				if hooks != nil && !p.hookKeeps(it, &hooks[i]) {
					p.hookOf(it, &hooks[i], text)
				}
			}
			if rc, ok := p.Counter.(ResultCounter); ok {
				it.tokens = int64(rc.CountResult(text))
			} else {
				it.tokens = int64(p.Counter.Count(text))
			}
			it.size[unitIndex(policy.Tokens)] = it.tokens
			// What repeat suppression compares, for the tools it looks
			// at by default, as the hook's sums (sumsEarly): turning it
			// on for a list of 2,000 sessions spent 0.7 s of processor
			// time on them.
			it.keyWrites()
			if defaultRisk().Classify(it.r.Tool) == policy.ReadOnly {
				it.keyRepeats()
			}
			if n := done.Add(1); progress != nil && (n%64 == 0 || int(n) == total) {
				progress(int(n), total)
			}
		}
	}
	// One text is counted where it is asked for (spillway's hook), so that
	// nothing goes wrong out of its caller's sight.
	if total <= 1 {
		work()
	} else {
		for range runtime.GOMAXPROCS(0) {
			crash.GoIn(&wg, work)
		}
		wg.Wait()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	p.wrote = true // every item's, as counted
	return nil
}

// priceRecorded prices each call as recorded, and each result's carry
// cost: its tokens at the marginal rate of every call that sent it (new
// input at the first, cache read after), summed with prefix sums so the
// work is linear in calls plus results.
func (p *Prepared) priceRecorded() {
	calls := p.Session.Calls
	n := len(calls)
	p.costs = make([]*float64, n)
	costs := make([]float64, n) // what p.costs points into
	// The marginal rates only price the results' carry: without results
	// (PriceRecorded) no call needs them.
	carry := len(p.items) > 0
	var fresh, cacheRead []float64
	var priced []bool
	if carry {
		fresh, cacheRead, priced = make([]float64, n), make([]float64, n), make([]bool, n)
	}
	eachChunk(n, func(from, to int) {
		entries := modelPrices{}
		for j := from; j < to; j++ {
			c := &calls[j]
			if c.Usage == nil {
				continue
			}
			e := entries.of(p.Prices, c.Model)
			if !e.ok {
				continue
			}
			costs[j] = e.Cost(*c.Usage)
			p.costs[j] = &costs[j]
			if !carry {
				continue
			}
			rate := e.Marginal(*c.Usage)
			fresh[j], cacheRead[j] = rate.Input, rate.CacheRead
			if c.Usage.CacheRead == 0 && c.Usage.CacheCreation == 0 && c.Usage.Input > 0 {
				// A call that used no cache paid its whole prompt as new
				// input, what it carried too, as its after figure counts.
				cacheRead[j] = rate.Input
			}
			if p.usesCacheWrites {
				fresh[j] = rate.CacheWrite
				if c.Usage.CacheCreation-c.Usage.CacheCreation1h <= 0 && c.Usage.CacheCreation1h > 0 {
					fresh[j] = rate.CacheWrite1h
				}
			}
			// A copy of a response another session counts carries its
			// results at no cost here: it is billed there.
			priced[j] = c.CountedIn == ""
		}
	})
	if !carry {
		return
	}
	// Per chain (main, sidechain): prefix sums of cache-read rates and of
	// priced calls, so a range of calls sums in O(1).
	var cached, pricedN [2][]float64
	for k := range cached {
		cached[k], pricedN[k] = make([]float64, n+1), make([]float64, n+1)
	}
	for j := range calls {
		for k := range cached {
			cached[k][j+1], pricedN[k][j+1] = cached[k][j], pricedN[k][j]
		}
		if priced[j] {
			k := b2i(calls[j].Sidechain)
			cached[k][j+1] += cacheRead[j]
			pricedN[k][j+1]++
		}
	}
	for i := range p.items {
		it := &p.items[i]
		tok := p.carriedTokens(it)
		sentAt := int(it.sentAt)
		if tok <= 0 || sentAt >= n {
			continue
		}
		k := b2i(it.sidechain)
		end := p.segEnd[it.segment]
		rate := cached[k][end+1] - cached[k][sentAt+1]
		it.carryN = int32(pricedN[k][end+1] - pricedN[k][sentAt+1])
		if priced[sentAt] && calls[sentAt].Sidechain == it.sidechain {
			rate += fresh[sentAt]
			it.carryN++
		}
		it.carry = float64(tok) * rate
	}
}

// carriedTokens is what an item weighs in the prompts that carry it: its
// counted tokens, calibrated, or, where none were counted, its bytes at
// the session's recorded rate; 0 when neither is known.
func (p *Prepared) carriedTokens(it *item) int64 {
	if it.tokens >= 0 {
		return p.Calibration.apply(it.tokens)
	}
	return int64(math.Round(float64(it.r.Bytes()) * p.ByteRate.TokensPerByte))
}

// CarryMeasured tells whether the results' carry costs are known: their
// tokens were counted, or the recorded prompts measured a byte's tokens.
func (p *Prepared) CarryMeasured() bool {
	return p.Counter != nil || p.ByteRate.TokensPerByte > 0
}

// entry is a model's price as the table looks it up; ok is false when
// the model has none.
type entry struct {
	pricing.Entry
	ok bool
}

// modelPrices looks each model up once, not per call: a name the table
// knows by an alias is normalised with regular expressions.
type modelPrices map[string]entry

func (m modelPrices) of(t *pricing.Table, model string) entry {
	e, ok := m[model]
	if !ok {
		e.Entry, _, e.ok = t.Lookup(model)
		m[model] = e
	}
	return e
}

// chunkCalls is the fewest calls worth pricing on more than one CPU.
const chunkCalls = 8192

// eachChunk runs do over [0, n) cut into one contiguous range per CPU, at
// once, and returns when all are done; below chunkCalls in one range.
func eachChunk(n int, do func(from, to int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/chunkCalls))
	if workers == 1 {
		do(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		crash.GoIn(&wg, func() { do(n*w/workers, n*(w+1)/workers) })
	}
	wg.Wait()
}

// remove takes tokens out of a call's usage: fresh ones from the bucket
// billed as new input (cache writes where the session caches, five-minute
// ones first, else uncached input), carried ones from cache reads. Carried
// tokens a call's cache reads cannot hold were re-sent as new input (a
// cache miss writes the whole prefix again), so they come out of the new
// input that is left. No bucket goes below 0.
func (p *Prepared) remove(u transcript.Usage, fresh, carried int64) transcript.Usage {
	// fromNew takes up to n tokens from the new-input buckets and returns
	// what it could not take.
	fromNew := func(n int64, uncached bool) int64 {
		if p.usesCacheWrites {
			five := u.CacheCreation - u.CacheCreation1h
			take5 := min(n, five)
			take1h := min(n-take5, u.CacheCreation1h)
			u.CacheCreation -= take5 + take1h
			u.CacheCreation1h -= take1h
			n -= take5 + take1h
			if !uncached {
				return n
			}
		}
		take := min(n, u.Input)
		u.Input -= take
		return n - take
	}
	fromNew(fresh, false)
	fromCache := min(carried, u.CacheRead)
	if carried < 0 && u.CacheRead == 0 {
		// Growth at a call that read nothing from the cache: its whole
		// prefix was sent again, the growth with it.
		fromCache = 0
	}
	u.CacheRead -= fromCache
	fromNew(carried-fromCache, true)
	return u
}

// Calibration scales tokenizer estimates to the model's own tokenizer.
type Calibration struct {
	// Factor multiplies estimated tokens; 1 when not applied.
	Factor float64 `json:"factor"`
	// Fitted is the factor fitted from the session, whether applied or not.
	Fitted float64 `json:"fitted"`
	// Low and High bound the middle half of the per-pair ratios.
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Pairs int     `json:"pairs"`
	// Applied is true when the model's tokenizer is not the one counting
	// (Claude and others); OpenAI models count with o200k itself.
	Applied bool   `json:"applied"`
	Note    string `json:"note"`
}

// apply scales an estimate.
func (c Calibration) apply(n int64) int64 {
	if !c.Applied || c.Factor == 0 {
		return n
	}
	return int64(math.Round(float64(n) * c.Factor))
}

// Source names the provenance of a token figure scaled by c.
func (c Calibration) Source() string {
	if c.Applied {
		return "calibrated"
	}
	return "estimated"
}
