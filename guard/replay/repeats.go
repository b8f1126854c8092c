package replay

import (
	"bufio"
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
)

// deduper decides repeat suppression. Where a harness runs the tool calls
// of one model response at once (Claude Code runs its read-only tools in
// parallel, and its hooks with them), the results of one response form a
// batch: each is judged against what the responses before it left, and
// what the batch's results change (keys seen, keys cleared) takes effect
// for the next response, whatever order the calls ended in. The model had
// received none of its own batch's results when it made the calls, so
// none is a repeat of another; reads of a batch are seen before its writes
// clear. Without batches every result is its own.
type deduper struct {
	pol  *policy.Policy
	seen map[uint64]*seenKey
	// hook: texts are compared by their subjects' sums (hookSum), which
	// the saved state keeps; batch is the batch being judged and pending
	// what it changes.
	hook    bool
	batch   string
	pending []repeatEvent
	order   uint64 // of registrations, for eviction
	// ever holds every key seen, cleared or not; identical and cleared
	// are RepeatCounts'.
	ever               map[uint64]bool
	identical, cleared int
}

type seenKey struct {
	count int // occurrences since the key was last cleared
	shown int // index of the latest occurrence the model saw in full; -1 from saved state
	sum   uint64
	path  uint64 // textSum of the path a Read key reads
	// written: the model wrote the file itself (shown is the write), so
	// what it holds is not a Read's text to compare.
	written bool
	order   uint64
}

// repeatEvent is what one result of a batch changes.
type repeatEvent struct {
	key      uint64
	seen     seenKey
	clearAll bool
	clear    uint64 // a path cleared, 0 for none
	written  bool   // seen is the written file's whole-read key
}

func newDeduper(p *policy.Policy) *deduper {
	return &deduper{pol: p, seen: map[uint64]*seenKey{}, ever: map[uint64]bool{}}
}

// begin starts batch b: what the batch before it changed takes effect.
func (d *deduper) begin(b string) {
	if b == d.batch && b != "" {
		return
	}
	d.flush()
	d.batch = b
}

// flush applies the pending batch: its keys seen, then its clears, then
// the files its writes count as read.
func (d *deduper) flush() {
	for _, e := range d.pending {
		if !e.clearAll && e.clear == 0 && !e.written {
			k := e.seen
			d.seen[e.key] = &k
		}
	}
	for _, e := range d.pending {
		switch {
		case e.clearAll:
			clear(d.seen)
		case e.clear != 0:
			for key, k := range d.seen {
				if k.path == e.clear {
					delete(d.seen, key)
				}
			}
		}
	}
	for _, e := range d.pending {
		if e.written {
			k := e.seen
			d.seen[e.key] = &k
		}
	}
	d.pending = d.pending[:0]
}

// pendingSeen says whether the batch being judged saw key already.
func (d *deduper) pendingSeen(key uint64) bool {
	for _, e := range d.pending {
		if e.key == key && !e.clearAll && e.clear == 0 && !e.written {
			return true
		}
	}
	return false
}

// register notes that key was seen as k, unless the batch saw it already.
func (d *deduper) register(key uint64, k seenKey) {
	d.order++
	k.order = d.order
	if d.pendingSeen(key) {
		return
	}
	d.pending = append(d.pending, repeatEvent{key: key, seen: k})
}

