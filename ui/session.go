package ui

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/spillview"
	"github.com/spillway-dev/spillway/transcript"
)

// sessionScreen is the view of one session: its calls, the detail pane,
// the savings chart, and the spill viewer, per-tool view and context chart
// over them. It is made when a session is opened and dropped when it is
// left: everything it started is stopped with its context, and what its
// commands still send is dropped by the root, which knows it by its id.
type sessionScreen struct {
	ctx *Context
	id  int // the root drops the messages of a screen not shown
	opt Options
	src Source
	// run ends when the screen is left: every command it starts stops.
	run  context.Context
	stop context.CancelFunc

	policy policy.Policy // the policy in force, as the root set it last

	// session, prep and replay are the session's own log's; subs its
	// sub-agents' logs, each counted and replayed on its own as report
	// does, and shown after its calls.
	session *transcript.Session
	prep    *replay.Prepared
	replay  *replay.Run
	subs    []*subLog
	// subsOf is the followed file whose sub-agents' logs were sent for;
	// subsSig says how they were when last read, subsReading that a look
	// is on its way, subsAgain that one is wanted once that one (or the
	// pause after the last, until subsNext) is over, subsTicking that a
	// timer is set for the next.
	subsOf                              string
	subsSig                             string
	subsReading, subsAgain, subsTicking bool
	subsNext                            time.Time
	chart                               chart

	seq int // the replay wanted; older results are dropped
	// replayed is the seq of the replay shown: while it lags seq, the
	// chart waits so that the replay has the processor.
	replayed int
	prepSeq  int
	// preparing is set while a Prepare runs; stale means a newer session
	// arrived meanwhile and must be prepared next.
	preparing, stale bool
	progress         progressMsg
	loading          bool
	err              error
	// followErr is the follower's problem as its last update had it (a
	// file that cannot be opened, a line it could not read): it goes
	// when the follower recovers, as err, the screen's own, does not.
	followErr error

	following    bool
	cancelFollow context.CancelFunc
	followID     int // the follower whose messages count

	table   callTable
	detail  detailPane
	focus   focusArea
	overlay overlay // the spill viewer, tools or context chart, or none

	query     string
	matches   []int
	match     int
	bookmarks []int

	spill spillview.Model
	// agentFiles says which files agents spilled results to exist here;
	// opening waits for one to be looked up. agentAsked holds the files
	// looked up, or being looked up, and agentAnswers counts the answers.
	agentFiles   map[string]bool
	agentAsked   map[string]bool
	agentAnswers int
	// waiting: the followed file holds no session yet (empty, read again
	// from its start, or lines of no known record); waitedBytes is how
	// much of it was read.
	waiting     bool
	waitedBytes int64
	opening     *pendingOpen
	// overlayScroll is the first line shown of the tools view.
	overlayScroll int

	alert string
	// newBelow counts the calls a followed session gained while the
	// cursor was off its last row: they arrive out of view.
	newBelow int

	// realized is what spillway's hook cut from the session, from its
	// ledger; nil when it cut nothing.
	realized *ledger.Totals

	// hazardsIndexed says the session shown has what finding hazards
	// needs built, so no re-tuning key waits for it.
	hazardsIndexed bool
	tools          toolsView
	// spills are the spill files the replay shown planned: written one by
	// one as results are opened, all when the policy is written.
	spills *spill.Planned
	// recorded prices the session shown as recorded while it was read for
	// its sizes alone and its texts are still being read; nil after.
	// partial: what is shown is of the file's first part only.
	recorded *replay.Recorded
	partial  bool
	// texts reads the results' texts of a session read without them
	// again from its file; nil when the session holds them. textAsked is
	// the result whose text the detail pane was last sent for.
	texts     *app.FileTexts
	textAsked *transcript.ToolResult
}

// subLog is a sub-agent's log of the session shown: read and reconciled
// with it, counted and replayed on its own.
type subLog struct {
	session *transcript.Session
	prep    *replay.Prepared
	replay  *replay.Run
	spills  *spill.Planned
}

// logParts are the logs shown: the session's own, then its sub-agents'.
func (s *sessionScreen) logParts() []logPart {
	parts := []logPart{{session: s.session, prep: s.prep, replay: s.replay}}
	if s.session == nil {
		return parts
	}
	first := len(s.session.Calls)
	for _, sub := range s.subs {
		parts = append(parts, logPart{name: filepath.Base(sub.session.Path), session: sub.session, prep: sub.prep, replay: sub.replay, first: first})
		first += len(sub.session.Calls)
	}
	return parts
}

