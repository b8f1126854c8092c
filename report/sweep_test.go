package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/human"
)

// quarterCounter counts a token per four bytes, rounded down, so that the
// sweep's token figures can be worked out by hand.
type quarterCounter struct{}

func (quarterCounter) Count(s string) int { return len(s) / 4 }

// sweepSessions writes the two sessions the hand-computed sweep reads, in
// the generic format, on claude-sonnet-4-5 ($3 input, $15 output per
// million) without prompt caching, and returns their paths.
//
// a: call 0 (input 1,000, output 100) reads /a: 6,000 × "a" (6,002 JSON
// bytes, 1,500 tokens); call 1 (input 2,600, output 50) reads /a again, the
// same 6,000 bytes; call 2 (input 5,000, output 20) ends.
// b: call 0 (input 500, output 10) runs make: 20,000 × "b" (20,002 JSON
// bytes, 5,000 tokens); call 1 (input 6,000, output 10) ends.
func sweepSessions(t *testing.T) (a, b string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, msgs ...map[string]any) string {
		var buf bytes.Buffer
		for _, m := range msgs {
			line, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(append(line, '\n'))
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	usage := func(input, output int) map[string]any {
		return map[string]any{"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": output}
	}
	call := func(id, tool string, args map[string]any, input, output int) map[string]any {
		m := map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(input, output)}
		if id != "" {
			m["tool_calls"] = []any{map[string]any{"id": id, "name": tool, "arguments": args}}
		}
		return m
	}
	result := func(id, text string) map[string]any {
		return map[string]any{"role": "tool", "tool_call_id": id, "content": text, "is_error": false}
	}
	readA := map[string]any{"file_path": "/a"}
	a = write("a.jsonl",
		map[string]any{"spillway": "transcript/v1", "session_id": "sweep-a"},
		map[string]any{"role": "user", "content": "read /a"},
		call("t1", "Read", readA, 1000, 100), result("t1", strings.Repeat("a", 6000)),
		call("t2", "Read", readA, 2600, 50), result("t2", strings.Repeat("a", 6000)),
		call("", "", nil, 5000, 20))
	b = write("b.jsonl",
		map[string]any{"spillway": "transcript/v1", "session_id": "sweep-b"},
		map[string]any{"role": "user", "content": "build"},
		call("t1", "Bash", map[string]any{"command": "make"}, 500, 10), result("t1", strings.Repeat("b", 20000)),
		call("", "", nil, 6000, 10))
	return a, b
}

// sweepRow is one ceiling's figures as `spillway sweep` prints them.
type sweepRow struct {
	ceiling            int64
	shaped, suppressed int
	saved              int64   // tokens
	before, after      float64 // dollars
	text               string  // the text table's row, fields single-spaced, before its hazards
	// unseen counts the repeats suppressed while the read they repeat was
	// cut: the fixtures' agent writes nothing, so no hazard of another kind.
	unseen int
}

