package replay

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/transcript"
)

// The hazard fixtures (testdata/hazards) share one file: 300 lines
// "option NNN = off" (17 bytes each, 5,100 bytes), then, in the tail-
// cases, the line "DATABASE_URL=postgres://orders_app:Tr0ub4dor@db-7.internal:5432/orders"
// (71 bytes with its newline): 5,171 bytes, 5,474 as JSON. At a 4,096
// ceiling a head truncation keeps 4,096 JSON bytes and a spill previews
// 4,096 bytes: the connection string is hidden either way. The psql call
// that follows names it.
const psql = "psql 'postgres://orders_app:Tr0ub4dor@db-7.internal:5432/orders' -c 'select count(*) from orders'"

func TestHazardFixtures(t *testing.T) {
	dsn := "postgres://orders_app:Tr0ub4dor@db-7.internal:5432/orders"
	type want struct {
		result int
		hazard Hazard
	}
	tests := []struct {
		file, preset string
		outcomes     []string
		want         []want
		counts       HazardCounts
	}{
		// Cut off by a head truncation: used at call 1, and not retrievable.
		{"tail-dsn", "harness-rs-0.0.40", []string{"truncate", "keep"}, []want{{0, Hazard{Kind: UsedHidden, CallIndex: 1, From: "Bash input", Match: dsn,
			Evidence: psql, MatchFrom: 5113, MatchTo: 5170, Why: "used a string of the part cut off"}}},
			HazardCounts{UsedHidden: 1}},
		// Spilled: the same use, retrievable by reading the spill file back:
		// its locator (one word) and the 10 lines before the used one (four
		// words each) and the used line itself (one word): 1+40+1 = 42.
		{"tail-dsn", "harness-rs-0.0.50", []string{"spill", "keep"}, []want{{0, Hazard{Kind: UsedHidden, Retrievable: true, ExtraTokens: 42, CallIndex: 1,
			From: "Bash input", Match: dsn, Evidence: psql, MatchFrom: 5113, MatchTo: 5170, Why: "used a string of the spilled part"}}},
			HazardCounts{UsedHidden: 1, Retrievable: 1}},
		// The same line at the head, which both policies show: no hazard.
		{"head-dsn", "harness-rs-0.0.40", []string{"truncate", "keep"}, nil, HazardCounts{}},
		{"head-dsn", "harness-rs-0.0.50", []string{"spill", "keep"}, nil, HazardCounts{}},
		// The user gave the string before the call used it: no hazard.
		{"user-dsn", "harness-rs-0.0.40", []string{"truncate", "keep"}, nil, HazardCounts{}},
		{"user-dsn", "harness-rs-0.0.50", []string{"spill", "keep"}, nil, HazardCounts{}},
		// The second Read is suppressed while the first was cut: the model
		// never saw the tail. No later output uses it, so the hazard names
		// the call that got the stub (2) and gives no evidence.
		{"repeat-cut", "harness-rs-0.0.40", []string{"truncate", "suppress"}, []want{{1, Hazard{Kind: SuppressedUnseen, CallIndex: 2, MatchFrom: -1, MatchTo: -1,
			Why: "repeat of result 0, which was truncated"}}}, HazardCounts{SuppressedUnseen: 1}},
		// The first Read of a small file was shown whole: its repeat is
		// suppressed, and the answer quoting it is no hazard.
		{"repeat-small", "harness-rs-0.0.40", []string{"keep", "suppress"}, nil, HazardCounts{}},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.preset, func(t *testing.T) {
			s, err := transcript.ReadFile(filepath.Join("..", "..", "testdata", "hazards", tt.file+".jsonl"), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pol, err := policy.Preset(tt.preset)
			if err != nil {
				t.Fatal(err)
			}
			pol.SetCeiling(4096)
			rp, err := prepared(t, s).Replay(pol, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.outcomes, outcomes(rp)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			var got []want
			for i, r := range rp.Results {
				if r.Hazard != nil {
					got = append(got, want{i, *r.Hazard})
				}
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("hazards (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.counts, rp.Totals.Hazards); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}

			// Left for later (the session list's replays), none is looked
			// for where a result is shaped, until the index is built; then
			// they are the same.
			p := prepared(t, s)
			early, err := p.Replay(pol, Options{HazardsLater: true})
			if err != nil {
				t.Fatal(err)
			}
			shaped := slices.ContainsFunc(tt.outcomes, func(o string) bool { return o != "keep" })
			if early.HazardsLater != shaped || early.Point().HazardsLater != shaped || early.Totals.Hazards != (HazardCounts{}) {
				t.Errorf("before the index: later %v (point %v), hazards %+v; want later %v and none",
					early.HazardsLater, early.Point().HazardsLater, early.Totals.Hazards, shaped)
			}
			p.IndexHazards()
			late, err := p.Replay(pol, Options{HazardsLater: true})
			if err != nil {
				t.Fatal(err)
			}
			if late.HazardsLater || late.Point().HazardsLater {
				t.Error("after the index: hazards still left for later")
			}
			if diff := cmp.Diff(tt.counts, late.Totals.Hazards); diff != "" {
				t.Errorf("after the index, counts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHazardAfterCompaction: a Read shown whole, then a compaction, then
// the same Read: harness-rs keeps its record across the compaction and
// suppresses the repeat, whose earlier copy the model no longer has.
func TestHazardAfterCompaction(t *testing.T) {
	read := map[string]any{"file_path": "conf/limits.toml"}
	text := "[limits]\ntoken_bucket_refill_rate = 250\n"
	s := generic(t,
		call("r1", "Read", read), result("r1", text, false),
		map[string]any{"role": "system", "compaction": true, "content": "The limits file was read."},
		call("r2", "Read", read), result("r2", text, false),
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "token_bucket_refill_rate is 250."})
	pol, _ := policy.Preset("harness-rs-0.0.40")
	rp, err := prepared(t, s).Replay(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"keep", "suppress"}, outcomes(rp)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	// The answer quotes the suppressed payload: that is the evidence.
	want := &Hazard{Kind: SuppressedUnseen, CallIndex: 2, From: "text", Match: "token_bucket_refill_rate",
		Evidence: "token_bucket_refill_rate is 250.", MatchFrom: 9, MatchTo: 33,
		Why: "repeat of result 0, which a compaction had taken out of the context"}
	if diff := cmp.Diff(want, rp.Results[1].Hazard); diff != "" {
		t.Errorf("hazard (-want +got):\n%s", diff)
	}
}

// TestHazardInCompactionSummary: a compaction summary is the model's own
// output, written from the context before the compaction, and is judged
// against that context. The connection string is in the tail of a Read
// the policy cuts at 4,096 (the fixtures' file), and, whole, in a small
// result before the compaction: the summary that quotes it had it from
// there, and the model after the compaction from the summary. Only without
// that result is the summary's quote a use of the hidden tail.
func TestHazardInCompactionSummary(t *testing.T) {
	var file strings.Builder
	for i := range 300 {
		fmt.Fprintf(&file, "option %03d = off\n", i)
	}
	dsn := "postgres://orders_app:Tr0ub4dor@db-7.internal:5432/orders"
	file.WriteString("DATABASE_URL=" + dsn + "\n")
	summary := "The service reads its settings from app.conf and connects to " + dsn + "; every option is off."
	read := []map[string]any{call("r1", "Read", map[string]any{"file_path": "app.conf"}), result("r1", file.String(), false)}
	env := []map[string]any{call("b1", "Bash", map[string]any{"command": "cat .env"}), result("b1", "DATABASE_URL="+dsn+"\n", false)}
	after := []map[string]any{
		{"role": "system", "compaction": true, "content": summary},
		{"role": "assistant", "model": "claude-sonnet-4-5", "content": "Connecting to " + dsn + " next."},
	}
	tests := []struct {
		name     string
		msgs     []map[string]any
		outcomes []string
		want     *Hazard
	}{
		{"the .env shown before the compaction", slices.Concat(read, env, after), []string{"truncate", "keep"}, nil},
		{"the cut Read alone", slices.Concat(read, after), []string{"truncate"}, &Hazard{Kind: UsedHidden, CallIndex: 1,
			From: "compaction summary", Match: dsn, Evidence: "…eads its settings from app.conf and connects to " + dsn + "; every option is off.",
			MatchFrom: 5113, MatchTo: 5170, Why: "used a string of the part cut off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := mustPreset(t, "harness-rs-0.0.40")
			pol.SetCeiling(4096)
			rp, err := prepared(t, generic(t, tt.msgs...)).Replay(pol, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.outcomes, outcomes(rp)); diff != "" {
				t.Fatalf("outcomes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, rp.Results[0].Hazard); diff != "" {
				t.Errorf("hazard (-want +got):\n%s", diff)
			}
		})
	}
}
