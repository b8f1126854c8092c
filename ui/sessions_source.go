package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript"
)

// This file is the session list's one seam to where its sessions come
// from: SessionSource, and AppSessions, which lists them with the shared
// pipeline (app.Resolve and app.Each) and holds what it read in memory.

// SessionRow is one session of the list as its log and its sub-agents'
// record it, before any policy.
type SessionRow struct {
	Path    string // the session's own log; its sub-agents' are counted in
	Agent   string // the log's format
	Version string
	Project string // the last element of the folder the agent ran in
	// First and Last are the times of its first and last calls.
	First, Last time.Time
	Models      []string
	// Calls counts the calls this log bills: a copy of another's is
	// counted there.
	Calls     int
	Subagents int
	// Cost is the calls' recorded cost; nil when a model has no price or
	// no call records usage.
	Cost *float64
	// LargestResult is the largest tool result, in bytes as logged.
	LargestResult int64
	// Burn is the recorded cost of the calls in the ten minutes up to the
	// last one, per hour.
	Burn float64
	// Context is the prompt of the last call, in tokens, and ContextMax
	// its model's window from the price table (0 when not known).
	Context, ContextMax int64
	// Modified is when the log was last written: a session written in the
	// last minute is live.
	Modified time.Time
	// Parts are the sub-agents' own figures, in the session's figures
	// already: the list shows them under it.
	Parts []SubagentRow
}

// SubagentRow is what one sub-agent log adds to its session.
type SubagentRow struct {
	Path  string
	Calls int
	// Cost is nil when it records nothing or a model has no price.
	Cost          *float64
	LargestResult int64
}

// SessionSavings is one session (with its sub-agents) replayed under a
// policy.
type SessionSavings struct {
	Path string
	// CostAfter is nil when the cost is not known.
	CostAfter *float64
	// Saved is the prompt tokens the policy takes out, over every call.
	Saved int64
	// Hazards count what the policy hid that the agent went on to use,
	// over the session and its sub-agents.
	Hazards replay.HazardCounts
	// Point is what a Replay saved, as the chart's point at the policy's
	// ceiling; Points are the savings at each ceiling a Sweep was asked
	// for.
	Point  replay.SweepPoint
	Points []replay.SweepPoint
	Err    error
}

// SessionSource is where the session list comes from. Its methods are
// called from commands, never from Update, and may run at once.
type SessionSource interface {
	// Scan lists the sessions with what their logs record; a later Scan
	// need read again only the logs that changed. progress is told how
	// many sessions are read of how many. Warnings name the inputs that
	// gave no session.
	Scan(ctx context.Context, progress func(done, total int)) ([]SessionRow, []string, error)
	// Replay replays the sessions of paths (of the last Scan) under pol,
	// handing each to emit as it is done, in no set order.
	Replay(ctx context.Context, pol policy.Policy, paths []string, emit func(SessionSavings)) error
	// Sweep does the same at each of ceilings, for the savings chart.
	Sweep(ctx context.Context, pol policy.Policy, paths []string, ceilings []int64, emit func(SessionSavings)) error
}

// AppSessions lists the sessions of Paths (those discovery finds when
// there are none) through the shared pipeline: one sizes-only read per log
// for the list, then, for replays, one read in full of each, whose counted
// results it holds in memory so that a new policy only replays: past
// holdBytes of logs, without the results' texts, of which a replay reads
// again from the files only those it shapes.
type AppSessions struct {
	Paths   []string
	Env     app.Env
	Options app.Options
	// Index, when set, lists the sessions (sessions_index.go).
	Index *index.Index

	mu sync.Mutex
	// seen holds each session's row by its stamp when it was read.
	seen map[string]scanned
	// held holds the sessions read in full, by path, until they change,
	// of at most holdBytes of logs in all; past it, of at most
	// onDemandBytes more, without their results' texts (onDemand), which
	// texts reads again when a replay needs them.
	held          map[string]*app.Session
	heldBytes     int64
	onDemand      map[string]bool
	onDemandBytes int64
	texts         *app.FilePool
	// liveRows are the burn rates and contexts of the sessions being
	// written, by the stamp they were read at (index scans).
	liveRows map[string]scanned
	// resolved are the inputs of the last index scan; while a watch runs
	// (watching) they are resolved again only when relist says a file
	// or folder appeared, went or moved.
	resolved []app.Input
	// Resolved, when set, are the inputs of Paths already resolved by the
	// caller: the first scan takes them instead of walking the folders
	// again.
	Resolved []app.Input
	watching atomic.Int32
	// stopping counts the watches not yet done with their end: the
	// index's cache is written once a watch's context is done.
	stopping sync.WaitGroup
	relist   atomic.Bool
	// written are the names of the logs the watch saw written since the
	// last index scan: the others need not be looked at.
	writtenMu sync.Mutex
	written   map[string]bool
}

