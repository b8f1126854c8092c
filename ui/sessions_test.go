package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sessions"
	"github.com/spillway-dev/spillway/transcript"
)

// fleetCall is one assistant line of a generated session: its time, the
// usage it records, and a tool result of resultBytes after it.
type fleetCall struct {
	at                       string
	input, cacheRead, output int64
	resultBytes              int
}

// writeSession writes a session in the generic format, the folder the
// agent ran in recorded as cwd on its header.
func writeSession(t testing.TB, path, cwd, model string, calls []fleetCall) {
	t.Helper()
	var b strings.Builder
	line := func(v map[string]any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	line(map[string]any{"spillway": "transcript/v1", "session_id": filepath.Base(path), "cwd": cwd})
	line(map[string]any{"role": "user", "content": "go"})
	for i, c := range calls {
		msg := map[string]any{"role": "assistant", "model": model, "timestamp": c.at, "content": "ok",
			"usage": map[string]any{"input_tokens": c.input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": c.cacheRead, "output_tokens": c.output}}
		if c.resultBytes > 0 {
			id := fmt.Sprintf("t%d", i)
			msg["tool_calls"] = []any{map[string]any{"id": id, "name": "read_file", "arguments": map[string]any{"path": fmt.Sprintf("f%d.txt", i)}}}
			line(msg)
			line(map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat("word ", c.resultBytes/5)})
			continue
		}
		line(msg)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fleetFixture writes four sessions whose recorded costs are, by hand:
//
//	alpha (claude-sonnet-4-5, $3 and $15 per million): 1,000 in + 100 out
//	  = $0.0045, then 20,000 in + 200 out = $0.063: $0.0675, with a 40,000-byte result
//	beta (gpt-5, $1.25 and $10): 10,000 in + 1,000 out = $0.0225
//	gamma (claude-haiku-4-5, $1 and $5): 3 × (2,000 in + 400 out) = 3 × $0.004 = $0.012
//	delta (a model without a price): unknown
//
// so $0.1020 in all over 7 calls, delta without a price.
func fleetFixture(t testing.TB) string {
	dir := t.TempDir()
	writeSession(t, filepath.Join(dir, "alpha.jsonl"), "/home/u/alpha", "claude-sonnet-4-5", []fleetCall{
		{at: "2026-03-01T09:00:00Z", input: 1000, output: 100, resultBytes: 40_000},
		{at: "2026-03-01T09:05:00Z", input: 20_000, output: 200},
	})
	writeSession(t, filepath.Join(dir, "beta.jsonl"), "/home/u/beta", "gpt-5", []fleetCall{
		{at: "2026-03-02T10:00:00Z", input: 10_000, output: 1000},
	})
	writeSession(t, filepath.Join(dir, "gamma.jsonl"), `C:\work\gamma`, "claude-haiku-4-5", []fleetCall{
		{at: "2026-02-28T08:00:00Z", input: 2000, output: 400},
		{at: "2026-02-28T08:01:00Z", input: 2000, output: 400},
		{at: "2026-02-28T08:02:00Z", input: 2000, output: 400},
	})
	writeSession(t, filepath.Join(dir, "delta.jsonl"), "/home/u/delta", "unpriced-model-x", []fleetCall{
		{at: "2026-03-03T11:00:00Z", input: 500, output: 50},
	})
	// Written long ago: nothing is live unless a test makes it so.
	old := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"alpha", "beta", "gamma", "delta"} {
		os.Chtimes(filepath.Join(dir, name+".jsonl"), old, old)
	}
	return dir
}

// newListModel opens the session list over paths at w×h and runs it
// until idle; the clock stands still at now.
func newListModel(t testing.TB, paths []string, preset string, w, h int, now time.Time, opts ...func(*Options)) *Model {
	t.Helper()
	restore, wait := clock, driveWait
	clock = func() time.Time { return now }
	// A replay answers when its sessions are read and counted, which on a
	// busy machine can take longer than drive waits for a terminal query.
	driveWait = time.Minute
	t.Cleanup(func() { clock, driveWait = restore, wait })
	pol, err := policy.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Policy: pol, Prices: pricing.Default(), Counter: counter, Theme: "dark", SessionsName: "fixture"}
	for _, o := range opts {
		o(&opt)
	}
	if opt.Sessions == nil {
		src := indexSessions(t, paths, app.Options{Prices: opt.Prices, Read: opt.Read, Counter: counter}, "")
		src.Budget = listBudget
		src.Now = func() time.Time { return clock() }
		opt.Sessions = src
	}
	m := New(opt)
	leaveAtEnd(t, m)
	send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	drive(t, m, m.Init())
	return m
}

var longAgo = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// shownNames is the list's rows in order, by file name.
func shownNames(m *Model) []string {
	l := &m.fleet.list
	var out []string
	for _, i := range l.shown {
		out = append(out, strings.TrimSuffix(filepath.Base(l.rows[i].Path), ".jsonl"))
	}
	return out
}

func lineWith(t testing.TB, m *Model, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(ansi.Strip(screen(m)), "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no line starts with %q:\n%s", prefix, ansi.Strip(screen(m)))
	return ""
}

// TestSessionListGolden pins the list at 80×24, 120×40 and 200×50, with a
// session's sub-agent shown under it, and following with live sessions
// (go test ./ui -update rewrites them).
func TestSessionListGolden(t *testing.T) {
	dir := fleetFixture(t)
	for _, tt := range []struct {
		name string
		w, h int
		keys []string
		dir  string
	}{
		{"list-120x40", 120, 40, nil, dir},
		{"list-80x24", 80, 24, nil, dir},
		{"list-200x50", 200, 50, nil, dir},
		{"list-by-saved-80x24", 80, 24, []string{"o", "o"}, dir},
		{"list-filtered-120x40", 120, 40, []string{"/", "h", "a", "enter"}, dir},
		{"list-subagent-120x40", 120, 40, []string{"a"}, subagentFixture(t)},
		{"list-subagent-80x24", 80, 24, []string{"a"}, subagentFixture(t)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newListModel(t, []string{tt.dir}, "harness-rs-0.0.40", tt.w, tt.h, longAgo)
			press(t, m, tt.keys...)
			out := screen(m)
			checkSize(t, out, tt.w, tt.h)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestSessionListNumbers pins sort orders, the filter and the footer's
// totals to the fixture's hand-computed costs.
func TestSessionListNumbers(t *testing.T) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	if got, want := strings.Join(shownNames(m), " "), "delta beta alpha gamma"; got != want {
		t.Errorf("by time: %s, want %s", got, want)
	}
	// Every cost is the hand computation to the micro-dollar.
	want := map[string]float64{"alpha": 0.0675, "beta": 0.0225, "gamma": 0.012}
	for _, r := range m.fleet.list.rows {
		name := strings.TrimSuffix(filepath.Base(r.Path), ".jsonl")
		if w, ok := want[name]; ok {
			if r.Cost == nil || math.Abs(*r.Cost-w) > 1e-9 {
				t.Errorf("%s: cost %v, want %g", name, r.Cost, w)
			}
		} else if r.Cost != nil {
			t.Errorf("%s: cost %g, want unknown", name, *r.Cost)
		}
	}
	footer := lineWith(t, m, "4 sessions")
	if !strings.HasPrefix(footer, "4 sessions · 7 calls · cost $0.1020 → ") || !strings.Contains(footer, "1 without a price") {
		t.Errorf("footer: %s", footer)
	}
	// The policy truncates alpha's 40,000-byte result: only alpha saves,
	// and the footer's after is the sum of the rows'.
	alpha := rowOf(t, m, "alpha")
	after, ok := m.fleet.list.after(alpha)
	if !ok || after >= 0.0675 {
		t.Fatalf("alpha after %g (%v), want less than $0.0675", after, ok)
	}
	wantAfter := after + 0.0225 + 0.012
	if !strings.Contains(footer, fmt.Sprintf("cost $0.1020 → $%.4f", wantAfter)) {
		t.Errorf("footer %q, want after $%.4f", footer, wantAfter)
	}
	press(t, m, "o")
	if got, want := strings.Join(shownNames(m), " "), "alpha beta gamma delta"; got != want {
		t.Errorf("by cost: %s, want %s", got, want)
	}
	// The head says the order once its notice is gone.
	send(t, m, noticeExpiredMsg{id: m.ctx.noticeID})
	if head := lineWith(t, m, "spillway"); !strings.HasSuffix(strings.TrimRight(head, " "), "4 sessions · by cost, highest first") {
		t.Errorf("head: %s", head)
	}
	press(t, m, "o")
	if got, want := strings.Join(shownNames(m), " "), "alpha beta gamma delta"; got != want {
		t.Errorf("by saved: %s, want %s (ties by name, unknown last)", got, want)
	}
	// Filtering by model: only beta, and the footer sums it alone.
	press(t, m, "/", "g", "p", "t", "enter")
	if got := strings.Join(shownNames(m), " "); got != "beta" {
		t.Errorf("filter gpt: %s", got)
	}
	if f := lineWith(t, m, "1 session"); !strings.HasPrefix(f, "1 session · 1 call · cost $0.0225 → $0.0225 0.0% · saved $0.0000") {
		t.Errorf("filtered footer: %s", f)
	}
	// By project, from a Windows cwd too; esc clears the filter.
	press(t, m, "/", "ctrl+u", "g", "a", "m", "m", "enter")
	if got := strings.Join(shownNames(m), " "); got != "gamma" {
		t.Errorf("filter gamm: %s", got)
	}
	press(t, m, "esc")
	if len(m.fleet.list.shown) != 4 || m.fleet.list.filter != "" {
		t.Errorf("esc left %v, filter %q", shownNames(m), m.fleet.list.filter)
	}
}

func rowOf(t testing.TB, m *Model, name string) *sessions.Row {
	t.Helper()
	for i := range m.fleet.list.rows {
		if strings.TrimSuffix(filepath.Base(m.fleet.list.rows[i].Path), ".jsonl") == name {
			return &m.fleet.list.rows[i]
		}
	}
	t.Fatalf("no row %s", name)
	return nil
}

// TestSessionListOpen opens a session in the calls view, whose totals are
// the row's, and esc comes back with the cursor where it was.
func TestSessionListOpen(t *testing.T) {
	t.Run("held", func(t *testing.T) { testOpen(t, true) })
	t.Run("read again", func(t *testing.T) {
		bound(t, 0, 0)
		testOpen(t, false)
	})
}

// listBudget, when set, is the budget of the lists newListModel makes.
var listBudget *app.Budget

// bound sets the list's memory bounds for one test.
func bound(t *testing.T, full, withoutTexts int64) {
	listBudget = &app.Budget{Whole: full, Lean: withoutTexts}
	t.Cleanup(func() { listBudget = nil })
}

func testOpen(t *testing.T, held bool) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	press(t, m, "j", "j") // delta beta [alpha]
	if got := filepath.Base(m.fleet.list.current()); got != "alpha.jsonl" {
		t.Fatalf("selected %s", got)
	}
	press(t, m, "enter")
	if !(m.sess != nil) || m.sess.replay == nil {
		t.Fatalf("not open: in session %v, replay %v", (m.sess != nil), m.sess.replay != nil)
	}
	if p := m.fleet.src.(*sessions.Service).Held(m.fleet.list.current()); held && (p == nil || m.sess.prep != p.Prepared) || !held && p != nil {
		t.Errorf("held %v: opened %p, the list holds %p", held, m.sess.prep, p)
	}
	row := rowOf(t, m, "alpha")
	after, _ := m.fleet.list.after(row)
	if c := m.sess.replay.Totals.Cost; c == nil || math.Abs(*c-*row.Cost) > 1e-12 {
		t.Errorf("call view cost %v, row %g", c, *row.Cost)
	}
	if c := m.sess.replay.Totals.CostAfter; c == nil || math.Abs(*c-after) > 1e-12 {
		t.Errorf("call view after %v, row %g", c, after)
	}
	if got := lineWith(t, m, "spillway · alpha.jsonl"); !strings.Contains(got, "claude-sonnet-4-5") {
		t.Errorf("header: %s", got)
	}
	// A policy tuned in the session is the list's too.
	press(t, m, "+")
	press(t, m, "esc")
	if (m.sess != nil) || filepath.Base(m.fleet.list.current()) != "alpha.jsonl" || m.fleet.list.cursor != 2 {
		t.Errorf("back: in session %v, cursor %d on %s", (m.sess != nil), m.fleet.list.cursor, m.fleet.list.current())
	}
	if m.policy.Ceiling != 49_152 {
		t.Errorf("ceiling %d", m.policy.Ceiling)
	}
	if _, ok := m.fleet.list.after(row); !ok || len(m.fleet.pending) != 0 {
		t.Errorf("not replayed under the new ceiling: pending %v", m.fleet.pending)
	}
}

// TestSessionListTuning: a tuning key in the list replays every session,
// and the totals and chart move with it.
func TestSessionListTuning(t *testing.T) {
	t.Run("held", func(t *testing.T) { testTuning(t) })
	// Sessions past both memory bounds (and, past the first, those of a
	// format whose texts are not read again from their lines, as this
	// one's) are read again for each replay, to the same figures.
	t.Run("read again", func(t *testing.T) {
		bound(t, 0, 0)
		testTuning(t)
	})
}

func testTuning(t *testing.T) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	if got := lineWith(t, m, "4 sessions"); !strings.HasPrefix(got, "4 sessions · 7 calls · cost $0.1020 → $0.0930 −8.9% · saved $0.0090 · 1 without a price · −3,012 tokens") {
		t.Errorf("footer: %s", got)
	}
	before := lineWith(t, m, "4 sessions")
	chart := lineWith(t, m, "cost saved")
	gen := m.fleet.gen
	press(t, m, "+", "+") // 96 KiB: alpha's 40,000 bytes are kept
	if m.fleet.gen != gen+2 {
		t.Errorf("generation %d after two keys, want %d", m.fleet.gen, gen+2)
	}
	after := lineWith(t, m, "4 sessions")
	if after == before || !strings.HasPrefix(after, "4 sessions · 7 calls · cost $0.1020 → $0.1020 0.0%") {
		t.Errorf("footer after + +: %s (before %s)", after, before)
	}
	if c := lineWith(t, m, "cost saved"); c == chart || !strings.Contains(c, "▸96K") {
		t.Errorf("chart after + +: %s (before %s)", c, chart)
	}
	press(t, m, "u", "u")
	if got := lineWith(t, m, "4 sessions"); got != before {
		t.Errorf("undone: %s, want %s", got, before)
	}
}

// jobNow is what a job begun now would begin with.
func jobNow(m *Model) jobStart {
	return jobStart{knobs: knobsKey(m.policy), versions: maps.Clone(m.fleet.version)}
}

// sweepCounter is a session source that notes the ceilings of every sweep
// and the sessions of every replay.
type sweepCounter struct {
	sessions.Source
	mu           sync.Mutex
	sweeps       [][]int64
	replayed     [][]string
	hazards      [][]string      // the sessions of each Hazards
	hazardsUnder []policy.Policy // and its policy
	calls        []string        // "replay", "sweep" and "hazards", in the order called
	noneHeld     bool            // it tells of no session held
}

func (c *sweepCounter) Sweep(ctx context.Context, pol policy.Policy, paths []string, ceilings []int64, emit func(sessions.Savings)) error {
	c.mu.Lock()
	c.sweeps = append(c.sweeps, ceilings)
	c.calls = append(c.calls, "sweep")
	c.mu.Unlock()
	return c.Source.Sweep(ctx, pol, paths, ceilings, emit)
}

func (c *sweepCounter) Replay(ctx context.Context, pol policy.Policy, paths []string, emit func(sessions.Savings)) error {
	c.mu.Lock()
	c.replayed = append(c.replayed, paths)
	c.calls = append(c.calls, "replay")
	c.mu.Unlock()
	return c.Source.Replay(ctx, pol, paths, emit)
}

// Held and Remembered are the source's (a Service's).
func (c *sweepCounter) Held(path string) *app.Session {
	if c.noneHeld {
		return nil
	}
	return c.Source.(aheadSource).Held(path)
}

func (c *sweepCounter) Remembered(ctx context.Context, pol policy.Policy, paths []string, ceilings []int64, emit func(sessions.Savings)) []string {
	return c.Source.(aheadSource).Remembered(ctx, pol, paths, ceilings, emit)
}

// Hazards is the source's, noted.
func (c *sweepCounter) Hazards(ctx context.Context, pol policy.Policy, paths []string, emit func(sessions.Savings)) error {
	c.mu.Lock()
	c.hazards = append(c.hazards, paths)
	c.hazardsUnder = append(c.hazardsUnder, pol)
	c.calls = append(c.calls, "hazards")
	c.mu.Unlock()
	return c.Source.(hazardSource).Hazards(ctx, pol, paths, emit)
}

// countedList opens the list of dir under preset through a sweepCounter
// over an index with its cache in cacheDir ("" for none), tuned by opts
// before the list opens.
func countedList(t *testing.T, dir, preset, cacheDir string, opts ...func(*sweepCounter)) (*Model, *sweepCounter) {
	t.Helper()
	var src *sweepCounter
	m := newListModel(t, []string{dir}, preset, 120, 40, longAgo, func(o *Options) {
		src = &sweepCounter{Source: indexSessions(t, []string{dir}, app.Options{Prices: o.Prices, Counter: counter}, cacheDir)}
		for _, opt := range opts {
			opt(src)
		}
		o.Sessions = src
	})
	return m, src
}

// TestSessionListComputedAhead: a list that holds none of its sessions
// (past its memory bounds) computes, with its first replay, its chart, and
// as it reads them again for their hazards, the figures the repeat and
// spill keys lead to: once it is idle, d, s, d and - read no log, ask the
// source for nothing, and show what a list holding its sessions shows.
func TestSessionListComputedAhead(t *testing.T) {
	dir := fleetFixture(t)
	keys := []string{"d", "s", "d", "-"}
	figures := func(m *Model) string { return lineWith(t, m, "4 sessions") + "\n" + lineWith(t, m, "cost saved") }
	held := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	var want []string
	for _, k := range keys {
		press(t, held, k)
		want = append(want, figures(held))
	}
	var reads atomic.Int64
	m, src := countedList(t, dir, "harness-rs-0.0.40", "", func(c *sweepCounter) {
		svc := c.Source.(*sessions.Service)
		svc.Budget = &app.Budget{}
		svc.Options.ReadFile = func(path string, o transcript.Options) (*transcript.Session, error) {
			reads.Add(1)
			return transcript.ReadFile(path, o)
		}
	})
	if reads.Load() == 0 {
		t.Fatal("the list read no log: the count below shows nothing")
	}
	src.mu.Lock()
	src.calls = nil
	src.mu.Unlock()
	reads.Store(0)
	for i, k := range keys {
		press(t, m, k)
		if got := figures(m); got != want[i] {
			t.Errorf("after %s:\n%s\nwant, as held:\n%s", strings.Join(keys[:i+1], " "), got, want[i])
		}
	}
	src.mu.Lock()
	if len(src.calls) > 0 {
		t.Errorf("the keys asked the source for %v", src.calls)
	}
	src.mu.Unlock()
	if n := reads.Load(); n > 0 {
		t.Errorf("the keys read %d logs", n)
	}
	if n := len(m.fleet.list.savings); n != 4 {
		t.Errorf("%d sessions' figures shown", n)
	}
	for _, r := range m.fleet.list.rows {
		if src.Held(r.Path) != nil {
			t.Errorf("%s held", filepath.Base(r.Path))
		}
	}
}

// take returns the sweeps and the replays since the last take.
func (c *sweepCounter) take() ([][]int64, [][]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sweeps, replayed := c.sweeps, c.replayed
	c.sweeps, c.replayed = nil, nil
	return sweeps, replayed
}

// TestSessionListChartKeepsPoints: the chart's points outlive the policy
// they were computed under. A ceiling on the chart (as + and - move) takes
// every session's figures from its point there, with no replay and no
// sweep; one off the chart replays, its own point being its replay's; a
// new spill setting replays and sweeps once; undoing it does neither. Each
// footer and chart drawn from kept points is the one a list opened afresh
// under that policy draws.
func TestSessionListChartKeepsPoints(t *testing.T) {
	dir := fleetFixture(t)
	m, src := countedList(t, dir, "harness-rs-0.0.40", "")
	others := slices.DeleteFunc(replay.ChartCeilings(m.policy, 0), func(c int64) bool { return c == m.policy.Ceiling })
	// The chart's, then d's, s's and both's computed ahead (prefetch).
	sweeps, replays := src.take()
	if len(sweeps) != 4 || len(replays) != 4 {
		t.Fatalf("first: sweeps %v and %d replays, want four of each: the chart's, d's, s's and both's", sweeps, len(replays))
	}
	for _, sw := range sweeps {
		if !slices.Equal(sw, others) {
			t.Fatalf("first: sweeps %v, each to be at %v", sweeps, others)
		}
	}
	fresh := func(tune func(*policy.Policy)) (footer, chart string) {
		t.Helper()
		pol, _ := policy.Preset("harness-rs-0.0.40")
		tune(&pol)
		other := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo, func(o *Options) { o.Policy = pol })
		return lineWith(t, other, "4 sessions"), lineWith(t, other, "cost saved")
	}
	scale := func(f float64) func(*policy.Policy) {
		return func(p *policy.Policy) { p.SetCeiling(int64(float64(p.Ceiling) * f)) }
	}
	steps := []struct {
		keys            string
		replays, sweeps int
		tune            func(*policy.Policy)
	}{
		{"+", 0, 0, scale(2)},
		// Its points computed ahead; then those of the keys next to it:
		// d's, and s's (truncating again, but with a spill's preview).
		{"s", 2, 2, func(p *policy.Policy) { scale(2)(p); _ = p.SetSpill(p.Action != policy.Spill) }},
		{"u", 0, 0, scale(2)},
		{"-", 0, 0, func(*policy.Policy) {}},
		{"- - -", 0, 0, scale(1.0 / 8)},
		// 1,536 bytes, below the chart's least ceiling: its own point is
		// its replay's, and d's, s's and both's there are computed ahead.
		{"-", 4, 0, scale(1.0 / 16)},
		{"+ + + +", 0, 0, func(*policy.Policy) {}},
	}
	for _, st := range steps {
		press(t, m, strings.Fields(st.keys)...)
		if sweeps, replays := src.take(); len(sweeps) != st.sweeps || len(replays) != st.replays {
			t.Errorf("after %s: sweeps at %v and %d replays, want %d and %d", st.keys, sweeps, len(replays), st.sweeps, st.replays)
		}
		footer, chart := fresh(st.tune)
		if got := lineWith(t, m, "4 sessions"); got != footer {
			t.Errorf("after %s: footer\n%s\nopened afresh\n%s", st.keys, got, footer)
		}
		if got := lineWith(t, m, "cost saved"); got != chart {
			t.Errorf("after %s: chart\n%s\nopened afresh\n%s", st.keys, got, chart)
		}
	}
	// A ceiling off the chart (typed) replays for its own point alone: the
	// chart keeps the others, where + and - reach from where it began.
	typed := m.policy.Clone()
	typed.SetCeiling(20000)
	drive(t, m, m.retune(typed))
	if sweeps, replays := src.take(); len(sweeps) != 0 || len(replays) != 4 {
		t.Errorf("at a typed ceiling: sweeps at %v and %d replays, want none and four (its own, d's, s's and both's ahead)", sweeps, len(replays))
	}
	if pts, missing := m.fleet.fleetCurve(); missing != 0 || len(pts) != len(others)+2 {
		t.Errorf("at a typed ceiling: %d points, %d sessions missing, want %d and none", len(pts), missing, len(others)+2)
	}
}

// TestSessionListChartPartly: on a move along the chart, a session without
// a point at the new ceiling (its log changed, its chart not swept again
// yet) is replayed alone, then swept; the others take their figures from
// their points; the footer and chart are a list's opened afresh.
func TestSessionListChartPartly(t *testing.T) {
	dir := fleetFixture(t)
	m, src := countedList(t, dir, "harness-rs-0.0.40", "")
	src.take()
	lone := m.fleet.list.rows[0].Path
	delete(m.fleet.points, lone)
	press(t, m, "+")
	// Its own, and d's, s's and both's ahead, for which it lost its
	// points too.
	sweeps, replays := src.take()
	if len(replays) != 4 || len(sweeps) != 4 {
		t.Errorf("replays %v and sweeps %v, want four of %s alone and four sweeps", replays, sweeps, lone)
	}
	for _, r := range replays {
		if !slices.Equal(r, []string{lone}) {
			t.Errorf("replays %v, want %s alone", replays, lone)
		}
	}
	pol, _ := policy.Preset("harness-rs-0.0.40")
	pol.SetCeiling(2 * pol.Ceiling)
	fresh := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo, func(o *Options) { o.Policy = pol })
	for _, line := range []string{"4 sessions", "cost saved"} {
		if got, want := lineWith(t, m, line), lineWith(t, fresh, line); got != want {
			t.Errorf("%s\nopened afresh\n%s", got, want)
		}
	}
}