// at is the log of call, one of all the calls shown, and its index there.
func (s *sessionScreen) at(call int) (logPart, int) {
	parts := s.logParts()
	for i := len(parts) - 1; i >= 0; i-- {
		if call >= parts[i].first {
			return parts[i], call - parts[i].first
		}
	}
	return parts[0], call
}

// showParts shows the logs' calls, each under its replay so far.
func (s *sessionScreen) showParts() { s.table.setParts(s.logParts()) }

// preps are the logs' counts, the session's own first; nil until all are
// counted.
func (s *sessionScreen) preps() []*replay.Prepared {
	if s.prep == nil {
		return nil
	}
	out := []*replay.Prepared{s.prep}
	for _, sub := range s.subs {
		if sub.prep == nil {
			return nil
		}
		out = append(out, sub.prep)
	}
	return out
}

// newSessionScreen is the screen of src under pol; init starts reading it.
func newSessionScreen(ctx *Context, id int, opt Options, src Source, pol policy.Policy) *sessionScreen {
	run, stop := context.WithCancel(context.Background())
	s := &sessionScreen{ctx: ctx, id: id, opt: opt, src: src, run: run, stop: stop, policy: pol, loading: true}
	s.table = callTable{ctx: ctx}
	s.detail = detailPane{ctx: ctx}
	s.tools = toolsView{ctx: ctx}
	s.spill = spillview.New(ctx.Styles, spillview.DefaultKeyMap())
	return s
}

// init starts reading, or following, the session.
func (s *sessionScreen) init(follow bool) tea.Cmd {
	if follow && s.src.Path != "" {
		return s.startFollow()
	}
	return loadCmd(s.run, s.src, s.opt)
}

// openHeld shows a session the list holds read and counted, at once.
func (s *sessionScreen) openHeld(held *app.Session) tea.Cmd {
	s.loading = false
	s.session, s.prep = held.Session, held.Prepared
	for _, sub := range held.Subagents {
		s.subs = append(s.subs, &subLog{session: sub.Session, prep: sub})
	}
	s.showParts()
	return s.requestReplay()
}

// leave stops everything the screen started and lets its session go.
func (s *sessionScreen) leave() {
	s.stop()
	s.spill.Close()
	if s.cancelFollow != nil {
		s.cancelFollow()
	}
	s.closeTexts()
}

// setStyles takes new styles (the terminal's background changed).
func (s *sessionScreen) setStyles() { s.spill.SetStyles(s.ctx.Styles) }

