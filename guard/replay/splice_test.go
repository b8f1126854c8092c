package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestTokensAfterAreExact replays results full of what escaping and
// splitting treat specially through every preset at ceilings that grow,
// shrink and come back, as a tuner does, and checks every replacement's
// count, made from remembered counts and the bytes around its cuts,
// against counting it whole.
func TestTokensAfterAreExact(t *testing.T) {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	lines := []string{
		`	if err := json.Unmarshal(raw, &v); err != nil { return fmt.Errorf("decode %q: %w", name, err) }`,
		`"node_modules/@babel/core": {"version": "7.24.0", "resolved": "https://registry.npmjs.org/@babel/core/-/core-7.24.0.tgz"},`,
		`C:\Users\dev\project\src\main.rs:12:5: warning: unused variable`,
		"The quick brown fox's tail, naïve café — 日本語のテキスト 😀 and \u2028 more words here",
		"col1\tcol2\tcol3\t\x01\x1b[31mred\x1b[0m",
		strings.Repeat("aGVsbG8gd29ybGQ", 40),
		"   indented    with   runs of    spaces   ",
		"",
	}
	var msgs []map[string]any
	for i := range 40 {
		var b strings.Builder
		size := 3_000 + rng.IntN(120_000)
		for b.Len() < size {
			b.WriteString(lines[rng.IntN(len(lines))])
			b.WriteByte('\n')
		}
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, call(id, "Bash", map[string]any{"command": id}), result(id, b.String(), false))
	}
	p, err := Prepare(context.Background(), generic(t, msgs...), tokens.NewCache(c), pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, preset := range policy.Presets() {
		acted := 0
		for _, ceiling := range []int64{0, 2048, 9000, 4096, 70_000, 9000, 2500} {
			pol := preset.Clone()
			if ceiling > 0 {
				pol.SetCeiling(ceiling)
			}
			rp, err := p.Replay(pol, Options{})
			if err != nil {
				t.Fatal(err)
			}
			acted += len(exactAfter(t, c, rp, fmt.Sprintf("%s at %d", pol.Name, pol.Ceiling)))
		}
		if preset.Name != "none" && acted == 0 {
			t.Errorf("%s: no result acted on", preset.Name)
		}
	}
}

// TestTokensAfterAreExactCodex does the same under every Codex preset, on
// every shared Codex log and on commands' outputs long enough that the
// tool's own cut is cut again to the recording budget (which it checks
// happens, the tool's header kept), at every sweep ceiling going down and
// up again.
func TestTokensAfterAreExactCodex(t *testing.T) {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var long strings.Builder
	for i := 0; long.Len() < 150_000; i++ {
		fmt.Fprintf(&long, "src/pkg%03d/file_%d.go:%d: undefined: handler%d (naïve café 😀)\n", i%97, i, i*7, i)
	}
	sessions := []*transcript.Session{generic(t,
		call("1", "shell", nil), result("1", long.String(), false),
		call("2", "exec", nil), result("2", "Script completed\nWall time 0.1 seconds\nOutput:\n"+long.String()[:60_000], false))}
	for _, path := range sharedtest.Transcripts(t, "codex_*.jsonl") {
		s, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	execs, recut := 0, false
	for k, s := range sessions {
		p, err := Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, preset := range policy.Presets() {
			if preset.Style != harness.Codex {
				continue
			}
			down := SweepCeilings(preset)
			slices.Reverse(down)
			for _, ceiling := range append(down, SweepCeilings(preset)...) {
				pol := preset.AtCeiling(ceiling)
				rp, err := p.Replay(pol, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range exactAfter(t, c, rp, fmt.Sprintf("%s, %s at %d", filepath.Base(s.Path), pol.Name, ceiling)) {
					if pol.IsExec(r.Source.Tool) {
						execs++
					}
					if k == 0 && r.Index == 0 && pol.Name == "codex-pre-0.125.0" && ceiling == 512 {
						// Cut by the tool at 10,000 tokens under its header,
						// then to the record's budget: the header stays.
						recut = strings.HasPrefix(r.Text, "Total output lines: 2079\n") && len(r.Text) < 3000
					}
				}
			}
		}
	}
	if execs == 0 || !recut {
		t.Errorf("%d commands' outputs cut; one cut again to the record's budget: %v", execs, recut)
	}
}

// exactAfter fails t where a result rp shaped has another count after the
// policy than its text counted whole, and returns the results it shaped.
func exactAfter(t *testing.T, c *tokens.Counter, rp *Run, where string) []*Result {
	t.Helper()
	var acted []*Result
	for i := range rp.Results {
		r := &rp.Results[i]
		if r.Outcome == Kept || r.Outcome == Excluded {
			continue
		}
		acted = append(acted, r)
		if want := int64(c.Count(r.Text)); r.TokensAfter != want {
			t.Fatalf("%s, result %d (%s, %s): %d tokens after, counting the text whole gives %d",
				where, r.Index, r.Source.Tool, r.Outcome, r.TokensAfter, want)
		}
	}
	return acted
}
