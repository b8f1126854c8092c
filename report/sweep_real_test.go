package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// totalsWriter sums what report gives of each session (its sub-agents'
// included) as a sweep point: Render runs on the pipeline's goroutines,
// Write in order.
type totalsWriter struct{ sum replay.SweepPoint }

func (w *totalsWriter) Begin() error { return nil }
func (w *totalsWriter) Render(s *Session) ([]byte, error) {
	t, h := &s.Totals, s.Totals.Hazards
	var saved int64
	if t.SavedTokens != nil {
		saved = *t.SavedTokens
	}
	return json.Marshal(replay.SweepPoint{Acted: t.Actions["truncate"] + t.Actions["spill"], Suppressed: t.Actions["suppress"],
		Saved: saved, Hazards: replay.SweepHazards{UsedHidden: h.UsedHidden, Retrievable: h.Retrievable, SuppressedUnseen: h.SuppressedUnseen, Stale: h.Stale}})
}
func (w *totalsWriter) Write(data []byte) error {
	var pt replay.SweepPoint
	if err := json.Unmarshal(data, &pt); err != nil {
		return err
	}
	w.sum.Acted += pt.Acted
	w.sum.Suppressed += pt.Suppressed
	w.sum.Saved += pt.Saved
	w.sum.Hazards.Add(pt.Hazards)
	return nil
}
func (w *totalsWriter) End() error { return nil }

// TestSweepMatchesReport: every row of sweep is what report gives at that
// ceiling, over every shared log: the results shaped, the repeats
// suppressed, the tokens saved and every hazard count. A sweep replays for
// the figures alone and lets the replacement texts go; the hazards it
// finds must not depend on that.
func TestSweepMatchesReport(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every shared log at ten ceilings under two policies (-short)")
	}
	logs := filepath.Join(sharedtest.Dir(t), "transcripts")
	// claude-code follows each session's version: its own ceiling is each
	// version's rules, any other the latest's at that ceiling.
	for _, name := range []string{"harness-rs-0.0.50", "codex", "claude-code"} {
		pol, err := policy.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase), SpillRoot: t.TempDir()}
		sw, _, err := Sweep([]string{logs}, nil, opt, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for _, pt := range sw.Points {
			t.Run(fmt.Sprintf("%s@%d", name, pt.Ceiling), func(t *testing.T) {
				at := opt
				at.Policy = pol.Clone()
				at.Policy.SetCeiling(pt.Ceiling)
				var w totalsWriter
				if _, err := Generate([]string{logs}, nil, at, &w, io.Discard); err != nil {
					t.Fatal(err)
				}
				got := w.sum
				got.Ceiling, got.Own, got.Cost, got.CostAfter = pt.Ceiling, pt.Own, pt.Cost, pt.CostAfter
				if diff := cmp.Diff(pt, got); diff != "" {
					t.Errorf("sweep (-) against report (+):\n%s", diff)
				}
			})
		}
	}
}

// TestSweepDedupeReal pins the repeat-suppression sweep over every shared
// log under harness-rs-0.0.50: harness-rs's rule never fires, each of the
// 22 calls that repeat an earlier one coming after a call that is not
// read-only; nor does Claude Code's Read stub (2.1.86 to 2.1.316), where
// the agent's own write of a file is no read of it, as every version run
// showed: each of its 11 repeated Reads came after a write of the file.
func TestSweepDedupeReal(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every shared log seven times (-short)")
	}
	pol, _ := policy.Preset("harness-rs-0.0.50")
	opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}
	doc, _, err := SweepDedupe([]string{filepath.Join(sharedtest.Dir(t), "transcripts")}, nil, opt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	type rule struct {
		name               string
		identical, cleared int
		fired, afterWrite  [2]int
		saved              [2]int64
	}
	want := []rule{
		{"harness-rs", 22, 22, [2]int{0, 0}, [2]int{0, 0}, [2]int64{0, 0}},
		{"claude-code-2.1.86", 11, 11, [2]int{0, 0}, [2]int{0, 0}, [2]int64{0, 0}},
	}
	var got []rule
	for _, r := range doc.Rules {
		g := rule{name: r.Name, identical: r.Identical, cleared: r.Cleared}
		for i, pt := range r.Points {
			g.fired[i], g.afterWrite[i], g.saved[i] = pt.Suppressed, pt.AfterWrite, pt.Saved-doc.Alone.Saved
		}
		got = append(got, g)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(rule{})); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	var text bytes.Buffer
	if err := doc.Write(&text, "text", 1000); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"harness-rs: the same read-only call with the same arguments, forgotten at any call that is not read-only. " +
			"22 calls repeated an earlier one it takes for the same, each after a call that clears what it remembers: it never fired.\n",
		"claude-code-2.1.86: a Read of the same file and range, its result unchanged, forgotten when the file is written. " +
			"11 calls repeated an earlier one it takes for the same, each after a call that clears what it remembers: it never fired.\n",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text lacks %q:\n%s", line, text.String())
		}
	}
}
