package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/memory"
	"github.com/spillway-dev/spillway/internal/sessions"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
)

// listScreen is the session list: the sessions, their replays under the
// policy in force, and the live rescans. It lasts as long as the program:
// a session opened from it is a screen of its own, and esc comes back to
// the list as it was.
type listScreen struct {
	ctx    *Context
	opt    Options
	policy policy.Policy // in force, as the root set it last
	// run ends when the program quits: every job of the list stops.
	run  context.Context
	stop context.CancelFunc

	src  sessions.Source
	name string // what the header names: a folder, "3 paths"
	list sessionList

	warnings  []string
	err       error
	scanned   bool // the first scan is in
	scanning  bool
	scanDone  int
	scanTotal int

	// gen is the policy generation: replays of another are cancelled and
	// what they still send is dropped.
	gen int
	// jobs are the replays and sweeps begun, by number, until let go.
	jobs    map[int]*listJob
	lastJob int
	// pending holds the sessions not replayed yet under gen.
	pending map[string]bool
	// points are the savings chart's points of each session, by the
	// policy's knobs (knobsKey) and ceiling, kept across policies: a new
	// ceiling needs only its own point, which the replay gives, and a
	// policy tried before needs none. unswept are the sessions that could
	// not be swept under gen: charted without them.
	points map[string]map[string]map[int64]replay.SweepPoint
	knobs  []string // of points, the most recent last
	// anchors are the ceilings each knobs' chart was first drawn at
	// (replay.ChartCeilings): its points stay as + and - move the ceiling.
	anchors map[string]int64
	// aheadTried counts the policies a key or two away (AheadOf) the
	// generation's prefetch has taken up; aheadJob is the number of its
	// job under way, 0 for none; away says a session is shown, for which
	// nothing is computed ahead; idle, that the list has given back its
	// heap (memory.Idle) since its last job.
	aheadTried int
	aheadJob   int
	away, idle bool
	// hazardsTried are, by session, the knobs of the policies the
	// generation has looked for its hazards under (findHazards), found
	// or not.
	hazardsTried map[string]map[string]bool
	unswept      map[string]bool
	sweeping     bool
	// version counts the changes of each session's log seen by a scan:
	// what a job began on before the last one is stale, whatever its
	// generation.
	version map[string]int

	following bool
	ticking   bool // a rescan is due: one tick at a time
	now       time.Time

	// The watch of the sessions' folders, while following
	// (sessions_follow.go): dirty says a change came during a scan.
	watchCtx    context.Context
	watchCancel context.CancelFunc
	changes     <-chan struct{}
	watchFailed bool
	dirty       bool
	expiring    bool
	// scannedAt is when the last scan came back; pacing, that a look is
	// set for fleetPace after it.
	scannedAt time.Time
	pacing    bool
}

// Messages of the session list's commands.
type (
	fleetScannedMsg struct {
		rows     []sessions.Row
		warnings []string
		err      error
	}
	fleetProgressMsg struct {
		done, total int
		next        tea.Cmd
	}
	// fleetSavedMsg carries replays (or, sweep, chart points) done under
	// policy generation gen since the last one.
	fleetSavedMsg struct {
		gen   int
		items []sessions.Savings
		// points are chart points a replay found in the index's cache
		// (replayFleetCmd).
		points []sessions.Savings
		sweep  bool
		done   bool
		// job is what the job began with: its policy's knobs and its
		// sessions' versions.
		job jobStart
		// paths are the job's sessions, on its last message: those it
		// could not replay are no longer waited for.
		paths []string
		next  tea.Cmd
	}
	fleetTickMsg struct{}
	// fleetKeptMsg says why the figures could not be written to the cache.
	fleetKeptMsg struct{ err error }
)

// jobStart is what a replay or sweep began with.
type jobStart struct {
	id       int // its number in listScreen.jobs
	knobs    string
	versions map[string]int
	// ahead marks a job for the chart's points of a policy not in force
	// (prefetch); hazards, one that looks for the hazards of the policy in
	// force that its replays and sweeps left for later (findHazards).
	ahead, hazards bool
}

// listJob is a replay or sweep of the list's. A replay of every session
// is kept once done (its last message in) until stopped: what it may
// still do is read the sessions shown from the index's cache, for the
// next policy. Another is let go once done.
type listJob struct {
	cancel context.CancelFunc
	every  bool // a replay of every session
	done   bool
}

// rescanEvery is how often a followed list looks for new and changed
// sessions.
var rescanEvery = 2 * time.Second

// clock is time.Now; tests stand in for it.
var clock = time.Now

// scanCmd scans the sessions in the background until ctx ends, reporting
// progress every 100 ms until they are in. The scan starts when the
// command runs, not when Update makes it.
func scanCmd(ctx context.Context, src sessions.Source) tea.Cmd {
	return func() tea.Msg {
		var mu sync.Mutex
		var done, total int
		out := make(chan fleetScannedMsg, 1)
		crash.Go(func() {
			rows, warnings, err := src.Scan(ctx, func(d, t int) {
				mu.Lock()
				done, total = d, t
				mu.Unlock()
			})
			out <- fleetScannedMsg{rows: rows, warnings: warnings, err: err}
		})
		var wait tea.Cmd
		wait = func() tea.Msg {
			select {
			case msg := <-out:
				return msg
			case <-time.After(100 * time.Millisecond):
				mu.Lock()
				defer mu.Unlock()
				return fleetProgressMsg{done: done, total: total, next: wait}
			}
		}
		return wait()
	}
}

// stream gathers what a background job emits for the command that waits
// for it.
type stream struct {
	mu       sync.Mutex
	items    []sessions.Savings
	points   []sessions.Savings
	done     bool
	notify   chan struct{}
	finished chan struct{} // closed with done
}

