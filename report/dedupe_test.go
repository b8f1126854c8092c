package report

import (
	"bytes"
	"encoding/json"
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
)

// TestSweepDedupe pins the repeat-suppression sweep over
// testdata/dedupe/repeats.jsonl under harness-rs-0.0.40, whose ceiling
// shapes nothing there. Its calls: Read /a (4,000 bytes, 1,000 tokens
// counted a quarter of a token a byte) three times, Bash, Read /a, Edit /b,
// Read /b (500 tokens), Bash, a compaction, Read /a, a last call. The
// recorded prompts grow by exactly what was added, so the counts are
// applied as they are, and a suppressed Read saves 1,000 − 54 (the stub)
// = 946 tokens of uncached input ($3 a million) at every later call of
// its context: 6, 5, 3 and 1 calls for the Reads of /a after calls 1, 2,
// 4 and 8, 1 call (446 tokens) for the Read of /b. The session costs
// $0.086235 as recorded (28,245 input tokens, 100 output at $15).
//
//   - harness-rs forgets at every call that is not read-only: from the 2nd
//     call it suppresses the 2nd and 3rd Reads (11 × 946 = 10,406); the
//     Reads after Bash and after the Edit are repeats it had forgotten.
//     From the 3rd, the 3rd Read alone (5 × 946).
//   - claude-code-2.1.86 forgets a file when it is written (the agent's
//     write of /b is no read of it, as every version run showed): from
//     the 2nd call every Read of /a but the first is suppressed (15 × 946
//     = 14,190), the last across the compaction, its copy gone: an unseen
//     repeat. From the 3rd, the 3rd, 4th and 5th Reads of /a (9 × 946).
func TestSweepDedupe(t *testing.T) {
	pol, _ := policy.Preset("harness-rs-0.0.40")
	opt := Options{Prices: pricing.Default(), Policy: pol,
		Counter: func() (replay.TokenCounter, error) { return quarterCounter{}, nil }}
	doc, p, err := SweepDedupe([]string{filepath.Join("..", "testdata", "dedupe", "repeats.jsonl")}, nil, opt, io.Discard)
	if err != nil || p != (Problems{}) {
		t.Fatalf("%v %+v", err, p)
	}
	type row struct {
		rule                      string
		from, fired               int
		saved                     int64
		usd                       float64
		across, afterWrite        int
		unseen, identical, forgot int
	}
	want := []row{
		{"harness-rs", 2, 2, 10406, 0.031218, 0, 0, 0, 4, 2},
		{"harness-rs", 3, 1, 4730, 0.014190, 0, 0, 0, 4, 2},
		{"claude-code-2.1.86", 2, 4, 14190, 0.042570, 1, 0, 1, 4, 0},
		{"claude-code-2.1.86", 3, 3, 8514, 0.025542, 1, 0, 1, 4, 0},
	}
	var got []row
	for _, r := range doc.Rules {
		for _, pt := range r.Points {
			got = append(got, row{r.Name, pt.From, pt.Suppressed, pt.Saved - doc.Alone.Saved, *pt.Cost - *pt.CostAfter,
				pt.AcrossCompaction, pt.AfterWrite, pt.Hazards.SuppressedUnseen, r.Identical, r.Cleared})
		}
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(row{}), cmp.Comparer(func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 })); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if doc.Alone.Saved != 0 || doc.Alone.Suppressed != 0 {
		t.Errorf("the ceiling alone saves %d tokens, suppresses %d", doc.Alone.Saved, doc.Alone.Suppressed)
	}

	var text bytes.Buffer
	if err := doc.Write(&text, "text", 1000); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	wantText := []string{
		"Repeat suppression on top of harness-rs-0.0.40 (ceiling 24,576 JSON bytes), over 1 session, 9 tool results. Without it the policy saves 0 tokens, $0.000000; each rule's figures are what it saves beyond that.",
		"rule suppressing fired tokens saved saved across a compaction after own write unseen repeats stale used hidden",
		"harness-rs from the 2nd identical call 2 10,406 $0.031218 0 0 0 0 0",
		"from the 3rd identical call 1 4,730 $0.014190 0 0 0 0 0",
		"claude-code-2.1.86 from the 2nd identical call 4 14,190 $0.042570 1 0 1 0 0",
		"from the 3rd identical call 3 8,514 $0.025542 1 0 1 0 0",
		"harness-rs: the same read-only call with the same arguments, forgotten at any call that is not read-only. 4 calls repeated an earlier one it takes for the same, 2 of them after a call that clears what it remembers.",
		"claude-code-2.1.86: a Read of the same file and range, its result unchanged, forgotten when the file is written. 4 calls repeated an earlier one it takes for the same.",
	}
	if len(lines) < len(wantText) {
		t.Fatalf("text:\n%s", text.String())
	}
	if diff := cmp.Diff(wantText, lines[:len(wantText)]); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}

	var js bytes.Buffer
	if err := doc.Write(&js, "json", 0); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Schema string `json:"schema"`
		Alone  struct {
			From int `json:"from"`
		} `json:"ceiling_alone"`
		Rules []struct {
			Name      string `json:"name"`
			Identical int    `json:"identical_repeats"`
			Cleared   int    `json:"cleared"`
			Points    []struct {
				From             int   `json:"from"`
				Suppressed       int   `json:"suppressed"`
				Saved            int64 `json:"saved_tokens"`
				AcrossCompaction int   `json:"across_compaction"`
				AfterWrite       int   `json:"after_own_write"`
			} `json:"points"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Schema != "spillway.sweep-dedupe/v2" || len(back.Rules) != 2 ||
		back.Rules[1].Name != "claude-code-2.1.86" || back.Rules[1].Identical != 4 || back.Rules[0].Cleared != 2 ||
		back.Rules[1].Points[0].From != 2 || back.Rules[1].Points[0].Saved != 14190 || back.Rules[1].Points[0].AfterWrite != 0 ||
		back.Rules[1].Points[1].AcrossCompaction != 1 {
		t.Errorf("JSON %v: %s", err, js.String())
	}

	var cs bytes.Buffer
	if err := doc.Write(&cs, "csv", 0); err != nil {
		t.Fatal(err)
	}
	wantCSV := "policy,rule,dedupe_from,suppressed,saved_tokens,cost_usd,cost_usd_after,used_hidden,used_hidden_retrievable,suppressed_unseen,stale,across_compaction,after_own_write\n" +
		"harness-rs-0.0.40,,0,0,0,0.086235000,0.086235000,0,0,0,0,0,0\n"
	if !strings.HasPrefix(cs.String(), wantCSV) || strings.Count(cs.String(), "\n") != 6 ||
		!strings.Contains(cs.String(), "harness-rs-0.0.40,claude-code-2.1.86,2,4,14190,0.086235000,0.043665000,0,0,1,0,1,0\n") {
		t.Errorf("CSV:\n%s", cs.String())
	}
}

// TestSweepDedupeAloneAdds: on the demo at 64 KiB, harness-rs-0.0.40's cut
// of the 70,611-byte Read, quoted again, is longer than the Read (947
// tokens calibrated, carried by 12 calls), so the policy without repeat
// suppression costs 11,364 more tokens; the note says so, not "saves -11,364".
func TestSweepDedupeAloneAdds(t *testing.T) {
	pol, _ := policy.Preset("harness-rs-0.0.40")
	pol.SetCeiling(65536)
	opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}
	doc, _, err := SweepDedupe([]string{filepath.Join("..", "testdata", "demo.jsonl")}, nil, opt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := doc.Write(&text, "text", 1000); err != nil {
		t.Fatal(err)
	}
	if want := "Without it the policy costs 11,364 more tokens, $0.006676;"; !strings.Contains(strings.Join(strings.Fields(text.String()), " "), want) {
		t.Errorf("want %q in:\n%s", want, text.String())
	}
}