// update takes one of the screen's own messages.
func (s *sessionScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case progressMsg:
		s.progress = msg
		return msg.next
	case rowsMsg:
		return s.setRows(msg)
	case loadedMsg:
		s.loading = false
		// The texts are in; the rows keep their recorded prices until the
		// first replay gives the figures after the policy.
		s.recorded, s.partial = nil, false
		if msg.recorded != nil {
			s.table.recorded = msg.recorded
		}
		if msg.err != nil {
			s.table.recorded = nil
			s.err = msg.err
			return nil
		}
		s.closeTexts()
		s.texts = msg.texts
		s.subs = nil
		for _, sub := range msg.subs {
			s.subs = append(s.subs, &subLog{session: sub})
		}
		cmd := s.setSession(msg.session)
		if msg.subErr != nil {
			cmd = tea.Batch(cmd, s.ctx.flash("a sub-agent's log is left out: "+msg.subErr.Error()))
		}
		return cmd
	case textReadMsg:
		return s.textRead(msg)
	case followStartedMsg:
		if msg.id != s.followID {
			return nil // a follower stopped before it started
		}
		if msg.err != nil {
			s.following, s.cancelFollow = false, nil
			if s.session == nil {
				s.loading, s.err = false, msg.err
				return nil
			}
			return s.ctx.flash(msg.err.Error())
		}
		return followCmd(msg.id, msg.ch)
	case followMsg:
		if msg.id != s.followID {
			return msg.next // drained until it closes
		}
		return tea.Batch(s.followed(msg.update), msg.next)
	case subsReadMsg:
		if msg.path != s.subsOf {
			return nil // read for a file no longer followed
		}
		s.subsReading = false
		s.subsNext = time.Now().Add(time.Duration(subsPace) * msg.took)
		if s.session == nil {
			return nil // read again from its start: looked at with its first lines
		}
		s.subsSig = msg.sig
		var cmd tea.Cmd
		if !msg.same {
			s.subs = nil
			for _, sub := range msg.subs {
				s.subs = append(s.subs, &subLog{session: sub})
			}
			s.showParts()
			cmd = s.requestPrepare()
			if msg.err != nil {
				cmd = tea.Batch(cmd, s.ctx.flash("a sub-agent's log is left out: "+msg.err.Error()))
			}
		}
		if s.subsAgain {
			return tea.Batch(cmd, s.readSubs())
		}
		return tea.Batch(cmd, s.subsLater())
	case subsTickMsg:
		s.subsTicking = false
		if msg.path != s.subsOf || !s.following || s.subsReading {
			return nil
		}
		return s.readSubs()
	case followEndedMsg:
		if msg.id == s.followID {
			s.following = false
		}
		return nil
	case preparedMsg:
		return s.prepared(msg)
	case hazardsIndexedMsg:
		s.hazardsIndexed = msg.prep == s.prep
		return nil
	case replayedMsg:
		if msg.seq != s.seq || (msg.replay != nil && msg.replay.Prepared != s.prep) {
			return nil
		}
		s.replayed = msg.seq
		if msg.err != nil {
			return s.ctx.flash("replay: " + msg.err.Error())
		}
		s.spills = msg.spills
		for i, sub := range s.subs {
			if i < len(msg.subs) {
				sub.replay, sub.spills = msg.subs[i], msg.subSpills[i]
			}
		}
		if err := msg.replay.Prepared.TextErr(); err != nil {
			s.err = fmt.Errorf("%w: the figures count what could not be read as empty; open the session again", err)
		}
		s.setReplay(msg.replay)
		s.chart.addReplay(s.applied(), s.replays())
		return s.sweepWhenIdle()
	case chartDueMsg:
		if msg.seq != s.seq {
			return nil // a key came meanwhile: its replay first
		}
		return s.requestSweep()
	case sweptMsg:
		s.chart.swept(msg)
		return s.requestSweep()
	case searchedMsg:
		s.matches, s.match = msg.calls, -1
		if len(s.matches) == 0 {
			return s.ctx.flash(fmt.Sprintf("no call matches %q", msg.query))
		}
		return s.nextMatch(1)
	case spillsWrittenMsg:
		return s.spillsWritten(msg)
	case agentFileMsg:
		return s.agentFileFound(msg)
	case spillview.OpenedMsg, spillview.SearchedMsg, spillview.LinesMsg:
		var cmd tea.Cmd
		s.spill, cmd = s.spill.Update(msg)
		return cmd
	case spillview.CloseMsg:
		// The file, its line index and matches go with the viewer, and
		// an open still running is given up.
		s.overlay, s.opening = noOverlay, nil
		s.spill.Close()
		return nil
	case pagerReadyMsg:
		return s.pagerReady(msg)
	}
	return nil
}

// sync brings what View reads up to date after any message, and looks up
// or reads, in commands, what the detail pane now shows and lacks.
func (s *sessionScreen) sync() tea.Cmd {
	if s.table.atEnd() {
		s.newBelow = 0
	}
	p, call := s.at(s.currentCall())
	s.detail.refresh(p, call, s.agentFiles, s.agentAnswers)
	if s.overlay == toolsOverlay {
		s.tools.set(s.replay) // summed only while the view is open
		s.overlayScroll = max(0, min(s.overlayScroll, len(s.toolsLines())-max(1, s.ctx.Height-1)))
	}
	return tea.Batch(s.lookUpShownAgentFile(), s.readShownText())
}

// lookUpShownAgentFile asks, once, whether the file the shown result was
// spilled to by its agent exists, so that the pane can say it is missing
// before enter is pressed.
func (s *sessionScreen) lookUpShownAgentFile() tea.Cmd {
	p := s.detail.agentFile
	if p == "" || s.agentAsked[p] {
		return nil
	}
	if s.agentAsked == nil {
		s.agentAsked = map[string]bool{}
	}
	s.agentAsked[p] = true
	return agentFileCmd(p)
}

// setSession takes a newly read session and starts counting it.
func (s *sessionScreen) setSession(session *transcript.Session) tea.Cmd {
	s.session = session
	s.showParts()
	s.detail.reset()
	return s.requestPrepare()
}

func (s *sessionScreen) requestPrepare() tea.Cmd {
	if s.session == nil {
		return nil
	}
	if s.preparing {
		s.stale = true
		return nil
	}
	s.preparing, s.stale = true, false
	s.prepSeq++
	var subs []*transcript.Session
	for _, sub := range s.subs {
		subs = append(subs, sub.session)
	}
	return prepareCmd(s.run, s.prepSeq, s.session, subs, s.textSource(), s.opt)
}