// TestSweepByHand pins every figure of a harness-rs-0.0.40 sweep over two
// sessions, and over each alone, to the hand computation below, in the
// text, JSON and CSV forms.
//
// harness-rs-0.0.40 acts on a result over the ceiling C in JSON bytes
// (T > C) and replaces it with a marker holding the first C bytes of its
// serialization quoted again: for a text of letters, `\"` and C−1 letters.
// The marker is
//
//	{"bytes_kept":C,"bytes_total":T,"head":"\"aaa…","note":"<note>","tool":"Read","truncated":true}
//
// 14 + 15 + 9 + (C+1) + 9 + 2 + 174 + 8 + 6 + 18 = 256 + C bytes besides the
// digits, C's and T's twice each (once in the note, whose 174 bytes count
// the em dash's three). A repeat of the read becomes
// {"note":"<164 bytes>","repeat_of_earlier_call":true,"tool":"Read"}: 8 + 166
// + 30 + 8 + 6 + 1 = 219 bytes, 54 tokens, so it saves 1,500 − 54 = 1,446.
//
// With no prompt caching, a saved token comes out of the uncached input
// ($3/M) of every later call: a's first read is carried by calls 1 and 2,
// the repeat by call 2, b's result by call 1. Cost before: a (8,600 × 3 +
// 170 × 15)/10⁶ = $0.028350; b (6,500 × 3 + 20 × 15)/10⁶ = $0.019800.
//
//	C        a: marker → tokens, saved          b: marker → tokens, saved
//	2,048    2,320 → 580, 920 (×2)              2,322 → 580, 4,420
//	4,096    4,368 → 1,092, 408 (×2)            4,370 → 1,092, 3,908
//	8,192    kept                               8,466 → 2,116, 2,884
//	16,384   kept                               16,660 → 4,165, 835
//	≥24,576  kept                               kept
//
// a: 2×920 + 1,446 = 3,286 tokens, $0.009858 saved (34.8%); 2×408 + 1,446
// = 2,262, $0.006786 (23.9%); from 8,192 the repeat alone, 1,446,
// $0.004338 (15.3%). b: 4,420 ($0.013260, 67.0%), 3,908 ($0.011724,
// 59.2%), 2,884 ($0.008652, 43.7%), 835 ($0.002505, 12.7%), then 0.
// Both: before $0.048150; 7,706 tokens, $0.023118 (48.0%); 6,170,
// $0.018510 (38.4%); 4,330, $0.012990 (27.0%); 2,281, $0.006843 (14.2%);
// from 24,576 (the policy's own) 1,446, $0.004338 (9.0%).
func TestSweepByHand(t *testing.T) {
	a, b := sweepSessions(t)
	tests := []struct {
		name              string
		inputs            []string
		sessions, results int
		rows              []sweepRow
	}{
		{"a", []string{a}, 1, 2, []sweepRow{
			{2048, 1, 1, 3286, 0.028350, 0.018492, "2,048 1 1 3,286 $0.028350 $0.018492 $0.009858 34.8%", 1},
			{4096, 1, 1, 2262, 0.028350, 0.021564, "4,096 1 1 2,262 $0.028350 $0.021564 $0.006786 23.9%", 1},
			{8192, 0, 1, 1446, 0.028350, 0.024012, "8,192 0 1 1,446 $0.028350 $0.024012 $0.004338 15.3%", 0},
			{16384, 0, 1, 1446, 0.028350, 0.024012, "16,384 0 1 1,446 $0.028350 $0.024012 $0.004338 15.3%", 0},
			{24576, 0, 1, 1446, 0.028350, 0.024012, "24,576 0 1 1,446 $0.028350 $0.024012 $0.004338 15.3%", 0},
			{32768, 0, 1, 1446, 0.028350, 0.024012, "32,768 0 1 1,446 $0.028350 $0.024012 $0.004338 15.3%", 0},
			{65536, 0, 1, 1446, 0.028350, 0.024012, "65,536 0 1 1,446 $0.028350 $0.024012 $0.004338 15.3%", 0},
			{131072, 0, 1, 1446, 0.028350, 0.024012, "131,072 0 1 1,446 $0.028350 $0.024012 $0.004338 15.3%", 0},
			{262144, 0, 1, 1446, 0.028350, 0.024012, "262,144 0 1 1,446 $0.028350 $0.024012 $0.004338 15.3%", 0},
		}},
		{"b", []string{b}, 1, 1, []sweepRow{
			{2048, 1, 0, 4420, 0.019800, 0.006540, "2,048 1 0 4,420 $0.019800 $0.006540 $0.013260 67.0%", 0},
			{4096, 1, 0, 3908, 0.019800, 0.008076, "4,096 1 0 3,908 $0.019800 $0.008076 $0.011724 59.2%", 0},
			{8192, 1, 0, 2884, 0.019800, 0.011148, "8,192 1 0 2,884 $0.019800 $0.011148 $0.008652 43.7%", 0},
			{16384, 1, 0, 835, 0.019800, 0.017295, "16,384 1 0 835 $0.019800 $0.017295 $0.002505 12.7%", 0},
			{24576, 0, 0, 0, 0.019800, 0.019800, "24,576 0 0 0 $0.019800 $0.019800 $0.000000 0.0%", 0},
			{32768, 0, 0, 0, 0.019800, 0.019800, "32,768 0 0 0 $0.019800 $0.019800 $0.000000 0.0%", 0},
			{65536, 0, 0, 0, 0.019800, 0.019800, "65,536 0 0 0 $0.019800 $0.019800 $0.000000 0.0%", 0},
			{131072, 0, 0, 0, 0.019800, 0.019800, "131,072 0 0 0 $0.019800 $0.019800 $0.000000 0.0%", 0},
			{262144, 0, 0, 0, 0.019800, 0.019800, "262,144 0 0 0 $0.019800 $0.019800 $0.000000 0.0%", 0},
		}},
		{"both", []string{a, b}, 2, 3, []sweepRow{
			{2048, 2, 1, 7706, 0.048150, 0.025032, "2,048 2 1 7,706 $0.048150 $0.025032 $0.023118 48.0%", 1},
			{4096, 2, 1, 6170, 0.048150, 0.029640, "4,096 2 1 6,170 $0.048150 $0.029640 $0.018510 38.4%", 1},
			{8192, 1, 1, 4330, 0.048150, 0.035160, "8,192 1 1 4,330 $0.048150 $0.035160 $0.012990 27.0%", 0},
			{16384, 1, 1, 2281, 0.048150, 0.041307, "16,384 1 1 2,281 $0.048150 $0.041307 $0.006843 14.2%", 0},
			{24576, 0, 1, 1446, 0.048150, 0.043812, "24,576 0 1 1,446 $0.048150 $0.043812 $0.004338 9.0%", 0},
			{32768, 0, 1, 1446, 0.048150, 0.043812, "32,768 0 1 1,446 $0.048150 $0.043812 $0.004338 9.0%", 0},
			{65536, 0, 1, 1446, 0.048150, 0.043812, "65,536 0 1 1,446 $0.048150 $0.043812 $0.004338 9.0%", 0},
			{131072, 0, 1, 1446, 0.048150, 0.043812, "131,072 0 1 1,446 $0.048150 $0.043812 $0.004338 9.0%", 0},
			{262144, 0, 1, 1446, 0.048150, 0.043812, "262,144 0 1 1,446 $0.048150 $0.043812 $0.004338 9.0%", 0},
		}},
	}
	pol, err := policy.Preset("harness-rs-0.0.40")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Prices: pricing.Default(), Policy: pol,
		Counter: func() (replay.TokenCounter, error) { return quarterCounter{}, nil }}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, p, err := Sweep(tt.inputs, nil, opt, io.Discard)
			if err != nil || p != (Problems{}) {
				t.Fatalf("%v %+v", err, p)
			}
			var text, js, cs bytes.Buffer
			for format, buf := range map[string]*bytes.Buffer{"text": &text, "json": &js, "csv": &cs} {
				if err := doc.Write(buf, format, 1000); err != nil { // no note wrapped
					t.Fatal(err)
				}
			}
			checkSweepText(t, text.String(), tt.sessions, tt.results, tt.rows)
			checkSweepJSON(t, js.Bytes(), tt.sessions, tt.results, tt.rows)
			checkSweepCSV(t, cs.Bytes(), tt.rows)
		})
	}
}

