// Package ui is spillway's inspector: a Bubble Tea program that shows a
// session's calls with their cost before and after a tool-result policy,
// lets the user tune the policy with a key, opens spilled results, and
// follows a running agent.
package ui

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/prompt"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/spillview"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
)

// Source is what the inspector opens.
type Source struct {
	Name  string    // shown in the header
	Path  string    // a file, or a directory when following
	Stdin io.Reader // standard input
	Data  []byte    // in memory (the demo)
}

// Options configure the inspector.
type Options struct {
	Source  Source
	Read    transcript.Options
	Policy  policy.Policy
	Prices  *pricing.Table
	Counter app.Counter
	// SpillRoot is where spill files go; empty plans them without writing.
	SpillRoot string
	Follow    bool
	Theme     string
	NoColor   bool
	// Notice is shown in the footer until the first key, e.g. why the
	// demo is open: what is printed before the screen is taken is lost.
	Notice string
	// Sessions, when set, opens the session list over what it finds
	// instead of Source; SessionsName is what the header names (a folder,
	// "3 paths"). The list follows new and changed sessions when Follow is
	// set or, unless NoFollow, when one was written in the last minute.
	Sessions     SessionSource
	SessionsName string
	NoFollow     bool
	// Ledger is the folder of spillway's hook ledger: the footer says
	// what the hook cut from a session it ran in. "" reads none.
	Ledger string
}

// Context is what every component shares, passed by pointer.
type Context struct {
	Width, Height int
	Styles        *themes.Styles
	Keys          KeyMap
	Theme         string
	NoColor       bool
	Dark          bool
}

type focusArea int

const (
	focusTable focusArea = iota
	focusDetail
)

type overlay int

const (
	noOverlay overlay = iota
	helpOverlay
	warningsOverlay
	spillOverlay
	toolsOverlay
	contextOverlay
)

type inputMode int

const (
	noInput inputMode = iota
	searchInput
	ceilingInput
	writeInput
	filterInput
)

// Model is the inspector's one root model: it owns the state and routes
// every message; the components only draw.
type Model struct {
	ctx *Context
	opt Options

	session *transcript.Session
	prep    *replay.Prepared
	replay  *replay.Run
	chart   chart
	// realized is what spillway's hook cut from the session, from its
	// ledger; nil when it cut nothing.
	realized *ledger.Totals

	policy policy.Policy
	undo   []policy.Policy
	seq    int // the replay wanted; older results are dropped
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

	following    bool
	cancelFollow context.CancelFunc
	followID     int // the follower whose messages count

	table   callTable
	detail  detailPane
	focus   focusArea
	overlay overlay

	input     prompt.Input
	inputMode inputMode
	query     string
	writePath string // where w writes; the prompt offers it again
	confirm   string // a file w would overwrite, waiting for y or n
	matches   []int
	match     int
	bookmarks []int

	// writeFormat is what w writes, an index of writeFormats.
	writeFormat int

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
	// overlayScroll is the first line shown of the help or warnings;
	// warningCursor, the warning selected.
	overlayScroll int
	warningCursor int
	help          help.Model

	notice   string
	noticeID int
	// keepNotice: the notice is Options.Notice, shown until a key.
	keepNotice bool
	alert      string
	// newBelow counts the calls a followed session gained while the
	// cursor was off its last row: they arrive out of view.
	newBelow int

	// fleet is the session list, nil when one session was given;
	// inSession says a session of it is open. filterBefore is the list's
	// filter when its prompt opened, for esc to put back.
	fleet        *fleet
	inSession    bool
	filterBefore string

	// hazardsIndexed says the session shown has what finding hazards
	// needs built, so no re-tuning key waits for it.
	hazardsIndexed bool

	// tools is the per-tool view.
	tools toolsView

	// spills are the spill files the replay shown planned: written one by
	// one as results are opened, all when the policy is written.
	spills *spill.Planned

	// recorded prices the session shown as recorded while it was read for
	// its sizes alone and its texts are still being read; nil after.
	recorded *replay.Recorded
	// texts reads the results' texts of a session read without them
	// again from its file; nil when the session holds them. textAsked is
	// the result whose text the detail pane was last sent for.
	texts     *app.FileTexts
	textAsked *transcript.ToolResult
}

// New returns the inspector for opt.
func New(opt Options) *Model {
	ctx := &Context{Keys: DefaultKeyMap(), Theme: opt.Theme, NoColor: opt.NoColor, Dark: true}
	m := &Model{ctx: ctx, opt: opt, policy: opt.Policy, loading: true, help: help.New(), writePath: "spillway-policy.json"}
	m.notice, m.keepNotice = opt.Notice, opt.Notice != ""
	m.applyTheme()
	m.input = prompt.New()
	// The terminal's own cursor: no blink timer redrawing the screen.
	m.input.SetVirtualCursor(false)
	m.table = callTable{ctx: ctx}
	m.detail = detailPane{ctx: ctx}
	m.tools = toolsView{ctx: ctx}
	m.spill = spillview.New(ctx.Styles, spillview.DefaultKeyMap())
	if opt.Sessions != nil {
		m.fleet = newFleet(ctx, opt.Sessions, opt.SessionsName)
		m.loading = false
	}
	return m
}

