package sessions

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/index"
)

// TestScanAhead: the scan ScanAhead begins is the one the first Scan
// gives, with its progress; the next Scan scans again; a scan no Scan
// took is stopped, and one a cancelled Scan leaves is not taken again.
func TestScanAhead(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpus.WriteFleet(dir, corpus.Fleet{Claude: 4, Codex: 2, MeanCalls: 5, ResultBytes: 512, SubagentEvery: 2, Projects: 2}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	list := func() *Service {
		ix, err := index.Open(index.Options{Prices: pricing.Default(), NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		return NewIndexed([]string{dir}, app.Env{}, app.Options{Prices: pricing.Default()}, ix)
	}
	want, _, err := list().Scan(ctx, nil)
	if err != nil || len(want) != 6 {
		t.Fatalf("scanned %d sessions, %v; want 6", len(want), err)
	}

	src := list()
	stop := src.ScanAhead()
	var done, total int
	got, _, err := src.Scan(ctx, func(d, t int) { done, total = d, t })
	stop() // taken: nothing to stop
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the scan begun ahead (-scanned +taken):\n%s", d)
	}
	if done != total || total == 0 {
		t.Errorf("progress %d of %d", done, total)
	}
	if again, _, err := src.Scan(ctx, nil); err != nil || !cmp.Equal(want, again) {
		t.Errorf("the next scan: %d rows, %v", len(again), err)
	}

	src = list()
	src.ScanAhead()()
	if got, _, err := src.Scan(ctx, nil); err != nil || !cmp.Equal(want, got) {
		t.Errorf("after a scan ahead was stopped: %d rows, %v", len(got), err)
	}

	src = list()
	src.ScanAhead()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := src.Scan(cancelled, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled Scan: %v", err)
	}
	if got, _, err := src.Scan(ctx, nil); err != nil || !cmp.Equal(want, got) {
		t.Errorf("after a cancelled Scan: %d rows, %v", len(got), err)
	}
}
