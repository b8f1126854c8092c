package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestHazardsRealLogs replays every real log under every preset and checks
// what each hazard claims: its string lies in the result's original text
// where it says, outside the result's Seen ranges and in no part of
// what the model saw of it, and in the output of a later call. SPILLWAY_HAZARDS=FILE writes every hazard
// to FILE, to judge them by hand.
func TestHazardsRealLogs(t *testing.T) {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var dump strings.Builder
	for _, path := range sharedtest.Transcripts(t, "*.jsonl") {
		s, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil)
		if err != nil {
			t.Fatal(err)
		}
		pols := policy.Presets()
		for _, kib := range []int64{8, 4} {
			q, _ := policy.Preset("harness-rs-0.0.40")
			q.Name = fmt.Sprintf("%s@%dKiB", q.Name, kib)
			q.SetCeiling(kib * 1024)
			pols = append(pols, q)
		}
		for _, pol := range pols {
			rp, err := p.Replay(pol, Options{})
			if err != nil {
				t.Fatal(err)
			}
			h := &hazardPass{rp: rp, ix: p.hazardIndex()}
			for i := range rp.Results {
				r := &rp.Results[i]
				if pol.Style == harness.HarnessRS && (r.Outcome == Truncated || r.Outcome == Spilled && strings.HasSuffix(r.Locator, ".txt")) {
					// The head the hazard pass works out is Seen's.
					seen := rp.Seen(r)
					h.visible(i, "\x00", occ{int32(i), 0, 0}, true)
					if got := h.ends[i].head; len(seen) == 0 || int64(got) != seen[0].To {
						t.Errorf("%s %s result %d: head %d, Seen %v", path, pol.Name, i, got, seen)
					}
				}
				z := r.Hazard
				if z == nil {
					continue
				}
				context := ""
				if z.MatchFrom >= 0 {
					context = excerpt(r.Source.Text, z.MatchFrom, z.MatchTo)
				}
				fmt.Fprintf(&dump, "%s\t%s\tr%d\t%s\t%s\t%s\tcall %d -> %d\t%s\t%q\t%q\t%q\t%q\n", filepath.Base(path), pol.Name, i,
					r.Source.Tool, r.Outcome, z.Kind, r.Arrival, z.CallIndex, z.From, z.Match, z.Evidence, context, excerpt(string(r.Source.Input), 0, 0))
				if z.MatchFrom < 0 {
					continue
				}
				if z.Kind == UsedHidden && r.Outcome != Suppressed && strings.Contains(r.Text, z.Match) {
					t.Errorf("%s %s result %d: %q is in what the model saw", path, pol.Name, i, z.Match)
				}
				for _, sr := range rp.Seen(r) {
					if int64(z.MatchFrom) >= sr.From && int64(z.MatchTo) <= sr.To {
						t.Errorf("%s %s result %d: %q lies in the seen range %v", path, pol.Name, i, z.Match, sr)
					}
				}
				if z.CallIndex <= r.Arrival {
					t.Errorf("%s %s result %d: evidence at call %d, before the result came back after call %d", path, pol.Name, i, z.CallIndex, r.Arrival)
				}
			}
		}
	}
	if out := os.Getenv("SPILLWAY_HAZARDS"); out != "" {
		if err := os.WriteFile(out, []byte(dump.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWellKnownRealLogs pins the flags that strings every program of the
// platform holds gave on the shared logs, each read by hand and false:
// under harness-rs-0.0.40 at 1 and 2 KiB the Antigravity log's view of an
// SVG (result 51) flagged by the new SVG the agent wrote with a
// linearGradient of its own, and two views of files the agent had written
// itself (the logger cut its writes) flagged by the CSS property names
// maskComposite (143) and backgroundClip (193). A standard name is no
// evidence; the other hazards of those sessions stand, some now shown by
// another string (requestAnimationFrame gave way to a translate3d run the
// agent's edit quotes).
func TestWellKnownRealLogs(t *testing.T) {
	checkHazardsReal(t, []hazardReal{
		{"antigravity_*.jsonl", 2048, 51, ""},
		{"antigravity_*.jsonl", 2048, 143, ""},
		{"antigravity_*.jsonl", 1024, 193, ""},
		{"antigravity_*.jsonl", 1024, 451, "translate3d(${-offsetRef.current}px, 0, 0)"},
	})
}

// hazardReal is a result of a shared log replayed under harness-rs-0.0.40
// at a ceiling, and the string its hazard's evidence must be ("": none).
type hazardReal struct {
	pattern string
	ceiling int64
	result  int
	match   string
}

func checkHazardsReal(t *testing.T, cases []hazardReal) {
	t.Helper()
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	preps := map[string]*Prepared{}
	for _, tt := range cases {
		p := preps[tt.pattern]
		if p == nil {
			s, err := transcript.ReadFile(sharedtest.Transcripts(t, tt.pattern)[0], transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if p, err = Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil); err != nil {
				t.Fatal(err)
			}
			preps[tt.pattern] = p
		}
		pol, _ := policy.Preset("harness-rs-0.0.40")
		pol.SetCeiling(tt.ceiling)
		rp, err := p.Replay(pol, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if z := rp.Results[tt.result].Hazard; z != nil {
			got = z.Match
		}
		if got != tt.match {
			t.Errorf("%s at %d: result %d's hazard is shown by %q, want %q", tt.pattern, tt.ceiling, tt.result, got, tt.match)
		}
	}
}

// TestBoilerplateRealLogs pins the flags that runs made of keywords and
// everyday names gave on the shared logs, each read by hand and false:
// under harness-rs-0.0.40 the Antigravity log's view of an API route
// (result 499, at 1 and 2 KiB) flagged by a new route the agent wrote with
// the TypeScript idiom "error instanceof Error ? error.message :", and
// will-it-rain's Read of its forecast module (75, at 1 KiB) flagged by a
// run that joins two lines the agent had written itself (calls 22 and
// 60). The view of another route (653) keeps its hazard, shown by the
// project's own name.
func TestBoilerplateRealLogs(t *testing.T) {
	checkHazardsReal(t, []hazardReal{
		{"antigravity_*.jsonl", 2048, 499, ""},
		{"antigravity_*.jsonl", 2048, 653, "transferSOLTool"},
		{"claude-code_will-it-rain_*.jsonl", 1024, 75, ""},
	})
}