// TestSessionListKeepsReading: the replay of every session is kept once
// done, for what it may still do (read the sessions shown from the index's
// cache); a move along the chart, or to a policy computed ahead (d), keeps
// it, a ceiling off the chart stops it; a replay of some sessions, or a
// sweep, is let go once done.
func TestSessionListKeepsReading(t *testing.T) {
	m := newListModel(t, []string{fleetFixture(t)}, "harness-rs-0.0.40", 120, 40, longAgo)
	f := m.fleet
	kept := func() []int {
		var ids []int
		for id, j := range f.jobs {
			if !j.done || !j.every {
				t.Errorf("job %d (every session %v, done %v) is held", id, j.every, j.done)
			}
			ids = append(ids, id)
		}
		return ids
	}
	first := kept()
	if len(first) != 1 {
		t.Fatalf("after the first replay and sweep, jobs %v held, want the replay", first)
	}
	press(t, m, "-")
	if got := kept(); !slices.Equal(got, first) {
		t.Errorf("after a move along the chart, jobs %v held, want %v", got, first)
	}
	press(t, m, "d")
	if got := kept(); !slices.Equal(got, first) {
		t.Errorf("after d, jobs %v held, want %v", got, first)
	}
	typed := m.policy.Clone()
	typed.SetCeiling(20000)
	drive(t, m, m.retune(typed))
	if got := kept(); len(got) != 1 || got[0] == first[0] {
		t.Errorf("at a typed ceiling, jobs %v held, want the new replay alone", got)
	}
}

