package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// exported is what one run of report gave as JSON, as Parquet tables read
// back with parquet-go, and as JSON lines.
type exported struct {
	doc      Report
	sessions []SessionRow
	calls    []CallRow
	results  []ResultRow
	jsonl    []CallRow
}

// export reports inputs three ways under preset.
func export(t *testing.T, inputs []string, preset string) exported {
	t.Helper()
	pol, err := policy.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase), SpillRoot: t.TempDir()}
	run := func(format, out string, w io.Writer) {
		t.Helper()
		wr, err := Open(format, out, w, "")
		if err != nil {
			t.Fatal(err)
		}
		if p, err := Generate(inputs, nil, opt, wr, io.Discard); err != nil || p.Status() != 0 {
			t.Fatalf("%s: %v, %+v", format, err, p)
		}
	}
	var e exported
	var doc, lines bytes.Buffer
	run("json", "", &doc)
	if err := json.Unmarshal(doc.Bytes(), &e.doc); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run("parquet", dir, nil)
	e.sessions = readTable[SessionRow](t, filepath.Join(dir, "sessions.parquet"))
	e.calls = readTable[CallRow](t, filepath.Join(dir, "calls.parquet"))
	e.results = readTable[ResultRow](t, filepath.Join(dir, "results.parquet"))
	run("jsonl", "", &lines)
	sc := bufio.NewScanner(&lines)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c CallRow
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		e.jsonl = append(e.jsonl, c)
	}
	return e
}

// readTable reads a Parquet file back with parquet-go, by its own schema:
// every value by its column's name into a row of type R, through JSON.
func readTable[R any](t *testing.T, path string) []R {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	cols := pf.Schema().Columns()
	timestamp := map[int]bool{}
	for i, path := range cols {
		leaf, _ := pf.Schema().Lookup(path...)
		if lt := leaf.Node.Type().LogicalType(); lt != nil {
			ts, ok := lt.Value.(*format.TimestampType)
			if !ok {
				continue
			}
			if _, micros := ts.Unit.Value.(*format.MicroSeconds); !ts.IsAdjustedToUTC || !micros {
				t.Errorf("%s: column %s is %s, want TIMESTAMP(isAdjustedToUTC=true, MICROS)", path, cols[i], lt)
			}
			timestamp[i] = true
		}
	}
	r := parquet.NewReader(f)
	defer r.Close()
	var out []R
	var read []map[string]any
	buf := make([]parquet.Row, 64)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			m := map[string]any{}
			for _, v := range row {
				name := cols[v.Column()][0]
				switch {
				case v.IsNull():
					m[name] = nil
				case timestamp[v.Column()]:
					m[name] = time.UnixMicro(v.Int64()).UTC()
				case v.Kind() == parquet.Int64:
					m[name] = v.Int64()
				case v.Kind() == parquet.Boolean:
					m[name] = v.Boolean()
				case v.Kind() == parquet.ByteArray:
					m[name] = string(v.ByteArray())
				default:
					t.Fatalf("%s: column %s holds %s", path, name, v.Kind())
				}
			}
			read = append(read, m)
			data, _ := json.Marshal(m)
			var rec R
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&rec); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, rec)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	// Each column chunk's null count, which engines answer IS NULL from,
	// is the nulls it holds.
	var start int64
	for g, rg := range pf.Metadata().RowGroups {
		for j, chunk := range rg.Columns {
			var nulls int64
			for k := start; k < start+rg.NumRows; k++ {
				if v, ok := read[k][cols[j][0]]; ok && v == nil {
					nulls++
				}
			}
			if got := chunk.MetaData.Statistics.NullCount; got != nulls {
				t.Errorf("%s: row group %d, column %s says %d nulls, holds %d", path, g, cols[j][0], got, nulls)
			}
		}
		start += rg.NumRows
	}
	if int64(len(out)) != pf.NumRows() {
		t.Errorf("%s: read %d rows of %d", path, len(out), pf.NumRows())
	}
	return out
}

