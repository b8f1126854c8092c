package replay

import (
	"path/filepath"
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
