package transcript

import (
	"bytes"
	"compress/gzip"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readFixture reads a test file, gunzipped where its name ends in .gz
// (the logs the real harnesses wrote, testdata/real).
func readFixture(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return data
	}
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// claudeSkipped are the record types of Claude Code 2.1.328's logs that
// carry nothing spillway uses, each skipped on purpose: sizes and prices
// come from the assistant records' usage, results from the user records,
// the harness's own cost from cost-state.
var claudeSkipped = map[string]string{
	"attachment":        "context Claude Code attached: the environment, listings, reminders, files again after a compaction",
	"queue-operation":   "a prompt queued and taken",
	"last-prompt":       "the prompt a resumed session starts from",
	"atis-latch":        "a flag of the session",
	"tools-used":        "the tools used so far",
	"api-request":       "a request's parameters and its messages' digests",
	"api-request-shape": "a request's system prompt and tools, once per shape",
	"api-request-blob":  "a request's messages by digest: the results the user records hold, again",
}

// TestClaudeCode2_1_328: a log Claude Code 2.1.328 wrote (recorded by
// guard/replay's TestRealClaudePreset) reads without a warning, skipping
// exactly the record types it has no use for, and gives Claude Code's own
// cost of it: claude-opus-5-5 at $4 and $20 a million of every call the
// log holds (the stand-in answered 100 input and 10 output tokens, and
// 990,000 input where it made the harness compact), and of the one call
// it does not: the compaction's summary request, 100 and 10, $0.0006.
func TestClaudeCode2_1_328(t *testing.T) {
	path := filepath.Join("..", "testdata", "real", "claude-code-2.1.328.jsonl.gz")
	data := readFixture(t, path)
	for _, sizes := range []bool{false, true} {
		s, err := Read(bytes.NewReader(data), path, Options{SizesOnly: sizes})
		if err != nil {
			t.Fatal(err)
		}
		if s.Version != "2.1.328" || len(s.Warnings) > 0 {
			t.Errorf("version %s, warnings %v", s.Version, s.Warnings)
		}
		if diff := cmp.Diff(slices.Sorted(maps.Keys(claudeSkipped)), slices.Sorted(maps.Keys(s.Skipped))); diff != "" {
			t.Errorf("record types skipped (-known +read):\n%s", diff)
		}
		c := s.HarnessCost
		if c == nil {
			t.Fatal("no cost-state read")
		}
		want := 0.0006 // the summary request
		for _, call := range s.Calls {
			want += float64(call.Usage.Input)*4e-6 + float64(call.Usage.Output)*20e-6
		}
		if diff := c.USD - want; diff > 1e-9 || diff < -1e-9 || c.UnknownModel || len(c.ByModel) != 1 || c.ByModel["claude-opus-5-5"] != c.USD {
			t.Errorf("cost-state %+v, want $%.4f for %d calls and the summary", c, want, len(s.Calls))
		}
	}
}

// TestCostState: Claude Code's own cost of a session is its last
// cost-state record's; a record without a total is warned about.
func TestCostState(t *testing.T) {
	const (
		first  = `{"type":"cost-state","sessionId":"s","totalCostUSD":0.5,"modelUsage":{"a":{"costUSD":0.5}},"hasUnknownModelCost":false}`
		last   = `{"type":"cost-state","sessionId":"s","totalCostUSD":1.25,"modelUsage":{"a":{"costUSD":1},"b":{"inputTokens":3,"costUSD":0.25}},"hasUnknownModelCost":true}`
		broken = `{"type":"cost-state","sessionId":"s","totalCostUSD":"1.25"}`
	)
	user := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"go"}}`
	for _, sizes := range []bool{false, true} {
		s, err := Read(strings.NewReader(user+"\n"+first+"\n"+last+"\n"), "s.jsonl", Options{Format: FormatClaude, SizesOnly: sizes})
		if err != nil {
			t.Fatal(err)
		}
		want := &HarnessCost{Line: 3, USD: 1.25, ByModel: map[string]float64{"a": 1, "b": 0.25}, UnknownModel: true}
		if diff := cmp.Diff(want, s.HarnessCost); diff != "" || len(s.Warnings) > 0 {
			t.Errorf("(-want +got):\n%s\nwarnings %v", diff, s.Warnings)
		}
		s, err = Read(strings.NewReader(user+"\n"+broken+"\n"), "s.jsonl", Options{Format: FormatClaude, SizesOnly: sizes})
		if err != nil {
			t.Fatal(err)
		}
		if s.HarnessCost != nil || len(s.Warnings) != 1 || s.Warnings[0].Message != "cost-state record without a totalCostUSD number" {
			t.Errorf("a total that is no number: %+v, %v", s.HarnessCost, s.Warnings)
		}
	}
}