func (s *sessionScreen) prepared(msg preparedMsg) tea.Cmd {
	if msg.seq != s.prepSeq {
		return nil // a prepare that was not the last asked for
	}
	s.preparing = false
	if msg.err != nil {
		s.err = msg.err
		return nil
	}
	s.progress = progressMsg{}
	var cmd tea.Cmd
	if msg.prep.Session == s.session && len(msg.subs) == len(s.subs) {
		s.prep, s.realized = msg.prep, msg.realized
		for i, sub := range s.subs {
			sub.prep = msg.subs[i]
		}
		cmd = tea.Batch(s.requestReplay(), indexHazardsCmd(msg.prep))
	}
	if s.stale {
		return tea.Batch(cmd, s.requestPrepare())
	}
	return cmd
}

// retune takes a new policy and replays under it.
func (s *sessionScreen) retune(p policy.Policy) tea.Cmd {
	s.policy = p
	return s.requestReplay()
}

// requestReplay replays under the current policy in the background.
func (s *sessionScreen) requestReplay() tea.Cmd {
	preps := s.preps()
	if preps == nil {
		return nil
	}
	s.seq++
	return replayCmd(s.seq, preps, s.policy, s.opt)
}

// replays are the logs' replays shown, the session's own first; nil until
// it is replayed.
func (s *sessionScreen) replays() []*replay.Run {
	if s.replay == nil {
		return nil
	}
	out := []*replay.Run{s.replay}
	for _, sub := range s.subs {
		if sub.replay != nil {
			out = append(out, sub.replay)
		}
	}
	return out
}

// applied is the policy in force as the replays of this session apply
// it: for one that follows the Claude Code version, with that version's
// rules, which the chart and its marker then are of.
func (s *sessionScreen) applied() policy.Policy {
	if s.session == nil {
		return s.policy
	}
	return replay.ForSession(s.policy, s.session)
}

// chartPause is how long the keys must rest before the chart's missing
// points are computed: a point cannot be stopped once begun, so one begun
// between two quick keys would share the processor with the second key's
// replay. 0 computes at once (tests).
var chartPause = 150 * time.Millisecond

// chartDueMsg says the keys rested for chartPause after replay seq.
type chartDueMsg struct{ seq int }

// sweepWhenIdle asks for the chart's next point once no key has come for
// chartPause.
func (s *sessionScreen) sweepWhenIdle() tea.Cmd {
	if chartPause <= 0 {
		return s.requestSweep()
	}
	seq := s.seq
	return tea.Tick(chartPause, func(time.Time) tea.Msg { return chartDueMsg{seq: seq} })
}

// requestSweep computes the next point the chart lacks, once the replay
// asked for last is in: a key's totals never wait for the chart.
func (s *sessionScreen) requestSweep() tea.Cmd {
	if s.replayed != s.seq {
		return nil
	}
	return s.chart.next(s.preps(), s.applied())
}

func (s *sessionScreen) setReplay(rp *replay.Run) {
	atEnd := s.table.atEnd()
	old := s.replay
	s.replay = rp
	s.table.recorded = nil // priced by rp now
	s.showParts()
	if s.following && atEnd {
		s.table.bottom()
	}
	if s.following && old != nil && old.Prepared.Session != rp.Prepared.Session {
		s.raiseAlerts(old, rp)
	}
}

// raiseAlerts tells about new results over the ceiling and new suppressed
// repeats since the previous replay of a followed session.
func (s *sessionScreen) raiseAlerts(old, rp *replay.Run) {
	for i := len(old.Results); i < len(rp.Results); i++ {
		r := rp.Results[i]
		switch r.Outcome {
		case replay.Truncated, replay.Spilled:
			s.alert = fmt.Sprintf("new %s result over the ceiling at call %d (%s)", safe(r.Source.Tool), r.Arrival, policy.FormatSize(r.Size, rp.Policy.Unit))
		case replay.Suppressed:
			s.alert = fmt.Sprintf("repeat of result %d suppressed at call %d (%s)", r.RepeatOf, r.Arrival, safe(r.Source.Tool))
			if r.Stale {
				// The agent is told "same as before" about a result
				// that changed: the one alert worth stopping for.
				s.alert = fmt.Sprintf("stale repeat of result %d suppressed at call %d (%s): the real result had changed", r.RepeatOf, r.Arrival, safe(r.Source.Tool))
			}
		}
	}
}

// problem is what went wrong for the screen, its own problem first; nil
// when nothing did.
func (s *sessionScreen) problem() error {
	if s.err != nil {
		return s.err
	}
	return s.followErr
}

