package index

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
)

// Saving is what a policy would have saved on one session, its
// sub-agents included, as `spillway report --policy` figures it.
type Saving struct {
	Path string
	// SavedTokens are the prompt tokens the calls would not have carried.
	SavedTokens int64
	// CostUSD and CostUSDAfter are the recorded cost and the cost after
	// the policy; SavedUSD their difference. Each is nil where a dollar
	// figure is unknown (nothing recorded, or a model without a price).
	CostUSD, CostUSDAfter, SavedUSD *float64
	// Acted counts the results the policy changed.
	Acted int
}

// replayRecord is one policy's savings, by session path, each with the
// signature of the files it was figured from.
type replayRecord struct {
	Sessions map[string]savedRecord
}

type savedRecord struct {
	Sig    uint64
	Saving Saving
}

// Replay replays every entry's session (read again in full, with its
// sub-agents) under pol, and returns the savings in the order of entries,
// one per entry whose files could still be read. It reconciles the
// entries' files with one another, so pass every entry of a Scan (or
// every one that shares responses with those asked about). Figures cached
// for the same policy and the same files are not replayed again. When ctx
// is done it stops and returns ctx.Err() with what it had. progress, when
// not nil, is told how many sessions are done out of how many.
func (ix *Index) Replay(ctx context.Context, entries []Entry, pol policy.Policy, progress func(done, total int)) ([]Saving, []Warning, error) {
	polKey, err := policyHash(pol)
	if err != nil {
		return nil, nil, err
	}
	ix.mu.Lock()
	known := map[string]Saving{}
	sigs := make([]uint64, len(entries))
	var rec *replayRecord
	if ix.cache != nil {
		rec = ix.cache.data.Replays[polKey]
	}
	for i, e := range entries {
		sigs[i] = ix.entrySig(e)
		if rec != nil {
			if r, ok := rec.Sessions[e.Path]; ok && r.Sig == sigs[i] && sigs[i] != 0 {
				known[e.Path] = r.Saving
			}
		}
	}
	ix.mu.Unlock()

	counter := ix.opt.Counter
	if counter == nil {
		counter = app.Tokenizer(tokens.O200kBase)
	}
	read := ix.opt.Read
	read.SizesOnly, read.TotalsOnly = false, false // replaying reads in full
	opt := app.Options{Prices: ix.opt.Prices, Read: read, Policy: pol, Counter: counter, Workers: ix.opt.Workers}
	var inputs []app.Input
	byPath := map[string]Entry{}
	for _, e := range entries {
		byPath[e.Path] = e
		if _, ok := known[e.Path]; !ok {
			inputs = append(inputs, app.Input{Path: e.Path, Subagents: e.Subagents})
		}
	}
	total, done := len(entries), len(known)
	if progress != nil {
		progress(done, total)
	}
	got := map[string]Saving{}
	var warnings []Warning
	process := func(s *app.Session) (Saving, error) {
		if err := ctx.Err(); err != nil {
			return Saving{}, err
		}
		return saving(opt, s, byPath[s.Session.Path])
	}
	emit := func(sv Saving) error {
		got[sv.Path] = sv
		done++
		if progress != nil {
			progress(done, total)
		}
		return ctx.Err()
	}
	complain := func(err error) {
		if ctx.Err() == nil {
			warnings = append(warnings, Warning{Err: err})
		}
	}
	if len(inputs) > 0 {
		if _, err := app.Each(inputs, nil, opt, process, emit, complain); err != nil && ctx.Err() == nil {
			return nil, warnings, err
		}
	}
	out := make([]Saving, 0, len(entries))
	for _, e := range entries {
		if sv, ok := known[e.Path]; ok {
			out = append(out, sv)
		} else if sv, ok := got[e.Path]; ok {
			out = append(out, sv)
		}
	}
	if err := ctx.Err(); err != nil {
		return out, warnings, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.cache != nil && len(got) > 0 {
		if rec == nil {
			rec = &replayRecord{Sessions: map[string]savedRecord{}}
			ix.cache.data.Replays[polKey] = rec
		}
		for i, e := range entries {
			if sv, ok := got[e.Path]; ok && sigs[i] != 0 {
				rec.Sessions[e.Path] = savedRecord{Sig: sigs[i], Saving: sv}
			}
		}
		ix.cache.dirty = true
		if w := ix.saveCache(); w != nil {
			warnings = append(warnings, *w)
		}
	}
	return out, warnings, nil
}

// saving replays one session and its sub-agents and sums what the policy
// saves, combining the dollars as report does: the recorded cost is the
// Entry's, and the cost after is known when every part with recorded
// usage has one.
func saving(opt app.Options, s *app.Session, e Entry) (Saving, error) {
	sv := Saving{Path: s.Session.Path}
	var after float64
	afterKnown := true
	for _, p := range append([]*replay.Prepared{s.Prepared}, s.Subagents...) {
		rp, _, err := opt.ReplayPlanned(p, opt.Policy) // a saving needs no spill file
		if err != nil {
			return Saving{}, err
		}
		t := rp.Totals
		sv.SavedTokens += t.SavedPerCall
		for o, n := range t.Actions {
			if o != replay.Kept && o != replay.Excluded {
				sv.Acted += n
			}
		}
		usage, counted := false, false // a call with usage; one with usage or counted elsewhere
		for i := range p.Session.Calls {
			c := &p.Session.Calls[i]
			usage = usage || c.Usage != nil
			counted = counted || c.Usage != nil || c.CountedIn != ""
		}
		switch {
		case !counted:
		case usage && t.CostAfter != nil:
			after += *t.CostAfter
		default:
			afterKnown = false
		}
	}
	if e.CostUSD != nil {
		cost := *e.CostUSD
		sv.CostUSD = &cost
		if afterKnown {
			sv.CostUSDAfter = &after
			d := cost - after
			sv.SavedUSD = &d
		}
	}
	return sv, nil
}

func policyHash(p policy.Policy) (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("policy: %w", err)
	}
	h := newHash()
	h.str(string(b))
	return fmt.Sprintf("%016x", h.sum()), nil
}

// entrySig identifies the files an entry was summed from, as the last Scan
// saw them, and the reconciliation groups they were in; 0 when a file is
// unknown.
func (ix *Index) entrySig(e Entry) uint64 {
	h := newHash()
	for _, p := range append([]string{e.Path}, e.Subagents...) {
		k, ok := ix.seen[p]
		if !ok {
			return 0
		}
		h.str(p)
		h.u64(uint64(k.key.Size))
		h.u64(uint64(k.key.ModTime))
		h.u64(k.key.Inode)
		h.u64(k.key.Head)
		h.u64(k.comp)
	}
	return h.sum()
}