// applyTheme rebuilds the styles for the current background.
func (m *Model) applyTheme() {
	p, err := themes.Pick(m.ctx.Theme, m.ctx.Dark, m.ctx.NoColor)
	if err != nil {
		p = themes.Dark
	}
	m.ctx.Styles = themes.New(p)
	m.help.Styles = m.ctx.Styles.Help
	m.spill.SetStyles(m.ctx.Styles)
}

// Init starts loading (or following) and asks for the background colour.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.fleet != nil {
		return tea.Batch(append(cmds, m.rescan())...)
	}
	if m.opt.Follow && m.opt.Source.Path != "" {
		return tea.Batch(append(cmds, m.startFollow())...)
	}
	return tea.Batch(append(cmds, loadCmd(m.opt))...)
}

// Update routes every message, then brings what View reads up to date:
// View changes nothing.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if m.table.atEnd() {
		m.newBelow = 0
	}
	m.detail.refresh(m.session, m.replay, m.currentCall(), m.agentFiles, m.agentAnswers)
	if m.overlay == toolsOverlay {
		m.tools.set(m.replay) // summed only while the view is open
	}
	m.clampOverlay()
	if lookup := m.lookUpShownAgentFile(); lookup != nil {
		cmd = tea.Batch(cmd, lookup)
	}
	if read := m.readShownText(); read != nil {
		cmd = tea.Batch(cmd, read)
	}
	return m, cmd
}

// lookUpShownAgentFile asks, once, whether the file the shown result was
// spilled to by its agent exists, so that the pane can say it is missing
// before enter is pressed.
func (m *Model) lookUpShownAgentFile() tea.Cmd {
	p := m.detail.agentFile
	if p == "" || m.agentAsked[p] {
		return nil
	}
	if m.agentAsked == nil {
		m.agentAsked = map[string]bool{}
	}
	m.agentAsked[p] = true
	return agentFileCmd(p)
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.ctx.Width, m.ctx.Height = msg.Width, msg.Height
		m.layout()
		return nil
	case tea.BackgroundColorMsg:
		m.ctx.Dark = msg.IsDark()
		m.applyTheme()
		return nil
	case progressMsg:
		m.progress = msg
		return msg.next
	case fleetScannedMsg:
		return m.fleetScanned(msg)
	case fleetProgressMsg:
		m.fleet.scanDone, m.fleet.scanTotal = msg.done, msg.total
		return msg.next
	case fleetSavedMsg:
		return m.fleetSaved(msg)
	case fleetWatchMsg:
		return m.fleetWatching(msg)
	case fleetChangedMsg:
		return m.fleetChanged(msg)
	case fleetExpireMsg:
		return m.fleetExpired()
	case fleetTickMsg:
		m.fleet.ticking = false
		if !m.fleet.following {
			return nil
		}
		return m.rescan()
	case rowsMsg:
		if m.fleet != nil && (!m.inSession || msg.src != m.opt.Source.Path) {
			return nil // a session left before it was read
		}
		return m.setRows(msg)
	case loadedMsg:
		if m.fleet != nil && (!m.inSession || msg.src != m.opt.Source.Path) {
			return nil // a session left before it was read
		}
		m.loading = false
		// The texts are in; the rows keep their recorded prices until the
		// first replay gives the figures after the policy.
		m.recorded = nil
		if msg.err != nil {
			m.table.recorded = nil
			m.err = msg.err
			return nil
		}
		m.closeTexts()
		m.texts = msg.texts
		return m.setSession(msg.session)
	case textReadMsg:
		return m.textRead(msg)
	case followStartedMsg:
		if msg.id != m.followID {
			return nil // a follower stopped before it started
		}
		if msg.err != nil {
			m.following, m.cancelFollow = false, nil
			if m.session == nil {
				m.loading, m.err = false, msg.err
				return nil
			}
			return m.flash(msg.err.Error())
		}
		return followCmd(msg.id, msg.ch)
	case followMsg:
		if msg.id != m.followID {
			return msg.next // drained until it closes
		}
		return tea.Batch(m.followed(msg.update), msg.next)
	case followEndedMsg:
		if msg.id == m.followID {
			m.following = false
		}
		return nil
	case preparedMsg:
		return m.prepared(msg)
	case hazardsIndexedMsg:
		m.hazardsIndexed = msg.prep == m.prep
		return nil
	case replayedMsg:
		if msg.seq != m.seq || (msg.replay != nil && msg.replay.Prepared != m.prep) {
			return nil
		}
		m.replayed = msg.seq
		if msg.err != nil {
			return m.flash("replay: " + msg.err.Error())
		}
		m.spills = msg.spills
		if err := msg.replay.Prepared.TextErr(); err != nil {
			m.err = fmt.Errorf("%w: the figures count what could not be read as empty; open the session again", err)
		}
		m.setReplay(msg.replay)
		m.chart.addReplay(msg.replay)
		return m.sweepWhenIdle()
	case chartDueMsg:
		if msg.seq != m.seq {
			return nil // a key came meanwhile: its replay first
		}
		return m.requestSweep()
	case sweptMsg:
		m.chart.swept(msg)
		return m.requestSweep()
	case searchedMsg:
		m.matches, m.match = msg.calls, -1
		if len(m.matches) == 0 {
			return m.flash(fmt.Sprintf("no call matches %q", msg.query))
		}
		m.nextMatch(1)
		return nil
	case wroteMsg:
		if msg.exists {
			m.confirm = msg.path
			return nil
		}
		if msg.err != nil {
			return m.flash(msg.err.Error()) // it says "write policy: …" itself
		}
		return tea.Batch(m.flash(wroteNotice(msg)), m.writeAllSpills())
	case spillsWrittenMsg:
		return m.spillsWritten(msg)
	case noticeExpiredMsg:
		if msg.id == m.noticeID {
			m.notice = ""
		}
		return nil
	case agentFileMsg:
		return m.agentFileFound(msg)
	case spillview.OpenedMsg, spillview.SearchedMsg:
		var cmd tea.Cmd
		m.spill, cmd = m.spill.Update(msg)
		return cmd
	case pagerReadyMsg:
		return m.pagerReady(msg)
	case pagerDoneMsg:
		return m.pagerDone(msg)
	case spillview.CloseMsg:
		m.overlay, m.opening = noOverlay, nil
		return nil
	case tea.KeyPressMsg:
		if m.keepNotice {
			m.notice, m.keepNotice = "", false
		}
		return m.key(msg)
	case tea.MouseWheelMsg:
		return m.wheel(msg)
	case tea.MouseClickMsg:
		return m.click(msg)
	}
	if m.inputMode != noInput {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	}
	return nil
}

