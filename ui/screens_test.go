package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sessions"
	"github.com/spillway-dev/spillway/transcript"
)

// pump runs the commands of queue as drive does, until stop says so (or
// nothing is left), and returns the commands not run yet.
func pump(t testing.TB, m *Model, queue []tea.Cmd, stop func() bool) []tea.Cmd {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for len(queue) > 0 && !stop() {
		if time.Now().After(deadline) {
			t.Fatal("pump: no end in a minute")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(driveWait):
			continue
		}
		queue = append(queue, take(m, msg)...)
	}
	return queue
}

// update delivers msg and returns its command, not run.
func update(m *Model, msg tea.Msg) tea.Cmd {
	_, cmd := m.Update(msg)
	return cmd
}

// gatedCounter is a token counter whose calls block, in turn, until
// their gate is opened, and which then fail or count as counter does.
type gatedCounter struct {
	mu     sync.Mutex
	calls  int
	gates  map[int]chan struct{}
	fail   map[int]error
	called chan int
}

func newGatedCounter() *gatedCounter {
	return &gatedCounter{gates: map[int]chan struct{}{}, fail: map[int]error{}, called: make(chan int, 16)}
}

// gate makes call n (from 1) wait until the channel returned is closed,
// then fail with err (nil: count).
func (g *gatedCounter) gate(n int, err error) chan struct{} {
	ch := make(chan struct{})
	g.gates[n], g.fail[n] = ch, err
	return ch
}

func (g *gatedCounter) counter() (replay.TokenCounter, error) {
	g.mu.Lock()
	g.calls++
	n := g.calls
	gate, err := g.gates[n], g.fail[n]
	g.mu.Unlock()
	g.called <- n
	if gate != nil {
		<-gate
	}
	if err != nil {
		return nil, err
	}
	return counter()
}

// noHeld hides the list's sessions held in memory, so that opening one
// reads and prepares it.
type noHeld struct{ sessions.Source }

// TestLeftPrepareReachesNothing: a session left while it is prepared
// leaves nothing on the next one opened, which is prepared and replayed.
func TestLeftPrepareReachesNothing(t *testing.T) {
	dir := fleetFixture(t)
	g := newGatedCounter()
	release := g.gate(1, errors.New("alpha's counter failed"))
	m := newListModel(t, []string{dir}, "harness-rs-0.0.50", 120, 40, longAgo, func(o *Options) {
		o.Counter = g.counter
		o.Sessions = noHeld{indexSessions(t, []string{dir}, appOptions(o), "")}
	})
	// by time, newest first: delta, beta, alpha, gamma
	queue := pump(t, m, []tea.Cmd{update(m, keyMsg("enter"))}, func() bool { return len(g.called) > 0 })
	if len(g.called) == 0 {
		t.Fatal("the first session was never prepared")
	}
	queue = append(queue, update(m, keyMsg("esc")), update(m, keyMsg("j")), update(m, keyMsg("enter")))
	// beta is read before alpha's count ends
	queue = pump(t, m, queue, func() bool { return strings.Contains(ansi.Strip(screen(m)), "gpt-5") })
	close(release)
	pump(t, m, queue, func() bool { return false })
	out := ansi.Strip(screen(m))
	if strings.Contains(out, "alpha's counter failed") {
		t.Errorf("the left session's failure is shown on the next:\n%s", out)
	}
	if !strings.Contains(out, "beta.jsonl") || !strings.Contains(out, "cost $0.0225 → $0.0225") {
		t.Errorf("the session opened next is not replayed:\n%s", out)
	}
}

// TestSpillsStayWithTheirSession: w writes the spill files of the
// session shown, never those planned for one left.
func TestSpillsStayWithTheirSession(t *testing.T) {
	dir := fleetFixture(t)
	spills := t.TempDir()
	g := newGatedCounter()
	release := g.gate(2, nil) // the second session opened waits to be counted
	defer close(release)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.50", 120, 40, longAgo, func(o *Options) {
		o.Counter = g.counter
		o.SpillRoot = spills
		o.Sessions = noHeld{indexSessions(t, []string{dir}, appOptions(o), "")}
	})
	press(t, m, "j", "j", "enter") // alpha: its 40,000-byte result is spilled
	if m.sess.replay == nil || m.sess.replay.Totals.Actions[replay.Spilled] != 1 {
		t.Fatalf("alpha's result is not spilled: %+v", m.sess.replay)
	}
	press(t, m, "esc", "k")
	update(m, keyMsg("enter")) // beta, its count held back
	queue := []tea.Cmd{update(m, keyMsg("w"))}
	for _, r := range filepath.Join(t.TempDir(), "p.json") {
		queue = append(queue, update(m, keyMsg(string(r))))
	}
	queue = append(queue, update(m, keyMsg("enter")))
	pump(t, m, queue, func() bool { return false })
	var written []string
	filepath.WalkDir(spills, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, p)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("w in beta wrote alpha's spill files: %v", written)
	}
}

