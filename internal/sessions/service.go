// Package sessions is the session list's data: it lists the sessions of
// some paths (or all those discovery finds) with what their logs record,
// replays them under a policy, and, while a list is followed, says when
// their logs change. The inspector's list screen reads it through Source;
// nothing here draws.
//
// A Service lists the sessions through the session index, reads them for
// replays through the shared pipeline (app.Each), and holds what it read
// between replays within the budget app.DefaultBudget gives, so that a new
// policy only replays: a list of up to Budget.Whole of logs read in full,
// one of up to Budget.Lean without their results' texts, which are read
// again from their files when a replay needs them. A larger list holds
// none, and reads each session twice, keeping what it computes in the
// index's memos: for a replay, its totals and chart; for their hazards
// (Hazards), what the list's keys show next too (Service.Ahead). A
// policy not computed ahead reads the sessions again.
// Its replays go to a Replayer, its own by default; another (cached
// replays, a faster backend) can stand in for it.
package sessions

import (
	"cmp"
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/memory"
	"github.com/spillway-dev/spillway/transcript"
)

// This file is the session list's one seam to where its sessions come
// from: Source, and Service, which lists them through the session index,
// reads them for replays with the shared pipeline (app.Each) and holds
// what it read in memory.

// Row is one session of the list as its log and its sub-agents'
// record it, before any policy.
type Row struct {
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
	// Warnings counts the reader's warnings of its logs.
	Warnings int
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
	Parts []Part
}

// LiveWindow: a session whose log was written this recently is being
// written.
const LiveWindow = time.Minute

// Part is what one sub-agent log adds to its session.
type Part struct {
	Path  string
	Calls int
	// Cost is nil when it records nothing or a model has no price.
	Cost          *float64
	LargestResult int64
}

// Savings is one session (with its sub-agents) replayed under a
// policy.
type Savings struct {
	Path string
	// Point is what a Replay saved, as the chart's point at the policy's
	// ceiling: its cost after (nil when not known), the prompt tokens the
	// policy takes out over every call, and the hazards, what the policy
	// hid that the agent went on to use (none looked for yet where
	// HazardsLater, until the Service's Hazards replays it). Points are
	// the savings at each ceiling a Sweep was asked for.
	Point  replay.SweepPoint
	Points []replay.SweepPoint
	Err    error
}

// Lister lists the sessions. Its methods are called from commands, never
// from a UI's Update, and may run at once.
type Lister interface {
	// Scan lists the sessions with what their logs record; a later Scan
	// need read again only the logs that changed. progress is told how
	// many sessions are read of how many. Warnings name the inputs that
	// gave no session.
	Scan(ctx context.Context, progress func(done, total int)) ([]Row, []string, error)
}

// Replayer replays listed sessions under a policy.
type Replayer interface {
	// Replay replays the sessions of paths (of the last Scan) under pol,
	// handing each to emit as it is done, in no set order.
	Replay(ctx context.Context, pol policy.Policy, paths []string, emit func(Savings)) error
	// Sweep does the same at each of ceilings, for the savings chart.
	Sweep(ctx context.Context, pol policy.Policy, paths []string, ceilings []int64, emit func(Savings)) error
}

// Source is where a session list comes from.
type Source interface {
	Lister
	Replayer
}