// TestSessionListFindsHazardsAfterChart: the list's replays and sweep
// leave the hazards for later, and once the chart is in and the repeat
// and spill keys' computed ahead, before both's, it looks for them in the
// sessions whose replay shaped a result: the fixtures' two (a connection string cut off and used, a
// repeat of a cut result suppressed), as a replay that looks for them at
// once finds them (TestHazardFixtures). Until then the footer says so, and
// the hazards column shows which are left.
func TestSessionListFindsHazardsAfterChart(t *testing.T) {
	dir := filepath.Join("..", "testdata", "hazards")
	src := &sweepCounter{Source: indexSessions(t, []string{dir}, app.Options{Prices: pricing.Default(), Counter: counter}, "")}
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo, func(o *Options) {
		o.Policy.SetCeiling(4096)
		o.Sessions = src
	})
	if want := []string{"replay", "sweep", "replay", "sweep", "replay", "sweep", "hazards", "replay"}; len(src.calls) < len(want) || !slices.Equal(src.calls[:len(want)], want) {
		t.Errorf("calls %v: want the chart's, d's and s's, then %v", src.calls, want[6:])
	}
	var names []string
	for _, p := range src.hazards[0] {
		names = append(names, filepath.Base(p))
	}
	slices.Sort(names)
	// The sessions whose results the policy shapes: head-dsn's and
	// user-dsn's are cut too, with nothing of the cut used after.
	if want := []string{"head-dsn.jsonl", "repeat-cut.jsonl", "repeat-small.jsonl", "tail-dsn.jsonl", "user-dsn.jsonl"}; !slices.Equal(names, want) {
		t.Errorf("hazards looked for in %v, want %v", names, want)
	}
	footer := lineWith(t, m, "5 sessions")
	if !strings.Contains(footer, "2 hazards") || strings.Contains(footer, "looking") {
		t.Errorf("footer %q: want 2 hazards, all looked for", footer)
	}
	// Then those of d's and s's policies, whose charts came before: both's
	// came after, and found its hazards in the indexes built.
	ahead := AheadOf(m.fleet.policy)
	if len(src.hazardsUnder) != 3 || !reflect.DeepEqual(src.hazardsUnder[1:], ahead[:2]) {
		t.Errorf("hazards looked for under %d policies, want the one in force's, then d's and s's", len(src.hazardsUnder))
	}
	// d shows its figures with their hazards at once, looking for none.
	fresh := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo, func(o *Options) { o.Policy = ahead[0] })
	looked := len(src.hazards)
	press(t, m, "d")
	if got, want := lineWith(t, m, "5 sessions"), lineWith(t, fresh, "5 sessions"); got != want || strings.Contains(got, "looking") {
		t.Errorf("after d: %s\nopened afresh\n%s", got, want)
	}
	if len(src.hazards) != looked {
		t.Errorf("after d: hazards looked for under %v", src.hazardsUnder[looked:])
	}
	press(t, m, "d") // back to the policy it opened under

	// A session whose hazards are left: the footer and its row say so.
	l := &m.fleet.list
	var tail string
	for _, r := range l.rows {
		if filepath.Base(r.Path) == "tail-dsn.jsonl" {
			tail = r.Path
		}
	}
	s := l.savings[tail]
	s.Point.HazardsLater, s.Point.Hazards = true, replay.SweepHazards{}
	l.savings[tail] = s
	l.refresh()
	if footer := lineWith(t, m, "5 sessions"); !strings.Contains(footer, "1 hazard") || !strings.Contains(footer, "hazards: looking… 1 to go") {
		t.Errorf("one left: footer %q", footer)
	}
	for _, line := range strings.Split(ansi.Strip(screen(m)), "\n") {
		if strings.Contains(line, ".jsonl") && strings.Contains(line, "…") != strings.Contains(line, "tail-dsn") {
			t.Errorf("want tail-dsn's row alone to show its hazards left for later: %q", line)
		}
	}
}

