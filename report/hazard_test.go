package report

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/transcript"
)

// wordCount counts a token per whitespace-separated word, so that a
// hazard's extra tokens can be worked out by hand.
type wordCount struct{}

func (wordCount) Count(s string) int { return len(strings.Fields(s)) }

// TestHazardReport: the connection string in the tail of a spilled result
// that a later psql call uses (testdata/hazards/tail-dsn.jsonl, worked out
// in guard/replay's TestHazardFixtures) in the JSON and the text report.
func TestHazardReport(t *testing.T) {
	s, err := transcript.ReadFile(filepath.Join("..", "testdata", "hazards", "tail-dsn.jsonl"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := policy.Preset("harness-rs-0.0.50")
	pol.SetCeiling(4096)
	prep, err := replay.Prepare(context.Background(), s, wordCount{}, pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := prep.Replay(pol, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := Build(rp)
	psql := "psql 'postgres://orders_app:Tr0ub4dor@db-7.internal:5432/orders' -c 'select count(*) from orders'"
	got, _ := json.Marshal(struct {
		Results []*Hazard           `json:"results"`
		Totals  replay.HazardCounts `json:"totals"`
	}{[]*Hazard{r.Results[0].Hazard, r.Results[1].Hazard}, r.Totals.Hazards})
	want := `{"results":[{"kind":"used_hidden","retrievable":true,"extra_tokens":42,"call_index":1,"evidence":` +
		`"psql 'postgres://orders_app:Tr0ub4dor@db-7.internal:5432/orders' -c 'select count(*) from orders'"},null],` +
		`"totals":{"used_hidden":1,"suppressed_unseen":0,"stale":0}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	w, _ := NewWriter("text", nil, "")
	text, err := w.Render(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"      ↳ hazard used_hidden: used a string of the spilled part; call 1 (Bash input) wrote “" + psql +
			"”; retrievable from the spill file, one more call of about 42 tokens\n",
		"  hazards: 1 used_hidden (1 retrievable from a spill file), 0 suppressed_unseen, 0 stale\n",
	} {
		if !strings.Contains(string(text), line) {
			t.Errorf("text report lacks %q:\n%s", line, text)
		}
	}
	// The hazard line comes right under its result's row.
	lines := strings.Split(string(text), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "      ↳ hazard") && !strings.Contains(lines[i-1], "spill") {
			t.Errorf("hazard line under %q", lines[i-1])
		}
	}
}