// Service lists the sessions of Paths (those discovery finds when there
// are none) through Index, which reads again only the logs that changed,
// then, for replays, reads each in full with the shared pipeline and holds
// its counted results within Budget so that a new policy only replays.
// NewIndexed makes one.
type Service struct {
	Paths   []string
	Env     app.Env
	Options app.Options
	// Index lists the sessions (index.go).
	Index *index.Index
	// Budget bounds the sessions held between replays; nil is
	// app.DefaultBudget().
	Budget *app.Budget
	// Replayer, when set, replays in the Service's stead; it is given the
	// paths of the Service's last Scan.
	Replayer Replayer
	// Now, when set, is the clock a session is live by, that of the list
	// showing it; nil is time.Now.
	Now func() time.Time
	// Ahead, when set, are the policies a key away from one in force
	// whose figures the list computes ahead. A session its Budget does not
	// hold has their totals and charts computed, with hazards, while it is
	// read again for the hazards of the policy in force (Hazards), and
	// kept in the index's memos, where the list takes them as a list
	// reopened does: it is not read again for them.
	Ahead func(policy.Policy) []policy.Policy

	mu sync.Mutex
	// seen holds each session's row by its stamp when it was read.
	seen map[string]scanned
	// held holds the sessions read in full, by path, until they change,
	// where all the logs are within Budget.Whole; past it, within
	// Budget.Lean, without their results' texts (onDemand), which texts
	// reads again when a replay needs them (holding).
	held          map[string]*app.Session
	heldBytes     int64
	onDemand      map[string]bool
	onDemandBytes int64
	texts         *app.FilePool
	// paced is the pace of garbage collection asked for while sessions
	// are held without their texts.
	paced *memory.Demand
	// bounded is the limit on memory asked for with paced, set after
	// each collection.
	bounded *memory.Demand
	// liveRows are the burn rates and contexts of the sessions being
	// written, by the stamp they were read at.
	liveRows map[string]scanned
	// resolved are the inputs of the last scan; while a watch runs
	// (watching) they are resolved again only when relist says a file
	// or folder appeared, went or moved.
	resolved []app.Input
	// Resolved, when set, are the inputs of Paths already resolved by the
	// caller: the first scan takes them instead of walking the folders
	// again.
	Resolved []app.Input
	// early is the scan ScanAhead began, until a Scan takes it.
	early    *earlyScan
	watching atomic.Int32
	// stopping counts the watches not yet done with their end: the
	// index's cache is written once a watch's context is done.
	stopping sync.WaitGroup
	relist   atomic.Bool
	// warming counts the reads of sessions shown from the index's cache
	// under way (warm).
	warming sync.WaitGroup
	// encoding names the tokenizer, for the figures kept in the index
	// (memo.go).
	encodingOnce  sync.Once
	encoding      string
	encodingKnown bool
	// results counts the results' texts of the sessions read and not held
	// (carriedCounter), made once.
	resultsOnce sync.Once
	results     *tokens.Cache
	// written are the names of the logs the watch saw written since the
	// last scan: the others need not be looked at.
	writtenMu sync.Mutex
	written   map[string]bool
}

type scanned struct {
	stamp string
	input app.Input
	row   Row
	// marks are the copies found, by log (transcript.Marks); nil until a
	// replay looks for them (markCopies).
	marks  map[string]*transcript.Session
	size   int64 // of its logs
	copied int   // calls the index found copies counted elsewhere
	rank   int   // its place in the index's order, which reconciles in it
	// groups are the index's reconciliation groups of its logs: it shares
	// responses with the sessions that have one of them, and no others.
	groups []uint64
}

// budget is a.Budget, or this machine's.
func (a *Service) budget() app.Budget {
	if a.Budget != nil {
		return *a.Budget
	}
	return app.DefaultBudget()
}

// The texts of the sessions held without them are read again through a
// pool of this many open files, which keeps this much of those last read:
// a replay asks for a text twice only where the hazard search reads it
// again, soon after. On the 2 GB fleet's re-tuning the pool read as many
// lines again keeping 8, 16 or 64 MB (1 MB read 7% more), and the list
// held 70 MB less heap at 8 MB than at 64, 60 MB at 16: 16 leaves room
// for the larger texts of real logs.
var (
	textFilesOpen        = 32
	textsKeptBytes int64 = 16 << 20
)

