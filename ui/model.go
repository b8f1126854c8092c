// Package ui is spillway's inspector: a Bubble Tea program that shows a
// session's calls with their cost before and after a tool-result policy,
// lets the user tune the policy with a key, opens spilled results, and
// follows a running agent; over many sessions, it lists them first.
//
// Model is a thin root: it holds what outlives a screen (the policy and
// its undo, the prompt, the notices, help and warnings) and routes every
// message. Each screen is a model of its own: the session list
// (listScreen), for as long as the program runs, and the session view
// (sessionScreen), made when a session is opened and dropped, its context
// cancelled, when it is left, so that nothing of it reaches the next.
package ui

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/prompt"
	"github.com/spillway-dev/spillway/internal/sessions"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/spillview"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
)

// Source is what the inspector opens.
type Source struct {
	Name string // shown in the header
	Path string // a file, or a directory when following
	// Folder says Path is a directory, followed for the session written
	// in it last.
	Folder bool
	Stdin  io.Reader // standard input
	Data   []byte    // in memory (the demo)
	// Subagents are the logs of the session's sub-agents, when known; nil
	// looks for them beside Path.
	Subagents []string
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
	Sessions     sessions.Source
	SessionsName string
	NoFollow     bool
	// InstallHook, when set, installs spillway's Claude Code hook with a
	// policy into a settings file and says what it did: w offers it,
	// HookSettings the file it offers.
	InstallHook  func(p policy.Policy, settings string) (string, error)
	HookSettings string
	// Ledger is the folder of spillway's hook ledger: the footer says
	// what the hook cut from a session it ran in. "" reads none.
	Ledger string
}

// Context is what every component shares, passed by pointer: the screen's
// size and styles, the keys, and the footer's notice.
type Context struct {
	Width, Height int
	Styles        *themes.Styles
	Keys          KeyMap
	Theme         string
	NoColor       bool
	Dark          bool

	notice   string
	noticeID int
	// keepNotice: the notice is Options.Notice, shown until a key.
	keepNotice bool
}

// flash shows a notice for a few seconds.
func (c *Context) flash(s string) tea.Cmd {
	c.noticeID++
	c.notice, c.keepNotice = s, false
	return expireNotice(c.noticeID)
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

// Model is the inspector's root: it holds the policy, the prompt, the
// notices and the help and warnings, and routes every message to the
// screen it is for.
type Model struct {
	ctx *Context
	opt Options

	policy policy.Policy
	undo   []policy.Policy

	// fleet is the session list, nil when one session was given; sess is
	// the session shown, nil on the list.
	fleet  *listScreen
	sess   *sessionScreen
	nextID int // of the next session screen

	input     prompt.Input
	inputMode inputMode
	writePath string // where w writes; the prompt offers it again
	confirm   string // a file w would overwrite, waiting for y or n
	// writeFormat is what w writes, an index of writeFormats.
	writeFormat int
	// filterBefore is the list's filter when its prompt opened, for esc
	// to put back.
	filterBefore string

	overlay overlay // help or warnings, over either screen
	// overlayScroll is the first line shown of the help or warnings;
	// warningCursor, the warning selected.
	overlayScroll int
	warningCursor int
	help          help.Model
}

// New returns the inspector for opt.
func New(opt Options) *Model {
	ctx := &Context{Keys: DefaultKeyMap(), Theme: opt.Theme, NoColor: opt.NoColor, Dark: true}
	ctx.notice, ctx.keepNotice = opt.Notice, opt.Notice != ""
	m := &Model{ctx: ctx, opt: opt, policy: opt.Policy, help: help.New(), writePath: "spillway-policy.json"}
	m.applyTheme()
	m.input = prompt.New()
	// The terminal's own cursor: no blink timer redrawing the screen.
	m.input.SetVirtualCursor(false)
	if opt.Sessions != nil {
		m.fleet = newListScreen(ctx, opt, m.policy)
	} else {
		m.sess = m.newSession(opt.Source)
	}
	return m
}

// newSession makes the screen of src.
func (m *Model) newSession(src Source) *sessionScreen {
	m.nextID++
	return newSessionScreen(m.ctx, m.nextID, m.opt, src, m.policy)
}

// applyTheme rebuilds the styles for the current background.
func (m *Model) applyTheme() {
	p, err := themes.Pick(m.ctx.Theme, m.ctx.Dark, m.ctx.NoColor)
	if err != nil {
		p = themes.Dark
	}
	m.ctx.Styles = themes.New(p)
	m.help.Styles = m.ctx.Styles.Help
	if m.sess != nil {
		m.sess.setStyles()
	}
}

// Init starts the screen shown and asks for the background colour.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.fleet != nil {
		return tea.Batch(append(cmds, m.fleet.init())...)
	}
	return tea.Batch(append(cmds, m.toSession(m.sess, m.sess.init(m.opt.Follow)))...)
}

