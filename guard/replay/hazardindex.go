package replay

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/transcript"
)

// hazardIndex is what every policy's hazard pass shares, built once per
// Prepared: the distinctive strings of the agent's own output, each at its
// first appearance, and where each of them also appears in the session's
// prompts and results. Strings no output holds are never kept, so the
// index is small however large the results.
type hazardIndex struct {
	srcs  []outSource
	refs  []outRef
	byKey map[string]int32
	// prompt[ref] is the latest call a user message holding the string
	// arrived before (-1: before the first call); math.MaxInt32 when none
	// holds it. Only the earliest one matters: a later call had it too.
	prompt []int32
	// found is what scan found in each item, until finish lays it out as
	// keys (per item, sorted by when its string was first output) and
	// occs (per ref: the results that hold it), each one list cut at
	// offsets: a slice per item and per ref was a fifth of the index, of
	// a list's hundreds of thousands of results mostly empty.
	found  [][]keyOcc
	keys   []keyOcc
	keysAt []int32 // item i's keys are keys[keysAt[i]:keysAt[i+1]]
	occs   []occ
	occsAt []int32 // ref k's occs are occs[occsAt[k]:occsAt[k+1]]
}

// keysOf is the output strings item i's original text holds.
func (ix *hazardIndex) keysOf(i int) []keyOcc { return ix.keys[ix.keysAt[i]:ix.keysAt[i+1]] }

// occsOf is the results that hold ref k.
func (ix *hazardIndex) occsOf(k int32) []occ { return ix.occs[ix.occsAt[k]:ix.occsAt[k+1]] }

// maxResultsPerString is how many results may hold a string for it to be
// evidence.
const maxResultsPerString = 8

// outSource is one piece of the agent's own output.
type outSource struct {
	call int32 // the call that wrote it; for a compaction summary, the call after it
	// input: what is a tool's name, the source its input ("Bash input"),
	// named so only when a hazard names it.
	input bool
	what  string // "text", "compaction summary", or the tool whose input it is
	text  string
}

// from is what the source is, as a Hazard names it.
func (o *outSource) from() string {
	if o.input {
		return o.what + " input"
	}
	return o.what
}

// outRef is a distinctive string where the agent first wrote it.
type outRef struct {
	key      string
	pos      int32 // 2*call+1 for a call's output, 2*call for a summary before it
	src      int32
	from, to int32 // in the source's text
}

// keyOcc is an output string in one result's original text; occ the same
// seen from the string.
type keyOcc struct{ ref, from, to int32 }
type occ struct{ item, from, to int32 }

// IndexHazards builds now, once, what looking for hazards in every replay
// shares, so that no later replay waits for it: a front end that will
// re-tune calls it in the background after Prepare.
func (p *Prepared) IndexHazards() { p.hazardIndex() }

func (p *Prepared) hazardIndex() *hazardIndex {
	p.hazardOnce.Do(func() { p.hazards.Store(buildHazardIndex(p)) })
	return p.hazards.Load()
}

func buildHazardIndex(p *Prepared) *hazardIndex {
	ix, ts := newHazardIndex(p)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		crash.GoIn(&wg, func() {
			ts := ts // each its own scratch
			for {
				i := int(next.Add(1)) - 1
				if i >= len(p.items) {
					return
				}
				ix.found[i] = ix.scan(&ts, p.Text(p.items[i].r))
			}
		})
	}
	wg.Wait()
	ts.release()
	ix.finish()
	return ix
}