func newStream() *stream {
	return &stream{notify: make(chan struct{}, 1), finished: make(chan struct{})}
}

func (s *stream) push(v sessions.Savings) {
	s.mu.Lock()
	s.items = append(s.items, v)
	s.mu.Unlock()
	s.poke()
}

func (s *stream) finish() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	close(s.finished)
	s.poke()
}

func (s *stream) poke() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// streamBatch is how long a wait gathers items after the first, so that
// many quick replays make one redraw; a job that ends sooner (figures
// taken from the index's cache) is delivered at once, which took 60 ms
// off a reopened list's totals and chart. A job of many sessions
// gathers for batchPerSession more per session: each delivery sorts and
// measures every row again (6 ms for 2,000), and delivered every 30 ms
// that took 6 s of processor time in the first 34 s of the 2 GB fleet's
// list, a tenth of what its replays had.
var streamBatch = 30 * time.Millisecond

const batchPerSession = 100 * time.Microsecond

// wait returns a command that delivers what the job emitted next.
func (s *stream) wait(gen int, sweep bool, paths []string, job jobStart) tea.Cmd {
	batch := max(streamBatch, time.Duration(len(paths))*batchPerSession)
	var wait tea.Cmd
	wait = func() tea.Msg {
		<-s.notify
		if streamBatch > 0 {
			t := time.NewTimer(batch)
			select {
			case <-t.C:
			case <-s.finished:
				t.Stop()
			}
		}
		s.mu.Lock()
		items, points, done := s.items, s.points, s.done
		s.items, s.points = nil, nil
		s.mu.Unlock()
		msg := fleetSavedMsg{gen: gen, items: items, points: points, sweep: sweep, done: done, job: job}
		if done {
			msg.paths = paths
		} else {
			msg.next = wait
		}
		return msg
	}
	return wait
}

// newJobStart is what job id over paths under pol begins with, versions
// being the sessions' now.
func newJobStart(id int, pol policy.Policy, paths []string, versions map[string]int) jobStart {
	job := jobStart{id: id, knobs: knobsKey(pol), versions: map[string]int{}}
	for _, p := range paths {
		if v := versions[p]; v != 0 {
			job.versions[p] = v
		}
	}
	return job
}

// replayFleetCmd replays paths under pol (or sweeps them at ceilings) in
// the background until ctx ends, as job id; versions are the sessions' as
// it begins. A replay hands with its items the points at chart the
// index's cache keeps, where src has a cache, looked up first: a list
// reopened had its totals and chart 0.1 s sooner than when the sweep
// asked for them once the replay was taken, and the replay of a session
// the cache kept begins reading the logs in the background, which the
// lookups would share the processors with.
func replayFleetCmd(ctx context.Context, id int, src sessions.Source, gen int, pol policy.Policy, paths []string, ceilings, chart []int64, versions map[string]int) tea.Cmd {
	job := newJobStart(id, pol, paths, versions)
	return func() tea.Msg {
		s := newStream()
		crash.Go(func() {
			defer s.finish()
			if ahead, ok := src.(aheadSource); ok && ceilings == nil && chart != nil {
				ahead.Remembered(ctx, pol, paths, chart, func(p sessions.Savings) {
					s.mu.Lock()
					s.points = append(s.points, p)
					s.mu.Unlock()
				})
			}
			var err error
			if ceilings != nil {
				err = src.Sweep(ctx, pol, paths, ceilings, s.push)
			} else {
				err = src.Replay(ctx, pol, paths, s.push)
			}
			if err != nil && ctx.Err() == nil {
				s.push(sessions.Savings{Err: err})
			}
		})
		return s.wait(gen, ceilings != nil, paths, job)()
	}
}

// aheadSource is a session source that tells the sessions it holds, and
// hands the figures its cache keeps without reading a log.
type aheadSource interface {
	Held(path string) *app.Session
	Remembered(ctx context.Context, pol policy.Policy, paths []string, ceilings []int64, emit func(sessions.Savings)) []string
}

// aheadWork is one job of prefetch: the points of pol, a policy not in
// force, for the sessions that lack some.
type aheadWork struct {
	pol policy.Policy
	// others are not held: their figures come from the index's cache
	// where it has them (their own point, then chart's), reading no log.
	others []string
	chart  []int64
	// held are replayed under pol where own says one lacks its own point,
	// and swept at the chart's points they lack.
	held  []string
	own   bool
	swept []int64
}

// keeper is a session source that writes the figures it keeps to a cache
// when asked.
type keeper interface{ Keep() error }

// hazardSource is a session source whose replays and sweeps leave the
// hazards for later, and that looks for them apart.
type hazardSource interface {
	Hazards(ctx context.Context, pol policy.Policy, paths []string, emit func(sessions.Savings)) error
}

// hazardsCmd looks for the hazards of paths replayed under pol, in the
// background until ctx ends, as job id.
func hazardsCmd(ctx context.Context, id int, src hazardSource, gen int, pol policy.Policy, paths []string, versions map[string]int) tea.Cmd {
	job := newJobStart(id, pol, paths, versions)
	job.hazards = true
	return func() tea.Msg {
		s := newStream()
		crash.Go(func() {
			defer s.finish()
			if err := src.Hazards(ctx, pol, paths, s.push); err != nil && ctx.Err() == nil {
				s.push(sessions.Savings{Err: err})
			}
		})
		return s.wait(gen, false, paths, job)()
	}
}