// sessionEnvelope carries a message of the session screen with its id:
// one for a screen no longer shown is dropped.
type sessionEnvelope struct {
	id  int
	msg tea.Msg
}

// fromSession marks the messages of the session screen's commands.
type fromSession interface{ fromSession() }

// toSession makes cmd, a command of screen s, deliver its messages to s
// alone: they are put in an envelope with its id. Bubble Tea's own
// messages (quit, clipboard, a program to run) go through as they are.
func (m *Model) toSession(s *sessionScreen, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	id := s.id
	var wrap func(tea.Cmd) tea.Cmd
	wrap = func(cmd tea.Cmd) tea.Cmd {
		if cmd == nil {
			return nil
		}
		return func() tea.Msg {
			switch msg := cmd().(type) {
			case tea.BatchMsg:
				out := make(tea.BatchMsg, len(msg))
				for i, c := range msg {
					out[i] = wrap(c)
				}
				return out
			case fromSession, spillview.OpenedMsg, spillview.SearchedMsg, spillview.LinesMsg, spillview.CloseMsg:
				return sessionEnvelope{id: id, msg: msg}
			default:
				return msg
			}
		}
	}
	return wrap(cmd)
}

// Update routes every message to the screen it is for, then brings what
// View reads up to date: View changes nothing.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.clampOverlay()
	if s := m.sess; s != nil {
		cmd = tea.Batch(cmd, m.toSession(s, s.sync()))
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.ctx.Width, m.ctx.Height = msg.Width, msg.Height
		return m.layout()
	case tea.BackgroundColorMsg:
		m.ctx.Dark = msg.IsDark()
		m.applyTheme()
		return nil
	case sessionEnvelope:
		if m.sess == nil || msg.id != m.sess.id {
			return nil // a session left: nothing of it reaches another
		}
		return m.toSession(m.sess, m.sess.update(msg.msg))
	case fromList:
		if m.fleet == nil {
			return nil
		}
		return m.fleet.update(msg)
	case wroteMsg:
		return m.wrote(msg)
	case pagerDoneMsg:
		return m.pagerDone(msg)
	case noticeExpiredMsg:
		if msg.id == m.ctx.noticeID {
			m.ctx.notice = ""
		}
		return nil
	case tea.KeyPressMsg:
		if m.ctx.keepNotice {
			m.ctx.notice, m.ctx.keepNotice = "", false
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

// openSession leaves the list for a session's calls; a live one is
// followed as it is written, one the list holds read opens at once.
func (m *Model) openSession() tea.Cmd {
	l := &m.fleet.list
	path := l.current()
	if path == "" {
		return m.ctx.flash("no session to open")
	}
	subs := []string{} // the list knows them all: none is looked for again
	for _, p := range l.rows[l.shown[l.cursor]].Parts {
		subs = append(subs, p.Path)
	}
	s := m.newSession(Source{Name: path, Path: path, Subagents: subs})
	m.sess = s
	m.fleet.pauseAhead()
	m.layout()
	if l.live[path] {
		return m.toSession(s, s.init(true))
	}
	if h, ok := m.fleet.src.(interface{ Held(string) *app.Session }); ok {
		if held := h.Held(path); held != nil {
			return m.toSession(s, s.openHeld(held))
		}
	}
	return m.toSession(s, s.init(false))
}

// backToList drops the session shown; the list's cursor is where it was.
func (m *Model) backToList() tea.Cmd {
	m.sess.leave()
	m.sess = nil
	m.overlay = noOverlay
	return m.fleet.resumeAhead()
}

// onList tells whether the session list is on screen.
func (m *Model) onList() bool { return m.sess == nil }

// key handles a key press: the prompt, a question and the help and
// warnings first, then the screen shown, then the keys both share.
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
			return m.ctx.flash(termtext.Escape(path) + " left as it was")
		}
		return nil
	}
	switch m.overlay {
	case warningsOverlay:
		return m.warningsKey(msg)
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
		case key.Matches(msg, k.HalfDown):
			m.overlayScroll += max(1, m.ctx.Height/2)
		case key.Matches(msg, k.HalfUp):
			m.overlayScroll = max(0, m.overlayScroll-max(1, m.ctx.Height/2))
		case key.Matches(msg, k.Top):
			m.overlayScroll = 0
		case key.Matches(msg, k.Bottom):
			m.overlayScroll = math.MaxInt32 // clampOverlay brings it to the last page
		case key.Matches(msg, k.Quit, k.Back, k.Help):
			m.overlay = noOverlay
		}
		return nil
	}
	if s := m.sess; s != nil {
		if cmd, ok := s.key(msg); ok {
			return m.toSession(s, cmd)
		}
	} else if cmd, ok := m.fleet.key(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.overlay, m.overlayScroll = helpOverlay, 0
	case key.Matches(msg, k.Warnings):
		// The list's head shows its keys, or a notice about the list: not
		// one left from before it opened.
		m.overlay, m.overlayScroll, m.warningCursor, m.ctx.notice = warningsOverlay, 0, 0, ""
	case m.sess != nil && key.Matches(msg, k.Search):
		return m.openInput(searchInput, "/", cmpOr(m.sess.query, "tool name, input or result text"))
	case m.sess != nil && m.fleet != nil && key.Matches(msg, k.List.Back):
		return m.backToList()
	case m.sess == nil && key.Matches(msg, k.List.Open):
		return m.openSession()
	case m.sess == nil && key.Matches(msg, k.List.Filter):
		m.filterBefore = m.fleet.list.filter
		cmd := m.openInput(filterInput, "filter: ", "project, file, agent or model")
		m.input.SetValue(m.fleet.list.filter)
		m.input.CursorEnd()
		return cmd
	default:
		return m.tune(msg)
	}
	return nil
}

