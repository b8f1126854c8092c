package replay

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// ownPreset is the preset that emulates the harness that wrote a log.
var ownPreset = map[transcript.Format]string{transcript.FormatClaude: "claude-code", transcript.FormatCodex: "codex"}

// TestOwnPresetChangesNothing: a harness's own preset, replayed on a log
// that harness wrote, changes no result and saves nothing: the log holds
// what the model was sent, which the harness had shaped already. The logs
// are the real harnesses' own, recorded here by each version whose rules
// differ (testdata/real, see TestRealClaudePreset and TestRealCodexPreset), and
// the shared real logs.
func TestOwnPresetChangesNothing(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("..", "..", "testdata", "real", "*.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fixtures) == 0 {
		t.Error("no logs of the real harnesses in testdata/real")
	}
	for _, path := range fixtures {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ownPresetChangesNothing(t, readGzip(t, path))
		})
	}
	t.Run("shared", func(t *testing.T) {
		for _, path := range append(sharedtest.Transcripts(t, "claude-code_*.jsonl"), sharedtest.Transcripts(t, "codex_*.jsonl")...) {
			t.Run(filepath.Base(path), func(t *testing.T) {
				s, err := transcript.ReadFile(path, transcript.Options{})
				if err != nil {
					t.Fatal(err)
				}
				ownPresetChangesNothing(t, s)
			})
		}
	})
}

// readGzip reads a gzipped log.
func readGzip(t *testing.T, path string) *transcript.Session {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := transcript.Read(z, strings.TrimSuffix(path, ".gz"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, z); err != nil {
		t.Fatal(err)
	}
	return s
}

func ownPresetChangesNothing(t *testing.T, s *transcript.Session) {
	t.Helper()
	name, ok := ownPreset[s.Format]
	if !ok {
		t.Fatalf("a %s log has no preset of its own", s.Format)
	}
	p, err := Prepare(context.Background(), s, words{}, pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := p.Replay(mustPreset(t, name), Options{})
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, r := range rp.Results {
		if (r.Outcome == Kept || r.Outcome == Excluded) && r.Text == r.Source.Text {
			continue
		}
		changed++
		if changed <= 5 {
			t.Errorf("%s %s: result %d (%s, call %s) %s: %s; %d bytes → %d, %.120q",
				name, s.Version, i, r.Source.Tool, r.Source.CallID, r.Outcome, r.Reason, r.Bytes, r.BytesAfter, r.Text)
		}
	}
	if changed > 0 || rp.Totals.SavedPerCall != 0 || rp.Totals.BytesAfter != rp.Totals.Bytes {
		t.Errorf("%s on a %s %s log: %d of %d results changed, %d tokens saved", name, s.Format, s.Version, changed, len(rp.Results), rp.Totals.SavedPerCall)
	}
}

// TestCodexSweep: a log Codex wrote at its default limit, replayed by the
// codex preset at a ceiling of 2,000 tokens, gives every result as Codex
// itself sent it with tool_output_token_limit = 2000 (its log of the same
// session, testdata/real/*-limit2000): what a sweep of the log shows at
// that ceiling is what Codex would have done. The chunk ids and wall
// times, which Codex fills in per run, are not compared.
func TestCodexSweep(t *testing.T) {
	lows, err := filepath.Glob(filepath.Join("..", "..", "testdata", "real", "codex-*-limit2000.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(lows) == 0 {
		t.Fatal("no log of Codex at tool_output_token_limit = 2000 in testdata/real")
	}
	for _, low := range lows {
		t.Run(filepath.Base(low), func(t *testing.T) {
			def := readGzip(t, strings.Replace(low, "-limit2000", "", 1))
			want := map[string]string{}
			for _, r := range readGzip(t, low).Results() {
				want[r.CallID] = maskCodex(r.Text)
			}
			p, err := Prepare(context.Background(), def, words{}, pricing.Default(), nil)
			if err != nil {
				t.Fatal(err)
			}
			pol := mustPreset(t, "codex")
			pol.SetCeiling(2000)
			rp, err := p.Replay(pol, Options{})
			if err != nil {
				t.Fatal(err)
			}
			cut := 0
			for _, r := range rp.Results {
				if r.Outcome == Truncated {
					cut++
				}
				if got := maskCodex(r.Text); got != want[r.Source.CallID] {
					t.Errorf("%s: %s (%s), %d bytes; Codex sent %d:\n%s", r.Source.CallID, r.Outcome, r.Reason, len(got), len(want[r.Source.CallID]),
						firstDifference(want[r.Source.CallID], got))
				}
			}
			if cut == 0 {
				t.Error("no result cut at 2,000 tokens")
			}
		})
	}
}

// TestOwnPresetStubs: a file the model read three times unchanged under
// Claude Code 2.1.128 is logged whole, then stubbed twice; the stubs
// showed the model no content, so the second is no repeat of the first
// and the claude-code preset leaves the log as it is.
func TestOwnPresetStubs(t *testing.T) {
	read := map[string]any{"file_path": "/a"}
	s := claudeSession(t, filepath.Join(t.TempDir(), "s.jsonl"),
		call("r1", "Read", read), result("r1", "1\talpha", false),
		call("r2", "Read", read), result("r2", harness.ClaudeReadStub, false),
		call("r3", "Read", read), result("r3", harness.ClaudeReadStub, false),
	)
	s.Version = "2.1.128"
	ownPresetChangesNothing(t, s)
}
