package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/internal/ledger"
)

// report --texts gives each result's text as logged and as the model would
// receive it, in JSON and a line per result in JSONL.
func TestReportTexts(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	demo := filepath.Join("testdata", "demo.jsonl")
	args := []string{"report", "--texts", "--preset", "harness-rs-0.0.40", "--spill-dir", t.TempDir(), demo}
	code, stdout, stderr := runCLI(t, "", append(args, "--format", "json")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc struct {
		Sessions []struct {
			Results []struct {
				Action     string  `json:"action"`
				BytesAfter int64   `json:"bytes_after"`
				Text       *string `json:"text"`
				TextAfter  *string `json:"text_after"`
			} `json:"results"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	rs := doc.Sessions[0].Results
	// Result 0, the demo's 70,611-byte package-lock.json Read, cut to
	// 28,033 bytes; result 4, its Glob, kept as logged.
	if r := rs[0]; r.Action != "truncate" || len(*r.Text) != 70_611 || int64(len(*r.TextAfter)) != r.BytesAfter || r.BytesAfter != 28_033 ||
		!strings.HasPrefix(*r.TextAfter, "     1→{\"bytes_kept\":24576,") {
		t.Errorf("result 0: %s, %d → %d bytes", r.Action, len(*r.Text), len(*r.TextAfter))
	}
	if r := rs[4]; r.Action != "keep" || *r.Text != *r.TextAfter || !strings.HasPrefix(*r.Text, "/home/dev/shop/src/utils/merge.js\n") {
		t.Errorf("result 4: %s %q", r.Action, *r.TextAfter)
	}
	code, stdout, _ = runCLI(t, "", append(args, "--format", "jsonl")...)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	var first struct {
		CallID    string `json:"call_id"`
		Tool      string `json:"tool"`
		TextAfter string `json:"text_after"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); code != 0 || err != nil || len(lines) != 15 ||
		first.CallID != "toolu_demo00" || first.TextAfter != *rs[0].TextAfter {
		t.Errorf("jsonl: %d lines, first %s %s (%v)", len(lines), first.CallID, first.Tool, err)
	}
	for _, format := range []string{"text", "csv"} {
		if code, _, stderr := runCLI(t, "", "report", "--texts", "--format", format, demo); code != exitUsage || !strings.Contains(stderr, "--texts is for --format json and jsonl") {
			t.Errorf("%s: %d %s", format, code, stderr)
		}
	}
}

// What spillway's hook cut from a session, from its ledger, is shown
// beside what the policy predicts.
func TestReportRealized(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := filepath.Join(cache, "spillway", "ledger")
	when := time.Date(2026, 11, 28, 14, 2, 5, 0, time.UTC)
	for _, e := range []ledger.Entry{
		{Time: when, Session: "5f0c9a7e-demo-4c1b-9e55-7d2a61b0c0de", ToolUseID: "toolu_demo00", Tool: "Read", Action: "spill",
			Bytes: 70_611, BytesAfter: 4_795, Tokens: 30_182, TokensAfter: 1_100, Encoding: "o200k_base", Policy: "harness-rs-0.0.50"},
		{Time: when, Session: "5f0c9a7e-demo-4c1b-9e55-7d2a61b0c0de", ToolUseID: "toolu_demo01", Tool: "Grep", Action: "spill",
			Bytes: 30_074, BytesAfter: 4_740, Tokens: 8_038, TokensAfter: 1_000, Encoding: "o200k_base", Policy: "harness-rs-0.0.50"},
		// Another tool under the same id is another call's: not this one's.
		{Time: when, Session: "5f0c9a7e-demo-4c1b-9e55-7d2a61b0c0de", ToolUseID: "toolu_demo02", Tool: "Bash", Action: "spill",
			Bytes: 1, BytesAfter: 1, Tokens: 1, TokensAfter: 1, Policy: "x"},
	} {
		if err := ledger.Append(dir, e); err != nil {
			t.Fatal(err)
		}
	}
	demo := filepath.Join("testdata", "demo.jsonl")
	// Without a policy: the log as recorded, and what the hook realized.
	// 70,611 + 30,074 = 100,685 bytes (98.3 KiB) to 9,535 (9.3 KiB);
	// 38,220 tokens to 2,100.
	code, stdout, stderr := runCLI(t, "", "report", demo)
	want := "  realized by spillway's hook (harness-rs-0.0.50): 2 results shaped, 98.3 KiB → 9.3 KiB, tokens 38,220 → 2,100 (−36,120)\n"
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("%d %s: lacks %q:\n%s", code, stderr, want, stdout)
	}
	// With a policy, the tokens cut are priced where they were carried:
	// result 0's $0.18955335 over 12 calls scaled by 29,082 of its 30,182
	// tokens ($0.1826450), and result 1's $0.04833 over 11 by 7,038 of
	// 8,038 ($0.0423173): $0.2249623.
	code, stdout, _ = runCLI(t, "", "report", "--format", "json", "--preset", "harness-rs-0.0.40", demo)
	var doc struct {
		Sessions []struct {
			Totals struct {
				Realized struct {
					Results  int      `json:"results"`
					SavedUSD *float64 `json:"saved_usd"`
				} `json:"realized"`
			} `json:"totals"`
			Results []struct {
				Action    string          `json:"action"`
				Reason    string          `json:"reason"`
				CarryCost *float64        `json:"carry_cost_usd"`
				Realized  json.RawMessage `json:"realized"`
			} `json:"results"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); code != 0 || err != nil {
		t.Fatal(code, err)
	}
	s := doc.Sessions[0]
	if got := *s.Totals.Realized.SavedUSD; s.Totals.Realized.Results != 2 || got < 0.2249622 || got > 0.2249624 {
		t.Errorf("realized %+v, saved $%f", s.Totals.Realized, got)
	}
	if string(s.Results[2].Realized) != "null" || !strings.Contains(string(s.Results[0].Realized), `"tokens_after":1100`) {
		t.Errorf("results' realized: %s, %s", s.Results[0].Realized, s.Results[2].Realized)
	}
	// What the hook shaped, the log holds as it made it: the policy leaves
	// it as it is.
	for _, r := range s.Results[:2] {
		if r.Action != "keep" || r.Reason != "shaped by spillway's hook as the session ran" {
			t.Errorf("a result the hook shaped: %s (%s)", r.Action, r.Reason)
		}
	}
}