// followed takes a followed session's newest state.
func (s *sessionScreen) followed(u transcript.Update) tea.Cmd {
	s.loading = false
	var cmds []tea.Cmd
	if u.Restarted != "" {
		s.alert, s.newBelow = "", 0
	}
	if u.Restarted == transcript.RestartSwitched {
		cmds = append(cmds, s.ctx.flash("switched to a newer session: "+u.Path))
		s.src.Name = u.Path
		s.replay, s.prep = nil, nil
	} else if u.Restarted != "" {
		cmds = append(cmds, s.ctx.flash("the session file was "+string(u.Restarted)+"; read again from the start"))
		s.replay, s.prep = nil, nil
	}
	s.followErr = u.Err
	if u.Session == nil {
		switch {
		case u.Restarted != "" && s.session != nil:
			// The file holds no session yet (truncated to nothing, or a
			// new file not yet written): the old rows are gone with it.
			s.session, s.subs, s.subsSig = nil, nil, ""
			s.showParts()
			s.waiting, s.waitedBytes = true, 0
		case s.session == nil && u.Offset < u.Size:
			// The first look, before the first lines are read.
			s.loading = true
			s.progress = progressMsg{phase: "reading", done: u.Offset, total: u.Size}
		case s.session == nil:
			// All there is was read and holds no session yet: an empty
			// file, or lines of no known record so far.
			s.waiting, s.waitedBytes = true, u.Offset
			s.progress = progressMsg{}
		}
		return tea.Batch(cmds...)
	}
	s.waiting = false
	if u.Session.Path != "" && (s.src.Name == "" || s.src.Name == s.src.Path) {
		// Following a folder, the session is the file in it that is
		// followed: the header names that file, not the folder.
		s.src.Name = u.Session.Path
	}
	if u.Size > 0 && u.Offset < u.Size {
		s.progress = progressMsg{phase: "reading", done: u.Offset, total: u.Size}
	} else if s.progress.phase == "reading" {
		s.progress = progressMsg{}
	}
	atEnd := s.table.atEnd()
	if !atEnd && u.Restarted == "" && s.session != nil {
		s.newBelow += max(0, len(u.Session.Calls)-len(s.session.Calls))
	}
	s.session = u.Session
	s.showParts()
	if atEnd {
		s.table.bottom()
	}
	if path := u.Session.Path; path != "" && path != s.subsOf {
		// Its sub-agents' logs, read as it is first shown, then again
		// when they change.
		s.subsOf, s.subs, s.subsSig, s.subsReading, s.subsNext = path, nil, "", false, time.Time{}
		cmds = append(cmds, s.readSubs())
	} else if path != "" {
		cmds = append(cmds, s.readSubs())
	}
	return tea.Batch(append(cmds, s.requestPrepare())...)
}

// subsLater sets the timer for the next look at the sub-agents' logs of a
// followed session, unless one is set: every subsEvery, and no sooner than
// subsNext.
func (s *sessionScreen) subsLater() tea.Cmd {
	if s.subsTicking || !s.following || subsEvery <= 0 {
		return nil
	}
	s.subsTicking = true
	path := s.subsOf
	return tea.Tick(max(subsEvery, time.Until(s.subsNext)), func(time.Time) tea.Msg { return subsTickMsg{path: path} })
}

// readSubs looks at the followed session's sub-agents' logs, reading them
// again where they changed; with a look on its way, it asks for another
// once that one is back.
func (s *sessionScreen) readSubs() tea.Cmd {
	if s.subsReading {
		s.subsAgain = true
		return nil
	}
	if time.Now().Before(s.subsNext) {
		s.subsAgain = true
		return s.subsLater()
	}
	s.subsReading, s.subsAgain = true, false
	src := Source{Path: s.subsOf}
	if s.subsOf == s.src.Path {
		src.Subagents = s.src.Subagents
	}
	read := s.opt.Read
	read.SizesOnly = false
	return readSubsCmd(src, read, s.subsSig)
}

