package index_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/index"
)

// readPaths runs test as the index reads files written in the last
// quarter of an hour ("live": through decoders it keeps, to read on from
// where they end) and as it reads older ones ("whole": each into an arena
// that the next file reuses, on two workers whatever the machine has).
func readPaths(t *testing.T, test func(t *testing.T, opt index.Options)) {
	t.Run("live", func(t *testing.T) { test(t, index.Options{}) })
	t.Run("whole", func(t *testing.T) {
		index.SetLiveWindow(t, 0)
		test(t, index.Options{Workers: 2})
	})
}

func scan(t *testing.T, opt index.Options, paths []string) ([]index.Entry, []index.Warning) {
	t.Helper()
	inputs, err := app.Resolve(paths, app.SystemEnv())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	entries, warnings, err := ix.Scan(context.Background(), inputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return entries, warnings
}

// TestFleetCorpus pins the index to the generated many-sessions corpus:
// every session's totals as the generator wrote them, its sub-agents
// under it and a resumed session's copies counted in the session resumed.
func TestFleetCorpus(t *testing.T) {
	dir := t.TempDir()
	shape := corpus.DefaultFleet
	shape.Claude, shape.Codex, shape.MeanCalls, shape.ResumeEvery = 45, 15, 30, 10
	want, err := corpus.WriteFleet(dir, shape)
	if err != nil {
		t.Fatal(err)
	}
	readPaths(t, func(t *testing.T, opt index.Options) {
		opt.NoCache = true
		entries, warnings := scan(t, opt, []string{dir})
		if len(warnings) > 0 {
			t.Errorf("warnings: %v", warnings)
		}
		got := map[string]corpus.Totals{}
		files, copied := 0, 0
		for _, e := range entries {
			got[e.Path] = corpus.Totals{Calls: e.APICalls - e.CopiedCalls, Input: e.Recorded.Input, CacheCreation: e.Recorded.CacheCreation,
				CacheRead: e.Recorded.CacheRead, Output: e.Recorded.Output}
			files += 1 + len(e.Subagents)
			copied += e.CopiedCalls
		}
		if diff := cmp.Diff(want.Sessions, got); diff != "" {
			t.Errorf("sessions (-generated +indexed):\n%s", diff)
		}
		if files != want.Files || copied == 0 {
			t.Errorf("%d files, %d copies indexed; want %d files and the resumed sessions' copies", files, copied, want.Files)
		}
	})
}
