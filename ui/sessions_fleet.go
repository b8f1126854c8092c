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
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
)

// fleet is the session list's state in the root model: the sessions, their
// replays under the policy in force, and the live rescans.
type fleet struct {
	src  SessionSource
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
	gen     int
	cancels []context.CancelFunc
	// pending holds the sessions not replayed yet under gen.
	pending map[string]bool
	// points are the savings chart's points of each session, by the
	// policy's knobs (knobsKey) and ceiling, kept across policies: a new
	// ceiling needs only its own point, which the replay gives, and a
	// policy tried before needs none. unswept are the sessions that could
	// not be swept under gen: charted without them.
	points   map[string]map[string]map[int64]replay.SweepPoint
	knobs    []string // of points, the most recent last
	unswept  map[string]bool
	sweeping bool
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
}

// Messages of the session list's commands.
type (
	fleetScannedMsg struct {
		rows     []SessionRow
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
		items []SessionSavings
		sweep bool
		done  bool
		// job is what the job began with: its policy's knobs and its
		// sessions' versions.
		job jobStart
		// paths are the job's sessions, on its last message: those it
		// could not replay are no longer waited for.
		paths []string
		next  tea.Cmd
	}
	fleetTickMsg struct{}
)

// jobStart is what a replay or sweep began with.
type jobStart struct {
	knobs    string
	versions map[string]int
}

// rescanEvery is how often a followed list looks for new and changed
// sessions.
var rescanEvery = 2 * time.Second

// clock is time.Now; tests stand in for it.
var clock = time.Now

