package ui

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/keytest"
	"github.com/spillway-dev/spillway/internal/memory"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/spillview"
	"github.com/spillway-dev/spillway/transcript"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Notices stay and the chart does not wait for the keys to rest: no
	// timer for the tests to wait out. The benchmarks put the pause back.
	noticeTTL, chartPause = 0, 0
	// The session list rescans when a test says so, and hands on each
	// replay at once.
	rescanEvery, streamBatch, liveWatch, subsEvery, subsPace, fleetPace = 0, 0, false, 0, 0, 0
	// Times are in the machine's zone: the goldens' are UTC's,
	// wherever they run.
	time.Local = time.UTC
	pace, limit := memory.Now()
	code := m.Run()
	if code == 0 && !givenBack(pace, limit) {
		// A model a test did not leave (leaveAtEnd) kept a session's
		// memory limit: the collector then ran without pause through
		// every test after it, 40 s for the package instead of 15.
		fmt.Fprintln(os.Stderr, "a test left a memory demand in force: leave its model at the end (leaveAtEnd)")
		code = 1
	}
	os.Exit(code)
}

// givenBack waits a moment for the garbage collector's pace and limit to
// be pace and limit again: a screen left gives them back from a goroutine
// of its own (context.AfterFunc).
func givenBack(pace int, limit int64) bool {
	for range 100 {
		if p, l := memory.Now(); p == pace && l == limit {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func demoData(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func counter() (replay.TokenCounter, error) {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		return nil, err
	}
	return tokens.NewCache(c), nil
}

// newModel opens data at w×h with the dark theme (or theme), runs every
// command until the inspector is idle, and returns it.
func newModel(t testing.TB, data []byte, preset string, w, h int, theme string) *Model {
	t.Helper()
	pol, err := policy.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{
		Source: Source{Name: "demo.jsonl", Data: data}, Policy: pol, Prices: pricing.Default(),
		Counter: counter, Theme: theme,
	})
	leaveAtEnd(t, m)
	drive(t, m, m.Init())
	send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// sharedLog is the shared log pattern names (skipped where the shared
// logs are absent).
func sharedLog(t testing.TB, pattern string) []byte {
	t.Helper()
	paths := sharedtest.Transcripts(t, pattern)
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// leaveAtEnd leaves m's screens when the test ends, as quitting does:
// their work stops and what they asked of the garbage collector is given
// back, never left to slow the tests after.
func leaveAtEnd(t testing.TB, m *Model) { t.Cleanup(func() { m.quit() }) }

// send delivers msg and runs the commands it starts.
func send(t testing.TB, m *Model, msg tea.Msg) {
	t.Helper()
	_, cmd := m.Update(msg)
	drive(t, m, cmd)
}

// driveWait is how long drive waits for a command before dropping it.
var driveWait = 2 * time.Second

// drive runs cmd and everything it leads to, waiting driveWait for each
// round of commands. Terminal queries and cursor blinks go unanswered.
func drive(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	rounds(m, []tea.Cmd{cmd}, driveWait, math.MaxInt)
}

// rounds runs queue and the commands it leads to, at most most rounds of
// them: each round starts every queued command at once and takes their
// messages in the order the commands were queued, those that come within
// wait of the round's start, so a command that never answers (a notice's
// expiry, a cursor's blink) costs a round wait, not one each.
func rounds(m *Model, queue []tea.Cmd, wait time.Duration, most int) {
	for round := 0; len(queue) > 0 && round < most; round++ {
		answers := make([]chan tea.Msg, len(queue))
		for i, c := range queue {
			if c == nil {
				continue
			}
			answers[i] = make(chan tea.Msg, 1)
			go func() {
				defer func() {
					if r := recover(); r != nil {
						answers[i] <- panicMsg{r, debug.Stack()}
					}
				}()
				answers[i] <- c()
			}()
		}
		queue = nil
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		for _, answer := range answers {
			if answer == nil {
				continue
			}
			select {
			case msg := <-answer:
				queue = append(queue, take(m, msg)...)
			case <-ctx.Done():
			}
		}
		cancel()
	}
}

// take hands a command's message to m as the program does, and returns
// the commands that follow from it.
func take(m *Model, msg tea.Msg) []tea.Cmd {
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
		return nil
	case panicMsg:
		panic(fmt.Sprintf("in a command: %v\n%s", msg.value, msg.stack))
	case tea.BatchMsg:
		return msg
	}
	// Cursor blinks re-arm forever; terminal queries need a terminal.
	if pkg := reflect.TypeOf(msg).PkgPath(); strings.HasSuffix(pkg, "/cursor") || strings.HasSuffix(pkg, "bubbletea/v2") {
		return nil
	}
	_, next := m.Update(msg)
	return []tea.Cmd{next}
}

func press(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		send(t, m, keyMsg(k))
	}
}

// keyMsg builds the key press a terminal would send for k.
func keyMsg(k string) tea.KeyPressMsg { return keytest.Press(k) }

func screen(m *Model) string { return m.View().Content }

// TestGolden pins the main screens on the demo session at fixed sizes,
// colours and attributes included, in every theme (go test ./ui -update
// rewrites them): a lost highlight fails it.
func TestGolden(t *testing.T) {
	data := demoData(t)
	tests := []struct {
		name   string
		preset string
		w, h   int
		theme  string
		keys   []string
	}{
		{"main", "harness-rs-0.0.40", 120, 40, "dark", nil},
		{"main-80x24", "harness-rs-0.0.40", 80, 24, "dark", nil},
		{"main-200x50", "harness-rs-0.0.40", 200, 50, "dark", nil},
		{"hazard-80x24", "harness-rs-0.0.40", 80, 24, "dark", []string{"H"}},
		{"hazard-120x40", "harness-rs-0.0.40", 120, 40, "dark", []string{"H"}},
		{"context-80-mono", "harness-rs-0.0.40", 80, 24, "mono", []string{"C"}},
		{"main-mono", "harness-rs-0.0.40", 120, 40, "mono", nil},
		{"main-light", "harness-rs-0.0.40", 120, 40, "light", nil},
		{"main-high-contrast", "harness-rs-0.0.40", 120, 40, "high-contrast", nil},
		{"narrow", "claude-code", 80, 24, "dark", []string{"]", "]"}},
		{"stale-repeat", "harness-rs-0.0.40", 120, 40, "dark", []string{"G", "k", "k", "k"}},
		{"stacked", "harness-rs-0.0.50", 100, 36, "dark", []string{"j", "v"}},
		{"help", "harness-rs-0.0.40", 100, 36, "dark", []string{"?"}},
		{"warnings", "harness-rs-0.0.40", 100, 20, "dark", []string{"W"}},
		{"spill-view", "harness-rs-0.0.50", 100, 30, "dark", []string{"enter"}},
		{"sorted-by-cost", "harness-rs-0.0.40", 120, 30, "dark", []string{"o"}},
		{"tiny", "harness-rs-0.0.40", 20, 5, "dark", nil},
		// The cost parts, the per-tool view and the context chart at 120×40
		// and 80×24, in a dark and a light theme.
		{"costs-120-light", "harness-rs-0.0.40", 120, 40, "light", []string{"j"}},
		{"costs-80", "harness-rs-0.0.40", 80, 24, "dark", []string{"j"}},
		{"tools-120", "harness-rs-0.0.40", 120, 40, "dark", []string{"T"}},
		{"tools-80-light", "harness-rs-0.0.40", 80, 24, "light", []string{"T"}},
		{"context-120", "harness-rs-0.0.40", 120, 40, "dark", []string{"C"}},
		{"context-80-light", "harness-rs-0.0.40", 80, 24, "light", []string{"C"}},
		{"help-80", "harness-rs-0.0.40", 80, 24, "dark", []string{"?"}},
		{"help-120-light", "harness-rs-0.0.40", 120, 40, "light", []string{"?"}},
		{"spill-view-80", "harness-rs-0.0.50", 80, 24, "dark", []string{"enter"}},
		{"spill-view-120-light", "harness-rs-0.0.40", 120, 40, "light", []string{"enter"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, data, tt.preset, tt.w, tt.h, tt.theme)
			press(t, m, tt.keys...)
			out := screen(m)
			checkSize(t, out, tt.w, tt.h)
			golden.RequireEqual(t, []byte(out))
		})
	}
	// The themes draw the same screen apart from one another.
	themed := map[string]string{}
	for _, theme := range []string{"dark", "light", "high-contrast", "mono"} {
		m := newModel(t, data, "harness-rs-0.0.40", 120, 40, theme)
		out := screen(m)
		for other, o := range themed {
			if o == out {
				t.Errorf("%s and %s draw the same bytes", theme, other)
			}
			if ansi.Strip(o) != ansi.Strip(out) {
				t.Errorf("%s and %s differ in more than their colours", theme, other)
			}
		}
		themed[theme] = out
	}
}

// checkSize fails when the screen is larger than the terminal.
func checkSize(t testing.TB, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if out == "" {
		lines = nil
	}
	if len(lines) > h {
		t.Errorf("%d lines on a %d-line terminal", len(lines), h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("line %d is %d cells on a %d-cell terminal: %q", i, ansi.StringWidth(l), w, ansi.Strip(l))
		}
	}
}

// TestKeys presses every key of the KeyMap on the demo and checks what it
// did.
func TestKeys(t *testing.T) {
	data := demoData(t)
	policyFile := filepath.Join(t.TempDir(), "tuned.json")
	tests := []struct {
		binding string
		before  []string
		keys    []string
		check   func(m *Model) string // what went wrong, "" when right
	}{
		{"Down", nil, []string{"j"}, callIs(1)},
		{"Up", []string{"j", "j"}, []string{"k"}, callIs(1)},
		{"PageDown", nil, []string{"pgdown"}, func(m *Model) string { return want(m.sess.currentCall() > 5, "call %d", m.sess.currentCall()) }},
		{"PageUp", []string{"G"}, []string{"pgup"}, func(m *Model) string { return want(m.sess.currentCall() < 12, "call %d", m.sess.currentCall()) }},
		// Half of the table's 15 rows at 120×40.
		{"HalfDown", nil, []string{"ctrl+d"}, callIs(7)},
		{"HalfUp", []string{"G"}, []string{"ctrl+u"}, callIs(8)},
		{"Bottom", nil, []string{"G"}, callIs(15)},
		{"Top", []string{"G"}, []string{"g"}, callIs(0)},
		// The 30 KB Grep is left as it is: cut to 24 KiB, it would still be
		// over Claude Code's own limit for Grep, 20,000 characters.
		{"NextEvent", nil, []string{"]"}, callIs(3)},
		{"PrevEvent", []string{"j", "j", "j", "j", "j"}, []string{"["}, callIs(3)},
		{"Costliest", nil, []string{"c"}, callIs(1)}, // $0.0722, the 30 KB grep written to the cache
		// The demo's one hazard is its stale repeat, suppressed at call 12;
		// from there the key comes round to it again.
		{"NextHazard", nil, []string{"H"}, callIs(12)},
		{"Bookmark", []string{"j", "j"}, []string{"m"}, func(m *Model) string {
			return want(len(m.sess.bookmarks) == 1 && m.sess.bookmarks[0] == 2, "bookmarks %v", m.sess.bookmarks)
		}},
		{"NextBookmark", []string{"j", "j", "m", "G"}, []string{"'"}, callIs(2)},
		// From the last call, sorting by cost shows the top of the new order.
		{"Sort", []string{"G"}, []string{"o"}, func(m *Model) string {
			return want(m.sess.table.order == byCost && m.sess.table.rows[0].call == 1 && m.sess.currentCall() == 1 && m.sess.table.offset == 0,
				"order %v, first row %+v, call %d, offset %d", m.sess.table.order, m.sess.table.rows[0], m.sess.currentCall(), m.sess.table.offset)
		}},
		{"Search", nil, []string{"/", "p", "a", "c", "k", "a", "g", "e", ".", "j", "s", "o", "n", "enter"}, func(m *Model) string {
			return want(len(m.sess.matches) == 2 && m.sess.currentCall() == 10, "matches %v, call %d", m.sess.matches, m.sess.currentCall())
		}},
		{"NextMatch", []string{"/", "m", "e", "r", "g", "e", ".", "j", "s", "enter"}, []string{"n"}, func(m *Model) string {
			return want(len(m.sess.matches) > 2 && m.sess.currentCall() == m.sess.matches[1], "matches %v, call %d", m.sess.matches, m.sess.currentCall())
		}},
		{"PrevMatch", []string{"/", "m", "e", "r", "g", "e", ".", "j", "s", "enter"}, []string{"N"}, func(m *Model) string {
			return want(m.sess.currentCall() == m.sess.matches[len(m.sess.matches)-1], "matches %v, call %d", m.sess.matches, m.sess.currentCall())
		}},
		{"Focus", nil, []string{"tab", "j"}, func(m *Model) string {
			return want(m.sess.focus == focusDetail && m.sess.currentCall() == 0 && m.sess.detail.offset == 1, "focus %v, call %d, detail offset %d", m.sess.focus, m.sess.currentCall(), m.sess.detail.offset)
		}},
		{"Layout", nil, []string{"v"}, func(m *Model) string { return want(m.sess.detail.stacked, "not stacked") }},
		// 24,576 serialized bytes, less the opening quote, hold 23,013 bytes of the text once escaped.
		{"Open", nil, []string{"enter"}, func(m *Model) string {
			return want(m.sess.overlay == spillOverlay && strings.Contains(screen(m), "under harness-rs-0.0.40 the model would see 26,841 of 70,611 bytes; the rest was cut off"), "overlay %v:\n%s", m.sess.overlay, ansi.Strip(screen(m)))
		}},
		{"Raise", nil, []string{"+"}, ceilingIs(49_152)},
		{"Lower", nil, []string{"-"}, ceilingIs(12_288)},
		{"Exact", nil, []string{"e", "backspace", "backspace", "backspace", "backspace", "backspace", "8", "K", "i", "B", "enter"}, ceilingIs(8192)},
		{"Dedupe", nil, []string{"d"}, func(m *Model) string { return want(!m.policy.Dedupe.Enabled, "dedupe still on") }},
		{"DedupeFrom", nil, []string{"D"}, func(m *Model) string { return want(m.policy.Dedupe.From == 3, "from %d", m.policy.Dedupe.From) }},
		{"Spill", nil, []string{"s"}, func(m *Model) string {
			return want(m.policy.Action == policy.Spill && m.sess.replay.Totals.Actions[replay.Spilled] == 2, "action %s, %v", m.policy.Action, m.sess.replay.Totals.Actions)
		}},
		{"Preset", nil, []string{"p"}, func(m *Model) string { return want(m.policy.Name == "harness-rs-0.0.50", "preset %s", m.policy.Name) }},
		{"Undo", []string{"+", "+"}, []string{"u"}, ceilingIs(49_152)},
		{"Write", nil, []string{"w"}, func(m *Model) string {
			m.input.SetValue(policyFile)
			send(t, m, keyMsg("enter"))
			p, err := policy.Load(policyFile)
			return want(err == nil && reflect.DeepEqual(p, m.policy), "read back: %v", err)
		}},
		{"WriteFormat", []string{"w"}, []string{"tab"}, writeFormatIs(1, "spillway-policy.rs")},
		{"Warnings", nil, []string{"W"}, func(m *Model) string { return want(m.overlay == warningsOverlay, "overlay %v", m.overlay) }},
		{"Follow", nil, []string{"f"}, func(m *Model) string {
			return want(!m.sess.following && strings.Contains(m.ctx.notice, "only a file"), "following %v, notice %q", m.sess.following, m.ctx.notice)
		}},
		{"Help", nil, []string{"?"}, func(m *Model) string { return want(m.overlay == helpOverlay, "overlay %v", m.overlay) }},
		// w on a file that is there asks first: y overwrites, n keeps it.
		{"Yes", nil, nil, func(m *Model) string {
			path := filepath.Join(t.TempDir(), "p.json")
			writeTo(t, m, path)
			press(t, m, "+")
			writeTo(t, m, path)
			asked := m.confirm == path && strings.Contains(ansi.Strip(screen(m)), path+" exists: overwrite it? y yes · n no")
			press(t, m, "y")
			p, err := policy.Load(path)
			return want(asked && err == nil && p.Ceiling == 49_152 && m.confirm == "", "asked %v, read back %v ceiling %d", asked, err, p.Ceiling)
		}},
		{"No", nil, nil, func(m *Model) string {
			path := filepath.Join(t.TempDir(), "p.json")
			writeTo(t, m, path)
			press(t, m, "+")
			writeTo(t, m, path)
			press(t, m, "n")
			p, err := policy.Load(path)
			return want(err == nil && p.Ceiling == 24_576 && m.confirm == "" && m.ctx.notice == path+" left as it was",
				"read back %v ceiling %d, notice %q", err, p.Ceiling, m.ctx.notice)
		}},
		{"Back", []string{"tab"}, []string{"esc"}, func(m *Model) string { return want(m.sess.focus == focusTable, "focus %v", m.sess.focus) }},
		{"Interrupt", []string{"/", "a"}, nil, func(m *Model) string {
			_, cmd := m.Update(keyMsg("ctrl+c"))
			return want(cmd != nil && cmd() == tea.Quit(), "ctrl+c in a prompt does not quit")
		}},
		{"Prompt.Submit", nil, []string{"/", "G", "r", "e", "p", "enter"}, func(m *Model) string {
			return want(m.inputMode == noInput && m.sess.query == "Grep", "prompt %v, query %q", m.inputMode, m.sess.query)
		}},
		{"Prompt.Cancel", []string{"/", "x"}, []string{"esc"}, func(m *Model) string {
			return want(m.inputMode == noInput && m.sess.query == "", "prompt %v, query %q", m.inputMode, m.sess.query)
		}},
		{"Prompt.Clear", []string{"e"}, []string{"ctrl+u", "8", "K", "i", "B", "enter"}, ceilingIs(8192)},
		{"Tools", nil, []string{"T"}, func(m *Model) string { return want(m.sess.overlay == toolsOverlay, "overlay %v", m.sess.overlay) }},
		{"Context", nil, []string{"C"}, func(m *Model) string { return want(m.sess.overlay == contextOverlay, "overlay %v", m.sess.overlay) }},
		{"Copy", nil, []string{"y"}, func(m *Model) string {
			return want(strings.HasPrefix(m.ctx.notice, "copied result 0's text as recorded, 69.0K"), "notice %q", m.ctx.notice)
		}},
		{"Pager", nil, nil, func(m *Model) string {
			// As Bubble Tea does: the program runs, then the callback's
			// message goes to Update as it is, in no screen's envelope.
			var ran []string
			var done tea.ExecCallback
			execProcess = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
				ran, done = c.Args, fn
				return nil
			}
			defer func() { execProcess = tea.ExecProcess }()
			t.Setenv("PAGER", "")
			press(t, m, "O")
			if len(ran) != 2 || ran[0] != "less" || done == nil {
				return fmt.Sprintf("ran %q", ran)
			}
			if _, err := os.Stat(ran[1]); err != nil {
				return fmt.Sprintf("the pager's file: %v", err)
			}
			send(t, m, done(errors.New("exit status 2")))
			if _, err := os.Stat(ran[1]); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Sprintf("the pager's file %s is left behind: %v", ran[1], err)
			}
			return want(m.ctx.notice == "pager: exit status 2", "notice %q", m.ctx.notice)
		}},
	}
	// The session list's own keys are pressed in sessions_test.go:
	// TestSessionListNumbers (Filter, Sort, Back), TestSessionListOpen (Open).
	covered := map[string]bool{"Quit": true, "List.Open": true, "List.Back": true, "List.Filter": true, "List.Sort": true, "List.Subagents": true}
	for _, tt := range tests {
		covered[tt.binding] = true
		t.Run(tt.binding, func(t *testing.T) {
			m := newModel(t, data, "harness-rs-0.0.40", 120, 40, "dark")
			press(t, m, tt.before...)
			press(t, m, tt.keys...)
			if msg := tt.check(m); msg != "" {
				t.Error(msg)
			}
			checkSize(t, screen(m), 120, 40)
		})
	}
	// Left and right pick among the results of one call.
	for _, tt := range []struct {
		binding string
		before  []string
		keys    []string
		check   func(m *Model) string
	}{
		// Two results came back after call 0: 80 lines of "alpha line" (880
		// bytes, 962 as a JSON string with its escaped newlines, 3 tokens a
		// line) and 110 of "bravo line two" (1,650 bytes, 1,762 in JSON, 5
		// tokens a line). → picks the second, as far as there is one, and ←
		// goes back.
		{"Right", []string{"tab"}, []string{"l", "right"}, func(m *Model) string {
			return want(m.sess.detail.result == 1 && hasLine(m.sess.detail.lines, "› result 1 · Read · 1.6K → 1.6K · 550 → 550 tok counted · keep (1,762 JSON bytes ≤ 24,576 JSON bytes)"),
				"result %d:\n%s", m.sess.detail.result, strings.Join(m.sess.detail.lines[:min(8, len(m.sess.detail.lines))], "\n"))
		}},
		{"Left", []string{"tab", "right"}, []string{"h"}, func(m *Model) string {
			return want(m.sess.detail.result == 0 && hasLine(m.sess.detail.lines, "› result 0 · Read · 880B → 880B · 240 → 240 tok counted · keep (962 JSON bytes ≤ 24,576 JSON bytes)"),
				"result %d:\n%s", m.sess.detail.result, strings.Join(m.sess.detail.lines[:min(8, len(m.sess.detail.lines))], "\n"))
		}},
		// The same from the table, the focus staying there.
		{"Right", nil, []string{"l"}, func(m *Model) string {
			return want(m.sess.detail.result == 1 && m.sess.focus == focusTable && hasLine(m.sess.detail.lines, "› result 1 · Read · 1.6K → 1.6K · 550 → 550 tok counted · keep (1,762 JSON bytes ≤ 24,576 JSON bytes)"),
				"result %d, focus %v", m.sess.detail.result, m.sess.focus)
		}},
		{"Left", []string{"right"}, []string{"h"}, func(m *Model) string {
			return want(m.sess.detail.result == 0 && m.sess.focus == focusTable, "result %d, focus %v", m.sess.detail.result, m.sess.focus)
		}},
	} {
		covered[tt.binding] = true
		t.Run(tt.binding, func(t *testing.T) {
			m := newModel(t, twoResults(), "harness-rs-0.0.40", 120, 40, "dark")
			press(t, m, tt.before...)
			press(t, m, tt.keys...)
			if msg := tt.check(m); msg != "" {
				t.Error(msg)
			}
		})
	}
	// Every binding is tested, and in the help.
	for _, name := range bindingNames(reflect.ValueOf(DefaultKeyMap()), "") {
		if !covered[name] {
			t.Errorf("no test presses %s", name)
		}
	}
	// The list's keys are in the list's help, the others in a session's.
	inHelp := map[string]bool{}
	for _, col := range append(DefaultKeyMap().FullHelp(), DefaultKeyMap().ListFullHelp()...) {
		for _, b := range col {
			inHelp[b.Help().Key+" "+b.Help().Desc] = true
		}
	}
	for _, b := range spillview.Bindings(DefaultKeyMap()) {
		if !inHelp[b.Help().Key+" "+b.Help().Desc] {
			t.Errorf("%v is not in the help", b.Keys())
		}
	}
	// A session's help names no key of the list's but the way back to it,
	// and that only where it was opened from the list.
	for i, groups := range [][][]key.Binding{DefaultKeyMap().FullHelp(), DefaultKeyMap().SessionFullHelp()} {
		back := 0
		for _, col := range groups {
			for _, b := range col {
				for _, l := range bindingsOf(DefaultKeyMap().List) {
					if b.Help() == l.Help() {
						t.Errorf("a session's help names the list's %v", b.Keys())
					}
				}
				if b.Help().Desc == "back to the list" {
					back++
				}
			}
		}
		if back != i {
			t.Errorf("help %d: the way back to the list named %d times, want %d", i, back, i)
		}
	}
	m := newModel(t, data, "harness-rs-0.0.40", 120, 40, "dark")
	for _, k := range []string{"q", "ctrl+c"} {
		if _, cmd := m.Update(keyMsg(k)); cmd == nil || cmd() != tea.Quit() {
			t.Errorf("%s does not quit", k)
		}
	}
}