// warningsKey moves in the warnings; enter goes to the call of the one
// selected.
func (m *Model) warningsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.ctx.Keys
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
	case key.Matches(msg, k.HalfDown):
		m.warningCursor += max(1, room/2)
	case key.Matches(msg, k.HalfUp):
		m.warningCursor = max(0, m.warningCursor-max(1, room/2))
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
}

// goToWarning selects the call the selected warning belongs to and
// closes the list; a warning of no call says so and leaves it open.
func (m *Model) goToWarning() tea.Cmd {
	entries := m.warningEntries()
	if m.warningCursor >= len(entries) {
		return nil
	}
	e := entries[m.warningCursor]
	if e.path != "" && m.sess == nil {
		m.overlay = noOverlay
		m.fleet.list.selectPath(e.path)
		return m.openSession()
	}
	if e.call < 0 || m.sess == nil {
		return m.ctx.flash("this line belongs to no call")
	}
	m.overlay = noOverlay
	m.sess.goTo(e.call)
	return nil
}

// tune applies a key that tunes the policy, in the list as in a session.
func (m *Model) tune(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.ctx.Keys
	switch {
	case key.Matches(msg, k.Raise):
		return m.scaleCeiling(2)
	case key.Matches(msg, k.Lower):
		return m.scaleCeiling(0.5)
	case key.Matches(msg, k.Exact):
		return m.openInput(ceilingInput, "ceiling: ", policy.FormatSize(m.policy.Ceiling, m.policy.Unit)+" (24KiB, 80000, 50kB)")
	case key.Matches(msg, k.Dedupe):
		p, err := dedupeToggled(m.policy)
		if err != nil {
			return m.ctx.flash(err.Error())
		}
		if !p.Dedupe.Enabled {
			return m.setPolicy(p, "repeat suppression off")
		}
		return m.setPolicy(p, "repeats suppressed from the "+human.Ordinal(p.Dedupe.From)+" identical call")
	case key.Matches(msg, k.DedupeFrom):
		p := m.policy.Clone()
		from := 2
		if p.Dedupe.Enabled && p.Dedupe.From == 2 {
			from = 3
		}
		p.SetDedupe(from)
		return m.setPolicy(p, "repeats suppressed from the "+human.Ordinal(from)+" identical call")
	case key.Matches(msg, k.Spill):
		p, err := spillToggled(m.policy)
		if err != nil {
			return m.ctx.flash(err.Error())
		}
		return m.setPolicy(p, "action: "+string(p.Action))
	case key.Matches(msg, k.Preset):
		return m.nextPreset()
	case key.Matches(msg, k.Undo):
		if len(m.undo) == 0 {
			return m.ctx.flash("nothing to undo")
		}
		p := m.undo[len(m.undo)-1]
		m.undo = m.undo[:len(m.undo)-1]
		return tea.Batch(m.retune(p), m.ctx.flash("back to "+p.Name))
	case key.Matches(msg, k.Write):
		return m.openInput(writeInput, m.writePrompt(), m.writePath)
	}
	return nil
}

