package replay

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestPriceRecorded: every call priced as recorded without preparing the
// results has the cost, usage and savings a replay that changes nothing
// gives it, and the calls' totals are that replay's, on the fixtures of
// every format (sidechains, compactions, copies counted elsewhere,
// advisor usage, unpriced models), a generated mixed session and the
// real transcripts.
func TestPriceRecorded(t *testing.T) {
	var mixed bytes.Buffer
	if err := corpus.WriteMixed(&mixed, 3, 400); err != nil {
		t.Fatal(err)
	}
	sessions := map[string]*transcript.Session{}
	s, err := transcript.Read(&mixed, "mixed.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sessions["mixed"] = s
	var files []string
	for _, glob := range []string{"*.jsonl", "transcripts/*.jsonl", "claude/*.jsonl"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "testdata", glob))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	family, err := filepath.Glob(filepath.Join("..", "..", "testdata", "codex", "family", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var read []*transcript.Session
	for _, f := range append(files, family...) {
		s, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sessions[f] = s
		read = append(read, s)
	}
	transcript.Reconcile(read[len(files):]) // the family's copies counted in its parent
	copies := 0
	for name, s := range sessions {
		for _, c := range s.Calls {
			if c.CountedIn != "" {
				copies++
			}
		}
		samePrices(t, name, s)
	}
	if copies == 0 {
		t.Error("no call of the fixtures is a copy counted in another session")
	}
	t.Run("real", func(t *testing.T) {
		for _, f := range sharedtest.Transcripts(t, "*.jsonl") {
			s, err := transcript.ReadFile(f, transcript.Options{SizesOnly: true})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			samePrices(t, filepath.Base(f), s)
		}
	})
}

// samePrices compares s's calls priced as recorded with a replay of s that
// changes nothing.
func samePrices(t *testing.T, name string, s *transcript.Session) {
	t.Helper()
	pol, err := policy.Preset(policy.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	pol.Ceiling, pol.PerTool, pol.Dedupe.Enabled = 0, nil, false
	p, err := Prepare(context.Background(), s, nil, pricing.Default(), nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want, err := p.Replay(pol, Options{NoHazards: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := PriceRecorded(s, pricing.Default())
	if d := cmp.Diff(want.Calls, got.Calls); d != "" {
		t.Errorf("%s: calls (-replay +priced as recorded):\n%s", name, d)
	}
	calls := func(t Totals) Totals {
		return Totals{SavedPerCall: t.SavedPerCall, Prompt: t.Prompt, PromptAfter: t.PromptAfter,
			Cost: t.Cost, CostAfter: t.CostAfter, RecordedCalls: t.RecordedCalls}
	}
	if d := cmp.Diff(calls(want.Totals), got.Totals); d != "" {
		t.Errorf("%s: totals (-replay +priced as recorded):\n%s", name, d)
	}
}

// TestPricedInChunks: a session long enough to be priced on several CPUs
// at once has every call's recorded cost and every result's carry cost
// as priced on one.
func TestPricedInChunks(t *testing.T) {
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 11, 2*chunkCalls+1, 64); err != nil {
		t.Fatal(err)
	}
	s, err := transcript.Read(&buf, "long.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls) < 2*chunkCalls+1 {
		t.Fatalf("%d calls: too few to be priced in chunks", len(s.Calls))
	}
	type priced struct {
		Costs []*float64
		Carry []float64
		N     []int
	}
	on := func(cpus int) priced {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cpus))
		p, err := Prepare(context.Background(), s, words{}, pricing.Default(), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := priced{Costs: p.costs}
		for i := range p.items {
			it := &p.items[i]
			out.Carry, out.N = append(out.Carry, it.carry), append(out.N, int(it.carryN))
		}
		return out
	}
	one, two := on(1), on(2)
	if d := cmp.Diff(one, two); d != "" {
		t.Errorf("priced on 2 CPUs (-1 CPU +2 CPUs):\n%s", d)
	}
	carried := 0
	for _, n := range one.N {
		carried += n
	}
	if carried == 0 {
		t.Error("no result is carried by any call")
	}
}
