package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// TestUnknownTotal: a total over a session whose log records no usage
// (Antigravity's) is unknown, never the partial sum of the others, and
// every format says so alike: the text's total row and note, the JSON's
// total, and the null cost of that session and its calls in CSV, JSONL
// and the Parquet rows. claude.jsonl alone costs $0.017910.
func TestUnknownTotal(t *testing.T) {
	none, _ := policy.Preset("none")
	opt := Options{Prices: pricing.Default(), Policy: none}
	inputs := []string{fixture("claude.jsonl"), fixture("antigravity.jsonl")}
	run := func(format string, g Grouping) string {
		t.Helper()
		var out, errw bytes.Buffer
		if _, err := GenerateGroups(inputs, nil, opt, g, format, &out, &errw); err != nil || errw.Len() > 0 {
			t.Fatalf("%v %s", err, errw.String())
		}
		return out.String()
	}
	for _, by := range []string{"", "day", "model", "project"} {
		g := Grouping{By: by, Zone: time.UTC, ZoneName: "UTC"}
		text := run("text", g)
		lines := strings.Split(text, "\n")
		var total string
		for _, l := range lines {
			if strings.HasPrefix(l, "  total ") {
				total = l
			}
		}
		if !strings.HasSuffix(total, " unknown") || !strings.Contains(text, "  cost unknown where a log records no usage (") ||
			!strings.Contains(text, "; the priced calls cost $0.017910\n") {
			t.Errorf("--by %q: the text does not say the total is unknown and what the priced calls cost:\n%s", by, text)
		}
		if by == "" {
			continue // JSON without --by lists the sessions alone
		}
		var doc struct {
			Total Group `json:"total"`
		}
		if err := json.Unmarshal([]byte(run("json", g)), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Total.CostUSD != nil || doc.Total.APICalls == 0 {
			t.Errorf("--by %q: JSON total %+v, want its cost null", by, doc.Total)
		}
	}
	csv := run("csv", Grouping{By: "session", Zone: time.UTC})
	if !strings.Contains(csv, "antigravity.jsonl,1,") || !strings.Contains(csv, ",,\n") {
		t.Errorf("CSV: the session without usage has a cost:\n%s", csv)
	}
	var jsonl bytes.Buffer
	w, _ := NewWriter("jsonl", &jsonl, "")
	if _, err := Generate(inputs, nil, opt, w, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(jsonl.String()), "\n") {
		var c CallRow
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		if c.Format == "antigravity" && c.CostMicroUSD != nil {
			t.Errorf("JSONL: an Antigravity call costs %d µ$", *c.CostMicroUSD)
		}
	}
	s := build(t, "antigravity.jsonl")
	if rows := Tables(s); rows.Sessions[0].CostMicroUSD != nil || rows.Sessions[0].PricedCostMicroUSD != 0 {
		t.Errorf("Parquet: the session row's cost %v, priced %d", rows.Sessions[0].CostMicroUSD, rows.Sessions[0].PricedCostMicroUSD)
	}
}

// TestNoPolicyNoAfter: without a policy there is no after figure, nor
// tokens saved, in the JSON as in the Parquet tables (where README has
// always said so) and the CSV; under one, both give them.
func TestNoPolicyNoAfter(t *testing.T) {
	for _, preset := range []string{"none", "harness-rs-0.0.50"} {
		ts, err := transcript.ReadFile(fixture("claude.jsonl"), transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := buildWith(t, ts, pricing.Default(), preset)
		active := preset != "none"
		var doc struct {
			Calls []struct {
				PromptAfter *int64   `json:"prompt_tokens_after"`
				CostAfter   *float64 `json:"cost_usd_after"`
				Saved       *int64   `json:"saved_tokens"`
			} `json:"calls"`
			Totals struct {
				PromptAfter *int64   `json:"prompt_tokens_after"`
				CostAfter   *float64 `json:"cost_usd_after"`
				Saved       *int64   `json:"saved_tokens"`
			} `json:"totals"`
		}
		data, err := encodeJSON(s, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		rows := Tables(s)
		if (doc.Totals.PromptAfter != nil) != active || (doc.Totals.CostAfter != nil) != active || (doc.Totals.Saved != nil) != active ||
			(rows.Sessions[0].PromptTokensAfter != nil) != active || (rows.Sessions[0].CostAfterMicroUSD != nil) != active ||
			(rows.Sessions[0].SavedTokens != nil) != active {
			t.Errorf("%s: totals' after figures %+v, session row's %v %v; want them only under a policy", preset, doc.Totals,
				rows.Sessions[0].PromptTokensAfter, rows.Sessions[0].CostAfterMicroUSD)
		}
		for i, c := range doc.Calls {
			row := rows.Calls[i]
			if (c.PromptAfter != nil) != active || (c.CostAfter != nil) != active || (row.PromptTokensAfter != nil) != active || (row.CostAfterMicroUSD != nil) != active {
				t.Errorf("%s: call %d after figures JSON %v %v, Parquet %v %v; want them only under a policy", preset, i, c.PromptAfter, c.CostAfter, row.PromptTokensAfter, row.CostAfterMicroUSD)
			}
			// The tokens saved are an after figure too: none without a
			// policy, and the same in both where there is one.
			if (c.Saved != nil) != active || (row.SavedTokens != nil) != active || active && *c.Saved != *row.SavedTokens {
				t.Errorf("%s: call %d saved tokens JSON %v, Parquet %v; want them only under a policy, alike", preset, i, c.Saved, row.SavedTokens)
			}
		}
		var csv bytes.Buffer
		w, _ := NewWriter("csv", &csv, "")
		writeSession(t, w, s)
		for _, line := range strings.Split(strings.TrimSpace(csv.String()), "\n")[1:] {
			if strings.HasSuffix(line, ",,") == active {
				t.Errorf("%s: CSV row %q", preset, line)
			}
		}
	}
}