// bindingNames names every binding of a key map: a field's name, or
// Outer.Inner for a struct field that is not embedded.
func bindingNames(v reflect.Value, prefix string) []string {
	var out []string
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if _, ok := v.Field(i).Interface().(key.Binding); ok {
			out = append(out, prefix+f.Name)
			continue
		}
		inner := prefix + f.Name + "."
		if f.Anonymous {
			inner = prefix
		}
		out = append(out, bindingNames(v.Field(i), inner)...)
	}
	return out
}

// writeTo writes the policy to path with w, typing the path.
func writeTo(t *testing.T, m *Model, path string) {
	t.Helper()
	press(t, m, "w")
	m.input.SetValue(path)
	press(t, m, "enter")
}

// hasLine tells whether a line starts with prefix once its colours are
// stripped.
func hasLine(lines []string, prefix string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(ansi.Strip(l), prefix) })
}

// twoResults is a Claude Code session whose first call reads two files,
// so that two results come back after it.
func twoResults() []byte {
	a, b := strings.Repeat("alpha line\n", 80), strings.Repeat("bravo line two\n", 110)
	lines := []map[string]any{
		{"type": "user", "uuid": "u1", "sessionId": "s", "message": map[string]any{"role": "user", "content": "read both"}},
		{"type": "assistant", "uuid": "a1", "sessionId": "s", "requestId": "r1", "message": map[string]any{"id": "m1", "model": "claude-sonnet-4-5",
			"content": []any{
				map[string]any{"type": "tool_use", "id": "t1", "name": "Read", "input": map[string]any{"file_path": "/a.txt"}},
				map[string]any{"type": "tool_use", "id": "t2", "name": "Read", "input": map[string]any{"file_path": "/b.txt"}},
			},
			"stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0, "output_tokens": 5}}},
		{"type": "user", "uuid": "u2", "sessionId": "s", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": a},
			map[string]any{"type": "tool_result", "tool_use_id": "t2", "content": b},
		}}},
		{"type": "assistant", "uuid": "a2", "sessionId": "s", "requestId": "r2", "message": map[string]any{"id": "m2", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": "done"}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 100, "output_tokens": 5}}},
	}
	return jsonLines(lines)
}

func want(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

func callIs(call int) func(*Model) string {
	return func(m *Model) string {
		return want(m.sess.currentCall() == call, "call %d, want %d", m.sess.currentCall(), call)
	}
}

func ceilingIs(c int64) func(*Model) string {
	return func(m *Model) string {
		return want(m.policy.Ceiling == c && m.sess.replay.Policy.Ceiling == c, "ceiling %d (replayed %d), want %d", m.policy.Ceiling, m.sess.replay.Policy.Ceiling, c)
	}
}

// hostile is a Claude Code session whose tool name, input, text and result
// try to drive the terminal: clipboard and title writes, screen clears, C1.
func hostile() []byte {
	evil := "ok \x1b]52;c;cm0gLXJmIH4=\x07 \x1b]0;pwned\x07 \x1b[2J\x1b[31m \u009b31m \u202eevil\x1b\\"
	lines := []map[string]any{
		{"type": "user", "uuid": "u1", "sessionId": "s", "message": map[string]any{"role": "user", "content": "go " + evil}},
		{"type": "assistant", "uuid": "a1", "sessionId": "s", "requestId": "r1", "message": map[string]any{"id": "m1", "model": "claude-sonnet-4-5" + evil,
			"content":     []any{map[string]any{"type": "text", "text": evil}, map[string]any{"type": "tool_use", "id": "t1", "name": "Bash" + evil, "input": map[string]any{"command": evil}}},
			"stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0, "output_tokens": 5}}},
		{"type": "user", "uuid": "u2", "sessionId": "s", "message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": "t1", "content": strings.Repeat(evil+"\n", 3000)}}}},
		{"type": "assistant", "uuid": "a2", "sessionId": "s", "requestId": "r2", "message": map[string]any{"id": "m2", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": "done"}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 100, "output_tokens": 5}}},
	}
	return jsonLines(lines)
}

// TestNoRawEscapes checks that nothing a transcript says reaches the
// terminal as a control sequence: only the inspector's own colours do.
func TestNoRawEscapes(t *testing.T) {
	m := newModel(t, hostile(), "harness-rs-0.0.50", 120, 40, "dark")
	screens := map[string]string{"main": screen(m)}
	press(t, m, "tab", "j", "j")
	screens["detail scrolled"] = screen(m)
	press(t, m, "esc", "enter")
	screens["spill viewer"] = screen(m)
	press(t, m, "q", "W")
	screens["warnings"] = screen(m)
	for name, out := range screens {
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\u009b", "\u202e", "\x1b\\"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: raw %q reached the screen", name, bad)
			}
		}
		// The only escape sequences left are SGR colours: ESC [ … m.
		rest := out
		for {
			i := strings.Index(rest, "\x1b")
			if i < 0 {
				break
			}
			j := i + 1
			if j >= len(rest) || rest[j] != '[' {
				t.Errorf("%s: escape sequence %q", name, rest[i:min(len(rest), i+12)])
				break
			}
			for j++; j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == ';' || rest[j] == ':'); j++ {
			}
			if j >= len(rest) || rest[j] != 'm' {
				t.Errorf("%s: escape sequence %q", name, rest[i:min(len(rest), j+1)])
				break
			}
			rest = rest[j+1:]
		}
	}
	if !strings.Contains(screens["main"], `\x1b]52;c;cm0gLXJmIH4=\x07`) && !strings.Contains(screens["detail scrolled"], `\x1b]52;c;`) {
		t.Error("the clipboard write should be visible as an escape")
	}
}