// drop lets a held session go; a.mu is held.
func (a *Service) drop(path string) {
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

// markCopies finds which calls of the sessions at paths are copies of
// responses another session counts: they are read again, sizes only, with
// every session they share responses with (those of their index groups),
// as the index read them. Read alone, such a session would count the
// copies a second time.
func (a *Service) markCopies(ctx context.Context, paths []string) error {
	a.mu.Lock()
	group := a.sharing(paths)
	a.mu.Unlock()
	opt := a.Options
	opt.Read.SizesOnly = true
	opt.Counter = nil
	// Set in emit: reading sizes only, Each calls process again on the
	// sessions it reconciles together, and emits only that result.
	type copies struct {
		path  string
		marks map[string]*transcript.Session
	}
	_, err := app.Each(ctx, group, nil, opt, func(s *app.Session) (copies, error) {
		return copies{s.Session.Path, marksOf(s)}, ctx.Err()
	}, func(m copies) error {
		a.mu.Lock()
		if sc, ok := a.seen[m.path]; ok && sc.marks == nil {
			sc.marks = m.marks
			a.seen[m.path] = sc
		}
		a.mu.Unlock()
		return ctx.Err()
	}, func(error) {})
	if err != nil {
		return err
	}
	return ctx.Err()
}

// sharing is the sessions at paths with every session that shares an
// index group with one of them, in the order the index reads them, which
// decides, between logs that are not named after the session, the one a
// copy counts in. a.mu is held.
func (a *Service) sharing(paths []string) []app.Input {
	groups := map[uint64]bool{}
	for _, p := range paths {
		for _, g := range a.seen[p].groups {
			groups[g] = true
		}
	}
	var out []app.Input
	for path, sc := range a.seen {
		if slices.Contains(paths, path) || slices.ContainsFunc(sc.groups, func(g uint64) bool { return groups[g] }) {
			out = append(out, sc.input)
		}
	}
	slices.SortFunc(out, func(x, y app.Input) int {
		return cmp.Or(cmp.Compare(a.seen[x.Path].rank, a.seen[y.Path].rank), strings.Compare(x.Path, y.Path))
	})
	return out
}

// marksOf keeps, per log of a session, the calls reading it with the
// others found to be copies counted elsewhere.
func marksOf(s *app.Session) map[string]*transcript.Session {
	out := map[string]*transcript.Session{}
	for _, p := range s.Parts() {
		if m := transcript.Marks(p.Session); m != nil {
			out[p.Session.Path] = m
		}
	}
	return out
}

// carryMarks marks a session read alone as the read of all found it.
func carryMarks(s *app.Session, marks map[string]*transcript.Session) {
	for _, p := range s.Parts() {
		transcript.CarryMarks(p.Session, marks[p.Session.Path])
	}
}

// sessionRow is a session's row: a view of its tally with its
// sub-agents', with their own figures, and the burn rate and context of
// its last calls.
func sessionRow(s *app.Session) Row {
	main := s.Session
	row := Row{Path: main.Path, Agent: string(main.Format), Version: main.Version, Subagents: len(s.Subagents)}
	t := app.TallyOf(main, s.Prices)
	for _, sub := range s.Subagents {
		st := app.TallyOf(sub.Session, sub.Prices)
		row.Parts = append(row.Parts, Part{Path: sub.Session.Path, Calls: st.Calls, Cost: st.Cost(), LargestResult: int64(st.Largest)})
		t.Add(st)
	}
	row.Models, row.Calls, row.Cost = t.Models, t.Calls-t.Copied, t.Cost()
	row.First, row.Last, row.LargestResult, row.Warnings = t.First, t.Last, int64(t.Largest), t.Warnings
	liveFigures(s, &row)
	return row
}

// liveFigures sets the row's burn rate, the recorded cost per hour of the
// calls in the BurnWindow up to its last, and the prompt of its own last
// call against its model's window.
func liveFigures(s *app.Session, row *Row) {
	var last *transcript.Call
	for _, p := range s.Parts() {
		for i := range p.Session.Calls {
			c := &p.Session.Calls[i]
			if c.Usage == nil || c.CountedIn != "" {
				continue
			}
			if p == s.Prepared && (last == nil || !c.Time.Before(last.Time)) {
				last = c
			}
			if c.Time.IsZero() || !c.Time.After(row.Last.Add(-BurnWindow)) {
				continue
			}
			cost, ok := p.Prices.Cost(c.Model, *c.Usage)
			extra, _ := p.ExtraCost(c)
			if ok {
				row.Burn += cost + extra
			}
		}
	}
	row.Burn *= float64(time.Hour) / float64(BurnWindow)
	if last != nil {
		row.Context = last.Usage.Prompt()
		if m, ok := s.Prices.Match(last.Model); ok {
			row.ContextMax = int64(m.Entry.MaxInputTokens)
		}
	}
}

// BurnWindow is how far back the burn rate looks from the last call.
const BurnWindow = 10 * time.Minute

// Held is the session of path, with its sub-agents, as the Service holds
// it, read and counted; nil when it does not (any more).
func (a *Service) Held(path string) *app.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.held[path]
}