// aheadCmd does w in one job.
func aheadCmd(ctx context.Context, id int, src sessions.Source, ahead aheadSource, gen int, w aheadWork, versions map[string]int) tea.Cmd {
	paths := append(slices.Clip(w.held), w.others...)
	job := newJobStart(id, w.pol, paths, versions)
	job.ahead = true
	return func() tea.Msg {
		s := newStream()
		crash.Go(func() {
			defer s.finish()
			ahead.Remembered(ctx, w.pol, w.others, nil, s.push)
			ahead.Remembered(ctx, w.pol, w.others, w.chart, s.push)
			if len(w.held) == 0 || w.own && src.Replay(ctx, w.pol, w.held, s.push) != nil || ctx.Err() != nil {
				return
			}
			if len(w.swept) > 0 {
				_ = src.Sweep(ctx, w.pol, w.held, w.swept, s.push)
			}
		})
		return s.wait(gen, false, paths, job)()
	}
}

// newListScreen is the list over opt.Sessions under pol.
func newListScreen(ctx *Context, opt Options, pol policy.Policy) *listScreen {
	run, stop := context.WithCancel(context.Background())
	return &listScreen{ctx: ctx, opt: opt, policy: pol, run: run, stop: stop, src: opt.Sessions, name: opt.SessionsName, list: sessionList{ctx: ctx, savings: map[string]sessions.Savings{}},
		pending: map[string]bool{}, points: map[string]map[string]map[int64]replay.SweepPoint{}, unswept: map[string]bool{},
		version: map[string]int{}, jobs: map[int]*listJob{}, hazardsTried: map[string]map[string]bool{}, anchors: map[string]int64{knobsKey(pol): pol.Ceiling}}
}

// fromList marks the messages of the list's commands.
type fromList interface{ fromList() }

func (fleetScannedMsg) fromList()  {}
func (fleetProgressMsg) fromList() {}
func (fleetSavedMsg) fromList()    {}
func (fleetTickMsg) fromList()     {}
func (fleetWatchMsg) fromList()    {}
func (fleetChangedMsg) fromList()  {}
func (fleetExpireMsg) fromList()   {}
func (fleetKeptMsg) fromList()     {}
func (fleetPaceMsg) fromList()     {}

// init starts the first scan.
func (f *listScreen) init() tea.Cmd { return f.rescan() }

// leave stops every job of the list, when the program quits.
func (f *listScreen) leave() {
	f.stopWatch()
	f.stop()
}

// update takes one of the list's own messages.
func (f *listScreen) update(msg fromList) tea.Cmd {
	switch msg := msg.(type) {
	case fleetScannedMsg:
		return f.takeScan(msg)
	case fleetProgressMsg:
		f.scanDone, f.scanTotal = msg.done, msg.total
		return msg.next
	case fleetSavedMsg:
		return f.takeSaved(msg)
	case fleetWatchMsg:
		return f.watching(msg)
	case fleetChangedMsg:
		return f.changed(msg)
	case fleetExpireMsg:
		return f.expired()
	case fleetKeptMsg:
		return f.ctx.flash(msg.err.Error())
	case fleetTickMsg:
		f.ticking = false
		if !f.following {
			return nil
		}
		return f.rescan()
	case fleetPaceMsg:
		f.pacing = false
		if !f.following || !f.dirty || f.scanning {
			return nil
		}
		f.dirty = false
		return f.rescan()
	}
	return nil
}

// retune takes a new policy and replays every session under it, but those
// whose chart has a point at its ceiling, which take their figures from
// there.
func (f *listScreen) retune(p policy.Policy) tea.Cmd {
	f.policy = p
	f.anchor()
	if !f.scanned || !pointsStand(p) {
		return f.replayAll()
	}
	knobs := knobsKey(p)
	var missing []string
	for _, r := range f.list.rows {
		if _, ok := f.points[r.Path][knobs][p.Ceiling]; !ok {
			missing = append(missing, r.Path)
		}
	}
	if len(missing) == len(f.list.rows) {
		return f.replayAll()
	}
	// A replay reads the sessions not held yet: a reading still under way
	// would read them too.
	f.stopJobs(len(missing) == 0)
	f.newGeneration()
	for _, r := range f.list.rows {
		if pt, ok := f.points[r.Path][knobs][p.Ceiling]; ok {
			f.list.savings[r.Path] = sessions.SavingsAt(r.Path, pt)
		} else {
			f.pending[r.Path] = true
		}
	}
	f.list.refresh()
	if len(missing) == 0 {
		if sweep := f.sweepFleet(); sweep != nil {
			return sweep
		}
		return f.prefetch() // the one the last generation had begun was cancelled
	}
	return f.replayFleet(missing, false)
}

// anchor makes the ceiling in force its knobs' chart's anchor, where
// they have none, and lets go those of knobs whose points are gone.
func (f *listScreen) anchor() {
	knobs := knobsKey(f.policy)
	for k := range f.anchors {
		if k != knobs && !slices.Contains(f.knobs, k) {
			delete(f.anchors, k)
		}
	}
	if _, ok := f.anchors[knobs]; !ok {
		f.anchors[knobs] = f.policy.Ceiling
	}
}

// chartCeilings are the ceilings of the chart of the policy in force.
func (f *listScreen) chartCeilings() []int64 {
	return replay.ChartCeilings(f.policy, f.anchors[knobsKey(f.policy)])
}

// pointsStand tells whether a chart point under p at its ceiling is a
// session's replay's figures: the + and - keys move along the chart
// (replay.ChartCeilings). It is where the policy at each ceiling is the
// same but for the ceiling: not with per-tool ceilings, which + and -
// round, nor with a policy that follows each session's version, which the
// chart applies first.
func pointsStand(p policy.Policy) bool {
	if p.Ceiling <= 0 || p.FollowVersion {
		return false
	}
	for _, v := range p.PerTool {
		if v > 0 {
			return false
		}
	}
	return true
}