// dedupeToggled is p with repeat suppression turned on (from the 2nd
// identical call, or the one it was set to) or off, as the d key does.
func dedupeToggled(p policy.Policy) (policy.Policy, error) {
	p = p.Clone()
	from := 0
	if !p.Dedupe.Enabled {
		from = max(2, p.Dedupe.From)
	}
	err := p.SetDedupe(from)
	return p, err
}

// spillToggled is p spilling where it truncates and truncating where it
// spills, as the s key does.
func spillToggled(p policy.Policy) (policy.Policy, error) {
	p = p.Clone()
	err := p.SetSpill(p.Action != policy.Spill)
	return p, err
}

// retune puts p in force in every screen.
func (m *Model) retune(p policy.Policy) tea.Cmd {
	m.policy = p
	var cmds []tea.Cmd
	if m.sess != nil {
		cmds = append(cmds, m.toSession(m.sess, m.sess.retune(p)))
	}
	if m.fleet != nil {
		cmds = append(cmds, m.fleet.retune(p))
	}
	return tea.Batch(cmds...)
}

// setPolicy applies a tuned policy, keeping the old one for undo.
func (m *Model) setPolicy(p policy.Policy, note string) tea.Cmd {
	if err := p.Validate(); err != nil {
		return m.ctx.flash(err.Error())
	}
	m.undo = append(m.undo, m.policy)
	if !strings.HasSuffix(p.Name, "+custom") && p.Name == m.policy.Name {
		p.Name += "+custom"
	}
	if preset, err := policy.Preset(strings.TrimSuffix(p.Name, "+custom")); err == nil && samePolicy(p, preset) {
		p = preset // tuned back to the preset's own values: the preset again
	}
	return tea.Batch(m.retune(p), m.ctx.flash(note))
}

// samePolicy tells whether a tuned policy is the preset again: every knob
// alike, its per-tool ceilings within the rounding that halving and
// doubling them leaves.
func samePolicy(tuned, preset policy.Policy) bool {
	a, b := tuned.Clone(), preset.Clone()
	if len(a.PerTool) != len(b.PerTool) {
		return false
	}
	for tool, v := range b.PerTool {
		w, ok := a.PerTool[tool]
		if !ok || (v < 0) != (w < 0) || max(v-w, w-v) > 2 {
			return false
		}
	}
	a.PerTool, b.PerTool = nil, nil
	a.Name, b.Name = "", ""
	return reflect.DeepEqual(a, b)
}