type scanned struct {
	stamp string
	input app.Input
	row   SessionRow
	// marks are the copies the scan found, by log and line.
	marks map[string]map[int]string
	// subs are the logs of its sub-agents, as the scan of all found
	// them: a Codex sub-agent is only known as one when read with its
	// parent, so a replay reading the parent alone is given them.
	subs   []string
	size   int64 // of its logs
	copied int   // calls the index found copies counted elsewhere
}

// holdBytes bounds the logs whose sessions are held, read and counted,
// between replays; past it, sessions are held without their results'
// texts, of at most onDemandLimit() of logs; the others are read again
// for each. Tests lower them: onDemandHoldBytes, when not negative, is
// that limit.
var (
	holdBytes         int64 = 512 << 20
	onDemandHoldBytes int64 = -1
)

// onDemandLimit is onDemandHoldBytes, or, when that is negative, the
// bound of this machine's memory, looked up the first time a list needs
// it rather than at every start.
func onDemandLimit() int64 {
	if onDemandHoldBytes >= 0 {
		return onDemandHoldBytes
	}
	return machineOnDemand()
}

var machineOnDemand = sync.OnceValue(func() int64 { return onDemandBound(physicalMemory()) })

// withinLimit is total memory, or limit when it is set and lower.
func withinLimit(total, limit int64) int64 {
	if limit > 0 && (total <= 0 || limit < total) {
		return limit
	}
	return total
}

// onDemandBound is the logs whose sessions are held without their texts
// on a machine of memory bytes (0: not known). Such a session holds about
// half its logs' size (961 MB of heap for the 2 GB fleet's 1.9 GB), and
// the process's peak is about 1.5 times its heap: half the memory in
// logs keeps the list within two fifths of it, however many sessions
// there are; 64 GiB at most, 8 GiB where the memory is not known.
func onDemandBound(memory int64) int64 {
	if memory <= 0 {
		return 8 << 30
	}
	return min(memory/2, 64<<30)
}

// The texts of the sessions held without them are read again through a
// pool of this many open files, which keeps this much of those last read.
var (
	textFilesOpen        = 32
	textsKeptBytes int64 = 64 << 20
)

// drop lets a held session go; a.mu is held.
func (a *AppSessions) drop(path string) {
	if _, ok := a.held[path]; ok {
		delete(a.held, path)
		if a.onDemand[path] {
			delete(a.onDemand, path)
			a.onDemandBytes -= a.seen[path].size
		} else {
			a.heldBytes -= a.seen[path].size
		}
	}
}

// NewAppSessions lists the sessions of paths with opt's prices, reading
// and counting options.
func NewAppSessions(paths []string, env app.Env, opt app.Options) *AppSessions {
	return &AppSessions{Paths: paths, Env: env, Options: opt}
}

// stamp identifies what an input's logs held when read: their sizes and
// modification times ("" when one cannot be looked at), with the newest
// time and the sizes' sum.
func stamp(in app.Input) (st string, newest time.Time, size int64) {
	var b strings.Builder
	for _, p := range append([]string{in.Path}, in.Subagents...) {
		info, err := os.Stat(p)
		if err != nil {
			return "", newest, size
		}
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		size += info.Size()
		fmt.Fprintf(&b, "%s\x00%d\x00%d\x00", p, info.Size(), info.ModTime().UnixNano())
	}
	return b.String(), newest, size
}

