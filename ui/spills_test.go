package ui

import (
	tea "charm.land/bubbletea/v2"

	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/ledger"
)

// TestSpillsWrittenWhenNeeded: replays write no spill file; opening a
// spilled result writes its file alone, and writing the policy writes all
// the replay's. Under harness-rs-0.0.50 the demo spills two results over
// 24 KiB: call 0's 69.0K Read and call 1's 29.4K Grep.
func TestSpillsWrittenWhenNeeded(t *testing.T) {
	root := t.TempDir()
	pol, err := policy.Preset("harness-rs-0.0.50")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Source: Source{Name: "demo.jsonl", Data: demoData(t)}, Policy: pol, Prices: pricing.Default(),
		Counter: counter, SpillRoot: root, Theme: "dark"})
	leaveAtEnd(t, m)
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
	// The Read's content, as spillway's hook spills it in Claude Code:
	// without the line numbers Claude Code puts before its lines.
	content, _, _ := harness.UnnumberRead(spilled[0].Source.Text)
	if data, _ := os.ReadFile(spilled[0].SpillPath); string(data) != content || len(data) != 60_107 {
		t.Errorf("the spill file holds %d bytes, not the Read's content's %d", len(data), len(content))
	}
	press(t, m, "q") // close the viewer
	// The detail pane names the file, and what enter opens: the result it
	// holds, in the viewer, not the file itself.
	send(t, m, tea.WindowSizeMsg{Width: 400, Height: 40}) // room for the file's whole path
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "spill file: "+spilled[0].SpillPath+" (enter opens the result it holds)") {
		t.Errorf("the detail pane does not name the spill file:\n%s", out)
	}
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})

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

// The footer says what spillway's hook cut from a session it ran in, from
// its ledger, beside what the policy would: 38,220 → 2,100 tokens in 2
// results. Those two are left as the log holds them; the policy takes out
// the repeats alone, as at a ceiling of 0 ($0.374005, report's figure).
func TestFooterRealized(t *testing.T) {
	out := demoWithLedger(t,
		ledger.Entry{Session: demoSessionID, ToolUseID: "toolu_demo00", Tool: "Read", Tokens: 30_182, TokensAfter: 1_100},
		ledger.Entry{Session: demoSessionID, ToolUseID: "toolu_demo01", Tool: "Grep", Tokens: 8_038, TokensAfter: 1_000})
	if !strings.Contains(out, "cost $0.3983 → $0.3740 −6.1% · hook cut 38.2k → 2,100 tokens in 2 · T0") {
		t.Errorf("footer:\n%s", out)
	}
}

// demoSessionID is the demo session's id, which its ledger is kept under.
const demoSessionID = "5f0c9a7e-demo-4c1b-9e55-7d2a61b0c0de"

// demoWithLedger is the demo's screen under harness-rs-0.0.40 at 160×40,
// unstyled, its hook ledger holding entries.
func demoWithLedger(t *testing.T, entries ...ledger.Entry) string {
	t.Helper()
	dir := t.TempDir()
	for _, e := range entries {
		if err := ledger.Append(dir, e); err != nil {
			t.Fatal(err)
		}
	}
	pol, _ := policy.Preset("harness-rs-0.0.40")
	m := New(Options{Source: Source{Name: "demo.jsonl", Data: demoData(t)}, Policy: pol, Prices: pricing.Default(),
		Counter: counter, Theme: "dark", Ledger: dir})
	leaveAtEnd(t, m)
	drive(t, m, m.Init())
	send(t, m, tea.WindowSizeMsg{Width: 160, Height: 40})
	return ansi.Strip(screen(m))
}

// TestFooterRealizedGrew: a hook whose replacement was longer than the
// output (625 → 768 tokens) says it grew it, not that it cut it.
func TestFooterRealizedGrew(t *testing.T) {
	out := demoWithLedger(t, ledger.Entry{Session: demoSessionID, ToolUseID: "toolu_demo01", Tool: "Grep", Tokens: 625, TokensAfter: 768})
	if !strings.Contains(out, "· hook grew 625 → 768 tokens in 1 ·") {
		t.Errorf("footer:\n%s", out)
	}
}