// TestSessionListPrefetch: once a policy's chart is in, the list computes
// the points of the policies d and s would put in force, on the sessions
// it holds, so that either key takes every session's figures from them,
// with no replay and no sweep: the footer and chart of a list opened
// afresh under that policy. s's are a truncating policy's, which read
// and count every cut again.
func TestSessionListPrefetch(t *testing.T) {
	dir := fleetFixture(t)
	m, src := countedList(t, dir, "harness-rs-0.0.50", "")
	if sweeps, replays := src.take(); len(sweeps) != 4 || len(replays) != 4 {
		t.Fatalf("opened: sweeps %v and %d replays, want the chart's, d's, s's and both's", sweeps, len(replays))
	}
	pol, _ := policy.Preset("harness-rs-0.0.50")
	for _, k := range []string{"d", "s"} {
		press(t, m, k)
		// The policies a key or two away from the new one are the four
		// corners of d and s, all computed ahead when the list opened:
		// after d, s's (truncating, repeats suppressed) is both's.
		if sweeps, replays := src.take(); len(sweeps) != 0 || len(replays) != 0 {
			t.Errorf("%s: sweeps %v and %d replays, want none", k, sweeps, len(replays))
		}
		switch k {
		case "d":
			_ = pol.SetDedupe(2)
		case "s":
			_ = pol.SetSpill(false)
		}
		fresh := newListModel(t, []string{dir}, "harness-rs-0.0.50", 120, 40, longAgo, func(o *Options) { o.Policy = pol })
		for _, line := range []string{"4 sessions", "cost saved"} {
			if got, want := lineWith(t, m, line), lineWith(t, fresh, line); got != want {
				t.Errorf("after %s: %s\nopened afresh\n%s", k, got, want)
			}
		}
	}
}

// TestSessionListPrefetchWaitsForTheList: nothing is computed ahead while
// a session opened from the list is shown, for keys that may not come;
// back on the list, it goes on.
func TestSessionListPrefetchWaitsForTheList(t *testing.T) {
	m, src := countedList(t, fleetFixture(t), "harness-rs-0.0.50", "")
	src.take()
	// 1,536 bytes, below the chart's least ceiling: the list replays
	// its sessions there for its own point, and computes nothing ahead.
	press(t, m, "enter", "-", "-", "-", "-")
	if sweeps, replays := src.take(); len(sweeps) != 0 || len(replays) != 1 {
		t.Errorf("- in a session: the list swept %v and replayed %d times, want its own replay alone", sweeps, len(replays))
	}
	press(t, m, "esc")
	// d's, s's and both's points there
	if sweeps, replays := src.take(); len(sweeps) != 0 || len(replays) != 3 {
		t.Errorf("back on the list: sweeps %v and %d replays, want three replays", sweeps, len(replays))
	}
}