// check compares the tables with the JSON report: row for row the same
// figures, and each session's calls adding up to its total.
func (e exported) check(t *testing.T) {
	t.Helper()
	var want Rows
	for _, s := range e.doc.Sessions {
		rows := Tables(s)
		want.Sessions = append(want.Sessions, rows.Sessions...)
		want.Calls = append(want.Calls, rows.Calls...)
		want.Results = append(want.Results, rows.Results...)
	}
	if d := cmp.Diff(want.Sessions, e.sessions); d != "" {
		t.Errorf("sessions.parquet (-report +file):\n%s", d)
	}
	if d := cmp.Diff(want.Calls, e.calls); d != "" {
		t.Errorf("calls.parquet (-report +file):\n%s", d)
	}
	if d := cmp.Diff(want.Results, e.results); d != "" {
		t.Errorf("results.parquet (-report +file):\n%s", d)
	}
	if d := cmp.Diff(e.calls, e.jsonl); d != "" {
		t.Errorf("jsonl (-calls.parquet +jsonl):\n%s", d)
	}

	// The figures, read from the JSON report field by field.
	var parts []*Session
	for _, s := range e.doc.Sessions {
		parts = append(parts, s)
		parts = append(parts, s.Subagents...)
	}
	if len(parts) != len(e.sessions) {
		t.Fatalf("%d session rows for %d session logs", len(e.sessions), len(parts))
	}
	ci, ri := 0, 0
	for k, s := range parts {
		sr := e.sessions[k]
		if sr.Path != s.Path || sr.SessionID != s.SessionID {
			t.Fatalf("session row %d is %s %s, want %s %s", k, sr.Path, sr.SessionID, s.Path, s.SessionID)
		}
		tot := s.Totals
		if got := (Tokens{sr.Input, sr.CacheCreation, sr.CacheRead, sr.Output}); got != tot.Recorded {
			t.Errorf("%s: tokens %+v, report %+v", s.Path, got, tot.Recorded)
		}
		if !sameMicros(sr.CostMicroUSD, tot.CostUSD, 0) {
			t.Errorf("%s: cost %v µ$, report %v", s.Path, deref(sr.CostMicroUSD), derefF(tot.CostUSD))
		}
		active := !s.Policy.Inert()
		if active != (sr.Policy != nil) || (active && !sameMicros(sr.CostAfterMicroUSD, tot.CostUSDAfter, 0)) {
			t.Errorf("%s: policy %v, cost after %v µ$, report %v", s.Path, sr.Policy, deref(sr.CostAfterMicroUSD), derefF(tot.CostUSDAfter))
		}
		// A session's own calls, copies left out, add up to its own
		// figures: for a session with sub-agents, its total less theirs.
		var own Tokens
		var sum, sumAfter int64
		for _, c := range s.Calls {
			cr := e.calls[ci]
			ci++
			if cr.Path != s.Path || cr.CallIndex != int64(c.Index) || cr.Line != int64(c.Line) {
				t.Fatalf("call row %s #%d line %d, want %s #%d line %d", cr.Path, cr.CallIndex, cr.Line, s.Path, c.Index, c.Line)
			}
			if (cr.Time == nil) != (c.Time == nil) || (c.Time != nil && !cr.Time.Equal(*c.Time)) {
				t.Errorf("%s #%d: time %v, report %v", s.Path, c.Index, cr.Time, c.Time)
			}
			if !sameMicros(cr.CostMicroUSD, c.CostUSD, 1) || (active && !sameMicros(cr.CostAfterMicroUSD, c.CostUSDAfter, 1)) {
				t.Errorf("%s #%d: cost %v → %v µ$, report %v → %v", s.Path, c.Index, deref(cr.CostMicroUSD), deref(cr.CostAfterMicroUSD), derefF(c.CostUSD), derefF(c.CostUSDAfter))
			}
			if c.Recorded != nil && (*cr.Input != c.Recorded.Input || *cr.CacheCreation != c.Recorded.CacheCreation ||
				*cr.CacheRead != c.Recorded.CacheRead || *cr.Output != c.Recorded.Output) {
				t.Errorf("%s #%d: tokens differ from %+v", s.Path, c.Index, *c.Recorded)
			}
			if cr.CountedIn != nil {
				continue
			}
			if c.Recorded != nil {
				own.Input += *cr.Input + cr.ExtraInput
				own.CacheCreation += *cr.CacheCreation + cr.ExtraCacheCreation
				own.CacheRead += *cr.CacheRead + cr.ExtraCacheRead
				own.Output += *cr.Output + cr.ExtraOutput
			}
			sum += deref(cr.CostMicroUSD) + deref(cr.ExtraCostMicroUSD)
			sumAfter += deref(cr.CostAfterMicroUSD) + deref(cr.ExtraCostMicroUSD)
		}
		wantOwn, wantCost := tot.Recorded, tot.PricedCostUSD
		for _, sub := range s.Subagents {
			wantOwn.Input -= sub.Totals.Recorded.Input
			wantOwn.CacheCreation -= sub.Totals.Recorded.CacheCreation
			wantOwn.CacheRead -= sub.Totals.Recorded.CacheRead
			wantOwn.Output -= sub.Totals.Recorded.Output
			wantCost -= sub.Totals.PricedCostUSD
		}
		if own != wantOwn {
			t.Errorf("%s: its calls add up to %+v, report %+v", s.Path, own, wantOwn)
		}
		// Rounded once for the session, and per call from a running sum:
		// the same micro-dollars, unless the sub-agents' share moved a
		// rounding (at most one each).
		if d := math.Abs(float64(sum) - wantCost*1e6); d > 0.5+float64(len(s.Subagents)) {
			t.Errorf("%s: its calls add up to %d µ$, report $%.9f", s.Path, sum, wantCost)
		}
		if active && len(s.Subagents) == 0 && tot.CostUSDAfter != nil && !sameMicros(&sumAfter, tot.CostUSDAfter, extraCalls(s)) {
			t.Errorf("%s: its calls add up to %d µ$ after, report $%.9f", s.Path, sumAfter, *tot.CostUSDAfter)
		}
		for i, r := range s.Results {
			rr := e.results[ri]
			ri++
			if rr.Path != s.Path || rr.ResultIndex != int64(i) || rr.CallID != r.CallID || rr.Bytes != int64(r.Bytes) ||
				rr.Action != r.Action || rr.BytesAfter != r.BytesAfter || !sameMicros(rr.CarryCostMicroUSD, r.CarryCost, 0) {
				t.Errorf("result row %+v, report %+v", rr, r)
			}
		}
	}
	if ci != len(e.calls) || ri != len(e.results) {
		t.Errorf("%d of %d call rows and %d of %d result rows matched", ci, len(e.calls), ri, len(e.results))
	}
}