var emptyEnv = app.Env{}

// appOptions are the list's pipeline options for o, counting as counter.
func appOptions(o *Options) app.Options {
	return app.Options{Prices: o.Prices, Read: o.Read, Counter: counter}
}

// toSess puts msg in the envelope of the session shown, as its commands'
// messages come.
func toSess(m *Model, msg tea.Msg) tea.Msg { return sessionEnvelope{id: m.sess.id, msg: msg} }

// TestLeavingCancelsPrepare: esc while a session is counted cancels its
// count, and what the count still sends reaches neither the list nor the
// session opened next.
func TestLeavingCancelsPrepare(t *testing.T) {
	dir := fleetFixture(t)
	cancelled := make(chan error, 1)
	real := prepareTexts
	var mu sync.Mutex
	first := true
	prepareTexts = func(ctx context.Context, o app.Options, s *transcript.Session, progress replay.Progress, texts replay.TextSource) (*replay.Prepared, error) {
		mu.Lock()
		wait := first
		first = false
		mu.Unlock()
		if wait { // the first session's count runs until it is stopped
			<-ctx.Done()
			cancelled <- ctx.Err()
			return nil, errors.New("delta's count, stopped")
		}
		return real(ctx, o, s, progress, texts)
	}
	t.Cleanup(func() { prepareTexts = real })
	m := newListModel(t, []string{dir}, "harness-rs-0.0.50", 120, 40, longAgo, func(o *Options) {
		o.Sessions = noHeld{indexSessions(t, []string{dir}, appOptions(o), "")}
	})
	queue := pump(t, m, []tea.Cmd{update(m, keyMsg("enter"))}, func() bool {
		return m.sess != nil && strings.Contains(m.sess.progressText(), "counting tokens")
	})
	queue = append(queue, update(m, keyMsg("esc")))
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the count ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("leaving the session did not stop its count")
	}
	queue = append(queue, update(m, keyMsg("j")), update(m, keyMsg("enter")))
	pump(t, m, queue, func() bool { return false })
	out := ansi.Strip(screen(m))
	if strings.Contains(out, "stopped") || m.sess.err != nil {
		t.Errorf("the left session's count reached the next:\n%s", out)
	}
	if !strings.Contains(out, "cost $0.0225 → $0.0225") {
		t.Errorf("the session opened next is not replayed:\n%s", out)
	}
}

// subagentFixture writes TestSessionListSubagents' sessions: main (1,000
// in + 100 out on claude-sonnet-4-5, $0.0045) with a sub-agent (2,000 in
// + 400 out on claude-haiku-4-5, $0.004) that reads a 30,000-byte result,
// and other; it returns the folder.
func subagentFixture(t *testing.T) string {
	dir := t.TempDir()
	writeSession(t, filepath.Join(dir, "main.jsonl"), "/home/u/main", "claude-sonnet-4-5", []fleetCall{{at: "2026-03-05T10:00:00Z", input: 1000, output: 100}})
	writeSession(t, filepath.Join(dir, "main", "subagents", "agent-a1.jsonl"), "/home/u/main", "claude-haiku-4-5", []fleetCall{{at: "2026-03-05T10:01:00Z", input: 2000, output: 400, resultBytes: 30_000}})
	writeSession(t, filepath.Join(dir, "other.jsonl"), "/home/u/other", "gpt-5", []fleetCall{{at: "2026-03-05T09:00:00Z", input: 10_000, output: 1000}})
	written := time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	for _, p := range []string{"main.jsonl", "main/subagents/agent-a1.jsonl", "other.jsonl"} {
		os.Chtimes(filepath.Join(dir, p), written, written)
	}
	return dir
}