// TestSizes resizes through tiny and odd terminals and presses keys: never
// a panic, never more than the terminal.
func TestSizes(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 80, 24, "dark")
	for _, size := range [][2]int{{0, 0}, {1, 1}, {20, 5}, {5, 20}, {40, 8}, {80, 12}, {200, 60}, {33, 7}, {120, 40}} {
		send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, keys := range [][]string{nil, {"j", "]"}, {"?"}, {"esc", "W"}, {"esc", "enter"}, {"q", "G", "tab", "j"}, {"esc", "o", "v"}} {
			press(t, m, keys...)
			checkSize(t, screen(m), size[0], size[1])
		}
		press(t, m, "esc")
	}
}

// TestFollowedUpdates feeds the inspector a session that grows: new calls
// scroll into view only when the cursor is on the last row, and a new
// result over the ceiling raises an alert.
func TestFollowedUpdates(t *testing.T) {
	m, snapshot := followedDemo(t)
	// The lock-file read and its result, and the next call's first line:
	// a followed session opens on its last call.
	send(t, m, toSess(m, followMsg{update: transcript.Update{Session: snapshot(5), Path: "live.jsonl"}}))
	if c := m.sess.currentCall(); c != 1 {
		t.Fatalf("call %d, want 1", c)
	}
	// Three more calls, the grep among them: the cursor was on the last row, so it follows.
	send(t, m, toSess(m, followMsg{update: transcript.Update{Session: snapshot(11), Path: "live.jsonl"}}))
	if c, n := m.sess.currentCall(), len(m.sess.session.Calls); c != n-1 || n < 3 {
		t.Errorf("cursor on call %d of %d, want the last", c, n)
	}
	if !strings.Contains(m.sess.alert, "Grep result over the ceiling") {
		t.Errorf("alert %q", m.sess.alert)
	}
	// Moved up, the cursor stays put when more arrive.
	press(t, m, "g")
	send(t, m, toSess(m, followMsg{update: transcript.Update{Session: snapshot(20), Path: "live.jsonl"}}))
	if c := m.sess.currentCall(); c != 0 {
		t.Errorf("cursor moved to %d while reading earlier calls", c)
	}
	send(t, m, toSess(m, followMsg{update: transcript.Update{Session: snapshot(20), Path: "other.jsonl", Restarted: transcript.RestartSwitched}}))
	if !strings.Contains(m.ctx.notice, "switched to a newer session") || m.sess.alert != "" {
		t.Errorf("notice %q, alert %q: the switch must show, the old alert must go", m.ctx.notice, m.sess.alert)
	}
}