// sameMicros tells whether micros is usd to the micro-dollar, within slack
// more; both unknown counts as the same.
func sameMicros(micros *int64, usd *float64, slack int) bool {
	if micros == nil || usd == nil {
		return micros == nil && usd == nil
	}
	return math.Abs(float64(*micros)-*usd*1e6) <= 0.5+float64(slack)
}

// extraCalls counts the calls of s that billed usage on other models,
// whose micro-dollars are rounded apart from the running sum after.
func extraCalls(s *Session) int {
	n := 0
	for _, c := range s.Calls {
		if len(c.Extra) > 0 {
			n++
		}
	}
	return n
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func derefF(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestParquetFixtures writes the tables for the fixtures (one session, a
// project of sessions with sub-agents and a copy, Codex families), with and
// without a policy, in row groups of a few rows, and compares them with
// the JSON report.
func TestParquetFixtures(t *testing.T) {
	defer func(n int) { rowGroupRows = n }(rowGroupRows)
	rowGroupRows = 3
	inputs := [][]string{
		{filepath.Join("..", "testdata", "demo.jsonl")},
		{subagentFixture},
		{fixture("claude.jsonl"), fixture("codex.jsonl"), fixture("antigravity.jsonl"), fixture("generic.jsonl")},
		{filepath.Join("..", "testdata", "codex", "family"), filepath.Join("..", "testdata", "claude")},
	}
	for _, in := range inputs {
		for _, preset := range []string{"none", "harness-rs-0.0.50"} {
			t.Run(filepath.Base(in[0])+"/"+preset, func(t *testing.T) {
				e := export(t, in, preset)
				if len(e.calls) == 0 {
					t.Fatal("no calls")
				}
				e.check(t)
			})
		}
	}
}

// TestParquetDemo pins the demo's rows by hand: its recorded cost, the
// sweep table's $0.398306, and under harness-rs-0.0.40 $0.260020.
func TestParquetDemo(t *testing.T) {
	demo := []string{filepath.Join("..", "testdata", "demo.jsonl")}
	e := export(t, demo, "harness-rs-0.0.40")
	s := e.sessions[0]
	if len(e.sessions) != 1 || *s.CostMicroUSD != 398_306 || *s.CostAfterMicroUSD != 260_020 ||
		*s.Policy != "harness-rs-0.0.40" || *s.PolicyCeiling != 24_576 || *s.PolicyUnit != "json_bytes" {
		t.Errorf("session row %+v", s)
	}
	var sum, after int64
	for _, c := range e.calls {
		sum += *c.CostMicroUSD
		after += *c.CostAfterMicroUSD
	}
	// Call 0: 3 input, 14,197 cache write, 96 output on claude-sonnet-4-5
	// ($3, $3.75, $15 per million): 9 + 53,238.75 + 1,440 = 54,687.75 µ$.
	if c := e.calls[0]; sum != 398_306 || after != 260_020 || *c.CostMicroUSD != 54_688 || c.Time.Format(time.RFC3339) != "2026-11-28T14:02:04Z" {
		t.Errorf("calls add up to %d → %d µ$; call 0 %d µ$ at %v", sum, after, *c.CostMicroUSD, c.Time)
	}
	if len(e.results) != 15 {
		t.Errorf("%d result rows, want 15", len(e.results))
	}
	e.check(t)
}

// TestParquetShared writes the tables for every shared log at once (the
// Claude Code, Codex and Antigravity ones, sub-agent files among them).
func TestParquetShared(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "transcripts")
	for _, preset := range []string{"none", "claude-code"} {
		t.Run(preset, func(t *testing.T) {
			e := export(t, []string{dir}, preset)
			e.check(t)
		})
	}
}

// TestParquetSchema pins the physical and logical types readers see.
func TestParquetSchema(t *testing.T) {
	var buf bytes.Buffer
	tb, err := newPQTable[CallRow](&buf)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range tb.schema()[1:] {
		typ, _ := e.Type.Get()
		rep, _ := e.RepetitionType.Get()
		s := typ.String() + " " + rep.String()
		if e.LogicalType.Value != nil {
			s += " " + e.LogicalType.String()
		}
		got[e.Name] = s
	}
	want := map[string]string{
		"session_id":     "BYTE_ARRAY REQUIRED STRING",
		"subagent_of":    "BYTE_ARRAY OPTIONAL STRING",
		"time":           "INT64 OPTIONAL TIMESTAMP(isAdjustedToUTC=true,unit=MICROS)",
		"cost_micro_usd": "INT64 OPTIONAL",
		"sidechain":      "BOOLEAN REQUIRED",
		"call_index":     "INT64 REQUIRED",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
}

// TestOpenFormats checks which formats take --out.
func TestOpenFormats(t *testing.T) {
	for _, c := range []struct{ format, out, err string }{
		{"parquet", "", "name it with --out DIR"},
		{"csv", "x", "--out is for --format parquet and jsonl"},
		{"jsonl", "", ""},
		{"text", "", ""},
	} {
		_, err := Open(c.format, c.out, io.Discard, "")
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s %q: %v, want %q", c.format, c.out, err, c.err)
		}
	}
}

// TestParquetHostile checks that the tables keep transcript text exactly:
// they are read by engines, not drawn, and an engine's own output escapes.
func TestParquetHostile(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\u202eevil"
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	log := `{"type":"assistant","uuid":"u1","sessionId":` + q("S"+evil) + `,"timestamp":"2026-01-02T10:00:00Z","requestId":"r1",` +
		`"message":{"id":"m1","model":` + q("M"+evil) + `,"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},` +
		`"content":[{"type":"text","text":"hi"}]}}` + "\n"
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	e := export(t, []string{path}, "none")
	if c := e.calls[0]; c.SessionID != "S"+evil || c.Model != "M"+evil || e.jsonl[0].Model != "M"+evil {
		t.Errorf("strings changed: %q %q %q", c.SessionID, c.Model, e.jsonl[0].Model)
	}
	e.check(t)
}
