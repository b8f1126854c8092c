package sessions

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/memory"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/internal/slowtest"
)

// holding says how a list holds its sessions between replays.
type holding struct {
	name                 string
	full, withoutTexts   int64 // Budget.Whole, Budget.Lean
	wantFull, wantNoText bool  // some session held so
}

var holdings = []holding{
	{"held in full", 1 << 40, 0, true, false},
	{"held without texts", 0, 1 << 40, false, true},
	{"read again for each", 0, 0, false, false},
}

// retunings are the policies the tests replay lists under: a preset of
// every style and repeat rule, as it is and re-tuned as the keys do, to
// ceilings low enough for the test sessions' results.
func retunings(t *testing.T) []policy.Policy {
	t.Helper()
	var pols []policy.Policy
	for _, name := range []string{policy.DefaultPreset, "harness-rs-0.0.40", "agentscope", "deepseek", "codex", "claude-code-2.1.86"} {
		p, err := policy.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		pols = append(pols, p)
		low := p.Clone()
		low.SetCeiling(max(512, p.Ceiling/32))
		if name == policy.DefaultPreset {
			if err := low.SetDedupe(2); err != nil {
				t.Fatal(err)
			}
			off := p.Clone()
			off.SetCeiling(2048)
			if err := off.SetSpill(false); err != nil {
				t.Fatal(err)
			}
			pols = append(pols, off)
		}
		pols = append(pols, low)
	}
	return pols
}