// setSession takes a newly read session and starts counting it.
func (m *Model) setSession(s *transcript.Session) tea.Cmd {
	m.session = s
	m.table.setSession(s, m.replay)
	m.detail.reset()
	return m.requestPrepare()
}

func (m *Model) requestPrepare() tea.Cmd {
	if m.session == nil {
		return nil
	}
	if m.preparing {
		m.stale = true
		return nil
	}
	m.preparing, m.stale = true, false
	m.prepSeq++
	return prepareCmd(m.prepSeq, m.session, m.textSource(), m.opt)
}

func (m *Model) prepared(msg preparedMsg) tea.Cmd {
	m.preparing = false
	if msg.err != nil {
		m.err = msg.err
		return nil
	}
	m.progress = progressMsg{}
	var cmd tea.Cmd
	if msg.prep.Session == m.session {
		m.prep, m.realized = msg.prep, msg.realized
		cmd = tea.Batch(m.requestReplay(), indexHazardsCmd(msg.prep))
	}
	if m.stale {
		return tea.Batch(cmd, m.requestPrepare())
	}
	return cmd
}

// requestReplay replays under the current policy in the background.
func (m *Model) requestReplay() tea.Cmd {
	if m.prep == nil {
		return nil
	}
	m.seq++
	return replayCmd(m.seq, m.prep, m.policy, m.opt)
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
func (m *Model) sweepWhenIdle() tea.Cmd {
	if chartPause <= 0 {
		return m.requestSweep()
	}
	seq := m.seq
	return tea.Tick(chartPause, func(time.Time) tea.Msg { return chartDueMsg{seq: seq} })
}

// requestSweep computes the next point the chart lacks, once the replay
// asked for last is in: a key's totals never wait for the chart.
func (m *Model) requestSweep() tea.Cmd {
	if m.replayed != m.seq {
		return nil
	}
	return m.chart.next(m.prep, m.policy)
}

func (m *Model) setReplay(rp *replay.Run) {
	atEnd := m.table.atEnd()
	old := m.replay
	m.replay = rp
	m.table.recorded = nil // priced by rp now
	m.table.setSession(m.session, rp)
	if m.following && atEnd {
		m.table.bottom()
	}
	if m.following && old != nil && old.Prepared.Session != rp.Prepared.Session {
		m.raiseAlerts(old, rp)
	}
}

// raiseAlerts tells about new results over the ceiling and new suppressed
// repeats since the previous replay of a followed session.
func (m *Model) raiseAlerts(old, rp *replay.Run) {
	for i := len(old.Results); i < len(rp.Results); i++ {
		r := rp.Results[i]
		switch r.Outcome {
		case replay.Truncated, replay.Spilled:
			m.alert = fmt.Sprintf("new %s result over the ceiling at call %d (%s)", safe(r.Source.Tool), r.Arrival, policy.FormatSize(r.Size, rp.Policy.Unit))
		case replay.Suppressed:
			m.alert = fmt.Sprintf("repeat of result %d suppressed at call %d (%s)", r.RepeatOf, r.Arrival, safe(r.Source.Tool))
			if r.Stale {
				// The agent is told "same as before" about a result
				// that changed: the one alert worth stopping for.
				m.alert = fmt.Sprintf("stale repeat of result %d suppressed at call %d (%s): the real result had changed", r.RepeatOf, r.Arrival, safe(r.Source.Tool))
			}
		}
	}
}

// followed takes a followed session's newest state.
func (m *Model) followed(u transcript.Update) tea.Cmd {
	m.loading = false
	var cmds []tea.Cmd
	if u.Restarted != "" {
		m.alert, m.newBelow = "", 0
	}
	if u.Restarted == transcript.RestartSwitched {
		cmds = append(cmds, m.flash("switched to a newer session: "+u.Path))
		m.opt.Source.Name = u.Path
		m.replay, m.prep = nil, nil
	} else if u.Restarted != "" {
		cmds = append(cmds, m.flash("the session file was "+string(u.Restarted)+"; read again from the start"))
		m.replay, m.prep = nil, nil
	}
	if u.Err != nil {
		m.err = u.Err
	}
	if u.Session == nil {
		switch {
		case u.Restarted != "" && m.session != nil:
			// The file holds no session yet (truncated to nothing, or a
			// new file not yet written): the old rows are gone with it.
			m.session = nil
			m.table.setSession(nil, nil)
			m.waiting, m.waitedBytes = true, 0
		case m.session == nil && u.Offset < u.Size:
			// The first look, before the first lines are read.
			m.loading = true
			m.progress = progressMsg{phase: "reading", done: u.Offset, total: u.Size}
		case m.session == nil:
			// All there is was read and holds no session yet: an empty
			// file, or lines of no known record so far.
			m.waiting, m.waitedBytes = true, u.Offset
			m.progress = progressMsg{}
		}
		return tea.Batch(cmds...)
	}
	m.waiting = false
	if u.Session.Path != "" && (m.opt.Source.Name == "" || m.opt.Source.Name == m.opt.Source.Path) {
		// Following a folder, the session is the file in it that is
		// followed: the header names that file, not the folder.
		m.opt.Source.Name = u.Session.Path
	}
	if u.Size > 0 && u.Offset < u.Size {
		m.progress = progressMsg{phase: "reading", done: u.Offset, total: u.Size}
	} else if m.progress.phase == "reading" {
		m.progress = progressMsg{}
	}
	atEnd := m.table.atEnd()
	if !atEnd && u.Restarted == "" && m.session != nil {
		m.newBelow += max(0, len(u.Session.Calls)-len(m.session.Calls))
	}
	m.session = u.Session
	m.table.setSession(u.Session, m.replay)
	if atEnd {
		m.table.bottom()
	}
	return tea.Batch(append(cmds, m.requestPrepare())...)
}

// setPolicy applies a tuned policy, keeping the old one for undo.
func (m *Model) setPolicy(p policy.Policy, note string) tea.Cmd {
	if err := p.Validate(); err != nil {
		return m.flash(err.Error())
	}
	m.undo = append(m.undo, m.policy)
	if !strings.HasSuffix(p.Name, "+custom") && p.Name == m.policy.Name {
		p.Name += "+custom"
	}
	m.policy = p
	return tea.Batch(m.requestReplay(), m.replayAll(), m.flash(note))
}

// replayAll replays every session of the list under the policy in force,
// in the background, cancelling the replays of the policy before.
func (m *Model) replayAll() tea.Cmd {
	if m.fleet == nil {
		return nil
	}
	paths := make([]string, len(m.fleet.list.rows))
	for i, r := range m.fleet.list.rows {
		paths[i] = r.Path
	}
	return m.replayFleet(paths, true)
}

// key handles a key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.ctx.Keys
	if key.Matches(msg, k.Interrupt) {
		return m.quit()
	}
	if m.inputMode != noInput {
		return m.inputKey(msg)
	}
	if m.confirm != "" {
		path := m.confirm
		switch {
		case key.Matches(msg, k.Yes):
			m.confirm = ""
			return m.writeCmd(path, true)
		case key.Matches(msg, k.No, k.Back):
			m.confirm = ""
			return m.flash(path + " left as it was")
		}
		return nil
	}
	switch m.overlay {
	case spillOverlay:
		var cmd tea.Cmd
		m.spill, cmd = m.spill.Update(msg)
		return cmd
	case warningsOverlay:
		// The selection moves; clampOverlay scrolls to keep it in view.
		room := max(1, m.ctx.Height-warningsHead)
		switch {
		case key.Matches(msg, k.Down):
			m.warningCursor++
		case key.Matches(msg, k.Up):
			m.warningCursor = max(0, m.warningCursor-1)
		case key.Matches(msg, k.PageDown):
			m.warningCursor += room
		case key.Matches(msg, k.PageUp):
			m.warningCursor = max(0, m.warningCursor-room)
		case key.Matches(msg, k.Bottom):
			m.warningCursor = len(m.warningLines()) - 1
		case key.Matches(msg, k.Top):
			m.warningCursor = 0
		case key.Matches(msg, k.Open):
			return m.goToWarning()
		case key.Matches(msg, k.Quit, k.Back, k.Warnings):
			m.overlay = noOverlay
		}
		return nil
	case toolsOverlay, contextOverlay:
		return m.viewKey(msg)
	case helpOverlay:
		// It scrolls; clampOverlay keeps the offset within its lines.
		switch {
		case key.Matches(msg, k.Down):
			m.overlayScroll++
		case key.Matches(msg, k.Up):
			m.overlayScroll = max(0, m.overlayScroll-1)
		case key.Matches(msg, k.PageDown):
			m.overlayScroll += max(1, m.ctx.Height-2)
		case key.Matches(msg, k.PageUp):
			m.overlayScroll = max(0, m.overlayScroll-max(1, m.ctx.Height-2))
		case key.Matches(msg, k.Quit, k.Back, k.Help):
			m.overlay = noOverlay
		}
		return nil
	}
	if m.onList() {
		return m.listKey(msg)
	}
	if m.focus == focusDetail && m.detailKey(msg) {
		return nil
	}
	m.alert = ""
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.overlay, m.overlayScroll = helpOverlay, 0
	case key.Matches(msg, k.Warnings):
		// The list's head shows its keys, or a notice about the list: not
		// one left from before it opened.
		m.overlay, m.overlayScroll, m.warningCursor, m.notice = warningsOverlay, 0, 0, ""
	case key.Matches(msg, k.Up):
		m.table.move(-1)
	case key.Matches(msg, k.Down):
		m.table.move(1)
	case key.Matches(msg, k.PageUp):
		m.table.move(-max(1, m.table.height-1))
	case key.Matches(msg, k.PageDown):
		m.table.move(max(1, m.table.height-1))
	case key.Matches(msg, k.Top):
		m.table.top()
	case key.Matches(msg, k.Bottom):
		m.table.bottom()
	case key.Matches(msg, k.NextEvent):
		return m.jumpEvent(1)
	case key.Matches(msg, k.PrevEvent):
		return m.jumpEvent(-1)
	case key.Matches(msg, k.NextHazard):
		return m.jumpHazard()
	case key.Matches(msg, k.Costliest):
		return m.costliest()
	case key.Matches(msg, k.Bookmark):
		return m.toggleBookmark()
	case key.Matches(msg, k.NextBookmark):
		return m.nextBookmark()
	case key.Matches(msg, k.Search):
		return m.openInput(searchInput, "/", cmpOr(m.query, "tool name, input or result text"))
	case key.Matches(msg, k.NextMatch):
		m.nextMatch(1)
	case key.Matches(msg, k.PrevMatch):
		m.nextMatch(-1)
	case key.Matches(msg, k.Sort):
		m.table.cycleSort()
		return m.flash("sorted by " + m.table.order.String())
	case key.Matches(msg, k.Focus):
		if m.detail.height == 0 {
			return m.flash("no room for the detail pane: the terminal is too short")
		}
		m.focus = 1 - m.focus
	case key.Matches(msg, k.Layout):
		m.detail.stacked = !m.detail.stacked
	case key.Matches(msg, k.Open):
		return tea.Batch(m.openResult(), m.writeShownSpill())
	case m.fleet != nil && key.Matches(msg, k.List.Back):
		return m.backToList()
	case key.Matches(msg, k.Follow):
		return m.toggleFollow()
	case key.Matches(msg, k.Tools):
		m.overlay, m.overlayScroll = toolsOverlay, 0
	case key.Matches(msg, k.Context):
		m.overlay, m.overlayScroll = contextOverlay, 0
	case key.Matches(msg, k.Copy):
		return m.copyText()
	case key.Matches(msg, k.Pager):
		return m.openPager()
	default:
		if cmd, ok := m.tune(msg); ok {
			return cmd
		}
	}
	m.detail.reset()
	return nil
}

