package ui

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
)

// TestRowsBeforeTexts: a large file's calls reach the screen from a read
// of its sizes, each priced as the replay of the full read prices it, and
// the figures after the policy wait for the texts.
func TestRowsBeforeTexts(t *testing.T) {
	path := writeDemo(t)
	m := demoModel(t, path, 40)
	rows, err := readRows(m.sess.src, m.opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows.session.Results() {
		if r.Text != "" {
			t.Fatalf("result at line %d: the rows' read kept its text", r.Line)
		}
	}
	send(t, m, toSess(m, rows))
	if m.sess.session != rows.session || m.sess.replay != nil || m.sess.prep != nil {
		t.Fatalf("rows shown: session %p (want %p), replay %v, prepared %v", m.sess.session, rows.session, m.sess.replay != nil, m.sess.prep != nil)
	}
	before := screen(m)
	if !strings.Contains(before, "→…") || !strings.Contains(before, "reading texts") {
		t.Errorf("rows before the texts show no pending figures or progress:\n%s", before)
	}

	// The texts in, the rows keep their recorded prices until the replay.
	full, err := app.Options{}.Load(app.Source{Name: path, Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, count := m.Update(toSess(m, loadedMsg{src: path, session: full})) // its counting not run yet
	if counting := screen(m); !strings.Contains(counting, "→…") || strings.Contains(counting, "?→") {
		t.Errorf("rows lost their recorded prices before the replay:\n%s", counting)
	}

	drive(t, m, count)
	if m.sess.replay == nil || m.sess.recorded != nil || m.sess.table.recorded != nil {
		t.Fatalf("after the full read: replay %v, recorded still held %v", m.sess.replay != nil, m.sess.recorded != nil)
	}
	if got, want := len(rows.session.Calls), len(m.sess.session.Calls); got != want {
		t.Fatalf("rows: %d calls, full read %d", got, want)
	}
	priced := 0
	for i, c := range m.sess.replay.Calls {
		got, want := rows.recorded.Calls[i].Cost, c.Cost
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("call %d: recorded cost from the sizes %v, from the full read %v", i, costOf(got), costOf(want))
		}
		if want != nil {
			priced++
		}
	}
	if priced == 0 {
		t.Fatal("no call of the demo is priced")
	}
	if d := cmp.Diff(costOf(m.sess.replay.Totals.Cost), costOf(rows.recorded.Totals.Cost)); d != "" {
		t.Errorf("total cost (-full +sizes):\n%s", d)
	}
	if after := screen(m); strings.Contains(after, "→…") {
		t.Errorf("figures still pending after the replay:\n%s", after)
	}
}

// TestOnDemandReadOnce: a file whose results' texts are read again when
// needed is read once, not first for its sizes: the one read brings the
// calls priced as recorded, which the rows show until the replay, each
// as the replay then prices it.
func TestOnDemandReadOnce(t *testing.T) {
	defer func(rows, onDemand int64) { rowsFirstBytes, textsOnDemandBytes = rows, onDemand }(rowsFirstBytes, textsOnDemandBytes)
	rowsFirstBytes, textsOnDemandBytes = 0, 0
	m := demoModel(t, writeDemo(t), 40)
	msg := firstLoadMsg(m)
	loaded, ok := msg.(loadedMsg)
	if !ok || loaded.texts == nil || loaded.recorded == nil {
		t.Fatalf("the first message is %T (texts on demand %v, priced %v), not the one read", msg, ok && loaded.texts != nil, ok && loaded.recorded != nil)
	}
	_, count := m.Update(toSess(m, loaded)) // its counting not run yet
	if counting := screen(m); !strings.Contains(counting, "→…") || strings.Contains(counting, "?→") {
		t.Errorf("rows before the replay are not priced as recorded:\n%s", counting)
	}
	drive(t, m, count)
	if m.sess.replay == nil || m.sess.table.recorded != nil {
		t.Fatalf("after the replay: replay %v, recorded still held %v", m.sess.replay != nil, m.sess.table.recorded != nil)
	}
	for i, c := range m.sess.replay.Calls {
		got, want := loaded.recorded.Calls[i].Cost, c.Cost
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("call %d: recorded cost before the replay %v, the replay's %v", i, costOf(got), costOf(want))
		}
	}
}

func costOf(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// TestRowsFirstLoad: read twice at once, the session ends as read once,
// whichever read comes in first.
func TestRowsFirstLoad(t *testing.T) {
	path := writeDemo(t)
	open := func(rowsFirst int64) *Model {
		defer func(v int64) { rowsFirstBytes = v }(rowsFirstBytes)
		rowsFirstBytes = rowsFirst
		return openDemo(t, path, 40)
	}
	once, twice := open(1<<40), open(0)
	if twice.sess.replay == nil || twice.sess.recorded != nil {
		t.Fatalf("read twice: replay %v, recorded still held %v", twice.sess.replay != nil, twice.sess.recorded != nil)
	}
	if d := cmp.Diff(screen(once), screen(twice)); d != "" {
		t.Errorf("screen read once (-) and twice (+):\n%s", d)
	}
}

// TestTextsOnDemandScreen: a session whose results' texts are read again
// from its file when needed draws as the one read in full, call by call,
// the detail pane showing each result's text once read.
func TestTextsOnDemandScreen(t *testing.T) {
	path := writeDemo(t)
	open := func(onDemand int64) *Model {
		defer func(v int64) { textsOnDemandBytes = v }(textsOnDemandBytes)
		textsOnDemandBytes = onDemand
		return openDemo(t, path, 60)
	}
	held, asked := open(1<<40), open(0)
	if held.sess.texts != nil || asked.sess.texts == nil || !asked.sess.prep.TextsOnDemand() {
		t.Fatalf("texts read on demand: held %v, asked %v", held.sess.texts != nil, asked.sess.texts != nil)
	}
	results := 0
	for call := range held.sess.session.Calls {
		if d := cmp.Diff(screen(held), screen(asked)); d != "" {
			t.Fatalf("call %d: screen (-held +on demand):\n%s", call, d)
		}
		results += len(held.sess.session.Calls[call].Results)
		press(t, held, "down")
		press(t, asked, "down")
	}
	if results == 0 || asked.sess.err != nil {
		t.Fatalf("%d results shown; error %v", results, asked.sess.err)
	}
}

// firstLoadMsg runs m's session's load until its first message past
// its progress.
func firstLoadMsg(m *Model) tea.Msg {
	msg := loadCmd(m.sess.run, m.sess.src, m.opt)()
	for {
		p, ok := msg.(progressMsg)
		if !ok {
			return msg
		}
		msg = p.next()
	}
}

// writeDemo writes the demo session to a file of its own.
func writeDemo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "demo.jsonl")
	if err := os.WriteFile(path, demoData(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// openDemo opens the session at path under the default policy, height
// rows tall, and runs it until nothing is left to do.
func openDemo(t *testing.T, path string, height int) *Model {
	t.Helper()
	m := demoModel(t, path, height)
	leaveAtEnd(t, m)
	drive(t, m, m.Init())
	return m
}

// demoModel is the inspector of the session at path under the default
// policy, 160 columns by height rows, not started.
func demoModel(t *testing.T, path string, height int) *Model {
	t.Helper()
	pol, err := policy.Preset(policy.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Source: Source{Name: "demo.jsonl", Path: path}, Policy: pol, Prices: pricing.Default(),
		Counter: counter, Theme: "dark"})
	leaveAtEnd(t, m)
	send(t, m, tea.WindowSizeMsg{Width: 160, Height: height})
	return m
}

// TestFirstFrameBeforeAnyCount: a large log's first frame shows the calls
// of its first part with their recorded costs before the rest of it is
// read and before any token is counted.
func TestFirstFrameBeforeAnyCount(t *testing.T) {
	defer func(first, head int64) { headFirstBytes, headBytes = first, head }(headFirstBytes, headBytes)
	headFirstBytes, headBytes = 1, 60<<10 // the demo's first 60 KiB
	path := filepath.Join(t.TempDir(), "demo.jsonl")
	if err := os.WriteFile(path, demoData(t), 0o644); err != nil {
		t.Fatal(err)
	}
	var counted atomic.Int32
	pol, _ := policy.Preset(policy.DefaultPreset)
	m := New(Options{Source: Source{Name: "demo.jsonl", Path: path}, Policy: pol, Prices: pricing.Default(),
		Counter: func() (replay.TokenCounter, error) { counted.Add(1); return counter() }, Theme: "dark"})
	leaveAtEnd(t, m)
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	msg := firstLoadMsg(m)
	rows, ok := msg.(rowsMsg)
	if !ok || !rows.partial {
		t.Fatalf("the first message is %T, not the first part's rows", msg)
	}
	send(t, m, toSess(m, rowsMsg{src: rows.src, session: rows.session, recorded: rows.recorded, partial: true}))
	out := ansi.Strip(screen(m))
	if n := len(rows.session.Calls); n == 0 || n >= 16 {
		t.Fatalf("%d calls in the first 60 KiB of 16", n)
	}
	if !strings.Contains(out, "so far "+plural(len(rows.session.Calls), "call", "calls")) || !strings.Contains(out, "$0.0547→…") {
		t.Errorf("the first frame shows no calls with their recorded costs:\n%s", out)
	}
	if counted.Load() != 0 {
		t.Errorf("a token counter was made before the first frame")
	}
}