// newGeneration begins a policy generation: every figure of the last is
// forgotten.
func (f *listScreen) newGeneration() {
	f.gen++
	f.aheadTried, f.aheadJob = 0, 0
	f.hazardsTried = map[string]map[string]bool{}
	f.list.savings = map[string]sessions.Savings{}
	f.unswept = map[string]bool{}
	f.pending = map[string]bool{}
	f.sweeping = false
}

// stopJobs cancels the jobs, but, with keepDone, those done and kept.
func (f *listScreen) stopJobs(keepDone bool) {
	for id, j := range f.jobs {
		if !keepDone || !j.done {
			j.cancel()
			delete(f.jobs, id)
		}
	}
}

// startJob begins a job, every a replay of every session: its context,
// cancelled with the job, and its number.
func (f *listScreen) startJob(every bool) (context.Context, int) {
	f.idle = false
	ctx, cancel := context.WithCancel(f.run)
	f.lastJob++
	f.jobs[f.lastJob] = &listJob{cancel: cancel, every: every}
	return ctx, f.lastJob
}

// replayAll replays every session of the list under the policy in force,
// in the background, cancelling the replays of the policy before.
func (f *listScreen) replayAll() tea.Cmd {
	paths := make([]string, len(f.list.rows))
	for i, r := range f.list.rows {
		paths[i] = r.Path
	}
	return f.replayFleet(paths, true)
}

// keptKnobs is how many policies' chart points the list keeps (apart
// from their ceilings): a few keys back and forth redraw at once.
const keptKnobs = 8

// putPoint keeps pt as path's point under knobs.
func (f *listScreen) putPoint(path, knobs string, pt replay.SweepPoint) {
	if pt.Ceiling <= 0 {
		return
	}
	if i := slices.Index(f.knobs, knobs); i < 0 {
		f.knobs = append(f.knobs, knobs)
		if len(f.knobs) > keptKnobs {
			for _, byKnobs := range f.points {
				delete(byKnobs, f.knobs[0])
			}
			f.knobs = slices.Delete(f.knobs, 0, 1)
		}
	} else if i != len(f.knobs)-1 {
		f.knobs = append(slices.Delete(f.knobs, i, i+1), knobs)
	}
	byKnobs := f.points[path]
	if byKnobs == nil {
		byKnobs = map[string]map[int64]replay.SweepPoint{}
		f.points[path] = byKnobs
	}
	if byKnobs[knobs] == nil {
		byKnobs[knobs] = map[int64]replay.SweepPoint{}
	}
	byKnobs[knobs][pt.Ceiling] = pt
}

// missingCeilings are the ceilings of ceilings that path has no point at
// under knobs.
func (f *listScreen) missingCeilings(path, knobs string, ceilings []int64) []int64 {
	have := f.points[path][knobs]
	var out []int64
	for _, c := range ceilings {
		if _, ok := have[c]; !ok {
			out = append(out, c)
		}
	}
	return out
}

// fleetScanned takes a scan: rows new or changed are replayed under the
// policy in force, and a followed list looks again in a while.
func (f *listScreen) takeScan(msg fleetScannedMsg) tea.Cmd {
	f.scanning = false
	f.now, f.scannedAt = clock(), time.Now()
	var cmds []tea.Cmd
	if msg.err != nil {
		f.err = msg.err
		if !f.scanned {
			return nil
		}
		return tea.Batch(f.ctx.flash("rescan: "+msg.err.Error()), f.followLater())
	}
	f.err = nil
	first := !f.scanned
	f.scanned = true
	f.warnings = msg.warnings
	old := map[string]sessions.Row{}
	for _, r := range f.list.rows {
		old[r.Path] = r
	}
	var changed []string
	now := map[string]bool{}
	for _, r := range msg.rows {
		now[r.Path] = true
		// A cost that moved without a write is a log that another one
		// now copies, or is copied by.
		if o, ok := old[r.Path]; !ok || !o.Modified.Equal(r.Modified) || o.Calls != r.Calls ||
			(o.Cost == nil) != (r.Cost == nil) || deref(o.Cost) != deref(r.Cost) {
			changed = append(changed, r.Path)
			delete(f.list.savings, r.Path)
			delete(f.points, r.Path)
			delete(f.unswept, r.Path)
			delete(f.hazardsTried, r.Path)
			f.version[r.Path]++
			f.pending[r.Path] = true
		}
	}
	for p := range old {
		if !now[p] { // gone
			delete(f.pending, p)
			delete(f.list.savings, p)
			delete(f.points, p)
			delete(f.unswept, p)
			f.version[p]++ // kept: a job begun before it went is stale
		}
	}
	if first && !f.opt.NoFollow {
		f.following = f.opt.Follow
		for _, r := range msg.rows {
			f.following = f.following || f.now.Sub(r.Modified) < sessions.LiveWindow
		}
	}
	// The selected session is taken before the rows it indexes go.
	selected := f.list.current()
	f.list.rows = msg.rows
	f.markLive()
	f.list.show(selected)
	if len(changed) > 0 {
		cmds = append(cmds, f.replayFleet(changed, false))
	}
	if f.dirty {
		f.dirty = false
		cmds = append(cmds, f.rescanPaced())
	}
	return tea.Batch(append(cmds, f.followLater())...)
}

// rescanLater asks a followed list to look again in a while.
func (f *listScreen) rescanLater() tea.Cmd {
	if !f.following || rescanEvery <= 0 || f.ticking {
		return nil
	}
	f.ticking = true
	return tea.Tick(rescanEvery, func(time.Time) tea.Msg { return fleetTickMsg{} })
}