// key handles a key press on the screen; ok is false for a key it does
// not answer to, which the root then takes (quit, help, tuning, back).
func (s *sessionScreen) key(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	k := &s.ctx.Keys
	switch s.overlay {
	case spillOverlay:
		s.spill, cmd = s.spill.Update(msg)
		return cmd, true
	case toolsOverlay, contextOverlay:
		return s.viewKey(msg), true
	}
	if s.focus == focusDetail && s.detailKey(msg) {
		return nil, true
	}
	s.alert = ""
	switch {
	case key.Matches(msg, k.NextEvent):
		return s.jumpEvent(1), true
	case key.Matches(msg, k.PrevEvent):
		return s.jumpEvent(-1), true
	case key.Matches(msg, k.NextHazard):
		return s.jumpHazard(), true
	case key.Matches(msg, k.Costliest):
		return s.costliest(), true
	case key.Matches(msg, k.Bookmark):
		return s.toggleBookmark(), true
	case key.Matches(msg, k.NextBookmark):
		return s.nextBookmark(), true
	case key.Matches(msg, k.Sort):
		s.table.cycleSort()
		return s.ctx.flash("sorted by " + s.table.order.String()), true
	case key.Matches(msg, k.Open):
		return tea.Batch(s.openResult(), s.writeShownSpill()), true
	case key.Matches(msg, k.Follow):
		return s.toggleFollow(), true
	case key.Matches(msg, k.Copy):
		return s.copyText(), true
	case key.Matches(msg, k.Pager):
		return s.openPager(), true
	case key.Matches(msg, k.Focus) && s.detail.height == 0:
		return s.ctx.flash("no room for the detail pane: the terminal is too short"), true
	case key.Matches(msg, k.Right, k.Left):
		// The call's results, whichever pane has the focus: enter opens
		// the one selected.
		dir := 1
		if key.Matches(msg, k.Left) {
			dir = -1
		}
		p, call := s.at(s.currentCall())
		s.detail.selectResult(dir, len(callResults(p.replay, call)))
		return nil, true
	}
	switch {
	case key.Matches(msg, k.Up):
		s.table.move(-1)
	case key.Matches(msg, k.Down):
		s.table.move(1)
	case key.Matches(msg, k.PageUp):
		s.table.move(-max(1, s.table.height-1))
	case key.Matches(msg, k.PageDown):
		s.table.move(max(1, s.table.height-1))
	case key.Matches(msg, k.HalfUp):
		s.table.move(-max(1, s.table.height/2))
	case key.Matches(msg, k.HalfDown):
		s.table.move(max(1, s.table.height/2))
	case key.Matches(msg, k.Top):
		s.table.top()
	case key.Matches(msg, k.Bottom):
		s.table.bottom()
	case key.Matches(msg, k.NextMatch):
		return s.nextMatch(1), true
	case key.Matches(msg, k.PrevMatch):
		return s.nextMatch(-1), true
	case key.Matches(msg, k.Focus):
		s.focus = 1 - s.focus
	case key.Matches(msg, k.Layout):
		s.detail.stacked = !s.detail.stacked
	case key.Matches(msg, k.Tools):
		s.overlay, s.overlayScroll = toolsOverlay, 0
	case key.Matches(msg, k.Context):
		s.overlay, s.overlayScroll = contextOverlay, 0
	default:
		return nil, false
	}
	s.detail.reset()
	return nil, true
}

// detailKey handles keys while the detail pane has the focus; it reports
// whether it used the key.
func (s *sessionScreen) detailKey(msg tea.KeyPressMsg) bool {
	k := &s.ctx.Keys
	switch {
	case key.Matches(msg, k.Down):
		s.detail.scroll(1)
	case key.Matches(msg, k.Up):
		s.detail.scroll(-1)
	case key.Matches(msg, k.PageDown):
		s.detail.scroll(max(1, s.detail.height-1))
	case key.Matches(msg, k.PageUp):
		s.detail.scroll(-max(1, s.detail.height-1))
	case key.Matches(msg, k.HalfDown):
		s.detail.scroll(max(1, s.detail.height/2))
	case key.Matches(msg, k.HalfUp):
		s.detail.scroll(-max(1, s.detail.height/2))
	case key.Matches(msg, k.Top):
		s.detail.offset = 0
	case key.Matches(msg, k.Bottom):
		s.detail.offset = math.MaxInt // refresh keeps it within the content
	case key.Matches(msg, k.Back):
		s.focus = focusTable
	default:
		return false
	}
	return true
}

// search finds the calls that hold query.
func (s *sessionScreen) search(query string) tea.Cmd {
	query = cmpOr(query, s.query) // enter alone searches again
	if query == "" || s.session == nil {
		return nil
	}
	s.query = query
	if s.recorded != nil {
		return s.ctx.flash("the results' texts are still being read: search again when they are in")
	}
	return searchCmd(s.logParts(), query)
}

// currentCall is the call under the cursor, -1 when none.
func (s *sessionScreen) currentCall() int { return s.table.current() }