// tune applies a key that tunes the policy, in the list as in a
// session's calls; ok is false for any other key.
func (m *Model) tune(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	k := &m.ctx.Keys
	if !key.Matches(msg, k.Raise, k.Lower, k.Exact, k.Dedupe, k.DedupeFrom, k.Spill, k.Preset, k.Undo, k.Write) {
		return nil, false
	}
	return m.tuneKey(msg), true
}

// tuneKey applies a tuning key.
func (m *Model) tuneKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.ctx.Keys
	switch {
	case key.Matches(msg, k.Raise):
		return m.scaleCeiling(2)
	case key.Matches(msg, k.Lower):
		return m.scaleCeiling(0.5)
	case key.Matches(msg, k.Exact):
		return m.openInput(ceilingInput, "ceiling: ", policy.FormatSize(m.policy.Ceiling, m.policy.Unit)+" (24KiB, 80000, 50kB)")
	case key.Matches(msg, k.Dedupe):
		p := m.policy.Clone()
		from := 0
		if !p.Dedupe.Enabled {
			from = max(2, p.Dedupe.From)
		}
		if err := p.SetDedupe(from); err != nil {
			return m.flash(err.Error())
		}
		return m.setPolicy(p, map[bool]string{true: fmt.Sprintf("repeats suppressed from call %d", from), false: "repeat suppression off"}[from > 0])
	case key.Matches(msg, k.DedupeFrom):
		p := m.policy.Clone()
		from := 2
		if p.Dedupe.Enabled && p.Dedupe.From == 2 {
			from = 3
		}
		p.SetDedupe(from)
		return m.setPolicy(p, fmt.Sprintf("repeats suppressed from identical call %d", from))
	case key.Matches(msg, k.Spill):
		p := m.policy.Clone()
		if err := p.SetSpill(p.Action != policy.Spill); err != nil {
			return m.flash(err.Error())
		}
		return m.setPolicy(p, "action: "+string(p.Action))
	case key.Matches(msg, k.Preset):
		return m.nextPreset()
	case key.Matches(msg, k.Undo):
		if len(m.undo) == 0 {
			return m.flash("nothing to undo")
		}
		m.policy, m.undo = m.undo[len(m.undo)-1], m.undo[:len(m.undo)-1]
		return tea.Batch(m.requestReplay(), m.replayAll(), m.flash("back to "+m.policy.Name))
	case key.Matches(msg, k.Write):
		return m.openInput(writeInput, m.writePrompt(), m.writePath)
	}
	return nil
}