// markLive marks the sessions written in the last minute, while following,
// and of those the ones burning: with a call in the burn rate's window. A
// log written now whose calls are old (one copied in) is live, not burning.
func (f *listScreen) markLive() {
	f.list.live, f.list.burning = map[string]bool{}, map[string]bool{}
	if !f.following {
		return
	}
	for _, r := range f.list.rows {
		if f.now.Sub(r.Modified) < sessions.LiveWindow {
			f.list.live[r.Path] = true
			f.list.burning[r.Path] = f.now.Sub(r.Last) < sessions.BurnWindow
		}
	}
}

// replayFleet replays paths under the policy in force; all starts a new
// generation, cancelling the replays of the last.
func (f *listScreen) replayFleet(paths []string, all bool) tea.Cmd {
	if all {
		f.stopJobs(false)
		f.newGeneration()
		for _, r := range f.list.rows {
			f.pending[r.Path] = true
		}
		f.list.refresh()
	}
	if len(paths) == 0 {
		return nil
	}
	ctx, id := f.startJob(len(paths) == len(f.list.rows)) // the first scan's too
	// The chart's other points: the sweep that follows a replay asks for
	// those, and the cache keeps them so.
	others := slices.DeleteFunc(f.chartCeilings(), func(c int64) bool { return c == f.policy.Ceiling })
	return replayFleetCmd(ctx, id, f.src, f.gen, f.policy, paths, nil, others, f.version)
}

// fleetSaved takes replays done under the policy in force; once every
// session is in, the chart's points are computed.
func (f *listScreen) takeSaved(msg fleetSavedMsg) tea.Cmd {
	if j := f.jobs[msg.job.id]; j != nil && msg.done {
		if j.every {
			j.done = true
		} else {
			j.cancel()
			delete(f.jobs, msg.job.id)
		}
	}
	if msg.gen != f.gen {
		return nil // the job was cancelled; what it sent is stale
	}
	if msg.job.hazards {
		// A generation has one policy in force, and computes ahead
		// others (prefetch).
		inForce := msg.job.knobs == knobsKey(f.policy)
		var errs []string
		for _, s := range msg.items {
			if s.Err != nil {
				// A log that could not be read again: the rescan that
				// finds it changed replays it; its hazards stay left.
				errs = append(errs, "hazards: "+s.Err.Error())
				continue
			}
			if s.Path == "" || msg.job.versions[s.Path] != f.version[s.Path] {
				continue // replayed again
			}
			if inForce {
				f.list.savings[s.Path] = s
			}
			f.putPoint(s.Path, msg.job.knobs, s.Point)
		}
		if inForce && len(msg.items) > 0 {
			f.list.refresh()
		}
		next := msg.next
		if msg.done {
			if msg.job.id == f.aheadJob {
				f.aheadJob = 0
			}
			next = f.prefetch()
		}
		if len(errs) > 0 {
			return tea.Batch(next, f.ctx.flash(strings.Join(errs, "; ")))
		}
		return next
	}
	if msg.job.ahead {
		for _, s := range msg.items {
			if s.Err != nil || s.Path == "" || msg.job.versions[s.Path] != f.version[s.Path] {
				continue // the key it was for replays what it lacks
			}
			f.putPoint(s.Path, msg.job.knobs, s.Point)
			for _, pt := range s.Points {
				f.putPoint(s.Path, msg.job.knobs, pt)
			}
		}
		if msg.done {
			if msg.job.id == f.aheadJob {
				f.aheadJob = 0
			}
			return f.prefetch()
		}
		return msg.next
	}
	var errs []string
	knobs := msg.job.knobs
	// A session whose log changed since the job began is being replayed
	// again: what the job made of it is of the log before.
	stale := func(path string) bool { return msg.job.versions[path] != f.version[path] }
	for _, s := range msg.points {
		if !stale(s.Path) {
			for _, pt := range s.Points {
				f.putPoint(s.Path, knobs, pt)
			}
		}
	}
	for _, s := range msg.items {
		if s.Path != "" && stale(s.Path) {
			continue
		}
		if s.Err != nil {
			errs = append(errs, s.Err.Error())
			if s.Path == "" {
				continue
			}
		}
		if msg.sweep {
			if s.Err == nil {
				for _, pt := range s.Points {
					f.putPoint(s.Path, knobs, pt)
				}
			} else {
				f.unswept[s.Path] = true
			}
			continue
		}
		f.list.savings[s.Path] = s
		delete(f.pending, s.Path)
		if s.Err == nil {
			f.putPoint(s.Path, knobs, s.Point)
		}
	}
	if msg.done && !msg.sweep {
		for _, p := range msg.paths {
			if f.pending[p] && !stale(p) {
				f.list.savings[p] = sessions.Savings{Path: p, Err: fmt.Errorf("%s could not be replayed", p)}
				delete(f.pending, p)
			}
		}
	}
	if (len(msg.items) > 0 || msg.done) && !msg.sweep {
		f.list.refresh()
	}
	cmds := []tea.Cmd{msg.next}
	if len(errs) > 0 {
		cmds = append(cmds, f.ctx.flash(strings.Join(errs, "; ")))
	}
	if msg.done && msg.sweep {
		f.sweeping = false
		ceilings := f.chartCeilings()
		for _, p := range msg.paths {
			if !stale(p) && len(f.missingCeilings(p, knobs, ceilings)) > 0 {
				f.unswept[p] = true // could not be swept: charted without it
			}
		}
	}
	if sweep := f.sweepFleet(); sweep != nil {
		cmds = append(cmds, sweep)
	} else {
		cmds = append(cmds, f.prefetch())
	}
	return tea.Batch(cmds...)
}