// TestScrollAndFocus holds what a review found at small sizes and after
// tuning: each case sets a size and presses keys, then checks the model.
func TestScrollAndFocus(t *testing.T) {
	data := demoData(t)
	// The demo with 40 record types spillway skips: a long warnings list.
	var noisy strings.Builder
	noisy.Write(data)
	for i := range 40 {
		fmt.Fprintf(&noisy, `{"type":"kind-%02d","uuid":"x%d"}`+"\n", i, i)
	}
	lastLine := func(m *Model) string {
		lines := strings.Split(ansi.Strip(screen(m)), "\n")
		return strings.TrimSpace(lines[len(lines)-1])
	}
	tests := []struct {
		name   string
		data   []byte
		preset string
		w, h   int
		keys   []string
		check  func(m *Model) string
	}{
		{"the chart has a point at a tuned ceiling", data, "claude-code", 120, 40, []string{"-", "-"}, func(m *Model) string {
			return want(m.policy.Ceiling == 12_500 && strings.Contains(ansi.Strip(m.sess.chartLine()), "▸12.2K"), "ceiling %d, chart %q", m.policy.Ceiling, ansi.Strip(m.sess.chartLine()))
		}},
		{"tab with no room for the detail pane keeps the table's keys", data, "harness-rs-0.0.40", 60, 15, []string{"tab", "j", "j"}, func(m *Model) string {
			return want(m.sess.focus == focusTable && m.sess.currentCall() == 2 && strings.Contains(m.ctx.notice, "no room"), "focus %v, call %d, notice %q", m.sess.focus, m.sess.currentCall(), m.ctx.notice)
		}},
		{"G in the detail pane scrolls it to its last page", data, "harness-rs-0.0.40", 120, 40, []string{"tab", "G"}, func(m *Model) string {
			m.View()
			return want(m.sess.focus == focusDetail && m.sess.currentCall() == 0 && m.sess.detail.offset > 0 && m.sess.detail.offset == len(m.sess.detail.lines)-(m.sess.detail.height-1),
				"focus %v, call %d, offset %d of %d lines in %d", m.sess.focus, m.sess.currentCall(), m.sess.detail.offset, len(m.sess.detail.lines), m.sess.detail.height)
		}},
		{"the help scrolls to its end on a short terminal", data, "harness-rs-0.0.40", 60, 15, []string{"?", "pgdown", "pgdown", "pgdown"}, func(m *Model) string {
			// The caveat wraps, whole, to the width: its last words end the help.
			return want(strings.HasSuffix(lastLine(m), "the same output."), "last line %q", lastLine(m))
		}},
		{"a long file name is shortened, not left out, at 80 columns", data, "harness-rs-0.0.40", 80, 24, []string{"o"}, func(m *Model) string {
			m.sess.src.Name = strings.Repeat("a-long-name-", 8) + ".jsonl"
			head := strings.SplitN(ansi.Strip(m.View().Content), "\n", 2)[0]
			return want(head == "spillway · a-long-name-a-long-name-a-long-… · sorted by cost, highest first", "header %q", head)
		}},
		{"G and g take the help to its end and back", data, "harness-rs-0.0.40", 60, 15, []string{"?", "G"}, func(m *Model) string {
			end := strings.HasSuffix(lastLine(m), "the same output.")
			press(t, m, "g")
			return want(end && m.overlayScroll == 0 && m.overlay == helpOverlay, "at its end %v, then offset %d", end, m.overlayScroll)
		}},
		{"+ from no ceiling goes to the preset's own", data, "agentscope", 120, 40, []string{"e", "ctrl+u", "0", "enter", "+"}, func(m *Model) string {
			return want(m.policy.Ceiling == 80_000 && m.undo[len(m.undo)-1].Ceiling == 0 && m.ctx.notice == "ceiling 80,000 UTF-16 units",
				"ceiling %d after %d, notice %q; want agentscope's 80,000 after none", m.policy.Ceiling, m.undo[len(m.undo)-1].Ceiling, m.ctx.notice)
		}},
		{"a prompt opens empty, the previous value in its place, its keys shown", data, "harness-rs-0.0.40", 120, 40, []string{"/", "G", "r", "e", "p", "enter", "/"}, func(m *Model) string {
			return want(m.input.Value() == "" && m.input.Placeholder == "Grep" && strings.Contains(lastLine(m), "/Grep") && strings.HasSuffix(lastLine(m), "enter done · esc cancel · ctrl+u clear"),
				"value %q, placeholder %q, line %q", m.input.Value(), m.input.Placeholder, lastLine(m))
		}},
		{"enter alone in the search prompt searches again", data, "harness-rs-0.0.40", 120, 40, []string{"/", "G", "r", "e", "p", "enter", "g", "/", "enter"}, func(m *Model) string {
			return want(m.sess.query == "Grep" && len(m.sess.matches) > 0 && m.sess.currentCall() == m.sess.matches[0], "query %q, matches %v, call %d", m.sess.query, m.sess.matches, m.sess.currentCall())
		}},
		{"the ceiling prompt shows the ceiling, and enter alone keeps it", data, "harness-rs-0.0.40", 120, 40, []string{"e"}, func(m *Model) string {
			shown := m.input.Placeholder
			press(t, m, "enter")
			return want(shown == "24,576 JSON bytes (24KiB, 80000, 50kB)" && len(m.undo) == 0, "placeholder %q, undo %d", shown, len(m.undo))
		}},
		{"p says a tuned ceiling is not kept", data, "harness-rs-0.0.40", 120, 40, []string{"+", "p"}, func(m *Model) string {
			return want(m.ctx.notice == "preset harness-rs-0.0.50: ceiling 24,576 JSON bytes; nothing of the tuned harness-rs-0.0.40 (ceiling 49,152 JSON bytes) is kept, u brings it back", "notice %q", m.ctx.notice)
		}},
		{"a ceiling of 0 is no ceiling", data, "agentscope", 120, 40, []string{"e", "ctrl+u", "0", "enter"}, func(m *Model) string {
			return want(m.policy.Ceiling == 0 && m.ctx.notice == "no ceiling", "ceiling %d, notice %q", m.policy.Ceiling, m.ctx.notice)
		}},
		{"the warnings' selection stops at the last and moves back at once", []byte(noisy.String()), "harness-rs-0.0.40", 100, 12,
			append(append([]string{"W"}, strings.Split(strings.Repeat("j", 60), "")...), "k"), func(m *Model) string {
				n := len(m.warningEntries())
				return want(lastLine(m) == "skipped 1 kind-39 record(s)" && m.warningCursor == n-2 && m.warningEntries()[n-2].text == "skipped 1 kind-38 record(s)",
					"last line %q, warning %d of %d selected", lastLine(m), m.warningCursor, n)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, tt.data, tt.preset, tt.w, tt.h, "dark")
			for _, k := range tt.keys {
				press(t, m, k)
				screen(m) // a frame after each key, as the program draws
			}
			if msg := tt.check(m); msg != "" {
				t.Error(msg)
			}
			checkSize(t, screen(m), tt.w, tt.h)
		})
	}
}