// jumpEvent moves to the next call (dir 1) or previous (dir -1) whose
// results the policy changed, hazards among them.
func (s *sessionScreen) jumpEvent(dir int) tea.Cmd {
	if s.replay == nil {
		return s.ctx.flash("still replaying")
	}
	changed := func(r *replay.Result) bool { return r.Outcome != replay.Kept }
	acted := s.callsWith(changed)
	if !s.table.seek(dir, func(call int) bool { return acted[call] }) {
		if dir < 0 {
			return s.ctx.flash("no call before this one that the policy changed")
		}
		return s.ctx.flash("no call after this one that the policy changed")
	}
	s.selectFirst(changed) // enter opens it
	return nil
}

// selectFirst selects the current call's first result that ok accepts,
// reporting whether there is one.
func (s *sessionScreen) selectFirst(ok func(*replay.Result) bool) bool {
	p, call := s.at(s.currentCall())
	for i, r := range callResults(p.replay, call) {
		if ok(r) {
			s.detail.result, s.detail.key = i, ""
			return true
		}
	}
	return false
}

// callsWith are the calls shown after which a result that ok accepts
// came back, over every log.
func (s *sessionScreen) callsWith(ok func(*replay.Result) bool) map[int]bool {
	calls := map[int]bool{}
	for _, p := range s.logParts() {
		if p.replay == nil {
			continue
		}
		for i := range p.replay.Results {
			if r := &p.replay.Results[i]; r.Arrival >= 0 && ok(r) {
				calls[p.first+r.Arrival] = true
			}
		}
	}
	return calls
}

// costliest selects the call with the highest recorded cost.
func (s *sessionScreen) costliest() tea.Cmd {
	best, bestCost := -1, -1.0
	for _, p := range s.logParts() {
		if p.replay == nil {
			continue
		}
		for i, c := range p.replay.Calls {
			if c.Cost != nil && *c.Cost > bestCost {
				best, bestCost = p.first+i, *c.Cost
			}
		}
	}
	if best < 0 {
		return s.ctx.flash("no call has a recorded cost")
	}
	s.table.selectCall(best)
	return nil
}

func (s *sessionScreen) toggleBookmark() tea.Cmd {
	c := s.currentCall()
	if c < 0 {
		return nil
	}
	if i := slices.Index(s.bookmarks, c); i >= 0 {
		s.bookmarks = slices.Delete(s.bookmarks, i, i+1)
		s.table.bookmarks = s.bookmarks
		return s.ctx.flash(fmt.Sprintf("bookmark on call %d removed", c))
	}
	s.bookmarks = append(s.bookmarks, c)
	slices.Sort(s.bookmarks)
	s.table.bookmarks = s.bookmarks
	return s.ctx.flash(fmt.Sprintf("call %d bookmarked", c))
}

func (s *sessionScreen) nextBookmark() tea.Cmd {
	if len(s.bookmarks) == 0 {
		return s.ctx.flash("no bookmarks (m sets one)")
	}
	c := s.currentCall()
	next := s.bookmarks[0]
	for _, b := range s.bookmarks {
		if b > c {
			next = b
			break
		}
	}
	s.table.selectCall(next)
	return nil
}

// nextMatch selects the next call (dir 1) or the previous (dir -1) that
// the search found, and says which of how many it is.
func (s *sessionScreen) nextMatch(dir int) tea.Cmd {
	if len(s.matches) == 0 {
		if s.query == "" {
			return s.ctx.flash("no search yet (/ searches)")
		}
		return s.ctx.flash(fmt.Sprintf("no call matches %q", s.query))
	}
	c := s.currentCall()
	if s.match < 0 {
		s.match = 0
		for i, call := range s.matches {
			if call >= c {
				s.match = i
				break
			}
		}
	} else {
		s.match = (s.match + dir + len(s.matches)) % len(s.matches)
	}
	s.table.selectCall(s.matches[s.match])
	s.detail.reset()
	return s.ctx.flash(fmt.Sprintf("match %d of %d for %q: call %d", s.match+1, len(s.matches), s.query, s.matches[s.match]))
}

// openResult opens the selected result in the spill viewer; when the
// agent names a file it spilled the result to and that file was not found
// yet, it is looked up first, in a command, and the answer kept.
func (s *sessionScreen) openResult() tea.Cmd {
	p, call := s.at(s.currentCall())
	src, agentFile, ok := s.detail.source(p.replay, call)
	if !ok && s.detail.want != nil {
		return s.ctx.flash("its text is still being read from the session file: open it again in a moment")
	}
	if !ok {
		return s.ctx.flash("this call has no tool result to open")
	}
	s.overlay = spillOverlay
	s.spill.SetSize(s.ctx.Width, s.ctx.Height) // no document until the open ends: nothing to read
	if agentFile == "" {
		return s.spill.Load(src)
	}
	// A file found opens at once; one missing is looked for again, as it
	// may have been written since.
	if s.agentFiles[agentFile] {
		return s.spill.Load(withAgentFile(src, agentFile, true, p.session.Path))
	}
	s.spill.SetDocument(nil, src) // "opening…" while the file is looked up
	s.opening = &pendingOpen{src: src, path: agentFile, session: p.session.Path}
	return agentFileCmd(agentFile)
}