// suppress decides whether result i is a repeat to suppress and, for any
// successful result, applies the policy's clearing rule. It reports
// whether it replaced the result.
func (d *deduper) suppress(i int, it *item, r *Result, p *Prepared, batch string) bool {
	dd := &d.pol.Dedupe
	if !dd.Enabled || it.r.IsError {
		return false
	}
	if d.pol.Style == harness.ClaudeCode && claudeStub(it) {
		// Claude Code stubbed it already: no content the model saw, so
		// nothing a later Read repeats.
		return false
	}
	d.begin(batch)
	if batch == "" {
		defer d.flush() // its own batch
	}
	if !dedupeEligible(d.pol, r.Risk, it.r.Tool) {
		d.clear(i, it, p)
		return false
	}
	id, path := it.argsSum, uint64(0)
	if dd.Key == policy.KeyReadPath {
		id, path = it.readSum, it.readPath
	}
	if id == 0 {
		return false // not a Read of a path
	}
	fresh := seenKey{count: 1, shown: i, path: path}
	if d.hook {
		fresh.sum = p.hookSum(i)
	}
	k, ok := d.seen[id]
	if ok || d.ever[id] {
		d.identical++
	}
	if !ok {
		if d.ever[id] && !d.pendingSeen(id) {
			d.cleared++
		}
		d.ever[id] = true
		d.register(id, fresh)
		return false
	}
	same := k.written || d.same(k, i, it, p)
	if dd.SameContent && !same {
		d.register(id, fresh) // the file changed: Claude Code reads it again
		return false
	}
	next := *k
	next.count++
	if next.count < dd.From {
		next.shown, next.sum = i, fresh.sum
		d.register(id, next)
		return false
	}
	d.register(id, next)
	r.Outcome, r.RepeatOf, r.Stale = Suppressed, k.shown, !same
	if k.shown >= 0 {
		r.Reason = fmt.Sprintf("repeat %d of result %d", next.count, k.shown)
	} else {
		r.Reason = fmt.Sprintf("repeat %d of a result sent earlier", next.count)
	}
	if d.pol.Style == harness.ClaudeCode {
		r.Text = dd.Stub
		if r.Text == "" {
			r.Text = harness.ClaudeReadStub
		}
	} else {
		r.Text = harness.HarnessRSRepeat(it.r.Tool)
	}
	return true
}

// claudeStub tells whether a result is one of Claude Code's Read repeat
// stubs, by the hashes taken as it was counted where texts are read on
// demand.
func claudeStub(it *item) bool {
	for _, stub := range []string{harness.ClaudeReadStub, harness.ClaudeReadStubOld} {
		if it.r.DroppedBytes > 0 {
			if it.sum == [2]uint64{maphash.String(sumSeeds[0], stub), maphash.String(sumSeeds[1], stub)} {
				return true
			}
		} else if it.r.Text == stub {
			return true
		}
	}
	return false
}

// same says whether result i holds the text the key's earlier result
// showed.
func (d *deduper) same(k *seenKey, i int, it *item, p *Prepared) bool {
	if d.hook {
		return k.sum == p.hookSum(i)
	}
	return sameText(&p.items[k.shown], it)
}

// sameText says whether two results' texts are the same: by the hashes
// taken as they were counted where the texts are read on demand.
func sameText(a, b *item) bool {
	if a.r.DroppedBytes > 0 || b.r.DroppedBytes > 0 {
		return a.sum == b.sum
	}
	return a.r.Text == b.r.Text
}

// clear forgets what a successful non-read-only call may have changed.
func (d *deduper) clear(i int, it *item, p *Prepared) {
	switch d.pol.Dedupe.Clear {
	case policy.ClearAnyWrite:
		// harness-rs clears on every risk but ReadOnly
		// (crates/harness-loop/src/lib.rs): a tool it has no risk for is
		// not read-only, so question and plan tools clear too.
		d.pending = append(d.pending, repeatEvent{clearAll: true})
	case policy.ClearSamePath:
		if it.writes == "" {
			return
		}
		path := textSum(it.writes)
		d.pending = append(d.pending, repeatEvent{clear: path})
		if d.pol.Dedupe.WritesCount {
			// Claude Code keeps what the model wrote as content it has.
			d.order++
			key := textSum(harness.WholeReadKey(it.writes))
			d.ever[key] = true
			d.pending = append(d.pending, repeatEvent{key: key, written: true,
				seen: seenKey{count: 1, shown: i, path: path, written: true, order: d.order}})
		}
	}
}

// textSum is a sum of s that is the same in every process (FNV-1a), for
// keys, paths and texts a saved state compares; never 0.
func textSum(s string) uint64 {
	// hash/fnv's, without copying s to hand it over (hash/fnv has no
	// WriteString): on a 96 KB text 808-846 MB/s and no allocation,
	// against 646-706 MB/s and a copy of the text per sum.
	const offset64, prime64 = 14695981039346656037, 1099511628211
	h := uint64(offset64)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime64
	}
	return max(h, 1)
}

// Repeats is what repeat suppression knows between the calls of spillway's
// hook, which replays one result at a time: the keys seen as the batches
// before Batch left them, and what Batch's results change. Replay takes it
// in Options.Repeats and leaves it as the result it replayed left it.
type Repeats struct {
	Batch   string
	seen    map[uint64]seenKey
	pending []repeatEvent
	order   uint64
}

