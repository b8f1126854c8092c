package ui

import (
	tea "charm.land/bubbletea/v2"

	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
)

// TestSpillsWrittenWhenNeeded: replays write no spill file; opening a
// spilled result writes its file alone, and writing the policy writes all
// the replay's. Under harness-rs-0.0.50 the demo spills two results over
// 24 KiB: call 0's 70.6K Read and call 1's 30.1K Grep.
func TestSpillsWrittenWhenNeeded(t *testing.T) {
	root := t.TempDir()
	pol, err := policy.Preset("harness-rs-0.0.50")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Source: Source{Name: "demo.jsonl", Data: demoData(t)}, Policy: pol, Prices: pricing.Default(),
		Counter: counter, SpillRoot: root, Theme: "dark"})
	drive(t, m, m.Init())
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	press(t, m, "+", "-", "-", "+") // four more replays
	if files := filesUnder(t, root); len(files) != 0 {
		t.Fatalf("replays wrote %v", files)
	}
	var spilled []*replay.Result
	for i := range m.sess.replay.Results {
		if r := &m.sess.replay.Results[i]; r.Outcome == replay.Spilled {
			spilled = append(spilled, r)
		}
	}
	if len(spilled) != 2 || spilled[0].Arrival != 0 || spilled[1].Arrival != 1 || m.sess.spills.Len() != 2 {
		t.Fatalf("spilled %d results, %d planned", len(spilled), m.sess.spills.Len())
	}

	press(t, m, "enter") // call 0's result in the viewer
	if got := filesUnder(t, root); !slices.Equal(got, []string{spilled[0].SpillPath}) {
		t.Fatalf("opening call 0's result wrote %v, want %s", got, spilled[0].SpillPath)
	}
	if data, _ := os.ReadFile(spilled[0].SpillPath); string(data) != spilled[0].Source.Text {
		t.Errorf("the spill file holds %d bytes, not the result's %d", len(data), len(spilled[0].Source.Text))
	}
	press(t, m, "q") // close the viewer

	policyFile := filepath.Join(t.TempDir(), "policy.json")
	writeTo(t, m, policyFile)
	want := []string{spilled[0].SpillPath, spilled[1].SpillPath}
	slices.Sort(want)
	if got := filesUnder(t, root); !slices.Equal(got, want) {
		t.Errorf("writing the policy left %v, want %v", got, want)
	}
	// The notice says where both went: the policy, and its spill files.
	if m.ctx.notice != "policy written to "+policyFile+" (read it back with --policy); its 2 spill files written under "+root {
		t.Errorf("notice %q", m.ctx.notice)
	}
}

// filesUnder lists the regular files under root, sorted.
func filesUnder(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