// jsonLines writes one JSON object a line, as the agents' logs are.
func jsonLines(lines []map[string]any) []byte {
	var b strings.Builder
	for _, l := range lines {
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// TestFollowedStaleAlert follows the demo a line at a time: each new
// suppressed repeat raises an alert that names the result it repeats, and
// says stale exactly when the real result had changed.
func TestFollowedStaleAlert(t *testing.T) {
	all := strings.SplitAfter(string(demoData(t)), "\n")
	pol, _ := policy.Preset("harness-rs-0.0.40")
	m := New(Options{Source: Source{Name: "live.jsonl", Path: "live.jsonl"}, Policy: pol, Prices: pricing.Default(), Counter: counter})
	leaveAtEnd(t, m)
	m.sess.following = true
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	var alerts []string
	for n := 1; n <= len(all); n++ {
		s, err := transcript.Read(strings.NewReader(strings.Join(all[:n], "")), "live.jsonl", transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m.sess.alert = ""
		send(t, m, toSess(m, followMsg{update: transcript.Update{Session: s, Path: "live.jsonl"}}))
		if strings.Contains(m.sess.alert, "suppressed") {
			alerts = append(alerts, m.sess.alert)
		}
	}
	// Results 2 and 10 are reads; the file read at 10 changed before call 12.
	want := []string{
		"repeat of result 2 suppressed at call 3 (Read)",
		"repeat of result 2 suppressed at call 5 (Read)",
		"stale repeat of result 10 suppressed at call 12 (Read): the real result had changed",
	}
	if !slices.Equal(alerts, want) {
		t.Errorf("alerts\n%q\nwant\n%q", alerts, want)
	}
}

// TestNewCallsBelow: calls that arrive while the cursor is off the last
// row are counted in the footer until the cursor reaches the end.
func TestNewCallsBelow(t *testing.T) {
	m, snapshot := followedDemo(t)
	lastLine := func() string {
		lines := strings.Split(ansi.Strip(screen(m)), "\n")
		return lines[len(lines)-1]
	}
	follow := func(n int) {
		send(t, m, toSess(m, followMsg{update: transcript.Update{Session: snapshot(n), Path: "live.jsonl"}}))
		m.sess.alert = "" // an alert would hide the count
	}
	follow(5) // calls 0 and 1
	press(t, m, "g")
	follow(11) // calls 0 to 3: two below
	if got, want := lastLine(), "2 new calls below · G to go there"; !strings.HasPrefix(got, want) {
		t.Errorf("footer %q, want %q", got, want)
	}
	follow(14) // call 4
	if got, want := lastLine(), "3 new calls below · G to go there"; !strings.HasPrefix(got, want) {
		t.Errorf("footer %q, want %q", got, want)
	}
	press(t, m, "G")
	if got := lastLine(); strings.Contains(got, "new call") {
		t.Errorf("footer %q after G: the count must go", got)
	}
	follow(17) // at the end, new calls scroll into view: nothing to count
	if got := lastLine(); strings.Contains(got, "new call") {
		t.Errorf("footer %q at the end", got)
	}
	press(t, m, "k")
	follow(20) // call 6
	if got, want := lastLine(), "1 new call below · G to go there"; !strings.HasPrefix(got, want) {
		t.Errorf("footer %q, want %q", got, want)
	}
	// Sorted by cost, new calls are among the rows: G went to the cheapest.
	press(t, m, "o", "g")
	m.ctx.notice = "" // what o says of the order
	follow(23)        // call 7
	if got, want := lastLine(), "2 new calls, sorted in · o for call order"; !strings.HasPrefix(got, want) {
		t.Errorf("sorted, footer %q, want %q", got, want)
	}
}

// TestStartNotice: the notice the inspector opens with (why the demo is
// shown) is in the footer, escaped, until the first key.
func TestStartNotice(t *testing.T) {
	pol, _ := policy.Preset("harness-rs-0.0.40")
	m := New(Options{
		Source: Source{Name: "demo", Data: demoData(t)}, Policy: pol, Prices: pricing.Default(), Counter: counter,
		Notice: "no sessions found in ~/.claude/projects/\x1b[2J; showing the built-in demo",
	})
	leaveAtEnd(t, m)
	drive(t, m, m.Init())
	send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	out := screen(m)
	checkSize(t, out, 100, 30)
	golden.RequireEqual(t, []byte(out))
	lines := strings.Split(ansi.Strip(out), "\n")
	if got, want := lines[len(lines)-1], `no sessions found in ~/.claude/projects/\x1b[2J; showing the built-in demo`; got != want {
		t.Errorf("footer %q, want %q", got, want)
	}
	press(t, m, "j")
	if strings.Contains(screen(m), "no sessions found") {
		t.Error("the notice should go with the first key")
	}
}

// followedDemo opens an inspector that follows live.jsonl under
// harness-rs-0.0.50, at 120×40, and returns it with snapshot, the demo
// session as read from its first n lines, to feed it as the file grows.
func followedDemo(t *testing.T) (m *Model, snapshot func(n int) *transcript.Session) {
	t.Helper()
	all := strings.SplitAfter(string(demoData(t)), "\n")
	snapshot = func(n int) *transcript.Session {
		s, err := transcript.Read(strings.NewReader(strings.Join(all[:n], "")), "live.jsonl", transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	pol, _ := policy.Preset("harness-rs-0.0.50")
	m = New(Options{Source: Source{Name: "live.jsonl", Path: "live.jsonl"}, Policy: pol, Prices: pricing.Default(), Counter: counter})
	leaveAtEnd(t, m)
	m.sess.following = true
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	return m, snapshot
}

// TestReadmeScreen: README's screen of the demo is the inspector's as it
// draws it, at 100 columns and as many rows as README shows, so that it
// never drifts from the program.
func TestReadmeScreen(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const intro = "demo, under the `harness-rs-0.0.40` preset:\n\n```\n"
	i := strings.Index(string(readme), intro)
	if i < 0 {
		t.Fatal("README has no screen of the demo")
	}
	block := string(readme[i+len(intro):])
	block = block[:strings.Index(block, "\n```")]
	pol, err := policy.Preset("harness-rs-0.0.40")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Source: Source{Name: "demo", Data: demoData(t)}, Policy: pol, Prices: pricing.Default(), Counter: counter, Theme: "mono"})
	leaveAtEnd(t, m)
	drive(t, m, m.Init())
	send(t, m, tea.WindowSizeMsg{Width: 100, Height: strings.Count(block, "\n") + 1})
	rows := strings.Split(ansi.Strip(screen(m)), "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	if got := strings.Join(rows, "\n"); got != block {
		t.Errorf("README's screen is not the program's; the program draws:\n%s", got)
	}
}

// bindingsOf is the list's bindings.
func bindingsOf(l ListKeyMap) []key.Binding {
	return []key.Binding{l.Open, l.Back, l.Filter, l.Sort, l.Subagents}
}

// TestWheelOverlays: the wheel scrolls the help and moves in the warnings
// as j does; it did nothing while they were open.
func TestWheelOverlays(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 100, 6, "dark")
	press(t, m, "?")
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.overlayScroll != 3 {
		t.Errorf("help scrolled to %d by a wheel, want 3", m.overlayScroll)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if m.overlayScroll != 0 {
		t.Errorf("help scrolled to %d, back up, want 0", m.overlayScroll)
	}
}

// TestPromptFollowsResize: the prompt's text is scrolled to the new width
// at once: narrower, its end and the cursor stay in view; wider again,
// all of it shows (it kept the old window until the next key).
func TestPromptFollowsResize(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "/")
	text := "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ" // 46 characters
	for _, r := range text {
		press(t, m, string(r))
	}
	prompt := func() string {
		for _, l := range strings.Split(ansi.Strip(screen(m)), "\n") {
			if strings.HasPrefix(l, "/") {
				return l
			}
		}
		return ""
	}
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 40})
	if v := prompt(); !strings.Contains(v, "HIJ") {
		t.Errorf("at 30 columns %q hides the text's end", v)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if v := prompt(); !strings.Contains(v, text) {
		t.Errorf("at 120 columns %q, want all of %q", v, text)
	}
}

// TestExpandHome: a path typed at the write prompt reads ~ as the shell
// does; ~user and a ~ inside a name are left alone.
func TestExpandHome(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	for in, want := range map[string]string{"~/p.json": "/home/u/p.json", "~": "/home/u", "~bob/p.json": "~bob/p.json", "a~/p": "a~/p", "p.json": "p.json"} {
		if got := expandHome(in); got != want {
			t.Errorf("expandHome(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCopiedCalls: the footer of a session whose calls copy another log's
// counts them, 16 in the demo, and names the log.
func TestCopiedCalls(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
	for i := range m.sess.session.Calls {
		m.sess.session.Calls[i].CountedIn = "/logs/first.jsonl"
	}
	if n, in := m.sess.copied(); n != 16 || in != "/logs/first.jsonl" {
		t.Errorf("%d copied calls, in %q; want 16 in /logs/first.jsonl", n, in)
	}
}
