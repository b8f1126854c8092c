package app

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// TestTally: a session and its sub-agent totalled by hand, at the
// embedded prices (claude-sonnet-4-5 $3 and $15 per million input and
// output tokens, claude-haiku-4-5 $1 and $5):
//
//	call 0, sonnet: 1,000 in + 100 out = $0.003 + $0.0015 = $0.0045
//	call 1, haiku: 2,000 in + 400 out = $0.002 + $0.002 = $0.004, its
//	  output a lower bound
//	call 2, a copy another session counts: in no figure but Calls, Copied
//	  and RecordedCalls
//	call 3, no usage
//	sub-agent call 0, sonnet, earlier: 3,000 in = $0.009
//
// so 5 calls, 1 copied, $0.0175, sonnet $0.0135 over 2 calls.
func TestTally(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 9, m, 0, 0, time.UTC) }
	main := &transcript.Session{Models: []string{"claude-sonnet-4-5", "claude-haiku-4-5"}, WarningCount: 2, Calls: []transcript.Call{
		{Model: "claude-sonnet-4-5", Time: at(10), Usage: &transcript.Usage{Input: 1000, Output: 100},
			Results: []transcript.ToolResult{{Text: strings.Repeat("x", 40)}}},
		{Model: "claude-haiku-4-5", Time: at(12), Usage: &transcript.Usage{Input: 2000, Output: 400, OutputLowerBound: true}},
		{Model: "claude-sonnet-4-5", Time: at(13), Usage: &transcript.Usage{Input: 5000}, CountedIn: "other.jsonl"},
		{Model: "claude-sonnet-4-5"},
	}}
	main.Events = []transcript.Event{{Kind: transcript.EventCompaction}}
	sub := &transcript.Session{Models: []string{"claude-sonnet-4-5"}, Calls: []transcript.Call{
		{Model: "claude-sonnet-4-5", Time: at(5), Usage: &transcript.Usage{Input: 3000}, Results: []transcript.ToolResult{{Text: "y", DroppedBytes: 99}}},
	}}
	got := TallyOf(main, pricing.Default())
	got.Add(TallyOf(sub, pricing.Default()))
	want := Tally{
		Calls: 5, Copied: 1, RecordedCalls: 4, NoUsage: 1, LowerBound: 1,
		Recorded: Tokens{Input: 6000, Output: 500}, Priced: 0.0175,
		ByModel: []ModelTally{
			{Model: "claude-haiku-4-5", APICalls: 1, Recorded: Tokens{Input: 2000, Output: 400}, CostUSD: 0.004, Priced: true},
			{Model: "claude-sonnet-4-5", APICalls: 2, Recorded: Tokens{Input: 4000, Output: 100}, CostUSD: 0.0135, Priced: true},
		},
		First: at(5), Last: at(13), Models: []string{"claude-sonnet-4-5", "claude-haiku-4-5"},
		Results: 2, ResultBytes: 140, Largest: 100, Compactions: 1, Warnings: 2,
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("tally (-by hand +got):\n%s", d)
	}
	if c := got.Cost(); c == nil || math.Abs(*c-0.0175) > 1e-12 {
		t.Errorf("cost %v, want $0.0175", c)
	}

	// A model without a price makes the cost unknown; so does a log that
	// records no usage at all.
	main.Calls[1].Extra = []transcript.ModelUsage{{Model: "no-such-model", Usage: transcript.Usage{Input: 10}}}
	if u := TallyOf(main, pricing.Default()); u.Cost() != nil || !cmp.Equal(u.Unpriced, []string{"no-such-model"}) {
		t.Errorf("with an unpriced model: cost %v, unpriced %v", u.Cost(), u.Unpriced)
	}
	if c := TallyOf(&transcript.Session{Calls: []transcript.Call{{}}}, pricing.Default()).Cost(); c != nil {
		t.Errorf("no usage recorded: cost %v, want none", *c)
	}
}