// AheadOf are the policies a key or two away from p whose charts the list
// computes ahead (prefetch), in that order: the repeat key's (d), the
// spill key's (s), then both's, which either key leads on to, so that
// the four corners of d and s are in whichever order they are pressed;
// only those where a chart point stands for a replay under them.
func AheadOf(p policy.Policy) []policy.Policy {
	var out []policy.Policy
	add := func(q policy.Policy, err error) {
		if err == nil && pointsStand(q) {
			out = append(out, q)
		}
	}
	add(dedupeToggled(p))
	add(spillToggled(p))
	if q, err := spillToggled(p); err == nil {
		add(dedupeToggled(q))
	}
	return out
}

// prefetch computes, once the chart is in, the points of the policies the
// repeat and spill keys would put in force (AheadOf), one after the
// other, so that either key takes every session's figures from them
// (retune): replaying the sessions held, and taking the others' from the
// index's cache where it has them (a source that holds none computes them
// while it reads each session again for the hazards of the policy in
// force: sessions.Service.Ahead, so that there those come first). A
// truncating policy's chart reads and counts every cut again: a list held
// without its texts works 12-14 s more after its chart on the 2 GB fleet,
// in the background (9 s of it for d's and s's), where a key pressed
// before waits for what is left. After the first two policies,
// it looks for the hazards the policy in force left for later
// (findHazards), and after the last, for those the policies computed
// ahead left. A key cancels it, and the next generation goes on from the
// points it has.
// What it replays is kept in the cache, for the list reopened.
func (f *listScreen) prefetch() tea.Cmd {
	if f.away || f.aheadJob != 0 || len(f.pending) > 0 || f.sweeping {
		return nil
	}
	src, ok := f.src.(aheadSource)
	var candidates []policy.Policy
	holdsNone := false
	if ok {
		candidates = AheadOf(f.policy)
		holdsNone = !slices.ContainsFunc(f.list.rows, func(r sessions.Row) bool { return src.Held(r.Path) != nil })
	}
	for {
		// The hazards left for later come after the charts of the repeat
		// and spill keys' own policies, for the keys pressed first: on the
		// 2 GB fleet s pressed 5 s after the chart took 9-10 s with the
		// hazards first, 3-4 s without (its chart reads and counts every
		// cut again). Where no session is held, they come first: those
		// charts are computed with them.
		if f.aheadTried >= min(2, len(candidates)) || holdsNone {
			if cmd := f.findHazards(f.policy); cmd != nil {
				return cmd
			}
		}
		if f.aheadTried >= len(candidates) {
			// Last, the hazards of the policies computed ahead, so that
			// a key shows them at once: d's took 2.5-2.8 s after it on
			// the 2 GB fleet.
			if cmd := f.findHazards(candidates...); cmd != nil {
				return cmd
			}
			break
		}
		next := candidates[f.aheadTried]
		f.aheadTried++
		knobs := knobsKey(next)
		anchor, anchored := f.anchors[knobs]
		if !anchored {
			anchor = next.Ceiling // as retune would anchor it
		}
		ceilings := replay.ChartCeilings(next, anchor)
		w := aheadWork{pol: next}
		for _, r := range f.list.rows {
			missing := f.missingCeilings(r.Path, knobs, ceilings)
			switch {
			case len(missing) == 0:
			case src.Held(r.Path) != nil:
				w.held = append(w.held, r.Path)
				for _, c := range missing {
					if c == next.Ceiling {
						w.own = true
					} else if !slices.Contains(w.swept, c) {
						w.swept = append(w.swept, c)
					}
				}
			default:
				w.others = append(w.others, r.Path)
			}
		}
		if len(w.held)+len(w.others) == 0 {
			continue
		}
		f.anchors[knobs] = anchor
		slices.Sort(w.swept)
		w.chart = slices.DeleteFunc(slices.Clone(ceilings), func(c int64) bool { return c == next.Ceiling })
		ctx, id := f.startJob(false)
		f.aheadJob = id
		return aheadCmd(ctx, id, f.src, src, f.gen, w, f.version)
	}
	if f.idle {
		return nil
	}
	// Nothing left to do: the figures are written to the cache, for a
	// list killed rather than quit, and the heap the work grew is given
	// back, which on the 2 GB fleet took the list's RSS from 1.27-1.31 GB
	// to 0.85 GB.
	f.idle = true
	keep, _ := f.src.(keeper)
	return func() tea.Msg {
		var err error
		if keep != nil {
			err = keep.Keep()
		}
		memory.Idle()
		if err != nil {
			return fleetKeptMsg{err}
		}
		return nil
	}
}

// findHazards looks, once the totals and chart are in, for the hazards
// the replays of the first of pols left for later
// (replay.SweepPoint.HazardsLater), and replays again the sessions whose
// figures lack them: for the policy in force, its figures; for another,
// its point at its ceiling, which the key that puts it in force shows.
// The chart's other points keep theirs for later, until + or - puts
// their ceiling in force.
func (f *listScreen) findHazards(pols ...policy.Policy) tea.Cmd {
	src, ok := f.src.(hazardSource)
	if !ok {
		return nil
	}
	inForce := knobsKey(f.policy)
	for _, pol := range pols {
		knobs := knobsKey(pol)
		var paths []string
		for _, r := range f.list.rows {
			var later bool
			if knobs == inForce {
				s, ok := f.list.savings[r.Path]
				later = ok && s.Point.HazardsLater
			} else {
				pt, ok := f.points[r.Path][knobs][pol.Ceiling]
				later = ok && pt.HazardsLater
			}
			if !later || f.hazardsTried[r.Path][knobs] {
				continue
			}
			paths = append(paths, r.Path)
			if f.hazardsTried[r.Path] == nil {
				f.hazardsTried[r.Path] = map[string]bool{}
			}
			f.hazardsTried[r.Path][knobs] = true
		}
		if len(paths) > 0 {
			ctx, id := f.startJob(false)
			f.aheadJob = id
			return hazardsCmd(ctx, id, src, f.gen, pol, paths, f.version)
		}
	}
	return nil
}