// goTo selects call and closes what covers the calls.
func (s *sessionScreen) goTo(call int) {
	s.overlay = noOverlay
	s.table.selectCall(call)
	s.detail.reset()
}

// pendingOpen is a result to open once its agent's spill file is looked up.
type pendingOpen struct {
	src     spillview.Source
	path    string
	session string // the log that names it
}

// agentFileFound keeps a lookup's answer and opens what waited for it.
func (s *sessionScreen) agentFileFound(msg agentFileMsg) tea.Cmd {
	if s.agentFiles == nil {
		s.agentFiles = map[string]bool{}
	}
	s.agentFiles[msg.path] = msg.exists
	s.agentAnswers++
	o := s.opening
	if o == nil || o.path != msg.path {
		return nil
	}
	s.opening = nil
	if s.overlay != spillOverlay {
		return nil // the viewer was closed meanwhile
	}
	return s.spill.Load(withAgentFile(o.src, o.path, msg.exists, o.session))
}

// toggleFollow stops or restarts following the file.
func (s *sessionScreen) toggleFollow() tea.Cmd {
	if s.following {
		if s.cancelFollow != nil {
			s.cancelFollow()
		}
		s.following = false
		s.followID++ // what the stopped follower still sends is dropped
		if s.session == nil || s.session.Path == "" {
			return s.ctx.flash("stopped following")
		}
		// Read whole again: what following took for a line still being
		// written (an incomplete last line) is the reader's warning now.
		src := Source{Name: s.session.Path, Path: s.session.Path}
		if src.Path == s.src.Path {
			src.Subagents = s.src.Subagents
		}
		return tea.Batch(s.ctx.flash("stopped following: read again whole"), loadCmd(s.run, src, s.opt))
	}
	if s.src.Path == "" {
		return s.ctx.flash("only a file or folder can be followed")
	}
	return tea.Batch(s.startFollow(), s.ctx.flash("following "+s.src.Path))
}

// startFollow marks the session followed and starts the follower in the
// background; a follower that cannot start says why when it answers.
func (s *sessionScreen) startFollow() tea.Cmd {
	ctx, cancel := context.WithCancel(s.run)
	s.followID++
	s.following, s.cancelFollow = true, cancel
	return startFollowCmd(ctx, s.followID, s.src.Path, s.opt.Read)
}

// wheel scrolls the pane under the pointer.
func (s *sessionScreen) wheel(msg tea.MouseWheelMsg) tea.Cmd {
	if s.overlay == spillOverlay {
		var cmd tea.Cmd
		s.spill, cmd = s.spill.Update(msg)
		return cmd
	}
	step := 3
	if msg.Mouse().Button == tea.MouseWheelUp {
		step = -3
	}
	if s.overlay == toolsOverlay {
		s.overlayScroll = max(0, s.overlayScroll+step) // sync keeps it within the lines
		return nil
	}
	if msg.Mouse().Y >= s.detail.top {
		s.detail.scroll(step)
	} else {
		s.table.move(step)
		s.detail.reset()
	}
	return nil
}

// click selects the clicked row.
func (s *sessionScreen) click(msg tea.MouseClickMsg) {
	if s.overlay != noOverlay || msg.Mouse().Button != tea.MouseLeft {
		return
	}
	y := msg.Mouse().Y
	if y >= s.detail.top {
		s.focus = focusDetail
		return
	}
	if s.table.clickRow(y) {
		s.focus = focusTable
		s.detail.reset()
	}
}

// setSize hands out the body, h lines from screen row top, to the table
// and the detail pane.
func (s *sessionScreen) setSize(w, top, h int) tea.Cmd {
	tableH := h
	detailH := 0
	if h >= 12 {
		tableH = max(5, h*2/5)
		detailH = h - tableH
	}
	s.table.setSize(w, tableH)
	s.table.top0 = top
	s.detail.setSize(w, detailH)
	s.detail.top = top + tableH
	if detailH == 0 {
		s.focus = focusTable // keys must not scroll a pane that is not shown
	}
	return s.spill.SetSize(s.ctx.Width, s.ctx.Height)
}
