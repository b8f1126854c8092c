package sessions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
)

// TestCopiesReplayedAlone: a log that copies another's responses (a
// resumed session), appearing after the first replay and replayed alone,
// costs nothing after, as before: its calls count in the log it copies.
// Where the logs are too large to read again to tell its copies apart,
// the replay says so.
func TestCopiesReplayedAlone(t *testing.T) {
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Preset("harness-rs-0.0.40")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		bound  int64
		warned bool
	}{{"reread", rereadAllBytes, false}, {"too large to reread", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(v int64) { rereadAllBytes = v }(rereadAllBytes)
			rereadAllBytes = tc.bound
			dir := t.TempDir()
			first := filepath.Join(dir, "first.jsonl")
			os.WriteFile(first, demo, 0o644)
			old := time.Now().Add(-2 * time.Hour)
			os.Chtimes(first, old, old)
			src := newList(t, []string{dir}, app.Options{Prices: pricing.Default(), Counter: counter})
			replayed := func(paths ...string) map[string]Savings {
				t.Helper()
				if _, _, err := src.Scan(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				got := map[string]Savings{}
				if err := src.Replay(context.Background(), pol, paths, func(s Savings) { got[s.Path] = s }); err != nil {
					t.Fatal(err)
				}
				return got
			}
			// $0.398306 as recorded, $0.260020 under harness-rs-0.0.40
			// (README's sweep).
			if s := replayed(first)[first]; s.Err != nil || s.CostAfter == nil || *s.CostAfter < 0.26001 || *s.CostAfter > 0.26003 {
				t.Fatalf("first alone: %+v", s)
			}
			second := filepath.Join(dir, "second.jsonl")
			os.WriteFile(second, demo, 0o644)
			os.Chtimes(second, old, old)
			got := replayed(second)
			if warning := got[""].Err; (warning != nil) != tc.warned || tc.warned && !strings.Contains(warning.Error(), "may count twice") {
				t.Errorf("warning %v, want one: %v", warning, tc.warned)
			}
			if s := got[second]; !tc.warned && (s.CostAfter == nil || *s.CostAfter != 0) {
				t.Errorf("the copy replayed alone: %+v, want nothing after", s)
			}
		})
	}
}