// TestSessionListPrefetchReopened: reopened from the index's cache, which
// the first list wrote once idle, the list takes its chart from there
// with its replay, not in a sweep after it, and d's points for the
// sessions it does not hold yet, reading none: d, then - and d again,
// neither replay nor sweep.
func TestSessionListPrefetchReopened(t *testing.T) {
	dir := fleetFixture(t)
	cache := t.TempDir()
	var first *sessions.Service
	newListModel(t, []string{dir}, "harness-rs-0.0.50", 120, 40, longAgo, func(o *Options) {
		first = indexSessions(t, []string{dir}, app.Options{Prices: o.Prices, Counter: counter}, cache)
		o.Sessions = first
	})
	// Not quit: the list wrote its figures once idle, as for one killed.
	m, src := countedList(t, dir, "harness-rs-0.0.50", cache, func(c *sweepCounter) { c.noneHeld = true })
	if sweeps, replays := src.take(); len(sweeps) != 0 || len(replays) != 1 {
		t.Errorf("reopened: sweeps %v and %d replays, want one replay", sweeps, len(replays))
	}
	for _, k := range []string{"d", "-", "d"} {
		press(t, m, k)
		if sweeps, replays := src.take(); len(sweeps) != 0 || len(replays) != 0 {
			t.Errorf("%s: sweeps %v and %d replays, want none", k, sweeps, len(replays))
		}
	}
}

// blockingSource replays nothing until its context ends, and says so.
type blockingSource struct {
	rows      []sessions.Row
	cancelled chan string
}

func (b *blockingSource) Scan(context.Context, func(int, int)) ([]sessions.Row, []string, error) {
	return b.rows, nil, nil
}

func (b *blockingSource) Replay(ctx context.Context, pol policy.Policy, _ []string, _ func(sessions.Savings)) error {
	<-ctx.Done()
	b.cancelled <- policy.FormatSize(pol.Ceiling, pol.Unit)
	return ctx.Err()
}

func (b *blockingSource) Sweep(ctx context.Context, _ policy.Policy, _ []string, _ []int64, _ func(sessions.Savings)) error {
	return nil
}

// TestSessionListNeverBlocks: keys are answered while replays run, a new
// policy cancels the replay of the one before, and what a stale replay
// still sends is dropped.
func TestSessionListNeverBlocks(t *testing.T) {
	usd := 1.5
	src := &blockingSource{rows: []sessions.Row{{Path: "/a.jsonl", Calls: 3, Cost: &usd}}, cancelled: make(chan string, 4)}
	pol, _ := policy.Preset("harness-rs-0.0.40")
	m := New(Options{Policy: pol, Prices: pricing.Default(), Sessions: src, SessionsName: "fake"})
	leaveAtEnd(t, m)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	// The scan's command, run by hand: its replay command is not run.
	_, cmd := m.Update(fleetScannedMsg{rows: src.rows})
	if cmd == nil {
		t.Fatal("no replay started")
	}
	go cmd()
	start := time.Now()
	_, next := m.Update(keyMsg("+"))
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("a key took %v while replaying", d)
	}
	go next()
	select {
	case c := <-src.cancelled:
		if c != "24,576 JSON bytes" {
			t.Errorf("cancelled the replay at %s, want the old ceiling's", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the older replay was not cancelled")
	}
	if !strings.Contains(ansi.Strip(screen(m)), "replaying 0/1") {
		t.Errorf("no progress shown:\n%s", ansi.Strip(screen(m)))
	}
	stale := 0.5
	m.Update(fleetSavedMsg{gen: m.fleet.gen - 1, items: []sessions.Savings{{Path: "/a.jsonl", Point: replay.SweepPoint{CostAfter: &stale}}}})
	if _, ok := m.fleet.list.savings["/a.jsonl"]; ok {
		t.Error("a stale replay's figures were taken")
	}
	m.Update(fleetSavedMsg{gen: m.fleet.gen, items: []sessions.Savings{{Path: "/a.jsonl", Point: replay.SweepPoint{CostAfter: &stale}}}, done: true, job: jobNow(m)})
	if s, ok := m.fleet.list.savings["/a.jsonl"]; !ok || *s.Point.CostAfter != 0.5 {
		t.Error("the current replay's figures were not taken")
	}
}

// TestSessionListLive follows a folder in which a session was written in
// the last minute: it is marked live with its burn rate and context, a new
// session appears at the top, and opening a live one follows it.
func TestSessionListLive(t *testing.T) {
	dir := fleetFixture(t)
	live := filepath.Join(dir, "live.jsonl")
	// Calls on claude-haiku-4-5 ($1 in, $0.10 cache read, $5 out per
	// million) at 11:45 (10,000 in + 100 out: $0.0105), 11:52 (20,000 in
	// + 200 out: $0.021) and 11:59 (20,000 in + 30,000 read + 200 out:
	// $0.024): the ten minutes up to the last hold the last two, $0.045,
	// or $0.27 an hour; the last prompt, 50,000 tokens of a 200,000
	// window, is 25% full.
	writeSession(t, live, "/home/u/live", "claude-haiku-4-5", []fleetCall{
		{at: "2026-03-05T11:45:00Z", input: 10_000, output: 100},
		{at: "2026-03-05T11:52:00Z", input: 20_000, output: 200},
		{at: "2026-03-05T11:59:00Z", input: 20_000, cacheRead: 30_000, output: 200},
	})
	written := time.Date(2026, 3, 5, 11, 59, 30, 0, time.UTC)
	os.Chtimes(live, written, written)
	now := written.Add(20 * time.Second)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, now)
	row := rowOf(t, m, "live")
	if !m.fleet.following || !m.fleet.list.live[row.Path] || len(m.fleet.list.live) != 1 {
		t.Fatalf("following %v, live %v", m.fleet.following, m.fleet.list.live)
	}
	if math.Abs(row.Burn-0.27) > 1e-9 || row.Context != 50_000 || row.ContextMax != 200_000 {
		t.Errorf("burn %g, context %d of %d", row.Burn, row.Context, row.ContextMax)
	}
	if got := lineWith(t, m, "● 2026-03-05 11:59"); !strings.HasSuffix(strings.TrimRight(got, " "), "$0.27/h  25%") {
		t.Errorf("live row: %q", got)
	}
	golden.RequireEqual(t, []byte(screen(m)))

	// A new session appears at the top, live, at the next look, though
	// the times in its log are older than any.
	fresh := filepath.Join(dir, "fresh.jsonl")
	writeSession(t, fresh, "/home/u/fresh", "gpt-5", []fleetCall{{at: "2025-01-01T12:00:00Z", input: 1000, output: 10}})
	os.Chtimes(fresh, now, now)
	send(t, m, fleetTickMsg{})
	if got := shownNames(m); len(got) != 6 || got[0] != "fresh" || !m.fleet.list.live[fresh] {
		t.Errorf("after a new session: %v, live %v", got, m.fleet.list.live)
	}
	// Written now, but its calls are a year old: it burns nothing now,
	// whatever its last ten minutes of calls cost then.
	for _, l := range strings.Split(ansi.Strip(screen(m)), "\n") {
		if got := strings.Fields(l); len(got) > 4 && got[3] == "fresh" && got[len(got)-2] != "–" {
			t.Errorf("the log copied in: %q, want no burn rate", l)
		}
	}
	// The time column stays in order: the log copied in shows when it was
	// written, not its calls' old times.
	var times []string
	for _, l := range strings.Split(ansi.Strip(screen(m)), "\n")[3:9] {
		times = append(times, string([]rune(l)[2:18]))
	}
	if !slices.IsSortedFunc(times, func(a, b string) int { return strings.Compare(b, a) }) || times[0] != "2026-03-05 11:59" {
		t.Errorf("time column out of order: %q", times)
	}
	// A session removed leaves the list, and no replay waits for it.
	os.Remove(fresh)
	send(t, m, fleetTickMsg{})
	if got := shownNames(m); len(got) != 5 || len(m.fleet.pending) != 0 || strings.Contains(lineWith(t, m, "5 sessions"), "replaying") {
		t.Errorf("after removing a session: %v, pending %v", got, m.fleet.pending)
	}
	// Opening a live session follows it.
	follows := make(chan string, 1)
	restore := follow
	t.Cleanup(func() { follow = restore })
	follow = func(ctx context.Context, path string, _ transcript.FollowOptions) (<-chan transcript.Update, error) {
		follows <- path
		return nil, fmt.Errorf("stand-in")
	}
	for filepath.Base(m.fleet.list.current()) != "live.jsonl" {
		press(t, m, "j")
	}
	press(t, m, "enter")
	select {
	case p := <-follows:
		if p != live {
			t.Errorf("followed %s", p)
		}
	default:
		t.Error("the live session was not followed")
	}
}