// newHazardIndex indexes the agent's output strings and where the user's
// messages hold them; what the results hold is for scan to fill in, then
// finish. The scanner returned finds those strings alone.
func newHazardIndex(p *Prepared) (*hazardIndex, tokenScanner) {
	s := p.Session
	ix := &hazardIndex{byKey: map[string]int32{}}
	summaries := map[string]bool{}
	type placed struct {
		pos int32
		src outSource
	}
	var out []placed
	for _, e := range s.Events {
		if e.Kind == transcript.EventCompaction && e.Summary != "" {
			out = append(out, placed{int32(2 * e.BeforeCall), outSource{call: int32(e.BeforeCall), what: "compaction summary", text: e.Summary}})
			summaries[e.Summary] = true
		}
	}
	for i := range s.Calls {
		c := &s.Calls[i]
		pos := int32(2*i + 1)
		if c.Text != "" {
			out = append(out, placed{pos, outSource{call: int32(i), what: "text", text: c.Text}})
		}
		for _, tc := range c.ToolCalls {
			inputStrings(tc.Input, func(text string) {
				out = append(out, placed{pos, outSource{call: int32(i), what: tc.Name, text: text, input: true}})
			})
		}
	}
	slices.SortStableFunc(out, func(a, b placed) int { return cmp.Compare(a.pos, b.pos) })
	var ts tokenScanner
	var prefixes, runs []uint64
	ix.srcs = make([]outSource, 0, len(out))
	for k, o := range out {
		ix.srcs = append(ix.srcs, o.src)
		ts.distinctive(o.src.text, func(key string, from, to int) {
			if _, ok := ix.byKey[key]; !ok {
				prefixes = append(prefixes, prefixHash(key))
				if len(key) == runLen {
					runs = append(runs, runHash(key))
				}
				ix.byKey[key] = int32(len(ix.refs))
				ix.refs = append(ix.refs, outRef{key: key, pos: o.pos, src: int32(k), from: int32(from), to: int32(to)})
			}
		})
	}
	ix.refs = slices.Clone(ix.refs) // held as long as the session: no room to grow
	ix.prompt = make([]int32, len(ix.refs))
	for k := range ix.prompt {
		ix.prompt[k] = math.MaxInt32
	}
	only, runsOnly := newPrefixSet(prefixes), newPrefixSet(runs)
	ts.only, ts.runsOnly = only, runsOnly
	prompts := func(ps []transcript.Prompt, after int32) {
		for _, pr := range ps {
			if summaries[pr.Text] {
				continue // the agent's own output, indexed as such
			}
			ts.distinctive(pr.Text, func(key string, _, _ int) {
				if k, ok := ix.byKey[key]; ok && after < ix.prompt[k] {
					ix.prompt[k] = after
				}
			})
		}
	}
	if len(ix.refs) > 0 {
		prompts(s.Leading.Prompts, -1)
		for i := range s.Calls {
			prompts(s.Calls[i].Prompts, int32(i))
		}
	}
	ix.found = make([][]keyOcc, len(p.items))
	return ix, tokenScanner{only: only, runsOnly: runsOnly}
}

// scan finds the output strings one result's text holds, in the order
// they were first output.
func (ix *hazardIndex) scan(ts *tokenScanner, text string) []keyOcc {
	if len(ix.refs) == 0 {
		// The agent wrote nothing distinctive, as in a fifth of the 2 GB
		// fleet's sessions: no result can hold it.
		return nil
	}
	var found []keyOcc
	ts.distinctive(text, func(key string, from, to int) {
		if k, ok := ix.byKey[key]; ok {
			found = append(found, keyOcc{k, int32(from), int32(to)})
		}
	})
	slices.SortStableFunc(found, func(a, b keyOcc) int { return cmp.Compare(ix.refs[a.ref].pos, ix.refs[b.ref].pos) })
	return found
}

// finish indexes, from the strings each result holds, the results each
// string is in, and drops the strings too many hold.
func (ix *hazardIndex) finish() {
	results := make([]int32, len(ix.refs)) // how many results hold each string
	last := make([]int32, len(ix.refs))
	for i, found := range ix.found {
		for _, f := range found {
			if results[f.ref] == 0 || last[f.ref] != int32(i) {
				results[f.ref]++
				last[f.ref] = int32(i)
			}
		}
	}
	// A string in many results is common in the session, and weak
	// evidence however long it is: it is dropped.
	kept := func(f keyOcc) bool { return results[f.ref] <= maxResultsPerString }
	ix.keysAt = make([]int32, len(ix.found)+1)
	ix.occsAt = make([]int32, len(ix.refs)+1)
	n := 0
	for i, found := range ix.found {
		for _, f := range found {
			if kept(f) {
				n++
				ix.occsAt[f.ref+1]++
			}
		}
		ix.keysAt[i+1] = int32(n)
	}
	for k := range ix.refs {
		ix.occsAt[k+1] += ix.occsAt[k]
	}
	ix.keys, ix.occs = make([]keyOcc, 0, n), make([]occ, n)
	next := last // where each ref's next occurrence goes
	copy(next, ix.occsAt)
	for i, found := range ix.found {
		for _, f := range found {
			if kept(f) {
				ix.keys = append(ix.keys, f)
				ix.occs[next[f.ref]] = occ{int32(i), f.from, f.to}
				next[f.ref]++
			}
		}
	}
	ix.found = nil
	ix.byKey = nil // for scan alone
}