// MaxRepeatKeys bounds the keys a Repeats keeps: past it, those seen
// longest ago are forgotten.
const MaxRepeatKeys = 4096

// load puts r into d.
func (d *deduper) load(r *Repeats) {
	d.hook = true
	d.batch, d.order = r.Batch, r.order
	for key, k := range r.seen {
		k.shown = -1
		d.seen[key] = &k
	}
	d.pending = append(d.pending[:0], r.pending...)
	for i := range d.pending {
		d.pending[i].seen.shown = -1
	}
}

// save puts d's state into r; indexes become sums.
func (d *deduper) save(r *Repeats, p *Prepared) {
	r.Batch, r.order = d.batch, d.order
	r.seen = make(map[uint64]seenKey, len(d.seen))
	for key, k := range d.seen {
		r.seen[key] = *k
	}
	r.pending = slices.Clone(d.pending)
	if len(r.seen) > MaxRepeatKeys {
		keys := make([]uint64, 0, len(r.seen))
		for key := range r.seen {
			keys = append(keys, key)
		}
		slices.SortFunc(keys, func(a, b uint64) int { return cmp.Compare(r.seen[a].order, r.seen[b].order) })
		for _, key := range keys[:len(keys)-MaxRepeatKeys] {
			delete(r.seen, key)
		}
	}
}

// MarshalText writes r as lines: "repeats v1 <order> <batch>", then "s"
// lines of keys seen and "p" lines of the batch's changes.
func (r *Repeats) MarshalText() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "repeats v1 %d %s\n", r.order, strconv.Quote(r.Batch))
	line := func(tag string, key uint64, k seenKey, flags string) {
		fmt.Fprintf(&b, "%s %x %d %x %x %d %s\n", tag, key, k.count, k.sum, k.path, k.order, flags)
	}
	for key, k := range r.seen {
		line("s", key, k, flagsOf(k.written, false, 0))
	}
	for _, e := range r.pending {
		fl := flagsOf(e.seen.written, e.clearAll, e.clear)
		if e.written {
			fl += "W"
		}
		line("p", e.key, e.seen, fl)
	}
	return []byte(b.String()), nil
}

func flagsOf(written, clearAll bool, clear uint64) string {
	f := "-"
	if written {
		f += "w"
	}
	if clearAll {
		f += "A"
	}
	if clear != 0 {
		f += "C" + strconv.FormatUint(clear, 16)
	}
	return f
}

// UnmarshalText reads what MarshalText wrote; anything else is an error.
func (r *Repeats) UnmarshalText(data []byte) error {
	*r = Repeats{seen: map[uint64]seenKey{}}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() {
		return fmt.Errorf("empty repeat state")
	}
	head := strings.SplitN(sc.Text(), " ", 4)
	if len(head) != 4 || head[0] != "repeats" || head[1] != "v1" {
		return fmt.Errorf("not a repeat state")
	}
	var err error
	if r.order, err = strconv.ParseUint(head[2], 10, 64); err != nil {
		return err
	}
	if r.Batch, err = strconv.Unquote(head[3]); err != nil {
		return err
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 7 || (f[0] != "s" && f[0] != "p") {
			return fmt.Errorf("bad repeat state line %q", sc.Text())
		}
		var nums [5]uint64
		for i, bases := range []int{16, 10, 16, 16, 10} {
			if nums[i], err = strconv.ParseUint(f[1+i], bases, 64); err != nil {
				return err
			}
		}
		k := seenKey{count: int(nums[1]), sum: nums[2], path: nums[3], order: nums[4], shown: -1}
		fl := f[6]
		k.written = strings.Contains(fl, "w")
		if f[0] == "s" {
			r.seen[nums[0]] = k
			continue
		}
		e := repeatEvent{key: nums[0], seen: k, clearAll: strings.Contains(fl, "A"), written: strings.Contains(fl, "W")}
		if _, c, ok := strings.Cut(fl, "C"); ok {
			c = strings.TrimRight(c, "W")
			if e.clear, err = strconv.ParseUint(c, 16, 64); err != nil {
				return err
			}
		}
		r.pending = append(r.pending, e)
	}
	return sc.Err()
}