// liveFleet opens the list over fleetFixture's sessions and one written
// at now, live, so that the list follows them.
func liveFleet(t *testing.T) (m *Model, dir string, now time.Time) {
	dir = fleetFixture(t)
	live := filepath.Join(dir, "live.jsonl")
	writeSession(t, live, "/home/u/live", "claude-haiku-4-5", []fleetCall{{at: "2026-03-05T11:45:00Z", input: 10_000, output: 100}})
	now = time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	os.Chtimes(live, now, now)
	return newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, now), dir, now
}

// TestSessionListRowsChange: sessions that come and go at a look of a
// followed list leave the cursor on the session it was on. The selection
// was taken from the new rows by the old order: a session added moved the
// cursor to another, and two removed with the cursor on the last row
// indexed past the rows (a panic).
func TestSessionListRowsChange(t *testing.T) {
	m, dir, now := liveFleet(t)
	press(t, m, "G")
	last := m.fleet.list.current()
	if names := shownNames(m); len(names) != 5 || filepath.Base(last) != names[4]+".jsonl" {
		t.Fatalf("shown %v, selected %s", names, last)
	}
	fresh := filepath.Join(dir, "fresh.jsonl")
	writeSession(t, fresh, "/home/u/fresh", "gpt-5", []fleetCall{{at: "2026-03-05T11:59:00Z", input: 1000, output: 10}})
	os.Chtimes(fresh, now, now)
	send(t, m, fleetTickMsg{})
	if got := m.fleet.list.current(); got != last || len(shownNames(m)) != 6 {
		t.Errorf("after a session was added: %v, selected %s, want %s", shownNames(m), got, last)
	}
	for _, name := range []string{"fresh", "live"} {
		if p := filepath.Join(dir, name+".jsonl"); p != last {
			os.Remove(p)
		}
	}
	send(t, m, fleetTickMsg{})
	if got := m.fleet.list.current(); got != last || len(shownNames(m)) != 4 {
		t.Errorf("after two were removed: %v, selected %s, want %s", shownNames(m), got, last)
	}
}

// TestSessionListHostile lists a session whose file name, folder and
// model carry control sequences: they reach the screen only escaped, and
// drawing the list changes nothing.
func TestSessionListHostile(t *testing.T) {
	dir := fleetFixture(t)
	evil := "\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e"
	path := filepath.Join(dir, "x"+evil+".jsonl")
	writeSession(t, path, "/home/"+evil, "gpt-5"+evil, []fleetCall{{at: "2026-03-06T00:00:00Z", input: 10, output: 1}})
	os.Chtimes(path, longAgo.Add(-time.Hour), longAgo.Add(-time.Hour))
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	press(t, m, "/", "x", "enter")
	state := func() string {
		l := &m.fleet.list
		return fmt.Sprintf("%v %d %d %q %d", l.shown, l.cursor, l.offset, l.filter, m.fleet.gen)
	}
	before := state()
	out := screen(m)
	if again := screen(m); again != out || state() != before {
		t.Errorf("drawing changed the list: %s, then %s", before, state())
	}
	sgr := regexp.MustCompile("\x1b\\[[0-9;:]*m")
	rest := sgr.ReplaceAllString(out, "")
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(rest, bad) {
			t.Errorf("raw %q reached the screen:\n%q", bad, rest)
		}
	}
	if !strings.Contains(rest, `\x1b]0;`) {
		t.Errorf("the escaped folder is not shown:\n%s", rest)
	}
}

