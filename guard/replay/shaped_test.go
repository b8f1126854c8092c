package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/internal/slowtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestShapedReuseRealLogs tunes every real log as the session list does,
// one Prepared replayed under one tuning after another (every preset, repeat
// suppression and spilling toggled, every sweep ceiling up and then down,
// and the sweeps themselves), read in full and with its texts read on
// demand, and checks every result, hazard, call and total against the same
// replay by a Prepared that renders every shaped result afresh.
func TestShapedReuseRealLogs(t *testing.T) {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Every preset; repeat suppression and spilling toggled on the default
	// one, or, in the slow tests, on every one.
	slow := os.Getenv(slowtest.Env) == "1"
	var tunings []policy.Policy
	for _, pol := range policy.Presets() {
		tunings = append(tunings, pol)
		if !slow && pol.Name != policy.DefaultPreset {
			continue
		}
		q := pol.Clone()
		if q.SetDedupe(map[bool]int{true: 0, false: 2}[q.Dedupe.Enabled]) == nil {
			tunings = append(tunings, q)
		}
		q = pol.Clone()
		if q.SetSpill(q.Action != policy.Spill) == nil {
			tunings = append(tunings, q)
		}
	}
	// Each log on its own, the logs at once; the group ends when they all do.
	var reused atomic.Int64
	paths := sharedtest.Transcripts(t, "*.jsonl") // skips the test without them
	t.Run("logs", func(t *testing.T) {
		for _, path := range paths {
			name := filepath.Base(path)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				full, err := transcript.ReadFile(path, transcript.Options{})
				if err != nil {
					t.Fatal(err)
				}
				dropped, err := transcript.ReadFile(path, transcript.Options{DropResultTexts: true})
				if err != nil {
					t.Fatal(err)
				}
				src := &heldTexts{texts: map[string]string{}}
				for _, r := range full.Results() {
					src.texts[fmt.Sprint(r.Line, r.CallID)] = r.Text
				}
				for _, how := range []string{"held", "on demand"} {
					prepare := func() *Prepared {
						var p *Prepared
						var err error
						if how == "held" {
							p, err = Prepare(ctx, full, tokens.NewCache(c), pricing.Default(), nil)
						} else {
							p, err = PrepareTexts(ctx, dropped, tokens.NewCache(c), pricing.Default(), nil, src)
						}
						if err != nil {
							t.Fatal(err)
						}
						return p
					}
					got, want := prepare(), prepare()
					want.noReuse = true
					for _, pol := range tunings {
						ceilings := SweepCeilings(pol)
						down := slices.Clone(ceilings)
						slices.Reverse(down)
						afresh := map[int64]*Run{} // the same either way
						for _, ceiling := range append(ceilings, down...) {
							q := pol.Clone()
							q.SetCeiling(ceiling)
							w := afresh[ceiling]
							if w == nil {
								if w, err = want.Replay(q, Options{CountsOnly: true}); err != nil {
									t.Fatal(err)
								}
								afresh[ceiling] = w
							}
							g, err := got.Replay(q, Options{CountsOnly: true})
							if err != nil {
								t.Fatal(err)
							}
							where := fmt.Sprintf("%s (%s), %s dedupe %v action %s at %d", name, how, q.Name, q.Dedupe.Enabled, q.Action, ceiling)
							same(t, where+": results", results(t, w), results(t, g))
							same(t, where+": calls", w.Calls, g.Calls)
							same(t, where+": totals", w.Totals, g.Totals)
						}
						w, err := want.Sweep(pol, ceilings, Options{})
						if err != nil {
							t.Fatal(err)
						}
						g, err := got.Sweep(pol, ceilings, Options{})
						if err != nil {
							t.Fatal(err)
						}
						same(t, fmt.Sprintf("%s (%s), %s: sweep", name, how, pol.Name), w, g)
					}
					for i := range got.items {
						if got.items[i].shaped.Load() != nil {
							reused.Add(1)
						}
						if want.items[i].shaped.Load() != nil {
							t.Fatalf("%s: a replay rendering afresh kept a rendering", name)
						}
					}
				}
				t.Logf("%s: %d tunings in %.1f s", name, len(tunings), time.Since(start).Seconds())
			})
		}
	})
	if reused.Load() == 0 {
		t.Fatal("no rendering was kept: nothing was reused")
	}
}

// results are a run's results with their sources told apart by position
// alone (both runs replay the same session), every other field as is.
func results(t *testing.T, rp *Run) []Result {
	out := slices.Clone(rp.Results)
	for i := range out {
		if out[i].Source != rp.Prepared.items[i].r {
			t.Fatalf("result %d is not its item's", i)
		}
		out[i].Source = nil
	}
	return out
}

// same fails t, saying where, unless want and got are deeply equal; cmp
// only describes a difference, being slow to find there is none.
func same(t *testing.T, where string, want, got any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s (-afresh +reused):\n%s", where, cmp.Diff(want, got, cmp.AllowUnexported(Result{})))
	}
}
