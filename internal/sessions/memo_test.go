package sessions

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/index"
)

// TestSavingsCodec: every field of a session's figures comes back from
// the index as it went in, but its path and error, which are not kept.
func TestSavingsCodec(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	pt := func(k int64) replay.SweepPoint {
		return replay.SweepPoint{Ceiling: k, Own: true, Acted: int(k) + 1, Suppressed: int(k) + 2, Saved: k + 3,
			Cost: f(float64(k) + 0.1), CostAfter: f(float64(k) + 0.2),
			Hazards: replay.SweepHazards{UsedHidden: 1, Retrievable: 2, SuppressedUnseen: 3, Stale: 4}, HazardsLater: true}
	}
	in := Savings{Point: pt(10), Points: []replay.SweepPoint{pt(2048), pt(4096)}}
	// A field added to the figures and not to the codec fails here.
	for _, v := range []any{in, in.Point, in.Point.Hazards} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if name := rv.Type().Field(i).Name; name != "Path" && name != "Err" && rv.Field(i).IsZero() {
				t.Fatalf("%T.%s is zero in the sample: the test would not see it lost", v, name)
			}
		}
	}
	out, err := decodeSavings(encodeSavings(in))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, out); d != "" {
		t.Errorf("(-kept +taken):\n%s", d)
	}
	b := encodeSavings(in)
	for n := range len(b) {
		if _, err := decodeSavings(b[:n]); err == nil {
			t.Errorf("a memo cut to %d of %d bytes was taken", n, len(b))
		}
	}
	if _, err := decodeSavings(append(b, 0)); err == nil {
		t.Error("a memo with a byte after it was taken")
	}
}

