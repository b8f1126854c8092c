package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
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
			for _, r := range rp.Results {
				if r.Outcome == Kept || r.Outcome == Excluded {
					continue
				}
				acted++
				if want := int64(c.Count(r.Text)); r.TokensAfter != want {
					t.Fatalf("%s at %d, result %d (%s): %d tokens after, counting the text whole gives %d",
						pol.Name, pol.Ceiling, r.Index, r.Outcome, r.TokensAfter, want)
				}
			}
		}
		if preset.Name != "none" && acted == 0 {
			t.Errorf("%s: no result acted on", preset.Name)
		}
	}
}