// Replay replays the sessions of paths under pol, reading those not held
// yet (each once, on every core) and keeping them for the next.
func (a *Service) Replay(ctx context.Context, pol policy.Policy, paths []string, emit func(Savings)) error {
	if a.Replayer != nil {
		return a.Replayer.Replay(ctx, pol, paths, emit)
	}
	do := func(s *app.Session) Savings { return replayed(s, pol) }
	keys := a.memoKeys(pol, nil, paths)
	rest := a.remembered(ctx, memoReplay, keys, paths, emit)
	others := chartOthers(pol)
	a.warm(ctx, paths, rest, func(s *app.Session) Savings {
		// Its chart too, as a cold list's: what the chart's ceilings render
		// is kept (replay.Options.CountsOnly), which the next policy's
		// chart would otherwise read again and count. And its hazard
		// index, from the texts as read, where the next policy's hazards
		// would read them again.
		for _, p := range s.Parts() {
			p.IndexHazards()
			if _, err := p.Sweep(pol, others, hazardsLater); err != nil || ctx.Err() != nil {
				break
			}
		}
		return do(s)
	})
	if len(rest) == 0 {
		return ctx.Err()
	}
	return a.each(ctx, rest, a.remembering(memoReplay, keys, emit), do, false, a.spare(ctx, pol, false, nil))
}

// spare is what a pass under pol computes, for the list's chart and
// keys, of a session it reads and does not hold, while its texts are in
// hand: its chart's other points, and the totals and charts of the
// policies ahead, each kept as its own replay or sweep would keep it. Nil
// where nothing could be kept.
//
// A replay (hazards false) computes the chart alone, its hazards left for
// later as a held session's are, and says so (SweepPoint.HazardsLater)
// whatever it found, so that the list asks for them: the hazards' pass
// (Hazards) reads the session again and computes the chart with its
// hazards and the policies a key away (Ahead). On the 2 GB fleet the chart
// came in 12-15 s instead of 24-30 s, and the list was idle 2-3 s later.
func (a *Service) spare(ctx context.Context, pol policy.Policy, hazards bool, ahead []policy.Policy) func(*app.Session, *Savings) {
	if a.memoKeys(pol, nil, nil) == nil {
		return nil
	}
	return func(s *app.Session, out *Savings) {
		if !hazards && out.Err == nil {
			out.Point.HazardsLater = true
		}
		path := []string{s.Session.Path}
		keep := func(kind string, pol policy.Policy, ceilings []int64, sv Savings) {
			if sv.Err == nil && ctx.Err() == nil {
				a.remembering(kind, a.memoKeys(pol, ceilings, path), func(Savings) {})(sv)
			}
		}
		others := chartOthers(pol)
		keep(memoSweep, pol, others, swept(ctx, s, pol, others))
		for _, q := range ahead {
			keep(memoReplay, q, nil, replayed(s, q))
			others := chartOthers(q)
			keep(memoSweep, q, others, swept(ctx, s, q, others))
		}
	}
}

// hazardsLater is how the list replays and sweeps its sessions: looking
// for hazards only in those whose hazard index is built (Hazards), so
// that its totals and chart come before them: on the 2 GB fleet its chart
// came in 15-16 s instead of 21-22 s.
var hazardsLater = replay.Options{CountsOnly: true, HazardsLater: true}

// replayed is session s replayed under pol.
func replayed(s *app.Session, pol policy.Policy) Savings {
	var pts []replay.SweepPoint
	var recorded []bool
	for _, p := range s.Parts() {
		rp, err := p.Replay(pol, hazardsLater)
		if err != nil {
			return Savings{Path: s.Session.Path, Err: err}
		}
		pts = append(pts, rp.Point())
		rp.Release()
		recorded = append(recorded, replay.RecordsUsage(p.Session))
	}
	return SavingsAt(s.Session.Path, replay.PartsPoint(pts, recorded))
}

