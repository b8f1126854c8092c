package replay

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/slowtest"
	"github.com/spillway-dev/spillway/transcript"
)

// heldTexts gives the texts of a session read in full to the same session
// read without them, and counts what was asked.
type heldTexts struct {
	texts map[string]string // by line and call id
	asked atomic.Int64
}

func (h *heldTexts) Text(r *transcript.ToolResult) (string, error) {
	h.asked.Add(1)
	t, ok := h.texts[fmt.Sprint(r.Line, r.CallID)]
	if !ok {
		return "", fmt.Errorf("no text for line %d", r.Line)
	}
	return t, nil
}

// TestTextsOnDemand: a session read without its results' texts, given
// them when asked, replays under every preset at every sweep ceiling as
// the session read in full does: the same outcomes, reasons, sizes,
// tokens, replacement texts, hazards and costs.
func TestTextsOnDemand(t *testing.T) {
	slowtest.OptIn(t, "replays 1,500 results under every preset at every sweep ceiling, two ways")
	var buf bytes.Buffer
	if err := corpus.WriteMixed(&buf, 7, 1500); err != nil {
		t.Fatal(err)
	}
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"mixed": buf.Bytes(), "demo": demo} {
		t.Run(name, func(t *testing.T) {
			full, err := transcript.Read(bytes.NewReader(data), name+".jsonl", transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dropped, err := transcript.Read(bytes.NewReader(data), name+".jsonl", transcript.Options{DropResultTexts: true})
			if err != nil {
				t.Fatal(err)
			}
			src := &heldTexts{texts: map[string]string{}}
			for _, r := range full.Results() {
				src.texts[fmt.Sprint(r.Line, r.CallID)] = r.Text
			}
			for _, r := range dropped.Results() {
				if r.Text != "" {
					t.Fatalf("line %d: the result's text was kept", r.Line)
				}
			}
			held, err := Prepare(context.Background(), full, tokens.NewCache(c), pricing.Default(), nil)
			if err != nil {
				t.Fatal(err)
			}
			asked, err := PrepareTexts(context.Background(), dropped, tokens.NewCache(c), pricing.Default(), nil, src)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(held.Calibration, asked.Calibration); d != "" {
				t.Errorf("calibration (-held +on demand):\n%s", d)
			}
			counted := src.asked.Load()
			if counted == 0 {
				t.Fatal("no text was asked for")
			}
			type figures struct {
				Outcome                         Outcome
				Reason, Locator, Text, Warning  string
				Size, Bytes, BytesAfter, Tokens int64
				TokensAfter, Saved              int64
				RepeatOf                        int
				Stale                           bool
				Hazard                          *Hazard
				CarryCost                       float64
			}
			of := func(rp *Run) []figures {
				out := make([]figures, len(rp.Results))
				for i, r := range rp.Results {
					text := r.Text
					if r.Outcome == Kept || r.Outcome == Excluded {
						text = rp.Prepared.Text(r.Source)
					}
					out[i] = figures{r.Outcome, r.Reason, r.Locator, text, r.Warning, r.Size, r.Bytes, r.BytesAfter, r.Tokens,
						r.TokensAfter, r.Saved, r.RepeatOf, r.Stale, r.Hazard, r.CarryCost}
				}
				return out
			}
			for _, pol := range policy.Presets() {
				for _, ceiling := range append([]int64{pol.Ceiling}, SweepCeilings(pol)...) {
					q := pol.Clone()
					if ceiling > 0 {
						q.SetCeiling(ceiling)
					}
					want, err := held.Replay(q, Options{})
					if err != nil {
						t.Fatal(err)
					}
					got, err := asked.Replay(q, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(of(want), of(got)); d != "" {
						t.Fatalf("%s at %d: results (-held +on demand):\n%s", q.Name, ceiling, d)
					}
					if d := cmp.Diff(want.Totals, got.Totals); d != "" {
						t.Fatalf("%s at %d: totals (-held +on demand):\n%s", q.Name, ceiling, d)
					}
					if d := cmp.Diff(want.Warnings, got.Warnings); d != "" {
						t.Fatalf("%s at %d: warnings (-held +on demand):\n%s", q.Name, ceiling, d)
					}
				}
			}
			if asked.TextErr() != nil {
				t.Fatal(asked.TextErr())
			}
			t.Logf("%d results: %d texts read to count them, %d more by all the replays", len(asked.items), counted, src.asked.Load()-counted)
		})
	}
}