// TestReopenedFromMemo: a list reopened over the same logs takes every
// session's totals and chart under the policy it was last replayed under
// from the index's cache, reading no log, and they are what replaying
// gives; a new policy, a log written since, or a session it shares
// responses with written since, reads the session again.
func TestReopenedFromMemo(t *testing.T) {
	dir := t.TempDir()
	shape := corpus.Fleet{Claude: 5, Codex: 2, MeanCalls: 20, ResultBytes: 8192, SubagentEvery: 2, ResumeEvery: 2, Projects: 2}
	if _, err := corpus.WriteFleet(dir, shape); err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	opt := app.Options{Prices: pricing.Default(), Counter: counter}
	pol, _ := policy.Preset(policy.DefaultPreset)
	pol.SetCeiling(2048)
	ceilings := replay.SweepCeilings(pol)
	ctx := context.Background()
	open := func(noCache bool) (*Service, *index.Index, []string) {
		return openIndexed(t, dir, cacheDir, opt, noCache)
	}
	figures := func(src *Service, pol policy.Policy, paths []string) map[string]Savings {
		return figuresOf(t, src, pol, paths, ceilings)
	}
	read := func(src *Service) []string {
		src.mu.Lock()
		defer src.mu.Unlock()
		return slices.Sorted(func(yield func(string) bool) {
			for p := range src.held {
				if !yield(p) {
					return
				}
			}
		})
	}
	same := func(what string, want, got map[string]Savings) {
		t.Helper()
		if d := cmp.Diff(want, got, cmpopts.EquateErrors(), laterAlike); d != "" {
			t.Errorf("%s (-replayed +reopened):\n%s", what, d)
		}
	}

	// fromMemo are the sessions of paths whose figures under pol src
	// takes from the cache.
	fromMemo := func(src *Service, pol policy.Policy, paths []string) []string {
		var out []string
		src.remembered(ctx, memoReplay, src.memoKeys(pol, nil, paths), paths, func(s Savings) { out = append(out, s.Path) })
		slices.Sort(out)
		return out
	}

	first, ix, paths := open(false)
	want := figures(first, pol, paths)
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	reopened, _, _ := open(false)
	if got := fromMemo(reopened, pol, paths); !slices.Equal(got, paths) {
		t.Errorf("reopened, %d of %d sessions' figures are taken from the cache", len(got), len(paths))
	}
	if r := read(reopened); len(r) > 0 {
		t.Errorf("reopened, %d sessions were read: %v", len(r), r)
	}
	same("reopened", want, figures(reopened, pol, paths))
	// Then read in the background, so that the next policy only replays.
	reopened.warming.Wait()
	if r := read(reopened); len(r) != len(paths) {
		t.Errorf("reopened, %d of %d sessions were read in the background", len(r), len(paths))
	}

	other := pol.Clone()
	other.SetCeiling(4096)
	if got := fromMemo(reopened, other, paths); len(got) > 0 {
		t.Errorf("under another ceiling, %d sessions' figures are taken from the cache", len(got))
	}
	fresh, _, _ := open(true)
	same("another ceiling", figures(fresh, other, paths), figures(reopened, other, paths))

	// A log written since, and a session that shares responses with
	// another: each is read again, with the sessions it shares them with.
	reopened.warming.Wait()
	first, ix, _ = open(false)
	figures(first, pol, paths)
	var changed string
	var peers []string
	first.mu.Lock()
	for _, p := range paths {
		if g := first.seen[p].groups; len(g) > 0 && changed == "" {
			changed = p
			for q, sc := range first.seen {
				if q != p && slices.ContainsFunc(sc.groups, func(x uint64) bool { return slices.Contains(g, x) }) {
					peers = append(peers, q)
				}
			}
		}
	}
	first.mu.Unlock()
	if changed == "" || len(peers) == 0 {
		t.Fatal("no session shares a response with another: the test shows nothing")
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(changed)
	if err != nil {
		t.Fatal(err)
	}
	lines := slices.DeleteFunc(slices.Collect(func(yield func([]byte) bool) {
		for len(data) > 0 {
			i := max(0, slices.Index(data, '\n')) + 1
			if !yield(data[:i]) {
				return
			}
			data = data[i:]
		}
	}), func(l []byte) bool { return len(l) == 0 })
	cut := filepath.Join(t.TempDir(), "cut")
	if err := os.WriteFile(cut, slices.Concat(lines[:len(lines)-2]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(cut, changed); err != nil {
		t.Fatal(err)
	}
	reopened, _, _ = open(false)
	kept := fromMemo(reopened, pol, paths)
	for _, p := range append(peers, changed) {
		if slices.Contains(kept, p) {
			t.Errorf("%s is taken from the cache after %s changed", p, changed)
		}
	}
	if len(kept) == 0 {
		t.Error("no session is taken from the cache after one changed")
	}
	fresh, _, _ = open(true)
	same("after a log changed", figures(fresh, pol, paths), figures(reopened, pol, paths))
	reopened.warming.Wait()
}

// TestReopenedThenRetuned: a list reopened from the cache reads its
// sessions in the background as a cold list reads them, its chart
// included, so that a new repeat setting (which keeps every spill) and
// its chart read no text again, held without their texts, and give what
// a list with no cache gives.
func TestReopenedThenRetuned(t *testing.T) {
	dir := t.TempDir()
	shape := corpus.Fleet{Claude: 3, Codex: 2, MeanCalls: 20, ResultBytes: 8192, SubagentEvery: 2, Projects: 1}
	if _, err := corpus.WriteFleet(dir, shape); err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	opt := app.Options{Prices: pricing.Default(), Counter: counter}
	pol, _ := policy.Preset(policy.DefaultPreset)
	dedupe := pol.Clone()
	if err := dedupe.SetDedupe(2); err != nil {
		t.Fatal(err)
	}
	open := func(noCache bool) (*Service, *index.Index, []string) {
		src, ix, paths := openIndexed(t, dir, cacheDir, opt, noCache)
		src.Budget = &app.Budget{Lean: 1 << 40}
		return src, ix, paths
	}
	figures := func(src *Service, pol policy.Policy, paths []string) map[string]Savings {
		return figuresOf(t, src, pol, paths, chartOthers(pol))
	}
	first, ix, paths := open(false)
	figures(first, pol, paths)
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	reopened, _, _ := open(false)
	figures(reopened, pol, paths)
	reopened.warming.Wait()
	readBefore := reopened.texts.ReadBytes()
	got := figures(reopened, dedupe, paths)
	if n := reopened.texts.ReadBytes() - readBefore; n > 0 {
		t.Errorf("retuned after the background reading: %d bytes of lines read again", n)
	}
	fresh, _, _ := open(true)
	if d := cmp.Diff(figures(fresh, dedupe, paths), got, cmpopts.EquateErrors(), laterAlike); d != "" {
		t.Errorf("(-no cache +reopened):\n%s", d)
	}
	if fresh.texts.ReadBytes() == 0 {
		t.Error("a list with no cache read no text again: the test shows nothing")
	}
}

// openIndexed lists the logs of dir through an index over cacheDir, or
// with no cache, and returns their paths sorted.
func openIndexed(t *testing.T, dir, cacheDir string, opt app.Options, noCache bool) (*Service, *index.Index, []string) {
	t.Helper()
	ix, err := index.Open(index.Options{Prices: opt.Prices, CacheDir: cacheDir, NoCache: noCache})
	if err != nil {
		t.Fatal(err)
	}
	src := NewIndexed([]string{dir}, app.Env{}, opt, ix)
	paths := listPaths(t, src)
	slices.Sort(paths)
	return src, ix, paths
}

// laterAlike compares two chart points without their hazards where
// either left them for later (replay.Options.HazardsLater): a list
// reopened from the cache builds its sessions' hazard indexes in the
// background, from the texts as read, and its points have them, where a
// list read afresh looks for a point's hazards once its ceiling is in
// force (Hazards).
var laterAlike = cmp.FilterValues(func(a, b replay.SweepPoint) bool { return a.HazardsLater || b.HazardsLater },
	cmp.Comparer(func(a, b replay.SweepPoint) bool {
		a.Hazards, a.HazardsLater = replay.SweepHazards{}, false
		b.Hazards, b.HazardsLater = replay.SweepHazards{}, false
		return cmp.Equal(a, b)
	}))

// figuresOf is every session's figures under pol: its replay's, with the
// points of its sweep at ceilings.
func figuresOf(t *testing.T, src *Service, pol policy.Policy, paths []string, ceilings []int64) map[string]Savings {
	t.Helper()
	ctx := context.Background()
	got := map[string]Savings{}
	add := func(s Savings) {
		if s.Err != nil {
			t.Fatalf("%s: %v", s.Path, s.Err)
		}
		if s.Points != nil {
			g := got[s.Path]
			g.Points = s.Points
			got[s.Path] = g
			return
		}
		s.Points = got[s.Path].Points
		got[s.Path] = s
	}
	if err := src.Replay(ctx, pol, paths, add); err != nil {
		t.Fatal(err)
	}
	if err := src.Sweep(ctx, pol, paths, ceilings, add); err != nil {
		t.Fatal(err)
	}
	// Then, as the list does, the hazards its replays left for later.
	var later []string
	for path, s := range got {
		if s.Point.HazardsLater {
			later = append(later, path)
		}
	}
	slices.Sort(later)
	if err := src.Hazards(ctx, pol, later, add); err != nil {
		t.Fatal(err)
	}
	return got
}