// Keep writes to the index's cache now the figures kept so far, which it
// writes otherwise when its files are scanned again and when the program
// ends: a list killed ends without a word. Nil without an index or its
// cache.
func (a *Service) Keep() error {
	if a.Index == nil {
		return nil
	}
	return a.Index.Flush()
}

// SavingsAt is the figures of a replay of the session at path whose
// point is pt: a replay's figures are its point's, so that a chart's
// point at a ceiling stands for the replay under the policy at that
// ceiling.
func SavingsAt(path string, pt replay.SweepPoint) Savings {
	pt.Own = true
	return Savings{Path: path, Point: pt}
}

// warm reads, in the background until ctx ends, the sessions of paths
// that were shown from the index's cache (not in rest) and are not held,
// doing do on each and keeping them as a replay does: the next policy
// then only replays them.
func (a *Service) warm(ctx context.Context, paths, rest []string, do func(*app.Session) Savings) {
	replaying := make(map[string]bool, len(rest))
	for _, p := range rest {
		replaying[p] = true
	}
	a.mu.Lock()
	var cold []string
	if whole, lean := a.holding(); whole || lean {
		for _, p := range paths {
			if a.held[p] == nil && !replaying[p] {
				cold = append(cold, p)
			}
		}
	}
	a.mu.Unlock()
	if len(cold) == 0 {
		return
	}
	a.warming.Add(1)
	crash.Go(func() {
		defer a.warming.Done()
		_ = a.each(ctx, cold, func(Savings) {}, do, false, nil)
	})
}

// chartOthers are the ceilings of pol's chart, drawn first at its own,
// but its own.
func chartOthers(pol policy.Policy) []int64 {
	return slices.DeleteFunc(replay.ChartCeilings(pol, 0), func(c int64) bool { return c == pol.Ceiling })
}

// Sweep replays the sessions of paths at each ceiling.
func (a *Service) Sweep(ctx context.Context, pol policy.Policy, paths []string, ceilings []int64, emit func(Savings)) error {
	if a.Replayer != nil {
		return a.Replayer.Sweep(ctx, pol, paths, ceilings, emit)
	}
	keys := a.memoKeys(pol, ceilings, paths)
	if paths = a.remembered(ctx, memoSweep, keys, paths, emit); len(paths) == 0 {
		return ctx.Err()
	}
	// A session not held is swept with its hazards, as a held one whose
	// hazards were looked for is: its points would otherwise wait for a
	// reading of their own.
	return a.each(ctx, paths, a.remembering(memoSweep, keys, emit), func(s *app.Session) Savings {
		return swept(ctx, s, pol, ceilings)
	}, true, nil)
}

// swept is session s swept at ceilings under pol: its Points.
func swept(ctx context.Context, s *app.Session, pol policy.Policy, ceilings []int64) Savings {
	out := Savings{Path: s.Session.Path}
	parts := s.Parts()
	byCeiling := make([][]replay.SweepPoint, len(ceilings))
	recorded := make([]bool, len(parts))
	for k, p := range parts {
		if err := ctx.Err(); err != nil {
			out.Err = err
			return out
		}
		pts, err := p.Sweep(pol, ceilings, hazardsLater)
		if err != nil {
			out.Err = err
			return out
		}
		for i := range pts {
			byCeiling[i] = append(byCeiling[i], pts[i])
		}
		recorded[k] = replay.RecordsUsage(p.Session)
	}
	for _, pts := range byCeiling {
		out.Points = append(out.Points, replay.PartsPoint(pts, recorded))
	}
	return out
}

// Hazards replays the sessions of paths under pol as Replay does, once it
// has built, for each, what finding its hazards shares, which the list's
// replays and sweeps leave for later: a session held without its texts
// reads them again, and one not held is read again, computing its chart
// and the policies ahead with them (spare). A chart's points keep theirs
// for later, until a policy at their ceiling is in force and replayed
// here.
func (a *Service) Hazards(ctx context.Context, pol policy.Policy, paths []string, emit func(Savings)) error {
	if a.Replayer != nil {
		return nil // another replays, and leaves no hazards for later
	}
	keys := a.memoKeys(pol, nil, paths)
	var ahead []policy.Policy
	if a.Ahead != nil {
		ahead = a.Ahead(pol)
	}
	return a.each(ctx, paths, a.remembering(memoReplay, keys, emit), func(s *app.Session) Savings {
		for _, p := range s.Parts() {
			if err := ctx.Err(); err != nil {
				return Savings{Path: s.Session.Path, Err: err}
			}
			p.IndexHazards()
		}
		return replayed(s, pol)
	}, false, a.spare(ctx, pol, true, ahead))
}