const ownCeiling = 24 * 1024 // harness-rs-0.0.40's

// checkSweepText compares the text output line by line, runs of spaces
// taken as one.
func checkSweepText(t *testing.T, out string, sessions, results int, rows []sweepRow) {
	t.Helper()
	want := []string{fmt.Sprintf("harness-rs-0.0.40 over %s, %s (sizes in JSON bytes)", human.Plural(sessions, "session"), human.Plural(results, "tool result")),
		"ceiling shaped suppressed tokens saved cost before cost after saved share used hidden retrievable unseen repeats stale"}
	for _, r := range rows {
		line := fmt.Sprintf("%s 0 0 %d 0", r.text, r.unseen)
		if r.ceiling == ownCeiling {
			line += " ← the policy's own"
		}
		want = append(want, line)
	}
	want = append(want, "Tokens saved are summed over every call that would no longer carry them; "+assumption+".", hazardColumns)
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// checkSweepJSON reads the document by the spillway.sweep/v1 keys of docs/report-formats.md.
func checkSweepJSON(t *testing.T, out []byte, sessions, results int, rows []sweepRow) {
	t.Helper()
	type point struct {
		Ceiling    int64    `json:"ceiling"`
		Own        bool     `json:"own"`
		Acted      int      `json:"acted"`
		Suppressed int      `json:"suppressed"`
		Saved      int64    `json:"saved_tokens"`
		Cost       *float64 `json:"cost_usd"`
		CostAfter  *float64 `json:"cost_usd_after"`
		Hazards    struct {
			UsedHidden       int `json:"used_hidden"`
			Retrievable      int `json:"retrievable"`
			SuppressedUnseen int `json:"suppressed_unseen"`
			Stale            int `json:"stale"`
		} `json:"hazards"`
	}
	var doc struct {
		Schema   string  `json:"schema"`
		Sessions int     `json:"sessions"`
		Results  int     `json:"results"`
		Unpriced int     `json:"unpriced_sessions"`
		Points   []point `json:"points"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "spillway.sweep/v1" || doc.Sessions != sessions || doc.Results != results || doc.Unpriced != 0 {
		t.Errorf("schema %q, %d sessions, %d results, %d unpriced; want spillway.sweep/v1, %d, %d, 0",
			doc.Schema, doc.Sessions, doc.Results, doc.Unpriced, sessions, results)
	}
	var want []point
	for _, r := range rows {
		before, after := r.before, r.after
		pt := point{Ceiling: r.ceiling, Own: r.ceiling == ownCeiling, Acted: r.shaped, Suppressed: r.suppressed, Saved: r.saved,
			Cost: &before, CostAfter: &after}
		pt.Hazards.SuppressedUnseen = r.unseen
		want = append(want, pt)
	}
	cents := cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) < 1e-9 })
	if diff := cmp.Diff(want, doc.Points, cents); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
}

// checkSweepCSV compares every CSV row; dollars have nine decimals.
func checkSweepCSV(t *testing.T, out []byte, rows []sweepRow) {
	t.Helper()
	got, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"policy", "ceiling", "unit", "own", "shaped", "suppressed", "saved_tokens", "cost_usd", "cost_usd_after",
		"used_hidden", "used_hidden_retrievable", "suppressed_unseen", "stale"}}
	for _, r := range rows {
		want = append(want, []string{"harness-rs-0.0.40", strconv.FormatInt(r.ceiling, 10), "json_bytes",
			strconv.FormatBool(r.ceiling == ownCeiling), strconv.Itoa(r.shaped), strconv.Itoa(r.suppressed),
			strconv.FormatInt(r.saved, 10), strconv.FormatFloat(r.before, 'f', 9, 64), strconv.FormatFloat(r.after, 'f', 9, 64),
			"0", "0", strconv.Itoa(r.unseen), "0"})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
}

// TestSweepCSVFormula: a policy named like a formula (a policy file's name
// is free text) is quoted; the numbers beside it are not.
func TestSweepCSVFormula(t *testing.T) {
	cost, after := 0.25, -0.125
	doc := SweepDoc{Policy: policy.Policy{Name: "=1+1", Unit: policy.JSONBytes},
		Points: []replay.SweepPoint{{Ceiling: 2048, Acted: 1, Saved: -3, Cost: &cost, CostAfter: &after}}}
	var buf bytes.Buffer
	if err := doc.Write(&buf, "csv", 0); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"'=1+1", "2048", "json_bytes", "false", "1", "0", "-3", "0.250000000", "-0.125000000", "0", "0", "0", "0"}
	if diff := cmp.Diff(want, rows[1]); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
}

// TestSweepOwnIsReport: the sweep's point at the policy's own ceiling is
// what `spillway report` with that policy totals, for styles that truncate,
// spill and suppress, counted with o200k; the sweep plans its spills
// without writing them, the report writes them.
func TestSweepOwnIsReport(t *testing.T) {
	demo := filepath.Join("..", "testdata", "demo.jsonl")
	for _, preset := range []string{"claude-code", "harness-rs-0.0.40", "harness-rs-0.0.50", "codex"} {
		t.Run(preset, func(t *testing.T) {
			pol, err := policy.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase), SpillRoot: t.TempDir()}
			doc, p, err := Sweep([]string{demo}, nil, opt, io.Discard)
			if err != nil || p != (Problems{}) {
				t.Fatalf("%v %+v", err, p)
			}
			var own *replay.SweepPoint
			for i := range doc.Points {
				if doc.Points[i].Own {
					own = &doc.Points[i]
				}
			}
			if own == nil || own.Ceiling != pol.Ceiling {
				t.Fatalf("no point at the policy's own ceiling %d", pol.Ceiling)
			}
			var buf bytes.Buffer
			w, _ := NewWriter("json", &buf, "test prices")
			if _, err := Generate([]string{demo}, nil, opt, w, io.Discard); err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Sessions []struct {
					Totals struct {
						Saved     int64          `json:"saved_tokens"`
						Cost      *float64       `json:"cost_usd"`
						CostAfter *float64       `json:"cost_usd_after"`
						Actions   map[string]int `json:"actions"`
					} `json:"totals"`
				} `json:"sessions"`
			}
			if err := json.Unmarshal(buf.Bytes(), &rep); err != nil || len(rep.Sessions) != 1 {
				t.Fatalf("%v, %d sessions", err, len(rep.Sessions))
			}
			tot := rep.Sessions[0].Totals
			if own.Acted == 0 && own.Suppressed == 0 {
				t.Fatal("the policy changes nothing in the demo: the test compares nothing")
			}
			got := []any{own.Acted, own.Suppressed, own.Saved, *own.Cost, *own.CostAfter}
			want := []any{tot.Actions["truncate"] + tot.Actions["spill"], tot.Actions["suppress"], tot.Saved, *tot.Cost, *tot.CostAfter}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("acted, suppressed, saved, cost, cost after (-report +sweep):\n%s", diff)
			}
		})
	}
}

// TestSweepNothing: with no session to sweep, the JSON's points are an
// empty list, as its schema has them, not null.
func TestSweepNothing(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(empty, nil, 0o600)
	pol, _ := policy.Preset("harness-rs-0.0.50")
	opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}
	doc, _, err := Sweep([]string{empty}, nil, opt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := doc.Write(&out, "json", 0); err != nil || !strings.Contains(out.String(), `"points":[]`) {
		t.Errorf("%v: %s", err, out.String())
	}
}

// TestSweepUnpricedNote: the text says which sessions the dollars leave
// out and that the tokens count them (report/testdata/by holds one on a
// model without a price).
func TestSweepUnpricedNote(t *testing.T) {
	pol, _ := policy.Preset("harness-rs-0.0.50")
	opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}
	doc, _, err := Sweep([]string{filepath.Join("testdata", "by")}, nil, opt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := doc.Write(&out, "text", 200); err != nil || !strings.Contains(out.String(), "Dollars leave out 1 session with no recorded usage or no price; the tokens count it.") {
		t.Errorf("%v:\n%s", err, out.String())
	}
}

// TestSweepSaysVersionRules: a sweep under a policy that follows each
// session's version says what its own point and the others are.
func TestSweepSaysVersionRules(t *testing.T) {
	demo := filepath.Join("..", "testdata", "demo.jsonl")
	for preset, says := range map[string]bool{"claude-code": true, "harness-rs-0.0.50": false} {
		pol, _ := policy.Preset(preset)
		doc, _, err := Sweep([]string{demo}, nil, Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := doc.Write(&buf, "text", 200); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), preset+" follows each session's version: at its own ceiling each session is replayed as its version did it"); got != says {
			t.Errorf("%s: says %v, want %v:\n%s", preset, got, says, buf.String())
		}
	}
}