func (m *Model) quit() tea.Cmd {
	if m.cancelFollow != nil {
		m.cancelFollow()
	}
	return tea.Quit
}

// detailKey handles keys while the detail pane has the focus; it reports
// whether it used the key.
func (m *Model) detailKey(msg tea.KeyPressMsg) bool {
	k := &m.ctx.Keys
	switch {
	case key.Matches(msg, k.Down):
		m.detail.scroll(1)
	case key.Matches(msg, k.Up):
		m.detail.scroll(-1)
	case key.Matches(msg, k.PageDown):
		m.detail.scroll(max(1, m.detail.height-1))
	case key.Matches(msg, k.PageUp):
		m.detail.scroll(-max(1, m.detail.height-1))
	case key.Matches(msg, k.Top):
		m.detail.offset = 0
	case key.Matches(msg, k.Bottom):
		m.detail.offset = math.MaxInt // refresh keeps it within the content
	case key.Matches(msg, k.Right):
		m.detail.selectResult(1, len(callResults(m.replay, m.currentCall())))
	case key.Matches(msg, k.Left):
		m.detail.selectResult(-1, len(callResults(m.replay, m.currentCall())))
	case key.Matches(msg, k.Back):
		m.focus = focusTable
	default:
		return false
	}
	return true
}

// inputKey handles a key while a prompt is open.
func (m *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.ctx.Keys.Prompt
	switch {
	case m.inputMode == writeInput && key.Matches(msg, m.ctx.Keys.WriteFormat):
		m.nextWriteFormat()
		return nil
	case key.Matches(msg, p.Clear):
		m.input.SetValue("")
		m.filterTyped()
		return nil
	case key.Matches(msg, p.Cancel):
		if m.inputMode == filterInput {
			m.fleet.list.setFilter(m.filterBefore)
		}
		m.inputMode = noInput
		m.input.Blur()
		return nil
	case key.Matches(msg, p.Submit):
		value := strings.TrimSpace(m.input.Value())
		mode := m.inputMode
		m.inputMode = noInput
		m.input.Blur()
		switch mode {
		case searchInput:
			value = cmpOr(value, m.query) // enter alone searches again
			if value == "" || m.session == nil {
				return nil
			}
			m.query = value
			if m.recorded != nil {
				return m.flash("the results' texts are still being read: search again when they are in")
			}
			return searchCmd(m.session, m.prep, value)
		case ceilingInput:
			if value == "" {
				return nil // enter alone keeps the ceiling
			}
			n, err := human.ParseSize(value)
			if err != nil {
				return m.flash(err.Error())
			}
			p := m.policy.Clone()
			p.SetCeiling(n)
			return m.setPolicy(p, ceilingText(p))
		case writeInput:
			m.writePath = cmpOr(value, m.writePath)
			return m.writeCmd(m.writePath, false)
		case filterInput:
			m.fleet.list.setFilter(value)
		}
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.filterTyped()
	return cmd
}

// filterTyped filters the session list as its filter is typed.
func (m *Model) filterTyped() {
	if m.inputMode == filterInput {
		m.fleet.list.setFilter(strings.TrimSpace(m.input.Value()))
	}
}

// openInput opens a prompt, empty, the previous value shown in its place
// (enter alone takes it).
func (m *Model) openInput(mode inputMode, prompt, previous string) tea.Cmd {
	m.inputMode = mode
	m.input.Prompt, m.input.Placeholder = prompt, previous
	m.input.SetValue("")
	m.sizeInput()
	return m.input.Focus()
}

// sizeInput gives the prompt what the footer line leaves beside its
// prompt and, when there is room for both, the keys' hint.
func (m *Model) sizeInput() {
	room := m.ctx.Width - ansi.StringWidth(m.input.Prompt) - 1
	if m.promptHintShown() {
		room -= ansi.StringWidth(m.ctx.Keys.promptHint()) + 2
	}
	m.input.SetWidth(max(1, room))
}

// promptHintShown tells whether the footer has room for the prompt's keys
// beside at least 20 cells of input.
func (m *Model) promptHintShown() bool {
	return m.ctx.Width-ansi.StringWidth(m.input.Prompt)-1-ansi.StringWidth(m.ctx.Keys.promptHint())-2 >= 20
}

// promptHint names the prompt's keys.
func (k KeyMap) promptHint() string {
	p := k.Prompt
	return p.Submit.Help().Key + " done · " + p.Cancel.Help().Key + " cancel · " + p.Clear.Help().Key + " clear"
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// scaleCeiling doubles or halves the ceiling.
func (m *Model) scaleCeiling(f float64) tea.Cmd {
	p := m.policy.Clone()
	c := p.Ceiling
	if c == 0 {
		// From no ceiling, + goes to the preset's own and - to half of it.
		c = 24 * 1024
		if p.Unit == policy.ApproxTokens || p.Unit == policy.Tokens {
			c = 6 * 1024
		}
		if preset, err := policy.Preset(strings.TrimSuffix(p.Name, "+custom")); err == nil && preset.Ceiling > 0 && preset.Unit == p.Unit {
			c = preset.Ceiling
		}
		if f > 1 {
			c = int64(float64(c) / f)
		}
	}
	p.SetCeiling(max(1, int64(float64(c)*f)))
	return m.setPolicy(p, ceilingText(p))
}

// nextPreset moves to the next preset.
func (m *Model) nextPreset() tea.Cmd {
	presets := policy.Presets()
	name := strings.TrimSuffix(m.policy.Name, "+custom")
	i := slices.IndexFunc(presets, func(p policy.Policy) bool { return p.Name == name })
	p := presets[(i+1)%len(presets)]
	note := "preset " + p.Name + ": " + ceilingText(p)
	if strings.HasSuffix(m.policy.Name, "+custom") {
		// A preset keeps nothing of a tuned policy: say so, and how back.
		note += "; nothing of the tuned " + strings.TrimSuffix(m.policy.Name, "+custom") + " (" + ceilingText(m.policy) + ") is kept, u brings it back"
	}
	m.undo = append(m.undo, m.policy)
	m.policy = p
	return tea.Batch(m.requestReplay(), m.replayAll(), m.flash(note))
}

// flash shows a notice for a few seconds.
func (m *Model) flash(s string) tea.Cmd {
	m.noticeID++
	m.notice, m.keepNotice = s, false
	return expireNotice(m.noticeID)
}

// currentCall is the call under the cursor, -1 when none.
func (m *Model) currentCall() int { return m.table.current() }

// jumpEvent moves to the next call (dir 1) or previous (dir -1) whose
// results the policy changed, hazards among them.
func (m *Model) jumpEvent(dir int) tea.Cmd {
	if m.replay == nil {
		return m.flash("still replaying")
	}
	acted := map[int]bool{}
	for _, r := range m.replay.Results {
		if r.Outcome != replay.Kept && r.Arrival >= 0 {
			acted[r.Arrival] = true
		}
	}
	if !m.table.seek(dir, func(call int) bool { return acted[call] }) {
		return m.flash("no further guard action")
	}
	return nil
}

// costliest selects the call with the highest recorded cost.
func (m *Model) costliest() tea.Cmd {
	best, bestCost := -1, -1.0
	if m.replay != nil {
		for i, c := range m.replay.Calls {
			if c.Cost != nil && *c.Cost > bestCost {
				best, bestCost = i, *c.Cost
			}
		}
	}
	if best < 0 {
		return m.flash("no call has a recorded cost")
	}
	m.table.selectCall(best)
	return nil
}

func (m *Model) toggleBookmark() tea.Cmd {
	c := m.currentCall()
	if c < 0 {
		return nil
	}
	if i := slices.Index(m.bookmarks, c); i >= 0 {
		m.bookmarks = slices.Delete(m.bookmarks, i, i+1)
		m.table.bookmarks = m.bookmarks
		return m.flash(fmt.Sprintf("bookmark on call %d removed", c))
	}
	m.bookmarks = append(m.bookmarks, c)
	slices.Sort(m.bookmarks)
	m.table.bookmarks = m.bookmarks
	return m.flash(fmt.Sprintf("call %d bookmarked", c))
}

func (m *Model) nextBookmark() tea.Cmd {
	if len(m.bookmarks) == 0 {
		return m.flash("no bookmarks (m sets one)")
	}
	c := m.currentCall()
	next := m.bookmarks[0]
	for _, b := range m.bookmarks {
		if b > c {
			next = b
			break
		}
	}
	m.table.selectCall(next)
	return nil
}

func (m *Model) nextMatch(dir int) {
	if len(m.matches) == 0 {
		return
	}
	c := m.currentCall()
	if m.match < 0 {
		m.match = 0
		for i, call := range m.matches {
			if call >= c {
				m.match = i
				break
			}
		}
	} else {
		m.match = (m.match + dir + len(m.matches)) % len(m.matches)
	}
	m.table.selectCall(m.matches[m.match])
	m.detail.reset()
}

// openResult opens the selected result in the spill viewer; when the
// agent names a file it spilled the result to and that file was not found
// yet, it is looked up first, in a command, and the answer kept.
func (m *Model) openResult() tea.Cmd {
	src, agentFile, ok := m.detail.source(m.replay, m.currentCall())
	if !ok && m.detail.want != nil {
		return m.flash("its text is still being read from the session file: open it again in a moment")
	}
	if !ok {
		return m.flash("this call has no tool result to open")
	}
	m.overlay = spillOverlay
	m.spill.SetSize(m.ctx.Width, m.ctx.Height)
	if agentFile == "" {
		return m.spill.Load(src)
	}
	// A file found opens at once; one missing is looked for again, as it
	// may have been written since.
	if m.agentFiles[agentFile] {
		return m.spill.Load(withAgentFile(src, agentFile, true, m.replay.Prepared.Session.Path))
	}
	m.spill.SetDocument(nil, src) // "opening…" while the file is looked up
	m.opening = &pendingOpen{src: src, path: agentFile}
	return agentFileCmd(agentFile)
}

// goToWarning selects the call the selected warning belongs to and
// closes the list; a warning of no call says so and leaves it open.
func (m *Model) goToWarning() tea.Cmd {
	entries := m.warningEntries()
	if m.warningCursor >= len(entries) {
		return nil
	}
	e := entries[m.warningCursor]
	if e.call < 0 {
		return m.flash("this line belongs to no call")
	}
	m.overlay = noOverlay
	m.table.selectCall(e.call)
	m.detail.reset()
	return nil
}

// pendingOpen is a result to open once its agent's spill file is looked up.
type pendingOpen struct {
	src  spillview.Source
	path string
}

// agentFileFound keeps a lookup's answer and opens what waited for it.
func (m *Model) agentFileFound(msg agentFileMsg) tea.Cmd {
	if m.agentFiles == nil {
		m.agentFiles = map[string]bool{}
	}
	m.agentFiles[msg.path] = msg.exists
	m.agentAnswers++
	o := m.opening
	if o == nil || o.path != msg.path {
		return nil
	}
	m.opening = nil
	if m.overlay != spillOverlay {
		return nil // the viewer was closed meanwhile
	}
	return m.spill.Load(withAgentFile(o.src, o.path, msg.exists, m.replay.Prepared.Session.Path))
}

// toggleFollow stops or restarts following the file.
func (m *Model) toggleFollow() tea.Cmd {
	if m.following {
		if m.cancelFollow != nil {
			m.cancelFollow()
		}
		m.following = false
		m.followID++ // what the stopped follower still sends is dropped
		return m.flash("stopped following")
	}
	if m.opt.Source.Path == "" {
		return m.flash("only a file or folder can be followed")
	}
	return tea.Batch(m.startFollow(), m.flash("following "+m.opt.Source.Path))
}

// startFollow marks the session followed and starts the follower in the
// background; a follower that cannot start says why when it answers.
func (m *Model) startFollow() tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	m.followID++
	m.following, m.cancelFollow = true, cancel
	return startFollowCmd(ctx, m.followID, m.opt.Source.Path, m.opt.Read)
}

// wheel scrolls the pane under the pointer.
func (m *Model) wheel(msg tea.MouseWheelMsg) tea.Cmd {
	if m.overlay == spillOverlay {
		var cmd tea.Cmd
		m.spill, cmd = m.spill.Update(msg)
		return cmd
	}
	step := 3
	if msg.Mouse().Button == tea.MouseWheelUp {
		step = -3
	}
	if m.onList() {
		if m.overlay == noOverlay {
			m.fleet.list.move(step)
		}
		return nil
	}
	if m.overlay == toolsOverlay {
		m.overlayScroll = max(0, m.overlayScroll+step) // clampOverlay keeps it within the lines
		return nil
	}
	if msg.Mouse().Y >= m.detail.top {
		m.detail.scroll(step)
	} else {
		m.table.move(step)
		m.detail.reset()
	}
	return nil
}

// click selects the clicked row.
func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if m.overlay != noOverlay || msg.Mouse().Button != tea.MouseLeft {
		return nil
	}
	y := msg.Mouse().Y
	if m.onList() {
		m.fleet.list.clickRow(y)
		return nil
	}
	if y >= m.detail.top {
		m.focus = focusDetail
		return nil
	}
	if m.table.clickRow(y) {
		m.focus = focusTable
		m.detail.reset()
	}
	return nil
}

// layout hands out the screen to the components.
func (m *Model) layout() {
	w, h := m.ctx.Width, m.ctx.Height
	body := max(0, h-chromeLines(h))
	tableH := body
	detailH := 0
	if body >= 12 {
		tableH = max(5, body*2/5)
		detailH = body - tableH
	}
	m.table.setSize(w, tableH)
	m.table.top0 = headerLines(h)
	m.detail.setSize(w, detailH)
	m.detail.top = m.table.top0 + tableH
	if detailH == 0 {
		m.focus = focusTable // keys must not scroll a pane that is not shown
	}
	if m.fleet != nil {
		m.fleet.list.setSize(w, body)
		m.fleet.list.top0 = headerLines(h)
	}
	m.sizeInput()
	m.help.SetWidth(w)
	m.spill.SetSize(w, h)
}

// safe makes transcript text safe to draw on one line.
func safe(s string) string { return termtext.Escape(s) }