// scanCmd scans the sessions in the background, reporting progress every
// 100 ms until they are in.
func scanCmd(src SessionSource) tea.Cmd {
	var mu sync.Mutex
	var done, total int
	out := make(chan fleetScannedMsg, 1)
	crash.Go(func() {
		rows, warnings, err := src.Scan(context.Background(), func(d, t int) {
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
	return wait
}

// stream gathers what a background job emits for the command that waits
// for it.
type stream struct {
	mu     sync.Mutex
	items  []SessionSavings
	done   bool
	notify chan struct{}
}

func newStream() *stream { return &stream{notify: make(chan struct{}, 1)} }

func (s *stream) push(v SessionSavings) {
	s.mu.Lock()
	s.items = append(s.items, v)
	s.mu.Unlock()
	s.poke()
}

func (s *stream) finish() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	s.poke()
}

func (s *stream) poke() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// streamBatch is how long a wait gathers items after the first, so that
// many quick replays make one redraw.
var streamBatch = 30 * time.Millisecond

// wait returns a command that delivers what the job emitted next.
func (s *stream) wait(gen int, sweep bool, paths []string, job jobStart) tea.Cmd {
	var wait tea.Cmd
	wait = func() tea.Msg {
		<-s.notify
		if streamBatch > 0 {
			time.Sleep(streamBatch)
		}
		s.mu.Lock()
		items, done := s.items, s.done
		s.items = nil
		s.mu.Unlock()
		msg := fleetSavedMsg{gen: gen, items: items, sweep: sweep, done: done, job: job}
		if done {
			msg.paths = paths
		} else {
			msg.next = wait
		}
		return msg
	}
	return wait
}

// replayFleetCmd replays paths under pol (or sweeps them at ceilings) in
// the background until ctx ends; versions are the sessions' as it begins.
func replayFleetCmd(ctx context.Context, src SessionSource, gen int, pol policy.Policy, paths []string, ceilings []int64, versions map[string]int) tea.Cmd {
	job := jobStart{knobs: knobsKey(pol), versions: map[string]int{}}
	for _, p := range paths {
		if v := versions[p]; v != 0 {
			job.versions[p] = v
		}
	}
	s := newStream()
	crash.Go(func() {
		defer s.finish()
		var err error
		if ceilings != nil {
			err = src.Sweep(ctx, pol, paths, ceilings, s.push)
		} else {
			err = src.Replay(ctx, pol, paths, s.push)
		}
		if err != nil && ctx.Err() == nil {
			s.push(SessionSavings{Err: err})
		}
	})
	return s.wait(gen, ceilings != nil, paths, job)
}

// newFleet starts the list over src.
func newFleet(ctx *Context, src SessionSource, name string) *fleet {
	return &fleet{src: src, name: name, list: sessionList{ctx: ctx, savings: map[string]SessionSavings{}},
		pending: map[string]bool{}, points: map[string]map[string]map[int64]replay.SweepPoint{}, unswept: map[string]bool{},
		version: map[string]int{}}
}

// keptKnobs is how many policies' chart points the list keeps (apart
// from their ceilings): a few keys back and forth redraw at once.
const keptKnobs = 8

// putPoint keeps pt as path's point under knobs.
func (f *fleet) putPoint(path, knobs string, pt replay.SweepPoint) {
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
func (f *fleet) missingCeilings(path, knobs string, ceilings []int64) []int64 {
	have := f.points[path][knobs]
	var out []int64
	for _, c := range ceilings {
		if _, ok := have[c]; !ok {
			out = append(out, c)
		}
	}
	return out
}

// onList tells whether the session list is on screen.
func (m *Model) onList() bool { return m.fleet != nil && !m.inSession }

// fleetScanned takes a scan: rows new or changed are replayed under the
// policy in force, and a followed list looks again in a while.
func (m *Model) fleetScanned(msg fleetScannedMsg) tea.Cmd {
	f := m.fleet
	f.scanning = false
	f.now = clock()
	var cmds []tea.Cmd
	if msg.err != nil {
		f.err = msg.err
		if !f.scanned {
			return nil
		}
		return tea.Batch(m.flash("rescan: "+msg.err.Error()), m.followLater())
	}
	f.err = nil
	first := !f.scanned
	f.scanned = true
	f.warnings = msg.warnings
	old := map[string]SessionRow{}
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
	if first && !m.opt.NoFollow {
		f.following = m.opt.Follow
		for _, r := range msg.rows {
			f.following = f.following || f.now.Sub(r.Modified) < liveWindow
		}
	}
	f.list.rows = msg.rows
	m.markLive()
	f.list.refresh()
	if len(changed) > 0 {
		cmds = append(cmds, m.replayFleet(changed, false))
	}
	if f.dirty {
		f.dirty = false
		cmds = append(cmds, m.rescan())
	}
	return tea.Batch(append(cmds, m.followLater())...)
}

// rescanLater asks a followed list to look again in a while.
func (m *Model) rescanLater() tea.Cmd {
	if !m.fleet.following || rescanEvery <= 0 || m.fleet.ticking {
		return nil
	}
	m.fleet.ticking = true
	return tea.Tick(rescanEvery, func(time.Time) tea.Msg { return fleetTickMsg{} })
}

// markLive marks the sessions written in the last minute, while following.
func (m *Model) markLive() {
	f := m.fleet
	f.list.live = map[string]bool{}
	if !f.following {
		return
	}
	for _, r := range f.list.rows {
		if f.now.Sub(r.Modified) < liveWindow {
			f.list.live[r.Path] = true
		}
	}
}

// replayFleet replays paths under the policy in force; all starts a new
// generation, cancelling the replays of the last.
func (m *Model) replayFleet(paths []string, all bool) tea.Cmd {
	f := m.fleet
	if all {
		for _, cancel := range f.cancels {
			cancel()
		}
		f.cancels = nil
		f.gen++
		f.list.savings = map[string]SessionSavings{}
		f.unswept = map[string]bool{}
		f.pending = map[string]bool{}
		f.sweeping = false
		for _, r := range f.list.rows {
			f.pending[r.Path] = true
		}
		f.list.refresh()
	}
	if len(paths) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancels = append(f.cancels, cancel)
	return replayFleetCmd(ctx, f.src, f.gen, m.policy, paths, nil, f.version)
}

// fleetSaved takes replays done under the policy in force; once every
// session is in, the chart's points are computed.
func (m *Model) fleetSaved(msg fleetSavedMsg) tea.Cmd {
	f := m.fleet
	if msg.gen != f.gen {
		return nil // the job was cancelled; what it sent is stale
	}
	var errs []string
	knobs := msg.job.knobs
	// A session whose log changed since the job began is being replayed
	// again: what the job made of it is of the log before.
	stale := func(path string) bool { return msg.job.versions[path] != f.version[path] }
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
				f.list.savings[p] = SessionSavings{Path: p, Err: fmt.Errorf("%s could not be replayed", p)}
				delete(f.pending, p)
			}
		}
	}
	if (len(msg.items) > 0 || msg.done) && !msg.sweep {
		f.list.refresh()
	}
	cmds := []tea.Cmd{msg.next}
	if len(errs) > 0 {
		cmds = append(cmds, m.flash(strings.Join(errs, "; ")))
	}
	if msg.done && msg.sweep {
		f.sweeping = false
		ceilings := replay.SweepCeilings(m.policy)
		for _, p := range msg.paths {
			if !stale(p) && len(f.missingCeilings(p, knobs, ceilings)) > 0 {
				f.unswept[p] = true // could not be swept: charted without it
			}
		}
	}
	cmds = append(cmds, m.sweepFleet())
	return tea.Batch(cmds...)
}

// sweepFleet computes the chart's points for the sessions that lack them,
// once every session is replayed.
func (m *Model) sweepFleet() tea.Cmd {
	f := m.fleet
	if len(f.pending) > 0 || f.sweeping {
		return nil
	}
	knobs, all := knobsKey(m.policy), replay.SweepCeilings(m.policy)
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
	ctx, cancel := context.WithCancel(context.Background())
	f.cancels = append(f.cancels, cancel)
	return replayFleetCmd(ctx, f.src, f.gen, m.policy, paths, ceilings, f.version)
}

// fleetCurve sums the chart's points over the sessions shown; missing
// counts the sessions whose points are not in yet.
func (m *Model) fleetCurve() (points []replay.SweepPoint, missing int) {
	f := m.fleet
	l := &f.list
	knobs, ceilings := knobsKey(m.policy), replay.SweepCeilings(m.policy)
	pts := make([]replay.SweepPoint, len(ceilings))
	for _, i := range l.shown {
		path := l.rows[i].Path
		have := f.points[path][knobs]
		complete := true
		for k, c := range ceilings {
			pt, ok := have[c]
			complete = complete && ok
			pts[k] = pt
			pts[k].Own = c == m.policy.Ceiling
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

// openSession leaves the list for a session's calls; a live one is
// followed as it is written.
func (m *Model) openSession() tea.Cmd {
	path := m.fleet.list.current()
	if path == "" {
		return m.flash("no session to open")
	}
	m.resetSession()
	m.inSession = true
	m.opt.Source = Source{Name: path, Path: path}
	if m.fleet.list.live[path] {
		m.loading = true
		return m.startFollow()
	}
	// A session the list holds read and counted opens at once.
	if h, ok := m.fleet.src.(interface {
		Held(path string) *replay.Prepared
	}); ok {
		if p := h.Held(path); p != nil {
			m.session, m.prep = p.Session, p
			m.table.setSession(p.Session, nil)
			return m.requestReplay()
		}
	}
	m.loading = true
	return loadCmd(m.opt)
}

// backToList closes the session; the list's cursor is where it was.
func (m *Model) backToList() tea.Cmd {
	if m.cancelFollow != nil {
		m.cancelFollow()
	}
	m.following = false
	m.followID++
	m.resetSession()
	m.inSession = false
	return nil
}

// resetSession forgets the open session and all that hangs on it.
func (m *Model) resetSession() {
	m.session, m.prep, m.replay, m.recorded = nil, nil, nil, nil
	m.closeTexts()
	unlimitMemory()
	m.seq++ // its replays still under way are dropped
	m.replayed = m.seq
	m.chart = chart{}
	m.progress, m.loading, m.err, m.waiting, m.waitedBytes = progressMsg{}, false, nil, false, 0
	m.table = callTable{ctx: m.ctx}
	m.detail = detailPane{ctx: m.ctx}
	m.focus, m.overlay = focusTable, noOverlay
	m.matches, m.match, m.query, m.bookmarks = nil, 0, "", nil
	m.opening, m.alert, m.newBelow = nil, "", 0
	m.layout()
}

// listKey handles a key on the session list.
func (m *Model) listKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.ctx.Keys
	l := &m.fleet.list
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.overlay, m.overlayScroll = helpOverlay, 0
	case key.Matches(msg, k.Warnings):
		m.overlay, m.overlayScroll, m.warningCursor, m.notice = warningsOverlay, 0, 0, ""
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.move(-max(1, l.visible()-1))
	case key.Matches(msg, k.PageDown):
		l.move(max(1, l.visible()-1))
	case key.Matches(msg, k.Top):
		l.top()
	case key.Matches(msg, k.Bottom):
		l.bottom()
	case key.Matches(msg, k.List.Subagents):
		return m.flash(l.toggleParts())
	case key.Matches(msg, k.List.Sort):
		l.cycleSort()
		return m.flash("sessions sorted by " + l.order.String())
	case key.Matches(msg, k.List.Filter):
		m.filterBefore = l.filter
		cmd := m.openInput(filterInput, "filter: ", "project, file, agent or model")
		m.input.SetValue(l.filter)
		m.input.CursorEnd()
		return cmd
	case key.Matches(msg, k.List.Open):
		return m.openSession()
	case key.Matches(msg, k.List.Back):
		if l.filter != "" {
			l.setFilter("")
			return m.flash("filter cleared")
		}
	case key.Matches(msg, k.Follow):
		return m.toggleFleetFollow()
	default:
		return m.tuneKey(msg)
	}
	return nil
}

// toggleFleetFollow stops or starts looking for new and changed sessions.
func (m *Model) toggleFleetFollow() tea.Cmd {
	f := m.fleet
	f.following = !f.following
	m.markLive()
	f.list.refresh()
	if !f.following {
		m.stopWatch()
		return m.flash("stopped following the sessions")
	}
	return tea.Batch(m.flash("following the sessions: new ones appear at the top"), m.rescan())
}

// rescan scans again unless a scan is under way.
func (m *Model) rescan() tea.Cmd {
	f := m.fleet
	if f.scanning {
		return nil
	}
	f.scanning = true
	return scanCmd(f.src)
}

// fleetHeader names what the list shows and the live state.
func (m *Model) fleetHeader() string {
	f := m.fleet
	st := m.ctx.Styles
	n := len(f.list.rows)
	noun := "sessions"
	if n == 1 {
		noun = "session"
	}
	parts := []string{st.Title.Render("spillway"), safe(f.name), fmt.Sprintf("%d %s", n, noun)}
	if f.list.filter != "" {
		parts = append(parts, fmt.Sprintf("%d shown (filter \"%s\")", len(f.list.shown), safe(f.list.filter)))
	}
	if f.list.order != byTime { // the order by time needs no word; another outlasts its notice
		parts = append(parts, "by "+f.list.order.String())
	}
	if f.following {
		live := len(f.list.live)
		parts = append(parts, st.Live.Render(fmt.Sprintf("● following · %d live", live)))
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// listLines is the list, or how its first scan goes.
func (m *Model) listLines() []string {
	f := m.fleet
	st := m.ctx.Styles
	if !f.scanned {
		if f.err != nil {
			return []string{st.Error.Render(termtext.Truncate("spillway: "+safe(f.err.Error()), m.ctx.Width))}
		}
		return []string{st.Muted.Render(m.scanText())}
	}
	return splitLines(f.list.View())
}

// scanText says how far the scan is.
func (m *Model) scanText() string {
	f := m.fleet
	if f.scanTotal <= 0 {
		return "looking for sessions…"
	}
	return fmt.Sprintf("reading sessions %d/%d…", f.scanDone, f.scanTotal)
}

// fleetTotalsLine sums the sessions shown: calls, cost before and after
// the policy, what it saves, and how far the replays are.
func (m *Model) fleetTotalsLine() string {
	f := m.fleet
	st := m.ctx.Styles
	if !f.scanned {
		return st.Muted.Render(m.scanText())
	}
	t := f.list.totals()
	noun := "sessions"
	if t.sessions == 1 {
		noun = "session"
	}
	calls := " calls"
	if t.calls == 1 {
		calls = " call"
	}
	parts := []string{fmt.Sprintf("%d %s", t.sessions, noun), human.Count(int64(t.calls)) + calls}
	cost := "cost " + human.Money(&t.cost) + " → "
	tokens := "" // the least of the figures: last, the first a narrow terminal cuts
	if t.sessions == 0 {
		cost = "cost $0"
	} else if t.unpriced == t.sessions {
		cost = "cost ? (no session has a price)"
	} else if t.pending > 0 {
		cost += "…"
	} else if t.failed > 0 {
		cost += "? · " + fmt.Sprintf("%d not replayed", t.failed)
	} else {
		cost += human.Money(&t.after) + " " + st.Saved.Render("−"+human.Percent(t.cost, t.after))
		saved := t.cost - t.after
		cost += " · saved " + st.Saved.Render(human.Money(&saved))
		tokens = human.Compact(t.saved) + " tokens"
	}
	parts = append(parts, cost)
	if t.hazards > 0 {
		parts = append(parts, st.Marker[themes.Hazard].Render(hazardsText(t.hazards)))
	}
	if t.unpriced > 0 {
		parts = append(parts, st.Muted.Render(fmt.Sprintf("%d without a price", t.unpriced)))
	}
	if n := len(f.list.rows); len(f.pending) > 0 {
		parts = append(parts, st.Muted.Render(fmt.Sprintf("replaying %d/%d", n-len(f.pending), n)))
	}
	if len(f.warnings) > 0 {
		noun := "warnings"
		if len(f.warnings) == 1 {
			noun = "warning"
		}
		parts = append(parts, st.Warning.Render(fmt.Sprintf("%d %s (W)", len(f.warnings), noun)))
	}
	if tokens != "" {
		parts = append(parts, tokens)
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// fleetChartLine charts the savings of the sessions shown by ceiling.
func (m *Model) fleetChartLine() string {
	st := m.ctx.Styles
	if len(m.fleet.list.shown) == 0 {
		return st.Muted.Render("savings by ceiling: no session to chart")
	}
	points, missing := m.fleetCurve()
	if missing > 0 || len(points) == 0 {
		return st.Muted.Render(fmt.Sprintf("savings by ceiling: computing… %d of %d sessions to go", missing, len(m.fleet.list.shown)))
	}
	return m.drawChart(points, 0, 0)
}

// hazardsText counts the hazards of the sessions shown, with their mark.
func hazardsText(n int) string {
	if n == 1 {
		return themes.Hazard.Glyph() + "1 hazard"
	}
	return themes.Hazard.Glyph() + human.Count(int64(n)) + " hazards"
}