// each runs do on every session of paths, held ones on all cores, the
// others read first, and hands the results to emit until ctx ends. A
// session read is held as holding says; one held without its results'
// texts whose file no longer holds a text a replay asked for is read
// again. One not to be held builds its hazard index before do when index
// says so, and does spare (when not nil) after do.
func (a *Service) each(ctx context.Context, paths []string, emit func(Savings), do func(*app.Session) Savings, index bool, spare func(*app.Session, *Savings)) error {
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
	var unmarked []string
	for _, in := range read {
		if a.seen[in.Path].marks == nil {
			unmarked = append(unmarked, in.Path)
		}
	}
	if a.texts == nil {
		a.texts = app.NewFilePool(textFilesOpen, textsKeptBytes)
	}
	a.mu.Unlock()
	if len(unmarked) > 0 {
		if err := a.markCopies(ctx, unmarked); err != nil {
			return err
		}
	}

	var wg sync.WaitGroup
	var emitMu sync.Mutex
	send := func(s Savings) {
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
	b := a.budget()
	whole, lean := a.holding()
	full, onDemand := a.heldBytes, a.onDemandBytes
	unheld := map[string]bool{}
	for i := range read {
		size := a.seen[read[i].Path].size
		switch {
		case whole && full+size <= b.Whole:
			full += size
		case lean && onDemand+size <= b.Lean:
			onDemand += size
			read[i].TextsOnDemand = true
		default:
			unheld[read[i].Path] = true
		}
	}
	a.mu.Unlock()
	opt := a.Options
	if len(unheld) > 0 {
		if results := a.resultCounts(); results != nil {
			opt.Counter = func() (replay.TokenCounter, error) {
				c, err := a.Options.Counter()
				if k, ok := c.(*tokens.Cache); ok {
					return carriedCounter{k, results}, err
				}
				return c, err
			}
		}
	}
	opt.Read.SizesOnly = false
	opt.Read.Compact = true // held among many, between replays
	opt.TextFiles = a.texts
	opt.Reconciled = true // marked above, as the index read them
	_, err := app.Each(ctx, read, nil, opt, func(s *app.Session) (Savings, error) {
		if err := ctx.Err(); err != nil {
			return Savings{}, err
		}
		a.mu.Lock()
		sc, seen := a.seen[s.Session.Path]
		if seen && sc.marks != nil {
			carryMarks(s, sc.marks)
		}
		a.mu.Unlock()
		if index && unheld[s.Session.Path] {
			for _, p := range s.Parts() {
				p.IndexHazards()
			}
		}
		out := do(s)
		if err := textErr(s); err != nil {
			return Savings{}, err
		}
		if unheld[s.Session.Path] && spare != nil {
			spare(s, &out)
		}
		// Replayed with the texts it was read with; held without them,
		// since another replay may take it from now on.
		s.DropTexts()
		if seen && !unheld[s.Session.Path] {
			a.mu.Lock()
			if _, still := a.seen[s.Session.Path]; still {
				a.hold(s, sc.size)
			}
			a.mu.Unlock()
		}
		return out, nil
	}, func(s Savings) error {
		send(s)
		return ctx.Err()
	}, func(err error) {
		if !errors.Is(err, context.Canceled) {
			send(Savings{Err: err})
		}
	})
	a.mu.Lock()
	if a.onDemandBytes > 0 {
		a.pace()
	}
	a.mu.Unlock()
	if err != nil {
		return err
	}
	return ctx.Err()
}

// carriedCounter is the token counter of a session the Service reads and
// does not hold: it counts its results' texts in results, which every
// session read so shares, and the rest as its own would. Read again for
// its hazards, the session counts none of its results again: that took 6
// s of processor time on the 2 GB fleet.
type carriedCounter struct {
	*tokens.Cache
	results *tokens.Cache
}

func (c carriedCounter) CountResult(text string) int { return c.results.Count(text) }

// resultTexts bounds the results' texts whose counts the sessions not held
// share (32 bytes each, and the map's room to grow): the 2 GB fleet has
// 494,000.
const resultTexts = 1 << 20

// resultCounts is the counter of the results' texts of the sessions read
// and not held, made the first time some are, with room for as many as
// the list has calls; nil with a counter that is not the tokenizer's.
func (a *Service) resultCounts() *tokens.Cache {
	a.resultsOnce.Do(func() {
		if a.Options.Counter == nil {
			return
		}
		if c, err := a.Options.Counter(); err == nil {
			if k, ok := c.(*tokens.Cache); ok {
				a.mu.Lock()
				calls := 0 // about one result each
				for _, sc := range a.seen {
					calls += sc.row.Calls
				}
				a.mu.Unlock()
				a.results = tokens.NewCacheOf(k.Counter(), resultTexts, calls)
			}
		}
	})
	return a.results
}

// listHeadroom is how much the heap may grow past what a list holding
// sessions without their texts holds before the garbage is collected:
// at Go's default pace it grew to twice that, past the logs' own size
// on a fleet of 2 GB, for garbage alone (the texts read again, their
// replacements).
const listHeadroom = 256 << 20

// listSlack is how far past the heap's goal the list's memory may be:
// the room lost inside the runtime's spans (50-80 MB on the 2 GB fleet).
// Past it, pages freed are given back rather than kept for reuse.
const listSlack = 64 << 20

// listPace is the pace that keeps the heap within listHeadroom, or a
// quarter, of live bytes held.
func listPace(live int64) int64 { return max(25, min(100, 100*listHeadroom/live)) }

// pace asks for garbage to be collected often enough that the heap stays
// within listHeadroom, or a quarter, of what it holds after the last
// collection, and for the memory in use to stay within listSlack of that,
// for as long as the Service holds sessions without their texts; a.mu is
// held. The limit alone took the 2 GB fleet's list from 1.30-1.31 GB at
// its peak to 1.05 GB, for about 5% more processor time.
func (a *Service) pace() {
	live := memory.Live()
	if live == 0 {
		return
	}
	if a.paced == nil {
		a.paced = memory.Pace(int(listPace(live)))
		a.bounded = memory.Track(func(live int64) int64 { return live*listPace(live)/100 + listSlack })
		return
	}
	a.paced.Set(listPace(live))
}

// holding says how the sessions read are held, by the size of all the
// list's logs: in full within Budget.Whole; past it, without their texts
// (which costs a half or less of their logs) within Budget.Lean; past
// both, not at all. It is all or none: a key whose figures were not
// computed ahead waits for the sessions not held to be read again, so
// holding some of them would cost memory and leave the wait as it is.
// a.mu is held.
func (a *Service) holding() (whole, lean bool) {
	var total int64
	for _, sc := range a.seen {
		total += sc.size
	}
	b := a.budget()
	return total <= b.Whole, total > b.Whole && total <= b.Lean
}

// hold keeps s, of size bytes of logs, when it fits its budget; a.mu is
// held.
func (a *Service) hold(s *app.Session, size int64) {
	b := a.budget()
	path := s.Session.Path
	if _, ok := a.held[path]; ok {
		return // a replay under way took it first
	}
	if !s.TextsOnDemand() {
		if a.heldBytes+size <= b.Whole {
			a.held[path] = s
			a.heldBytes += size
		}
		return
	}
	if a.onDemandBytes+size <= b.Lean {
		if a.onDemand == nil {
			a.onDemand = map[string]bool{}
		}
		a.held[path] = s
		a.onDemand[path] = true
		a.onDemandBytes += size
		if len(a.onDemand)%64 == 0 {
			a.pace() // as the list fills, not only once it is full
		}
	}
}

// textErr is the first text of s or its sub-agents that could not be read
// again from its file: the figures that needed it are not to be shown.
func textErr(s *app.Session) error {
	for _, p := range s.Parts() {
		if err := p.TextErr(); err != nil {
			return err
		}
	}
	return nil
}