// TestSessionViewSubagents: a session opened, from the list or alone,
// shows its sub-agent's calls as rows of their own, under a line that
// names its log, and counts them once: 2 calls and $0.0085, as its row.
// The sub-agent's call is selected and its result opened like any other.
func TestSessionViewSubagents(t *testing.T) {
	dir := subagentFixture(t)
	check := func(t *testing.T, m *Model) {
		t.Helper()
		out := ansi.Strip(screen(m))
		for _, want := range []string{"2 calls · tokens 3,000 → 3,000 · cost $0.0085 → $0.0085", "── sub-agent agent-a1.jsonl: its 1 call, counted in the session"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q:\n%s", want, out)
			}
		}
		press(t, m, "G")
		if got := m.sess.currentCall(); got != 1 {
			t.Fatalf("G selects call %d, want 1", got)
		}
		out = ansi.Strip(screen(m))
		if !strings.Contains(out, "call 1 · sub-agent agent-a1.jsonl, its call 0 · 2026-03-05") {
			t.Errorf("the detail pane does not name the sub-agent's call:\n%s", out)
		}
		press(t, m, "enter")
		if m.sess.overlay != spillOverlay || !strings.Contains(ansi.Strip(screen(m)), "word word") {
			t.Errorf("the sub-agent's result is not opened:\n%s", ansi.Strip(screen(m)))
		}
	}
	t.Run("from the list", func(t *testing.T) {
		m := newListModel(t, []string{dir}, "none", 120, 40, time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC))
		for filepath.Base(m.fleet.list.current()) != "main.jsonl" {
			press(t, m, "j")
		}
		press(t, m, "enter")
		check(t, m)
	})
	t.Run("followed from the list", func(t *testing.T) {
		// Ten seconds after the logs were written: live, and followed.
		m := newListModel(t, []string{dir}, "none", 120, 40, time.Date(2026, 3, 5, 12, 0, 10, 0, time.UTC))
		for filepath.Base(m.fleet.list.current()) != "main.jsonl" {
			press(t, m, "j")
		}
		wait := driveWait
		driveWait = time.Second // the follower answers only when the file grows
		t.Cleanup(func() { driveWait = wait })
		press(t, m, "enter")
		if !m.sess.following {
			t.Fatal("the live session is not followed")
		}
		check(t, m)
	})
	t.Run("alone", func(t *testing.T) {
		path := filepath.Join(dir, "main.jsonl")
		pol, _ := policy.Preset("none")
		m := New(Options{Source: Source{Name: path, Path: path}, Policy: pol, Prices: pricing.Default(), Counter: counter, Theme: "dark"})
		leaveAtEnd(t, m)
		drive(t, m, m.Init())
		send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		check(t, m)
	})
}

// TestFollowedSubagentsLater: a followed session counts the sub-agents
// whose logs appear, or grow, after it is first shown: at the next look
// (a sub-agent writes while its parent waits) or the parent's next lines.
func TestFollowedSubagentsLater(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.jsonl")
	writeSession(t, path, "/home/u/main", "claude-sonnet-4-5", []fleetCall{{at: "2026-03-05T10:00:00Z", input: 1000, output: 100}})
	pol, _ := policy.Preset("none")
	m := New(Options{Source: Source{Name: path, Path: path}, Policy: pol, Prices: pricing.Default(), Counter: counter, Theme: "dark"})
	leaveAtEnd(t, m)
	m.sess.following = true
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	update := func() {
		s, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		send(t, m, toSess(m, followMsg{id: m.sess.followID, update: transcript.Update{Path: path, Session: s}}))
	}
	footer := func(want string) {
		t.Helper()
		if out := ansi.Strip(screen(m)); !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	update()
	footer("1 call · tokens 1,000")
	sub := filepath.Join(dir, "main", "subagents", "agent-a1.jsonl")
	calls := []fleetCall{{at: "2026-03-05T10:01:00Z", input: 2000, output: 400}}
	writeSession(t, sub, "/home/u/main", "claude-haiku-4-5", calls)
	send(t, m, toSess(m, subsTickMsg{path: path}))
	footer("2 calls · tokens 3,000")
	calls = append(calls, fleetCall{at: "2026-03-05T10:02:00Z", input: 3000, output: 400})
	writeSession(t, sub, "/home/u/main", "claude-haiku-4-5", calls)
	update()
	footer("3 calls · tokens 6,000")
}

// TestSubagentLooksOneTimer: however often the parent of a followed
// session changes, one timer at most waits to look at its sub-agents, and
// a look is not asked for sooner than subsPace times the last one took.
func TestSubagentLooksOneTimer(t *testing.T) {
	defer func(e time.Duration) { subsEvery = e }(subsEvery)
	subsEvery = time.Hour
	m := newModel(t, demoData(t), "harness-rs-0.0.50", 100, 30, "dark")
	s := m.sess
	s.following, s.subsOf = true, "demo.jsonl"
	if s.subsLater() == nil || s.subsLater() != nil {
		t.Fatal("want one timer, then none while it waits")
	}
	s.update(subsTickMsg{path: "demo.jsonl"}) // the look begins: reading
	if s.subsTicking || !s.subsReading {
		t.Errorf("after the tick: ticking %v, reading %v", s.subsTicking, s.subsReading)
	}
	for range 50 { // the parent grows while the look is on its way
		if s.readSubs() != nil {
			t.Fatal("a second look while one is on its way")
		}
	}
	// Back, having read for a second: the next waits ten.
	s.update(subsReadMsg{path: "demo.jsonl", same: true, took: time.Second})
	if !s.subsReading && !s.subsTicking {
		t.Error("the change that came meanwhile is not looked at")
	}
}