func (m *Model) quit() tea.Cmd {
	if m.sess != nil {
		m.sess.leave()
	}
	if m.fleet != nil {
		m.fleet.leave()
	}
	return tea.Quit
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
			if m.sess != nil {
				return m.toSession(m.sess, m.sess.search(value))
			}
		case ceilingInput:
			if value == "" {
				return nil // enter alone keeps the ceiling
			}
			n, err := human.ParseSize(value)
			if err != nil {
				return m.ctx.flash(err.Error())
			}
			p := m.policy.Clone()
			p.SetCeiling(n)
			return m.setPolicy(p, ceilingText(p))
		case writeInput:
			m.writePath = cmpOr(expandHome(value), m.writePath)
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
	// The window over the text follows the new width (SetWidth leaves the
	// old one until a key): the cursor in view, all of it where it fits.
	pos := m.input.Position()
	m.input.SetCursor(0)
	m.input.SetCursor(pos)
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
	p.SetCeiling(max(1, int64(min(float64(c)*f, policy.MaxCeiling))))
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
	return tea.Batch(m.retune(p), m.ctx.flash(note))
}

// wheel scrolls what is under the pointer.
func (m *Model) wheel(msg tea.MouseWheelMsg) tea.Cmd {
	step := 3
	if msg.Mouse().Button == tea.MouseWheelUp {
		step = -3
	}
	switch {
	case m.overlay == helpOverlay:
		m.overlayScroll = max(0, m.overlayScroll+step) // clampOverlay bounds it
	case m.overlay == warningsOverlay:
		m.warningCursor = max(0, m.warningCursor+step)
	case m.sess != nil:
		return m.toSession(m.sess, m.sess.wheel(msg))
	default:
		m.fleet.list.move(step)
	}
	return nil
}

// click selects the clicked row.
func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if m.overlay != noOverlay || msg.Mouse().Button != tea.MouseLeft {
		return nil
	}
	if s := m.sess; s != nil {
		s.click(msg)
		return nil
	}
	m.fleet.list.clickRow(msg.Mouse().Y)
	return nil
}

// layout hands out the screen to the screens; the Cmd reads what a
// larger screen shows.
func (m *Model) layout() tea.Cmd {
	w, h := m.ctx.Width, m.ctx.Height
	body := max(0, h-chromeLines(h))
	var cmd tea.Cmd
	if m.sess != nil {
		cmd = m.toSession(m.sess, m.sess.setSize(w, headerLines(h), body))
	}
	if m.fleet != nil {
		m.fleet.list.setSize(w, body)
		m.fleet.list.top0 = headerLines(h)
	}
	m.sizeInput()
	m.help.SetWidth(w)
	return cmd
}

// noticeTTL is how long a notice stays in the footer; 0 keeps it until
// the next one (tests).
var noticeTTL = 4 * time.Second

// noticeExpiredMsg clears a notice once it has been shown long enough.
type noticeExpiredMsg struct{ id int }

func expireNotice(id int) tea.Cmd {
	if noticeTTL <= 0 {
		return nil
	}
	return tea.Tick(noticeTTL, func(time.Time) tea.Msg { return noticeExpiredMsg{id: id} })
}

// safe makes transcript text safe to draw on one line.
func safe(s string) string { return termtext.Escape(s) }

// expandHome reads a leading ~ as the shell would, the home folder ($HOME):
// typed at the prompt, "~/p.json" named a folder "~" that was not there.
func expandHome(path string) string {
	rest, ok := strings.CutPrefix(path, "~")
	if !ok || rest != "" && rest[0] != '/' && rest[0] != filepath.Separator {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	return home + rest
}