// TestSessionListCopies: a log that copies another's responses (a resumed
// session) costs nothing of its own in the list, as in the report of the
// folder, also when it appears after the first look and is replayed alone.
func TestSessionListCopies(t *testing.T) {
	dir := t.TempDir()
	data := demoData(t)
	first := filepath.Join(dir, "first.jsonl")
	if err := os.WriteFile(first, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(first, longAgo.Add(-time.Hour), longAgo.Add(-time.Hour))
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	// The demo: $0.398306 as recorded, $0.260020 under harness-rs-0.0.40
	// (README's sweep).
	want := "1 session · 16 calls · cost $0.3983 → $0.2600 −34.7%"
	if got := lineWith(t, m, "1 session"); !strings.HasPrefix(got, want) {
		t.Errorf("footer %s, want %s", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "second.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	send(t, m, fleetTickMsg{}) // not following: nothing is looked at
	if len(m.fleet.list.rows) != 1 {
		t.Fatalf("rows %d without following", len(m.fleet.list.rows))
	}
	press(t, m, "f")
	// The copy's 16 calls are the first's, counted there once, as report
	// --by session counts them.
	want = "2 sessions · 16 calls · cost $0.3983 → $0.2600 −34.7%"
	if got := lineWith(t, m, "2 sessions"); !strings.HasPrefix(got, want) {
		t.Errorf("footer %s, want %s", got, want)
	}
	var zero int
	for _, r := range m.fleet.list.rows {
		if after, ok := m.fleet.list.after(&r); ok && *r.Cost == 0 && after == 0 {
			zero++
		}
	}
	if zero != 1 {
		t.Errorf("%d sessions cost nothing before and after, want the copy alone", zero)
	}
}

// TestSessionListWarningsAndSizes: a log that is not a session is a
// counted warning the W list names, the others listed; the list fits any
// terminal, however small.
func TestSessionListWarningsAndSizes(t *testing.T) {
	dir := fleetFixture(t)
	junk := filepath.Join(dir, "notes.jsonl")
	if err := os.WriteFile(junk, []byte("just some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(junk, longAgo.Add(-time.Hour), longAgo.Add(-time.Hour))
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	if got := lineWith(t, m, "4 sessions"); !strings.Contains(got, "1 warning (W)") {
		t.Errorf("footer: %s", got)
	}
	press(t, m, "W")
	if out := ansi.Strip(screen(m)); m.overlay != warningsOverlay || !strings.Contains(out, junk+" is not an agent transcript") {
		t.Errorf("warnings:\n%s", out)
	}
	press(t, m, "esc", "?")
	if out := ansi.Strip(screen(m)); m.overlay != helpOverlay || !strings.Contains(out, "filter sessions") {
		t.Errorf("help:\n%s", out)
	}
	press(t, m, "esc")
	for _, size := range [][2]int{{1, 1}, {20, 5}, {40, 8}, {60, 12}, {200, 60}} {
		send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		press(t, m, "j", "G", "pgup")
		checkSize(t, screen(m), size[0], size[1])
	}
}

// TestSessionListFooterSettlesOnFailedReplay: a priced session whose
// replay failed is not waited for by the footer: its after is unknown,
// so the total after is "?", not "…" for ever.
func TestSessionListFooterSettlesOnFailedReplay(t *testing.T) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	alpha := rowOf(t, m, "alpha")
	send(t, m, fleetSavedMsg{gen: m.fleet.gen, items: []sessions.Savings{{Path: alpha.Path, Err: fmt.Errorf("alpha.jsonl: gone")}}, done: true, paths: []string{alpha.Path}, job: jobNow(m)})
	footer := lineWith(t, m, "4 sessions")
	if !strings.HasPrefix(footer, "4 sessions · 7 calls · cost $0.1020 → ? · 1 not replayed") {
		t.Errorf("footer: %s", footer)
	}
	// Filtered to the sessions that did replay, the sum is known again.
	press(t, m, "/", "g", "p", "t", "enter")
	if f := lineWith(t, m, "1 session"); !strings.HasPrefix(f, "1 session · 1 call · cost $0.0225 → $0.0225") {
		t.Errorf("filtered footer: %s", f)
	}
}

// TestSessionListHelpListsItsKeys: the list's help names the keys the
// list answers to and none of the calls' own (c, ], m, tab, ...), which do
// nothing there; a session opened from the list has its full help.
func TestSessionListHelpListsItsKeys(t *testing.T) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	press(t, m, "?")
	out := ansi.Strip(screen(m))
	for _, want := range []string{"filter sessions", "open session", "double ceiling", "next preset", "write policy file", "follow on/off"} {
		if !strings.Contains(out, want) {
			t.Errorf("list help lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"costliest call", "next changed call", "bookmark call", "calls/detail", "open full result", "next match"} {
		if strings.Contains(out, not) {
			t.Errorf("list help names %q, which the list does not answer to:\n%s", not, out)
		}
	}
	press(t, m, "esc", "enter", "?")
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "costliest call") {
		t.Errorf("a session's help lacks its keys:\n%s", out)
	}
}

// TestSessionListNotesBeforeTokens: the footer gives what a figure lacks
// (a session without a price, warnings) before the saved tokens, the
// first thing a narrow terminal cuts; at 80 columns the key line still
// names ? for the rest.
func TestSessionListNotesBeforeTokens(t *testing.T) {
	dir := fleetFixture(t)
	if err := os.WriteFile(filepath.Join(dir, "notes.jsonl"), []byte("just some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	footer := strings.TrimRight(lineWith(t, m, "4 sessions"), " ")
	if !strings.HasSuffix(footer, "saved $0.0090 · 1 without a price · 1 warning (W) · −3,012 tokens") {
		t.Errorf("footer: %s", footer)
	}
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	lines := strings.Split(ansi.Strip(screen(m)), "\n")
	if keys := lines[len(lines)-1]; !strings.Contains(keys, "? help") {
		t.Errorf("key line at 80 columns: %s", keys)
	}
	// The list's warnings are a line per session, which enter opens.
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	press(t, m, "W")
	if head := strings.SplitN(ansi.Strip(screen(m)), "\n", 2)[0]; !strings.Contains(head, "enter opens its session") {
		t.Errorf("the list's warnings: %s", head)
	}
}

// TestSessionListFilterEcho: the header and the no-match line echo the
// filter as typed (a Windows folder's backslash once, not doubled by
// quoting), and a control character only escaped.
func TestSessionListFilterEcho(t *testing.T) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	m.fleet.list.setFilter(`C:\wo` + "\x1b[2J")
	out := ansi.Strip(screen(m))
	for _, want := range []string{`0 shown (filter "C:\wo\x1b[2J")`, `no session matches "C:\wo\x1b[2J" (esc clears the filter)`} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(screen(m), "\x1b[2J") {
		t.Error("the filter's control sequence reached the terminal")
	}
	// Nothing shown costs nothing: no "no session has a price".
	if f := lineWith(t, m, "0 sessions"); !strings.HasPrefix(f, "0 sessions · 0 calls · cost $0") || strings.Contains(f, "price") {
		t.Errorf("footer with nothing shown: %s", f)
	}
}

// TestSessionListCodexSubagentReplayed: a Codex sub-agent is known as one
// only when read with its parent; the list's replay reads the parent with
// it, so that under no policy the family's after is its cost, by hand
// $0.006808375 for the parent with its sub-agent (family_test.go in
// report), not $0.00658875 without the sub-agent's $0.000219625 (a saving
// the policy never made).
func TestSessionListCodexSubagentReplayed(t *testing.T) {
	m := newListModel(t, []string{filepath.Join("..", "testdata", "codex", "family")}, "none", 120, 40, longAgo)
	parent := rowOf(t, m, "rollout-2026-05-12T08-00-00-P")
	if parent.Cost == nil || math.Abs(*parent.Cost-0.006808375) > 1e-12 {
		t.Fatalf("parent cost %v, want $0.006808375", parent.Cost)
	}
	after, ok := m.fleet.list.after(parent)
	if !ok || math.Abs(after-0.006808375) > 1e-12 {
		t.Errorf("parent after %g (%v), want $0.006808375: nothing saved under no policy", after, ok)
	}
	// The calls each log bills, copies counted once, as report --by
	// session counts the family: 3 + 1, not 5 + 3.
	if f := lineWith(t, m, "2 sessions"); !strings.HasPrefix(f, "2 sessions · 4 calls · cost $0.0072") || !strings.Contains(f, "saved $0.0000") {
		t.Errorf("footer: %s", f)
	}
}

// TestSessionListWideFigures: a figure wider than its column's usual
// width (a session of 12,345 calls, a cost of thousands of dollars)
// widens the column instead of being cut.
func TestSessionListWideFigures(t *testing.T) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	big := 12345.678
	for i := range m.fleet.list.rows {
		if r := &m.fleet.list.rows[i]; strings.HasSuffix(r.Path, "beta.jsonl") {
			r.Calls, r.Cost = 12345, &big
		}
	}
	m.fleet.list.refresh()
	line := lineWith(t, m, "  2026-03-02 10:00 beta")
	if !strings.Contains(line, " 12,345 ") || !strings.Contains(line, "$12,346→$0.02") {
		t.Errorf("beta's row cuts its figures: %s", line)
	}
	checkSize(t, screen(m), 120, 40)
}

// TestSessionListModelCount: a session of several models keeps "+N" when
// its first model's name is cut to the column.
func TestSessionListModelCount(t *testing.T) {
	for _, tt := range []struct {
		models []string
		want   string
	}{
		{nil, "–"},
		{[]string{"gpt-5"}, "gpt-5"},
		{[]string{"gpt-5", "gpt-5-mini"}, "gpt-5 +1"},
		{[]string{"claude-sonnet-4-5", "claude-opus-4-6", "claude-opus-4-9"}, "claude-sonnet… +2"},
		{[]string{"a\x1b[2Jb", "c"}, `a\x1b[2Jb +1`},
	} {
		if got := modelName(&sessions.Row{Models: tt.models}, modelWidth); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.models, got, tt.want)
		}
	}
}

// TestSessionListSubagents lists a session's sub-agent under it, counted
// once: the session's row and the footer hold both logs, and `a` shows
// the sub-agent's own figures on a line under its session.
//
//	main (claude-sonnet-4-5, $3 and $15 per million): 1,000 in + 100 out = $0.0045
//	its sub-agent (claude-haiku-4-5, $1 and $5): 2,000 in + 400 out = $0.004
//	the session: 2 calls, $0.0085; other (gpt-5): 10,000 in + 1,000 out = $0.0225
func TestSessionListSubagents(t *testing.T) {
	dir := t.TempDir()
	writeSession(t, filepath.Join(dir, "main.jsonl"), "/home/u/main", "claude-sonnet-4-5", []fleetCall{{at: "2026-03-05T10:00:00Z", input: 1000, output: 100}})
	writeSession(t, filepath.Join(dir, "main", "subagents", "agent-a1.jsonl"), "/home/u/main", "claude-haiku-4-5", []fleetCall{{at: "2026-03-05T10:01:00Z", input: 2000, output: 400}})
	writeSession(t, filepath.Join(dir, "other.jsonl"), "/home/u/other", "gpt-5", []fleetCall{{at: "2026-03-05T09:00:00Z", input: 10_000, output: 1000}})
	written := time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	for _, p := range []string{"main.jsonl", "main/subagents/agent-a1.jsonl", "other.jsonl"} {
		os.Chtimes(filepath.Join(dir, p), written, written)
	}
	for _, source := range []string{"pipeline", "index"} {
		t.Run(source, func(t *testing.T) {
			m := newListModel(t, []string{dir}, "none", 120, 40, time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC), func(o *Options) {
				if source == "index" {
					o.Sessions = indexSessions(t, []string{dir}, app.Options{Prices: o.Prices, Read: o.Read, Counter: counter}, "")
				}
			})
			row := rowOf(t, m, "main")
			if row.Calls != 2 || row.Cost == nil || math.Abs(*row.Cost-0.0085) > 1e-12 || len(row.Parts) != 1 {
				t.Fatalf("row %+v", row)
			}
			if p := row.Parts[0]; filepath.Base(p.Path) != "agent-a1.jsonl" || p.Calls != 1 || p.Cost == nil || math.Abs(*p.Cost-0.004) > 1e-12 {
				t.Errorf("sub-agent %+v", p)
			}
			if got := lineWith(t, m, "  2026-03-05 10:01 main ▸1 sub"); !strings.Contains(got, "$0.0085→$0.0085") {
				t.Errorf("session line %q", got)
			}
			for filepath.Base(m.fleet.list.current()) != "main.jsonl" {
				press(t, m, "j")
			}
			press(t, m, "a")
			got := lineWith(t, m, "                     └ agent-a1.jsonl")
			if f := strings.Fields(got); len(f) != 4 || f[2] != "1" || f[3] != "$0.0040" {
				t.Errorf("sub-agent line %q", got)
			}
			// Counted once: the footer holds the two sessions' three calls.
			lineWith(t, m, "2 sessions · 3 calls · cost $0.0310")
			press(t, m, "a")
			if strings.Contains(ansi.Strip(screen(m)), "agent-a1.jsonl") {
				t.Error("the sub-agent is still shown")
			}
		})
	}
}

// TestSessionListHazards: each session's row counts the hazards its replay
// found, and the footer sums those shown. Under harness-rs-0.0.40 at
// 4 KiB the hazard fixtures hold two: tail-dsn's cut-off connection string
// that a later Bash call used, and repeat-cut's suppressed repeat of a
// truncated Read; head-dsn, user-dsn and repeat-small hold none.
func TestSessionListHazards(t *testing.T) {
	m := newListModel(t, []string{filepath.Join("..", "testdata", "hazards")}, "harness-rs-0.0.40", 160, 30, longAgo,
		func(o *Options) { o.Policy.SetCeiling(4096); o.NoFollow = true })
	want := map[string]int{"tail-dsn": 1, "repeat-cut": 1, "head-dsn": 0, "user-dsn": 0, "repeat-small": 0}
	for name, n := range want {
		s, ok := m.fleet.list.savings[rowOf(t, m, name).Path]
		if !ok {
			t.Fatalf("%s was not replayed", name)
		}
		if got := s.Point.Hazards.Total(); got != n {
			t.Errorf("%s: %d hazards, want %d", name, got, n)
		}
	}
	out := ansi.Strip(screen(m))
	if !strings.Contains(out, " hazards ") {
		t.Errorf("no hazards column:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "tail-dsn") || strings.Contains(l, "repeat-cut") {
			if !strings.Contains(l, "H1") {
				t.Errorf("row without its hazard: %s", l)
			}
		}
		for _, none := range []string{"head-dsn", "user-dsn", "repeat-small"} {
			if strings.Contains(l, none) && strings.Contains(l, " H") {
				t.Errorf("a row with no hazard shows one: %s", l)
			}
		}
	}
	if footer := lineWith(t, m, "5 sessions"); !strings.Contains(footer, "H2 hazards") {
		t.Errorf("footer: %s", footer)
	}
}

// TestSessionListChartAfterChange: what a sweep begun before a session's
// log changed says of it is not taken, whether its points come after the
// change or its end does: the session is replayed and swept again, and
// charted with the points of its log as it is.
func TestSessionListChartAfterChange(t *testing.T) {
	for _, tt := range []struct {
		name       string
		withPoints bool
	}{{"points after the change", true}, {"end after the change", false}} {
		t.Run(tt.name, func(t *testing.T) {
			m := newListModel(t, []string{fleetFixture(t)}, "harness-rs-0.0.40", 120, 40, longAgo)
			f := m.fleet
			knobs, ceilings := knobsKey(m.policy), replay.ChartCeilings(m.policy, 0)
			p := f.list.rows[0].Path
			begun := jobNow(m) // a sweep under way, begun on the log as it was
			f.sweeping = true
			rows := append([]sessions.Row(nil), f.list.rows...)
			rows[0].Calls++ // the rescan finds it changed
			replayAgain := m.fleet.takeScan(fleetScannedMsg{rows: rows})
			const marker = 987654321
			var old []replay.SweepPoint
			for _, c := range ceilings {
				old = append(old, replay.SweepPoint{Ceiling: c, Saved: marker})
			}
			msg := fleetSavedMsg{gen: f.gen, sweep: true, done: true, paths: []string{p}, job: begun}
			if tt.withPoints {
				msg.items = []sessions.Savings{{Path: p, Points: old}}
			}
			drive(t, m, m.fleet.takeSaved(msg))
			drive(t, m, replayAgain)
			if f.unswept[p] {
				t.Errorf("marked as not swept")
			}
			if missing := f.missingCeilings(p, knobs, ceilings); len(missing) > 0 {
				t.Errorf("no points at %v", missing)
			}
			for c, pt := range f.points[p][knobs] {
				if pt.Saved == marker {
					t.Errorf("the old log's point at %d kept", c)
				}
			}
			if _, missing := m.fleet.fleetCurve(); missing != 0 {
				t.Errorf("chart waits for %d sessions", missing)
			}
		})
	}
}

// failingKeeper is a source whose cache cannot be written.
type failingKeeper struct{ *sweepCounter }

func (failingKeeper) Keep() error { return errors.New("session index not saved: disk full") }

// TestSessionListSaysItsFiguresWereNotKept: a cache the idle list could
// not write its figures to is said, not left for the next start to find.
func TestSessionListSaysItsFiguresWereNotKept(t *testing.T) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.50", 120, 40, longAgo, func(o *Options) {
		o.Sessions = failingKeeper{&sweepCounter{Source: indexSessions(t, []string{dir}, app.Options{Prices: o.Prices, Counter: counter}, "")}}
	})
	if !strings.Contains(screen(m), "disk full") {
		t.Errorf("the list says nothing of its cache not written:\n%s", screen(m))
	}
}

