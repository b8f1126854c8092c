package sessions

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
)

// TestPointIsReplay: a session's chart point at a ceiling is, figure for
// figure, its replay under the policy at that ceiling (SavingsAt), so that
// a key moving the ceiling along the chart takes its figures from the
// points: on generated sessions (sub-agents and resumed copies among
// them), the real logs, and a session whose own log records no usage while
// its sub-agent's does, whose dollars are the sub-agent's, not unknown.
func TestPointIsReplay(t *testing.T) {
	fleet := t.TempDir()
	shape := corpus.Fleet{Claude: 3, Codex: 2, MeanCalls: 24, ResultBytes: 8192, SubagentEvery: 2, ResumeEvery: 2, Projects: 1}
	if _, err := corpus.WriteFleet(fleet, shape); err != nil {
		t.Fatal(err)
	}
	quiet := filepath.Join(t.TempDir(), "sess-a.jsonl")
	from := filepath.Join("..", "app", "testdata", "projects", "p")
	own, err := os.ReadFile(filepath.Join(from, "sess-a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	own = regexp.MustCompile(`,"usage":\{[^}]*\}`).ReplaceAll(own, nil)
	sub, err := os.ReadFile(filepath.Join(from, "sess-a", "subagents", "agent-x1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(filepath.Dir(quiet), "sess-a", "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(quiet, own, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(quiet), "sess-a", "subagents", "agent-x1.jsonl"), sub, 0o644); err != nil {
		t.Fatal(err)
	}

	src := newList(t, append([]string{fleet, quiet}, sharedLogs(t)...), app.Options{Prices: pricing.Default(), Counter: counter})
	listed := listPaths(t, src)
	ctx := context.Background()
	compared, acted := 0, 0
	for _, pol := range retunings(t) {
		if pol.FollowVersion {
			continue // swept as each session's version applies it, which a key does not change
		}
		ceilings := replay.ChartCeilings(pol, 0)
		points := map[string][]replay.SweepPoint{}
		err := src.Sweep(ctx, pol, listed, ceilings, func(s Savings) {
			if s.Err != nil {
				t.Errorf("%s sweep: %s: %v", pol.Name, s.Path, s.Err)
			}
			points[s.Path] = s.Points
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range ceilings {
			at := pol.AtCeiling(c)
			err := src.Replay(ctx, at, listed, func(s Savings) {
				if s.Err != nil {
					t.Errorf("%s: %s: %v", policyKey(at), s.Path, s.Err)
					return
				}
				if d := cmp.Diff(s, SavingsAt(s.Path, points[s.Path][i])); d != "" {
					t.Errorf("%s: %s (-replayed +point):\n%s", policyKey(at), s.Path, d)
				}
				// By hand, the sub-agent's one call at claude-sonnet-4-5's $3,
				// $3.75 and $15 a million: 7 in + 300 written + 30 out.
				if s.Path == quiet && (s.Point.CostAfter == nil || math.Abs(*s.Point.CostAfter-0.001596) > 1e-12) {
					t.Errorf("%s: the session whose sub-agent alone records usage costs %v, want $0.001596", policyKey(at), s.Point.CostAfter)
				}
				compared++
				if s.Point.Saved > 0 {
					acted++
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d sessions, %d replays compared, %d saving", len(listed), compared, acted)
	if compared == 0 || acted == 0 {
		t.Errorf("%d replays compared, %d saving anything: the comparison shows nothing", compared, acted)
	}
}