// listFigures replays the sessions of paths under every policy of pols,
// looks for the hazards the replay left for later and sweeps them, with
// the list holding them as h says, and returns every session's savings by
// policy and path, with its hazards. It runs each policy twice: the second
// replays what the first held. A replay's figures are the same as those
// with the hazards but for the hazards it left for later, if it did.
func listFigures(t *testing.T, paths []string, h holding, pols []policy.Policy) map[string]Savings {
	t.Helper()
	src := newList(t, paths, app.Options{Prices: pricing.Default(), Counter: counter})
	src.Budget = &app.Budget{Whole: h.full, Lean: h.withoutTexts}
	ctx := context.Background()
	rows, warnings, err := src.Scan(ctx, nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("scan: %v %v", err, warnings)
	}
	var listed []string
	for _, r := range rows {
		listed = append(listed, r.Path)
	}
	got := map[string]Savings{}
	for k, pol := range pols {
		for pass := range 2 {
			replayed := map[string]Savings{}
			err := src.Replay(ctx, pol, listed, func(s Savings) {
				if s.Err != nil {
					t.Errorf("%s: %s: %v", pol.Name, s.Path, s.Err)
				}
				replayed[s.Path] = s
			})
			if err != nil {
				t.Fatal(err)
			}
			err = src.Hazards(ctx, pol, listed, func(s Savings) {
				if s.Err != nil {
					t.Errorf("%s hazards: %s: %v", pol.Name, s.Path, s.Err)
				}
				got[policyKey(pol)+" "+s.Path] = s
				r := replayed[s.Path]
				if r.Point.HazardsLater {
					r.Point.Hazards, r.Point.HazardsLater = s.Point.Hazards, false
				}
				if d := cmp.Diff(s, r, cmpopts.EquateErrors()); d != "" {
					t.Errorf("%s, %s: %s's replay (-with hazards +replayed):\n%s", h.name, pol.Name, s.Path, d)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if pass == 0 || k%3 != 0 {
				continue
			}
			ceilings := replay.SweepCeilings(pol)
			err = src.Sweep(ctx, pol, listed, ceilings, func(s Savings) {
				if s.Err != nil {
					t.Errorf("%s sweep: %s: %v", pol.Name, s.Path, s.Err)
				}
				got[policyKey(pol)+" sweep "+s.Path] = s
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	onDemand := len(src.onDemand)
	full := len(src.held) - onDemand
	if h.wantFull && full != len(listed) || !h.wantFull && full > 0 ||
		h.wantNoText && onDemand != len(listed) || !h.wantNoText && onDemand > 0 {
		t.Errorf("%s: of %d sessions, %d held in full, %d without their texts", h.name, len(listed), full, onDemand)
	}
	if h.wantNoText && src.texts.ReadBytes() == 0 {
		t.Errorf("%s: no text was read again", h.name)
	}
	return got
}

// newList lists the sessions of paths as the program does, through an
// index, here one without a cache.
func newList(t *testing.T, paths []string, opt app.Options) *Service {
	t.Helper()
	ix, err := index.Open(index.Options{Prices: opt.Prices, Read: opt.Read, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	return NewIndexed(paths, app.Env{}, opt, ix)
}

// policyKey tells apart the re-tunings of one preset.
func policyKey(p policy.Policy) string {
	return fmt.Sprintf("%s ceiling %d %v dedupe %v", p.Name, p.Ceiling, p.Action, p.Dedupe.Enabled)
}

// TestHeldWithoutTexts: a list past its memory bound, holding its
// sessions without their results' texts and reading those again from
// their lines when a replay needs them, gives every session the savings,
// dollars, hazards and sweep points it has when held in full, and when
// read again in full for every replay: on generated Claude Code and Codex
// sessions (sub-agents and resumed copies among them) and on the real logs.
func TestHeldWithoutTexts(t *testing.T) {
	slowtest.OptIn(t, "replays a fleet under 13 policies, held three ways")
	dir := t.TempDir()
	shape := corpus.Fleet{Claude: 4, Codex: 3, MeanCalls: 24, ResultBytes: 8192, SubagentEvery: 2, ResumeEvery: 2, Projects: 2}
	if _, err := corpus.WriteFleet(dir, shape); err != nil {
		t.Fatal(err)
	}
	sets := []struct {
		name  string
		paths []string
	}{
		{"generated", []string{dir}},
	}
	if real := sharedLogs(t); len(real) > 0 {
		sets = append(sets, struct {
			name  string
			paths []string
		}{"real logs", real})
	}
	pols := retunings(t)
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			want := listFigures(t, set.paths, holdings[0], pols)
			for _, h := range holdings[1:] {
				got := listFigures(t, set.paths, h, pols)
				if d := cmp.Diff(want, got, cmpopts.EquateErrors()); d != "" {
					t.Errorf("%s (-held in full +%s):\n%s", h.name, h.name, d)
				}
			}
			acted := 0
			for _, s := range want {
				if s.Point.Saved > 0 {
					acted++
				}
			}
			if acted == 0 {
				t.Error("no policy saved anything: the comparison shows nothing")
			}
		})
	}
}

// sharedLogs are the real Claude Code and Codex logs, read in place; none
// when they are absent.
func sharedLogs(t *testing.T) []string {
	var files []string
	t.Run("shared", func(t *testing.T) {
		dir := sharedtest.Dir(t)
		for _, pattern := range []string{"claude-code_*.jsonl", "codex_*.jsonl"} {
			found, _ := filepath.Glob(filepath.Join(dir, "transcripts", pattern))
			files = append(files, found...)
		}
	})
	slices.Sort(files)
	return slices.DeleteFunc(files, func(p string) bool {
		st, err := os.Stat(p)
		return err != nil || !st.Mode().IsRegular()
	})
}

// TestHeldWithoutTextsChanged: a session held without its texts whose
// file is then replaced is read again when a replay needs one of them,
// and replays to the figures of what the file now holds, never a mix.
func TestHeldWithoutTextsChanged(t *testing.T) {
	dir := t.TempDir()
	write := func(path string, seed uint64) {
		var buf bytes.Buffer
		if _, err := corpus.WriteSession(&buf, seed, 40, 8192); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+".new", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for seed := range uint64(3) {
		path := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", seed))
		write(path, seed)
		paths = append(paths, path)
	}
	pol, _ := policy.Preset(policy.DefaultPreset)
	pol.SetCeiling(1024)
	replayAll := func(src *Service) map[string]Savings {
		got := map[string]Savings{}
		err := src.Replay(context.Background(), pol, paths, func(s Savings) {
			if s.Err != nil {
				t.Errorf("%s: %v", s.Path, s.Err)
			}
			got[s.Path] = s
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	opt := app.Options{Prices: pricing.Default(), Counter: counter}
	src := newList(t, []string{dir}, opt)
	src.Budget = &app.Budget{Lean: 1 << 40}
	if _, _, err := src.Scan(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	before := replayAll(src)
	old := src.Held(paths[0])
	if old == nil || !old.TextsOnDemand() {
		t.Fatal("the session is not held without its texts")
	}
	write(paths[0], 9) // another session under the same name, before any rescan
	got := replayAll(src)

	fresh := newList(t, []string{dir}, opt)
	if _, _, err := fresh.Scan(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	want := replayAll(fresh)
	if d := cmp.Diff(want[paths[0]], got[paths[0]], cmpopts.EquateErrors()); d != "" {
		t.Errorf("replaced session (-read afresh +held, then read again):\n%s", d)
	}
	if cmp.Equal(before[paths[0]], want[paths[0]], cmpopts.EquateErrors()) {
		t.Fatal("the replacement replays as the original: the test shows nothing")
	}
	if now := src.Held(paths[0]); now == old {
		t.Error("the replaced session is still held as read before")
	}
	for _, p := range paths[1:] {
		if d := cmp.Diff(before[p], got[p], cmpopts.EquateErrors()); d != "" {
			t.Errorf("%s, unchanged (-first +second replay):\n%s", p, d)
		}
	}
}

// TestFirstReplayReadsNoTextAgain: a list past its memory bound replays
// each session it reads with the texts it read it with, and holds it
// without them: the first replay reads no text again, and the next,
// cutting the results it spilled, reads them from their lines.
func TestFirstReplayReadsNoTextAgain(t *testing.T) {
	dir := t.TempDir()
	shape := corpus.Fleet{Claude: 3, Codex: 2, MeanCalls: 16, ResultBytes: 8192, SubagentEvery: 2, Projects: 1}
	if _, err := corpus.WriteFleet(dir, shape); err != nil {
		t.Fatal(err)
	}
	src := newList(t, []string{dir}, app.Options{Prices: pricing.Default(), Counter: counter})
	src.Budget = &app.Budget{Whole: 0, Lean: 1 << 40}
	ctx := context.Background()
	paths := listPaths(t, src)
	pol, _ := policy.Preset(policy.DefaultPreset)
	pol.SetCeiling(1024)
	replayAll := func() (saved int64) {
		t.Helper()
		err := src.Replay(ctx, pol, paths, func(s Savings) {
			if s.Err != nil {
				t.Errorf("%s: %v", s.Path, s.Err)
			}
			saved += s.Point.Saved
		})
		if err != nil {
			t.Fatal(err)
		}
		return saved
	}
	first := replayAll()
	if first == 0 {
		t.Fatal("the policy saved nothing: no text was needed")
	}
	if n := src.texts.ReadBytes(); n != 0 {
		t.Errorf("the first replay read %d bytes of lines again", n)
	}
	src.mu.Lock()
	dropped, kept := 0, 0
	for _, s := range src.held {
		for _, p := range s.Parts() {
			for _, r := range p.Session.Results() {
				switch {
				case r.Text != "":
					kept++
				case r.DroppedBytes > 0:
					dropped++
				}
			}
		}
	}
	held := len(src.onDemand)
	src.mu.Unlock()
	if held != len(paths) || kept > 0 || dropped == 0 {
		t.Errorf("%d of %d sessions held without texts, %d texts held, %d dropped", held, len(paths), kept, dropped)
	}
	if err := pol.SetSpill(false); err != nil { // cut where the spill's notice was: texts to read
		t.Fatal(err)
	}
	if replayAll() == 0 {
		t.Error("cutting saved nothing")
	}
	if src.texts.ReadBytes() == 0 {
		t.Error("cutting read no text again: the held sessions kept them")
	}
}

// TestHeldCompact: the sessions the list holds keep their calls' results
// in one array of their exact number (transcript.Options.Compact), held
// in full and held without their texts alike.
func TestHeldCompact(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpus.WriteDir(dir, corpus.Shape{Sessions: 2, Calls: 300, ResultBytes: 2048}); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) != 2 {
		t.Fatalf("logs written: %v", paths)
	}
	pol, _ := policy.Preset(policy.DefaultPreset)
	for _, budget := range []app.Budget{{Whole: 1 << 40}, {Lean: 1 << 40}} {
		src := newList(t, []string{dir}, app.Options{Prices: pricing.Default(), Counter: counter})
		src.Budget = &budget
		if _, _, err := src.Scan(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if err := src.Replay(context.Background(), pol, paths, func(Savings) {}); err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			held := src.Held(p)
			if held == nil {
				t.Fatalf("%s not held under %+v", p, budget)
			}
			var end uintptr
			for i, c := range held.Session.Calls {
				if len(c.Results) == 0 {
					continue
				}
				at := uintptr(unsafe.Pointer(unsafe.SliceData(c.Results)))
				if cap(c.Results) != len(c.Results) || end != 0 && at != end {
					t.Fatalf("%s held under %+v: call %d's results are not where the last call's ended, or have room", p, budget, i)
				}
				end = at + uintptr(len(c.Results))*unsafe.Sizeof(c.Results[0])
			}
		}
	}
}

// TestListBoundsItsMemory: a list holding sessions without their texts
// asks for a limit on the memory in use, past what the heap holds live
// by the pace's headroom and listSlack, kept as the heap grows: a pace
// alone let the 2 GB fleet's list hold 0.35 GB of freed pages.
func TestListBoundsItsMemory(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpus.WriteDir(dir, corpus.Shape{Sessions: 2, Calls: 300, ResultBytes: 2048}); err != nil {
		t.Fatal(err)
	}
	src := newList(t, []string{dir}, app.Options{Prices: pricing.Default(), Counter: counter})
	src.Budget = &app.Budget{Lean: 1 << 40}
	if _, _, err := src.Scan(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	pol, _ := policy.Preset(policy.DefaultPreset)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err := src.Replay(context.Background(), pol, paths, func(Savings) {}); err != nil {
		t.Fatal(err)
	}
	if src.Held(paths[0]) == nil || !src.Held(paths[0]).TextsOnDemand() {
		t.Fatal("the list holds no session without its texts")
	}
	held := make([]byte, 64<<20) // the heap grows after the scan
	for tries := 0; ; tries++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		live := memory.Live()
		_, limit := memory.Now()
		// At least a quarter of live past it, at most all of it.
		if limit >= live*5/4+listSlack && limit <= 2*live+listSlack {
			break
		}
		if tries == 20 {
			t.Fatalf("limit %d with %d live: want between %d and %d", limit, live, live*5/4+listSlack, 2*live+listSlack)
		}
	}
	runtime.KeepAlive(held)
}

// keysAhead are the policies the list's repeat and spill keys lead to
// from p, as the list computes them ahead (Service.Ahead).
func keysAhead(p policy.Policy) []policy.Policy {
	dedupe := func(p policy.Policy) (policy.Policy, error) {
		p = p.Clone()
		from := 0
		if !p.Dedupe.Enabled {
			from = max(2, p.Dedupe.From)
		}
		return p, p.SetDedupe(from)
	}
	spill := func(p policy.Policy) (policy.Policy, error) {
		p = p.Clone()
		return p, p.SetSpill(p.Action != policy.Spill)
	}
	var out []policy.Policy
	if q, err := dedupe(p); err == nil {
		out = append(out, q)
	}
	if q, err := spill(p); err == nil {
		out = append(out, q)
		if q, err := dedupe(q); err == nil {
			out = append(out, q)
		}
	}
	return out
}

// TestComputedAhead: a list that holds none of its sessions computes,
// while it reads each for a replay, its chart, and as it reads each again
// for the hazards, the chart and the totals and charts of the policies a
// key away, hazards and all, and keeps them; each is what a list holding
// the sessions gives when asked for it, and a list reopened takes them
// from its cache, reading no log.
func TestComputedAhead(t *testing.T) {
	dir := t.TempDir()
	shape := corpus.Fleet{Claude: 4, Codex: 3, MeanCalls: 24, ResultBytes: 8192, SubagentEvery: 2, ResumeEvery: 2, Projects: 2}
	if _, err := corpus.WriteFleet(dir, shape); err != nil {
		t.Fatal(err)
	}
	paths := append([]string{dir}, sharedLogs(t)...)
	opt := app.Options{Prices: pricing.Default(), Counter: counter}
	ctx := context.Background()
	pols := retunings(t)
	tried := []policy.Policy{pols[0], pols[2], pols[3], pols[len(pols)-1]}
	if testing.Short() {
		tried = []policy.Policy{pols[0], pols[len(pols)-1]} // under the race detector: 14 s with all four
	}
	for _, pol := range tried {
		cacheDir := t.TempDir()
		open := func() (*Service, *index.Index) {
			ix, err := index.Open(index.Options{Prices: opt.Prices, CacheDir: cacheDir})
			if err != nil {
				t.Fatal(err)
			}
			src := NewIndexed(paths, app.Env{}, opt, ix)
			src.Budget = &app.Budget{}
			src.Ahead = keysAhead
			return src, ix
		}
		ahead, ix := open()
		listed := listPaths(t, ahead)
		// Its replay leaves every session's hazards for later, so that the
		// list reads it again for them and computes the rest ahead.
		if err := ahead.Replay(ctx, pol, listed, func(s Savings) {
			if s.Err != nil || !s.Point.HazardsLater {
				t.Errorf("%s: %s: %v, hazards left for later %v", pol.Name, s.Path, s.Err, s.Point.HazardsLater)
			}
		}); err != nil {
			t.Fatal(err)
		}
		// Read again, they count none of their results again.
		counted := ahead.results.Len()
		if counted == 0 {
			t.Errorf("%s: no result's count kept for the second reading", pol.Name)
		}
		if err := ahead.Hazards(ctx, pol, listed, func(s Savings) {
			if s.Err != nil || s.Point.HazardsLater {
				t.Errorf("%s: %s: %v, hazards left for later %v", pol.Name, s.Path, s.Err, s.Point.HazardsLater)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if n := ahead.results.Len(); n != counted {
			t.Errorf("%s: read again for their hazards, the sessions counted %d results' texts again", pol.Name, n-counted)
		}
		ahead.mu.Lock()
		if n := len(ahead.held); n > 0 {
			t.Errorf("%s: a list holding nothing held %d sessions", pol.Name, n)
		}
		ahead.mu.Unlock()
		held := newList(t, paths, opt)
		held.Budget = &app.Budget{Whole: 1 << 40}
		if _, _, err := held.Scan(ctx, nil); err != nil {
			t.Fatal(err)
		}
		acted := 0
		for _, q := range append([]policy.Policy{pol}, keysAhead(pol)...) {
			others := chartOthers(q)
			for _, ceilings := range [][]int64{nil, others} {
				want := map[string]Savings{}
				keep := func(s Savings) {
					if s.Err != nil {
						t.Errorf("%s: %s: %v", q.Name, s.Path, s.Err)
					}
					want[s.Path] = s
				}
				// Its hazards first, so that the sweep finds them too.
				if err := held.Hazards(ctx, q, listed, keep); err != nil {
					t.Fatal(err)
				}
				if ceilings != nil {
					clear(want)
					if err := held.Sweep(ctx, q, listed, ceilings, keep); err != nil {
						t.Fatal(err)
					}
				}
				got := map[string]Savings{}
				rest := ahead.Remembered(ctx, q, listed, ceilings, func(s Savings) { got[s.Path] = s })
				if len(rest) > 0 {
					t.Errorf("%s, ceilings %v: %d of %d sessions not computed ahead", q.Name, ceilings, len(rest), len(listed))
				}
				if d := cmp.Diff(want, got, cmpopts.EquateErrors()); d != "" {
					t.Errorf("%s, ceilings %v (-held +computed ahead):\n%s", q.Name, ceilings, d)
				}
				for _, s := range got {
					if s.Point.Saved > 0 || slices.ContainsFunc(s.Points, func(p replay.SweepPoint) bool { return p.Saved > 0 }) {
						acted++
					}
				}
			}
		}
		if acted == 0 {
			t.Errorf("%s: no policy saved anything: the comparison shows nothing", pol.Name)
		}
		if err := ix.Flush(); err != nil {
			t.Fatal(err)
		}
		reopened, _ := open()
		listPaths(t, reopened)
		for _, q := range append([]policy.Policy{pol}, keysAhead(pol)...) {
			for _, ceilings := range [][]int64{nil, chartOthers(q)} {
				if rest := reopened.Remembered(ctx, q, listed, ceilings, func(Savings) {}); len(rest) > 0 {
					t.Errorf("reopened, %s, ceilings %v: %d of %d sessions not in the cache", q.Name, ceilings, len(rest), len(listed))
				}
			}
		}
	}
}