// pauseAhead stops computing ahead while a session is shown, which the
// work it may never need would slow; resumeAhead goes on, from the first
// policy of AheadOf whose points are not all in.
func (f *listScreen) pauseAhead() {
	f.away = true
	if j := f.jobs[f.aheadJob]; j != nil {
		j.cancel()
		delete(f.jobs, f.aheadJob)
	}
	if f.aheadJob != 0 {
		f.aheadJob, f.aheadTried = 0, 0
		f.hazardsTried = map[string]map[string]bool{} // its job may have been the hazards'
	}
}

func (f *listScreen) resumeAhead() tea.Cmd {
	f.away = false
	return f.prefetch()
}

// sweepFleet computes the chart's points for the sessions that lack them,
// once every session is replayed.
func (f *listScreen) sweepFleet() tea.Cmd {
	if len(f.pending) > 0 || f.sweeping {
		return nil
	}
	knobs, all := knobsKey(f.policy), f.chartCeilings()
	var paths []string
	var ceilings []int64
	for _, r := range f.list.rows {
		if s, ok := f.list.savings[r.Path]; !ok || s.Err != nil || f.unswept[r.Path] {
			continue
		}
		if missing := f.missingCeilings(r.Path, knobs, all); len(missing) > 0 {
			paths = append(paths, r.Path)
			for _, c := range missing {
				if !slices.Contains(ceilings, c) {
					ceilings = append(ceilings, c)
				}
			}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(ceilings)
	f.sweeping = true
	ctx, id := f.startJob(false)
	return replayFleetCmd(ctx, id, f.src, f.gen, f.policy, paths, ceilings, nil, f.version)
}

// fleetCurve sums the chart's points over the sessions shown; missing
// counts the sessions whose points are not in yet.
func (f *listScreen) fleetCurve() (points []replay.SweepPoint, missing int) {
	l := &f.list
	knobs, ceilings := knobsKey(f.policy), f.chartCeilings()
	pts := make([]replay.SweepPoint, len(ceilings))
	for _, i := range l.shown {
		path := l.rows[i].Path
		have := f.points[path][knobs]
		complete := true
		for k, c := range ceilings {
			pt, ok := have[c]
			complete = complete && ok
			pts[k] = pt
			pts[k].Own = c == f.policy.Ceiling
		}
		if !complete {
			if s, done := l.savings[path]; (!done || s.Err == nil) && !f.unswept[path] {
				missing++
			}
			continue
		}
		if points == nil {
			points = make([]replay.SweepPoint, len(pts))
			for k := range pts {
				points[k] = replay.SweepPoint{Ceiling: pts[k].Ceiling, Own: pts[k].Own, Cost: new(float64), CostAfter: new(float64)}
			}
		}
		for k := range pts {
			p := &points[k]
			p.Acted += pts[k].Acted
			p.Suppressed += pts[k].Suppressed
			p.Saved += pts[k].Saved
			if pts[k].Cost != nil && pts[k].CostAfter != nil {
				*p.Cost += *pts[k].Cost
				*p.CostAfter += *pts[k].CostAfter
			}
		}
	}
	return points, missing
}

// key handles a key of the list's own; ok is false for the others, which
// the root takes (quit, help, filter, open, tuning).
func (f *listScreen) key(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	k := &f.ctx.Keys
	l := &f.list
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.move(-max(1, l.visible()-1))
	case key.Matches(msg, k.PageDown):
		l.move(max(1, l.visible()-1))
	case key.Matches(msg, k.HalfUp):
		l.move(-max(1, l.visible()/2))
	case key.Matches(msg, k.HalfDown):
		l.move(max(1, l.visible()/2))
	case key.Matches(msg, k.Top):
		l.top()
	case key.Matches(msg, k.Bottom):
		l.bottom()
	case key.Matches(msg, k.List.Subagents):
		return f.ctx.flash(l.toggleParts()), true
	case key.Matches(msg, k.List.Sort):
		l.cycleSort()
		return f.ctx.flash("sessions sorted by " + l.order.String()), true
	case key.Matches(msg, k.List.Back):
		if l.filter != "" {
			l.setFilter("")
			return f.ctx.flash("filter cleared"), true
		}
	case key.Matches(msg, k.Follow):
		return f.toggleFollow(), true
	default:
		// A key of a session's calls says so, rather than doing nothing.
		for _, b := range []key.Binding{k.NextHazard, k.Tools, k.Context, k.Costliest, k.NextEvent, k.PrevEvent, k.Bookmark,
			k.NextBookmark, k.NextMatch, k.PrevMatch, k.Focus, k.Layout, k.Copy, k.Pager} {
			if key.Matches(msg, b) {
				return f.ctx.flash(fmt.Sprintf("%s (%s) works in a session's calls: %s opens the session selected",
					b.Help().Key, b.Help().Desc, k.List.Open.Help().Key)), true
			}
		}
		return nil, false
	}
	return nil, true
}

// toggleFleetFollow stops or starts looking for new and changed sessions.
func (f *listScreen) toggleFollow() tea.Cmd {
	f.following = !f.following
	f.markLive()
	f.list.refresh()
	if !f.following {
		f.stopWatch()
		return f.ctx.flash("stopped following the sessions")
	}
	return tea.Batch(f.ctx.flash("following the sessions: new ones appear at the top"), f.rescan())
}

// rescan scans again unless a scan is under way.
func (f *listScreen) rescan() tea.Cmd {
	if f.scanning {
		return nil
	}
	f.scanning = true
	return scanCmd(f.run, f.src)
}

// fleetHeader names what the list shows and the live state.
func (f *listScreen) header() string {
	st := f.ctx.Styles
	parts := []linePart{{text: st.Title.Render("spillway"), priority: 10}, {text: safe(f.name), priority: 3},
		{text: plural(len(f.list.rows), "session", "sessions"), priority: 8}}
	if f.list.filter != "" {
		parts = append(parts, linePart{text: fmt.Sprintf("%d shown (filter \"%s\")", len(f.list.shown), safe(f.list.filter)), priority: 9})
	}
	if f.list.order != byTime { // the order by time needs no word; another outlasts its notice
		parts = append(parts, linePart{text: "by " + f.list.order.String(), priority: 7})
	}
	if f.following {
		parts = append(parts, linePart{text: st.Live.Render(fmt.Sprintf("● following · %d live", len(f.list.live))), priority: 6})
	}
	return fitLine(parts, st.Muted.Render(" · "), f.ctx.Width)
}

// listLines is the list, or how its first scan goes.
func (f *listScreen) listLines() []string {
	st := f.ctx.Styles
	if !f.scanned {
		if f.err != nil {
			return []string{st.Error.Render(termtext.Truncate("spillway: "+safe(f.err.Error()), f.ctx.Width))}
		}
		return []string{st.Muted.Render(f.scanText())}
	}
	return splitLines(f.list.View())
}

// scanText says how far the scan is.
func (f *listScreen) scanText() string {
	if f.scanTotal <= 0 {
		return "looking for sessions…"
	}
	return fmt.Sprintf("reading sessions %d/%d…", f.scanDone, f.scanTotal)
}

// fleetTotalsLine sums the sessions shown: calls, cost before and after
// the policy, what it saves, and how far the replays are.
func (f *listScreen) totalsLine() string {
	st := f.ctx.Styles
	if !f.scanned {
		return st.Muted.Render(f.scanText())
	}
	t := f.list.totals()
	parts := []linePart{{text: plural(t.sessions, "session", "sessions"), priority: 7}, {text: plural(t.calls, "call", "calls"), priority: 4}}
	cost := "cost " + human.Money(&t.cost) + " → "
	var saved, tokens string
	switch {
	case t.sessions == 0:
		cost = "cost $0"
	case t.unpriced == t.sessions:
		cost = "cost ? (no session has a price)"
	case t.pending > 0:
		cost += "…"
	case t.failed > 0:
		cost += "? · " + fmt.Sprintf("%d not replayed", t.failed)
	default:
		// Every figure of the line to the cents of the largest.
		like := t.cost
		after, gain := t.after, t.cost-t.after
		cost = "cost " + human.MoneyLike(&t.cost, like) + " → " + human.MoneyLike(&after, like) + " " + st.Gain(gain).Render(human.Change(t.cost, t.after))
		saved = "saved " + st.Gain(gain).Render(human.MoneyLike(&gain, like))
		if gain < 0 { // replacements longer than their results
			more := -gain
			saved = "adds " + st.Gain(gain).Render(human.MoneyLike(&more, like))
		}
		tokens = human.Compact(t.saved) + " tokens"
		if t.saved != 0 {
			tokens = human.Less(t.saved, human.Compact) + " tokens" // saved, as the percentage beside the cost
		}
	}
	parts = append(parts, linePart{text: cost, priority: 10})
	if saved != "" {
		parts = append(parts, linePart{text: saved, priority: 6})
	}
	if t.hazards > 0 {
		parts = append(parts, linePart{text: st.Marker[themes.Hazard].Render(hazardsText(t.hazards)), priority: 9})
	}
	if t.hazardsLater > 0 {
		parts = append(parts, linePart{text: st.Muted.Render("hazards: looking… " + human.Count(int64(t.hazardsLater)) + " to go"), priority: 9})
	}
	if t.unpriced > 0 {
		// The cost above leaves these sessions out: kept after the cost,
		// hazards and warnings, so that a cut line never reads as the
		// cost of every session (report's total says unknown).
		parts = append(parts, linePart{text: st.Muted.Render(fmt.Sprintf("%d without a price", t.unpriced)), priority: 8})
	}
	if n := len(f.list.rows); len(f.pending) > 0 {
		parts = append(parts, linePart{text: st.Muted.Render(fmt.Sprintf("replaying %d/%d", n-len(f.pending), n)), priority: 6})
	}
	if n := len(f.warnings) + f.list.sessionWarnings(); n > 0 {
		parts = append(parts, linePart{text: st.Warning.Render(plural(n, "warning", "warnings") + " (W)"), priority: 9})
	}
	if tokens != "" {
		parts = append(parts, linePart{text: tokens, priority: 1})
	}
	return fitLine(parts, st.Muted.Render(" · "), f.ctx.Width)
}

// fleetChartLine charts the savings of the sessions shown by ceiling.
func (f *listScreen) chartLine() string {
	st := f.ctx.Styles
	if len(f.list.shown) == 0 {
		return st.Muted.Render("savings by ceiling: no session to chart")
	}
	points, missing := f.fleetCurve()
	if missing > 0 || len(points) == 0 {
		return st.Muted.Render(fmt.Sprintf("savings by ceiling: computing… %d of %d sessions to go", missing, len(f.list.shown)))
	}
	return drawChart(f.ctx, f.policy, points, 0, 0, f.ctx.Width)
}

// hazardsText counts the hazards of the sessions shown, with their mark.
func hazardsText(n int) string {
	if n == 1 {
		return themes.Hazard.Glyph() + "1 hazard"
	}
	return themes.Hazard.Glyph() + human.Count(int64(n)) + " hazards"
}