// Scan resolves the paths again and, when a session is new or changed,
// reads them all again (only those when they are many): a response copied
// from one log to another is counted once, wherever it lies.
func (a *AppSessions) Scan(ctx context.Context, progress func(done, total int)) ([]SessionRow, []string, error) {
	if a.Index != nil {
		return a.scanIndex(ctx, progress)
	}
	resolved, err := app.Resolve(a.Paths, a.Env)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	a.mu.Lock()
	if a.seen == nil {
		a.seen, a.held = map[string]scanned{}, map[string]*app.Session{}
	}
	var all, changed []app.Input
	stamps := map[string]string{}
	sizes := map[string]int64{}
	inputs := map[string]app.Input{}
	modified := map[string]time.Time{}
	var total int64
	for _, in := range resolved {
		switch {
		case in.Err != nil:
			warnings = append(warnings, in.Err.Error())
			continue
		case in.Path == "-":
			warnings = append(warnings, "standard input cannot be listed with other sessions; open it alone")
			continue
		}
		st, mod, size := stamp(in)
		stamps[in.Path], modified[in.Path], inputs[in.Path], sizes[in.Path] = st, mod, in, size
		total += size
		all = append(all, in)
		if prev, ok := a.seen[in.Path]; !ok || st == "" || prev.stamp != st {
			changed = append(changed, in)
		}
	}
	for path := range a.held {
		if _, ok := inputs[path]; !ok {
			a.drop(path) // gone
		}
	}
	read := all
	if len(changed) == 0 || total > rereadAllBytes {
		read = changed
	}
	rows := make([]SessionRow, 0, len(all))
	reading := map[string]bool{}
	for _, in := range read {
		reading[in.Path] = true
	}
	for _, in := range all {
		if !reading[in.Path] {
			rows = append(rows, a.seen[in.Path].row)
		}
	}
	a.mu.Unlock()

	opt := a.Options
	opt.Read.SizesOnly = true
	opt.Counter = nil
	none, _ := policy.Preset("none")
	done := 0
	if progress != nil {
		progress(0, len(read))
	}
	_, err = app.Each(read, nil, opt, func(s *app.Session) (scanned, error) {
		if err := ctx.Err(); err != nil {
			return scanned{}, err
		}
		row, err := sessionRow(s, none, opt.Prices)
		var subs []string
		for _, sub := range s.Subagents {
			subs = append(subs, sub.Session.Path)
		}
		return scanned{row: row, marks: marksOf(s), subs: subs}, err
	}, func(sc scanned) error {
		done++
		if progress != nil {
			progress(done, len(read))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		path := sc.row.Path
		sc.row.Modified = modified[path]
		sc.row.Project = projectOf(path)
		sc.stamp, sc.input, sc.size = stamps[path], inputs[path], sizes[path]
		sc.input.Subagents = sc.subs
		a.mu.Lock()
		if prev, ok := a.seen[path]; !ok || prev.stamp != sc.stamp || fmt.Sprint(prev.marks) != fmt.Sprint(sc.marks) {
			a.drop(path) // read again in full when replayed
		}
		a.seen[path] = sc
		a.mu.Unlock()
		rows = append(rows, sc.row)
		return nil
	}, func(err error) {
		if !errors.Is(err, context.Canceled) {
			warnings = append(warnings, err.Error())
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return rows, warnings, ctx.Err()
}

// rereadAllBytes bounds the logs read again whenever one changes; past
// it only the changed ones are, and a response copied between a changed
// log and another may be counted in both until the next full scan.
var rereadAllBytes int64 = 256 << 20

// marksOf keeps, per log of a session, the calls reading it with the
// others found to be copies counted elsewhere, by line.
func marksOf(s *app.Session) map[string]map[int]string {
	out := map[string]map[int]string{}
	for _, p := range parts(s) {
		for _, c := range p.Session.Calls {
			if c.CountedIn != "" {
				if out[p.Session.Path] == nil {
					out[p.Session.Path] = map[int]string{}
				}
				out[p.Session.Path][c.Line] = c.CountedIn
			}
		}
	}
	return out
}

// carryMarks marks a session read alone as the scan of all found it.
func carryMarks(s *app.Session, marks map[string]map[int]string) {
	for _, p := range parts(s) {
		calls := p.Session.Calls
		for i := range calls {
			calls[i].CountedIn = marks[p.Session.Path][calls[i].Line]
		}
	}
}

// parts are a session's own replay and its sub-agents'.
func parts(s *app.Session) []*replay.Prepared {
	return append([]*replay.Prepared{s.Prepared}, s.Subagents...)
}

// sessionRow sums what a session and its sub-agents record.
func sessionRow(s *app.Session, none policy.Policy, prices *pricing.Table) (SessionRow, error) {
	main := s.Session
	row := SessionRow{Path: main.Path, Agent: string(main.Format), Version: main.Version, Subagents: len(s.Subagents)}
	type priced struct {
		at   time.Time
		cost float64
	}
	var calls []priced
	var costs []*float64
	var recorded []bool
	var last *transcript.Call
	for _, p := range parts(s) {
		rp, err := p.Replay(none, replay.Options{})
		if err != nil {
			return row, err
		}
		costs = append(costs, rp.Totals.Cost)
		had := false
		ss := p.Session
		for _, m := range ss.Models {
			if !slices.Contains(row.Models, m) {
				row.Models = append(row.Models, m)
			}
		}
		for i := range ss.Calls {
			if ss.Calls[i].CountedIn == "" { // a copy is counted in the log it came from
				row.Calls++
			}
		}
		for _, r := range ss.Leading.Results {
			row.LargestResult = max(row.LargestResult, int64(r.Bytes()))
		}
		for i := range ss.Calls {
			c := &ss.Calls[i]
			for _, r := range c.Results {
				row.LargestResult = max(row.LargestResult, int64(r.Bytes()))
			}
			if c.Usage != nil {
				had = true
			}
			if !c.Time.IsZero() {
				if row.First.IsZero() || c.Time.Before(row.First) {
					row.First = c.Time
				}
				if c.Time.After(row.Last) {
					row.Last = c.Time
				}
			}
			if c.Usage == nil || c.CountedIn != "" {
				continue
			}
			if p == s.Prepared && (last == nil || !c.Time.Before(last.Time)) {
				last = c
			}
			if cost := rp.Calls[i].Cost; cost != nil && !c.Time.IsZero() {
				extra, _ := p.ExtraCost(c)
				calls = append(calls, priced{c.Time, *cost + extra})
			}
		}
		recorded = append(recorded, had)
		if p != s.Prepared {
			part := SubagentRow{Path: ss.Path, Calls: len(ss.Calls)}
			if had {
				part.Cost = rp.Totals.Cost
			}
			for i := range ss.Calls {
				for _, r := range ss.Calls[i].Results {
					part.LargestResult = max(part.LargestResult, int64(r.Bytes()))
				}
			}
			row.Parts = append(row.Parts, part)
		}
	}
	row.Cost = sumKnown(costs, recorded)
	for _, c := range calls {
		if c.at.After(row.Last.Add(-burnWindow)) {
			row.Burn += c.cost
		}
	}
	row.Burn *= float64(time.Hour) / float64(burnWindow)
	if last != nil {
		row.Context = last.Usage.Prompt()
		if m, ok := prices.Match(last.Model); ok {
			row.ContextMax = int64(m.Entry.MaxInputTokens)
		}
	}
	return row, nil
}

// burnWindow is how far back the burn rate looks from the last call.
const burnWindow = 10 * time.Minute

// sumKnown adds the parts' costs: unknown when a part that records usage
// has no cost, or when none records any.
func sumKnown(costs []*float64, recorded []bool) *float64 {
	var sum float64
	any := false
	for i, c := range costs {
		if !recorded[i] {
			continue
		}
		if c == nil {
			return nil
		}
		sum += *c
		any = true
	}
	if !any {
		return nil
	}
	return &sum
}

// projectOf names a session's project as every front end does
// (transcript.Project), by its last element.
func projectOf(path string) string {
	cwd := ""
	if f, _, err := safefile.OpenRegular(path, nil); err == nil {
		cwd, _ = transcript.ReadCwd(f)
		f.Close()
	}
	return lastElement(transcript.Project(path, cwd))
}

// Held is the session of path as the list holds it, read in full and
// counted, nil when it does not (any more).
func (a *AppSessions) Held(path string) *replay.Prepared {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.held[path]; ok {
		return s.Prepared
	}
	return nil
}

// Replay replays the sessions of paths under pol, reading those not held
// yet (each once, on every core) and keeping them for the next.
func (a *AppSessions) Replay(ctx context.Context, pol policy.Policy, paths []string, emit func(SessionSavings)) error {
	return a.each(ctx, paths, emit, func(s *app.Session) SessionSavings {
		out := SessionSavings{Path: s.Session.Path}
		var costs []*float64
		var recorded []bool
		for k, p := range parts(s) {
			rp, err := p.Replay(pol, replay.Options{})
			if err != nil {
				out.Err = err
				return out
			}
			if k == 0 {
				out.Point = rp.Point()
			} else {
				out.Point = addPoint(out.Point, rp.Point(), hasUsage(p.Session))
			}
			out.Saved += rp.Totals.SavedPerCall
			out.Hazards = out.Hazards.Plus(rp.Totals.Hazards)
			costs = append(costs, rp.Totals.CostAfter)
			recorded = append(recorded, hasUsage(p.Session))
		}
		out.CostAfter = sumKnown(costs, recorded)
		return out
	})
}

// Sweep replays the sessions of paths at each ceiling.
func (a *AppSessions) Sweep(ctx context.Context, pol policy.Policy, paths []string, ceilings []int64, emit func(SessionSavings)) error {
	return a.each(ctx, paths, emit, func(s *app.Session) SessionSavings {
		out := SessionSavings{Path: s.Session.Path}
		for k, p := range parts(s) {
			if err := ctx.Err(); err != nil {
				out.Err = err
				return out
			}
			pts, err := p.Sweep(pol, ceilings)
			if err != nil {
				out.Err = err
				return out
			}
			if k == 0 {
				out.Points = pts
				continue
			}
			for i := range pts {
				out.Points[i] = addPoint(out.Points[i], pts[i], hasUsage(p.Session))
			}
		}
		return out
	})
}

// addPoint adds a sub-agent's point to its session's; a sub-agent without
// usage adds no dollars.
func addPoint(a, b replay.SweepPoint, recorded bool) replay.SweepPoint {
	a.Acted += b.Acted
	a.Suppressed += b.Suppressed
	a.Saved += b.Saved
	a.Hazards.Add(b.Hazards)
	if recorded {
		a.Cost, a.CostAfter = addCost(a.Cost, b.Cost), addCost(a.CostAfter, b.CostAfter)
	}
	return a
}

func addCost(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	v := *a + *b
	return &v
}

func hasUsage(s *transcript.Session) bool {
	return slices.ContainsFunc(s.Calls, func(c transcript.Call) bool { return c.Usage != nil })
}

// each runs do on every session of paths, held ones on all cores, the
// others read first, and hands the results to emit until ctx ends. Past
// holdBytes, a session is read and held without its results' texts; one
// whose file no longer holds a text a replay asked for is read again.
func (a *AppSessions) each(ctx context.Context, paths []string, emit func(SessionSavings), do func(*app.Session) SessionSavings) error {
	a.mu.Lock()
	var held []*app.Session
	var read []app.Input
	for _, p := range paths {
		if s, ok := a.held[p]; ok {
			held = append(held, s)
		} else if sc, ok := a.seen[p]; ok {
			read = append(read, sc.input)
		}
	}
	complete := len(read) == len(a.seen)
	if a.texts == nil {
		a.texts = app.NewFilePool(textFilesOpen, textsKeptBytes)
	}
	a.mu.Unlock()

	var wg sync.WaitGroup
	var emitMu sync.Mutex
	send := func(s SessionSavings) {
		emitMu.Lock()
		defer emitMu.Unlock()
		if ctx.Err() == nil {
			emit(s)
		}
	}
	var changedMu sync.Mutex
	var changed []*app.Session
	jobs := make(chan *app.Session)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		crash.Go(func() {
			defer wg.Done()
			for s := range jobs {
				if ctx.Err() != nil {
					continue
				}
				out := do(s)
				if textErr(s) != nil {
					changedMu.Lock()
					changed = append(changed, s)
					changedMu.Unlock()
					continue
				}
				send(out)
			}
		})
	}
	for _, s := range held {
		if ctx.Err() != nil {
			break
		}
		jobs <- s
	}
	close(jobs)
	wg.Wait()
	if len(changed) > 0 {
		a.mu.Lock()
		for _, s := range changed {
			path := s.Session.Path
			if a.held[path] == s {
				a.drop(path)
			}
			if sc, ok := a.seen[path]; ok {
				read = append(read, sc.input)
			}
		}
		a.mu.Unlock()
	}
	if len(read) == 0 || ctx.Err() != nil {
		return ctx.Err()
	}
	a.mu.Lock()
	// Below holdBytes of logs in all, the sessions are read and held in
	// full; past it, without their texts, which costs a half or less of
	// their logs: holding some in full would cost more memory than all
	// the others, for replays that are quick either way.
	var total int64
	for _, sc := range a.seen {
		total += sc.size
	}
	full, onDemand, limit := a.heldBytes, a.onDemandBytes, onDemandLimit()
	for i := range read {
		size := a.seen[read[i].Path].size
		switch {
		case total <= holdBytes && full+size <= holdBytes:
			full += size
		case onDemand+size <= limit:
			onDemand += size
			read[i].TextsOnDemand = true
		}
	}
	a.mu.Unlock()
	opt := a.Options
	opt.Read.SizesOnly = false
	opt.TextFiles = a.texts
	_, err := app.Each(read, nil, opt, func(s *app.Session) (SessionSavings, error) {
		if err := ctx.Err(); err != nil {
			return SessionSavings{}, err
		}
		a.mu.Lock()
		if sc, ok := a.seen[s.Session.Path]; ok {
			switch {
			case sc.marks != nil:
				carryMarks(s, sc.marks)
			case complete:
				// Read with every other session, as the scan was: what
				// app.Each reconciled is what the scan found.
				sc.marks = marksOf(s)
				a.seen[s.Session.Path] = sc
			}
			a.hold(s, sc.size)
		}
		a.mu.Unlock()
		out := do(s)
		if err := textErr(s); err != nil {
			a.mu.Lock()
			if a.held[s.Session.Path] == s {
				a.drop(s.Session.Path)
			}
			a.mu.Unlock()
			return SessionSavings{}, err
		}
		return out, nil
	}, func(s SessionSavings) error {
		send(s)
		return ctx.Err()
	}, func(err error) {
		if !errors.Is(err, context.Canceled) {
			send(SessionSavings{Err: err})
		}
	})
	a.mu.Lock()
	paced := a.onDemandBytes > 0
	a.mu.Unlock()
	if paced {
		paceList()
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// listHeadroom is how much the heap may grow past what a list holding
// sessions without their texts holds before the garbage is collected:
// at Go's default pace it grew to twice that, past the logs' own size
// on a fleet of 2 GB, for garbage alone (the texts read again, their
// replacements).
const listHeadroom = 256 << 20

// paceList collects garbage often enough that the heap stays within
// listHeadroom, or a quarter, of what it holds after the last collection,
// never less often than it would anyway (a lower GOGC, or a pace set
// before for a large session, stands).
func paceList() {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() != metrics.KindUint64 || live[0].Value.Uint64() == 0 {
		return
	}
	percent := int(max(25, min(100, 100*listHeadroom/int64(live[0].Value.Uint64()))))
	if prev := debug.SetGCPercent(percent); prev < percent { // GOGC lower, or off
		debug.SetGCPercent(prev)
	}
}

// hold keeps s, of size bytes of logs, when it fits its bound: in full
// below holdBytes, without its texts below onDemandLimit(); a.mu is
// held.
func (a *AppSessions) hold(s *app.Session, size int64) {
	path := s.Session.Path
	if _, ok := a.held[path]; ok {
		return // a replay under way took it first
	}
	if !s.TextsOnDemand() {
		if a.heldBytes+size <= holdBytes {
			a.held[path] = s
			a.heldBytes += size
		}
		return
	}
	if a.onDemandBytes+size <= onDemandLimit() {
		if a.onDemand == nil {
			a.onDemand = map[string]bool{}
		}
		a.held[path] = s
		a.onDemand[path] = true
		a.onDemandBytes += size
		if len(a.onDemand)%64 == 0 {
			paceList() // as the list fills, not only once it is full
		}
	}
}

// textErr is the first text of s or its sub-agents that could not be read
// again from its file: the figures that needed it are not to be shown.
func textErr(s *app.Session) error {
	for _, p := range parts(s) {
		if err := p.TextErr(); err != nil {
			return err
		}
	}
	return nil
}