// TestSessionListFooterAdds: a session whose policy costs more than none
// is summed as it is: the footer says what the policy adds, not a negative
// saving. beta: $0.0225 recorded, $0.0235 after, 400 tokens more.
func TestSessionListFooterAdds(t *testing.T) {
	dir := fleetFixture(t)
	m := newListModel(t, []string{dir}, "harness-rs-0.0.40", 120, 40, longAgo)
	beta := rowOf(t, m, "beta")
	after := 0.0235
	send(t, m, fleetSavedMsg{gen: m.fleet.gen, items: []sessions.Savings{{Path: beta.Path, Point: replay.SweepPoint{Saved: -400, Cost: beta.Cost, CostAfter: &after}}},
		done: true, paths: []string{beta.Path}, job: jobNow(m)})
	press(t, m, "/", "g", "p", "t", "enter")
	if f := lineWith(t, m, "1 session"); !strings.HasPrefix(f, "1 session · 1 call · cost $0.0225 → $0.0235 +4.4% · adds $0.0010 · +400 tokens") {
		t.Errorf("footer: %s", f)
	}
}

// TestSessionListPaced: changes to a followed list's logs are looked at
// no sooner than fleetPace after the last look came back, however many
// come meanwhile; then at once.
func TestSessionListPaced(t *testing.T) {
	m, dir, _ := liveFleet(t)
	defer func(p time.Duration) { fleetPace = p }(fleetPace)
	fleetPace = time.Hour
	fresh := filepath.Join(dir, "fresh.jsonl")
	writeSession(t, fresh, "/home/u/fresh", "gpt-5", []fleetCall{{at: "2026-03-05T11:59:00Z", input: 1000, output: 10}})
	// As the watch's changes ask for it: a timer the first time, nothing
	// the next.
	if cmd := m.fleet.rescanPaced(); cmd == nil {
		t.Error("no look set for later")
	}
	if cmd := m.fleet.rescanPaced(); cmd != nil {
		t.Error("a second look set for later")
	}
	if got := shownNames(m); len(got) != 5 || !m.fleet.dirty || !m.fleet.pacing {
		t.Errorf("looked again at once: %v (dirty %v, pacing %v)", got, m.fleet.dirty, m.fleet.pacing)
	}
	send(t, m, fleetPaceMsg{})
	if got := shownNames(m); len(got) != 6 || m.fleet.dirty || m.fleet.pacing {
		t.Errorf("not looked at when due: %v (dirty %v, pacing %v)", got, m.fleet.dirty, m.fleet.pacing)
	}
}
