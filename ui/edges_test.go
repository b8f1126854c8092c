package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// screenText is the screen without styles.
func screenText(m *Model) string { return ansi.Strip(screen(m)) }

// TestTunedBackToThePreset: + then - is the preset's ceiling again, and
// the policy is the preset again, not "+custom".
func TestTunedBackToThePreset(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "+")
	if m.policy.Name != "harness-rs-0.0.40+custom" {
		t.Fatalf("after +: %s", m.policy.Name)
	}
	press(t, m, "-")
	if m.policy.Name != "harness-rs-0.0.40" || !strings.Contains(screenText(m), "policy harness-rs-0.0.40 · ceiling 24,576 JSON bytes") {
		t.Errorf("after + and -: %s\n%s", m.policy.Name, screenText(m))
	}
	press(t, m, "d") // another knob: tuned again
	if m.policy.Name != "harness-rs-0.0.40+custom" {
		t.Errorf("after d: %s", m.policy.Name)
	}
}

// TestSearchSaysWhichMatch: n and N say which match of how many is shown.
func TestSearchSaysWhichMatch(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "/")
	for _, r := range "merge.js" {
		press(t, m, string(r))
	}
	press(t, m, "enter")
	n := len(m.sess.matches)
	if n < 2 || !strings.HasPrefix(m.ctx.notice, "match 1 of ") {
		t.Fatalf("%d matches, notice %q", n, m.ctx.notice)
	}
	press(t, m, "n")
	if want := "match 2 of "; !strings.HasPrefix(m.ctx.notice, want) || !strings.Contains(m.ctx.notice, `for "merge.js": call `) {
		t.Errorf("after n: %q", m.ctx.notice)
	}
	press(t, m, "N", "N")
	if want := fmt.Sprintf("match %d of %d", n, n); !strings.HasPrefix(m.ctx.notice, want) {
		t.Errorf("N from the first goes to the last: %q, want %q", m.ctx.notice, want)
	}
}

// TestListKeysOfASession: a key that works in a session's calls says so
// on the list, rather than doing nothing.
func TestListKeysOfASession(t *testing.T) {
	m := newListModel(t, []string{fleetFixture(t)}, "harness-rs-0.0.40", 120, 40, longAgo)
	for k, name := range map[string]string{"H": "next hazard", "T": "results by tool", "C": "context over time", "c": "costliest call"} {
		press(t, m, k)
		if want := k + " (" + name + ") works in a session's calls: enter opens the session selected"; m.ctx.notice != want {
			t.Errorf("%s: notice %q, want %q", k, m.ctx.notice, want)
		}
		if m.sess != nil || m.overlay != noOverlay {
			t.Errorf("%s changed the screen", k)
		}
	}
}

// fleetWithWarning is fleetFixture's folder with a line the reader warns
// of at the end of beta.jsonl, written long ago.
func fleetWithWarning(t *testing.T) string {
	t.Helper()
	dir := fleetFixture(t)
	bad := filepath.Join(dir, "beta.jsonl")
	data, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, append(data, []byte("{not json\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	os.Chtimes(bad, old, old)
	return dir
}

// TestListWarningsNameTheSessions: W on the list names the sessions whose
// logs the reader warned of, and enter opens one.
func TestListWarningsNameTheSessions(t *testing.T) {
	m := newListModel(t, []string{fleetWithWarning(t)}, "harness-rs-0.0.40", 120, 40, longAgo)
	if f := lineWith(t, m, "4 sessions"); !strings.Contains(f, "1 warning (W)") {
		t.Errorf("footer %q", f)
	}
	press(t, m, "W")
	out := screenText(m)
	if strings.Contains(out, "no warnings") || !strings.Contains(out, "beta.jsonl: 1 warning of the reader (enter opens it; W there lists them)") {
		t.Fatalf("the list's warnings:\n%s", out)
	}
	press(t, m, "enter")
	if m.sess == nil || filepath.Base(m.sess.src.Path) != "beta.jsonl" {
		t.Fatal("enter did not open beta")
	}
	press(t, m, "W")
	if out := screenText(m); !strings.Contains(out, "line 4:") {
		t.Errorf("beta's warnings:\n%s", out)
	}
}

// TestListSortTies: sessions that save the same go newest first, not in
// an order of their paths; one whose savings are not known (delta, of a
// model without a price) last.
func TestListSortTies(t *testing.T) {
	m := newListModel(t, []string{fleetFixture(t)}, "harness-rs-0.0.40", 120, 40, longAgo)
	press(t, m, "o", "o") // by saved: alpha saves, beta and gamma nothing
	if got := strings.Join(shownNames(m), " "); got != "alpha beta gamma delta" {
		t.Errorf("by saved: %s, want alpha, then beta before gamma (newer), then delta", got)
	}
	// gamma last active after beta: it goes first of the two, whatever
	// their paths.
	for i := range m.fleet.list.rows {
		if r := &m.fleet.list.rows[i]; strings.HasSuffix(r.Path, "gamma.jsonl") {
			r.Last = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
		}
	}
	m.fleet.list.refresh()
	if got := strings.Join(shownNames(m), " "); got != "alpha gamma beta delta" {
		t.Errorf("by saved, gamma newer: %s, want alpha gamma beta delta", got)
	}
}

// TestSessionSortMark: sorted by cost, the header and the column say so.
func TestSessionSortMark(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "o")
	out := screenText(m)
	if !strings.Contains(out, "sorted by cost, highest first") || !strings.Contains(out, "cost → after ▾") {
		t.Errorf("no sort mark:\n%s", out)
	}
	press(t, m, "o")
	if out := screenText(m); !strings.Contains(out, "Δ tokens ▾") {
		t.Errorf("no sort mark by Δ:\n%s", out)
	}
}

// TestDedupeWording: a repeat suppression setting reads as the identical
// call it starts from, not as a call index.
func TestDedupeWording(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 160, 40, "dark")
	if out := screenText(m); !strings.Contains(out, "dedupe from the 2nd identical call") || strings.Contains(out, "from call 2") {
		t.Errorf("header:\n%s", out)
	}
	press(t, m, "D")
	if m.ctx.notice != "repeats suppressed from the 3rd identical call" {
		t.Errorf("notice %q", m.ctx.notice)
	}
}

// TestLongNoticeWhole: at 120 columns a notice too long for a line takes
// the chart's line too, and is read whole.
func TestLongNoticeWhole(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "+", "p") // a preset after tuning: the long notice
	notice := m.ctx.notice
	if len(notice) <= 120 {
		t.Fatalf("notice %q fits a line", notice)
	}
	lines := strings.Split(screenText(m), "\n")
	tail := strings.Join([]string{strings.TrimSpace(lines[len(lines)-2]), strings.TrimSpace(lines[len(lines)-1])}, " ")
	if tail != notice {
		t.Errorf("the notice's two lines:\n%q\nwant\n%q", tail, notice)
	}
}

// TestFooterKeepsHazardsAndWarnings: at 80×24, cut to fit, the footer of a
// session keeps its hazards and warnings and leaves out the counts of
// nothing first.
func TestFooterKeepsHazardsAndWarnings(t *testing.T) {
	data := append(append([]byte{}, demoData(t)...), []byte("{not json\n")...)
	m := newModel(t, data, "harness-rs-0.0.40", 80, 24, "dark")
	lines := strings.Split(screenText(m), "\n")
	totals := lines[len(lines)-3]
	for _, want := range []string{"cost $0.3983 → $0.2600", "H1", "1 warning (W)"} {
		if !strings.Contains(totals, want) {
			t.Errorf("totals at 80 columns lack %q: %q", want, totals)
		}
	}
	if strings.Contains(totals, "S0") || strings.Contains(totals, "…") {
		t.Errorf("totals keep a count of nothing, or are cut: %q", totals)
	}
}

// TestHazardOpensAtItsLine: H selects the hazard's call and opens the
// detail pane at the hazard's lines, whole, at 80×24.
func TestHazardOpensAtItsLine(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 80, 24, "dark")
	press(t, m, "H")
	out := screenText(m)
	if m.sess.currentCall() != 12 {
		t.Fatalf("H went to call %d", m.sess.currentCall())
	}
	var hazard []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "H ") || len(hazard) > 0 && len(hazard) < 4 {
			hazard = append(hazard, strings.TrimRight(l, " "))
		}
	}
	if len(hazard) == 0 {
		t.Fatalf("the hazard is not in view:\n%s", out)
	}
	if strings.Contains(strings.Join(hazard, "\n"), "…") {
		t.Errorf("the hazard is cut:\n%s", out)
	}
}

// TestNoUsageDelta: a call with no usage recorded shows what the policy
// takes out of it as an estimate, marked so, and the pane says so.
func TestNoUsageDelta(t *testing.T) {
	lines := []map[string]any{
		{"spillway": "transcript/v1", "session_id": "s"},
		{"role": "user", "content": "go"},
		{"role": "assistant", "model": "claude-sonnet-4-5", "content": "ok",
			"usage":      map[string]any{"input_tokens": 1000, "output_tokens": 10},
			"tool_calls": []any{map[string]any{"id": "t0", "name": "read_file", "arguments": map[string]any{"path": "a"}}}},
		{"role": "tool", "tool_call_id": "t0", "content": strings.Repeat("word ", 10_000)},
		{"role": "assistant", "model": "claude-sonnet-4-5", "content": "done"}, // no usage recorded
	}
	m := newModel(t, jsonLines(lines), "harness-rs-0.0.40", 160, 40, "dark")
	ci := m.sess.table.info[1]
	if ci.recorded || ci.saved <= 0 {
		t.Fatalf("call 1: recorded %v, saved %d", ci.recorded, ci.saved)
	}
	press(t, m, "j")
	out := screenText(m)
	row := lineWith(t, m, "    1 ")
	if !strings.Contains(row, "~−") {
		t.Errorf("call 1's Δ is not marked an estimate: %q", row)
	}
	if !strings.Contains(out, "tokens, estimated from its results") {
		t.Errorf("the pane does not say the Δ is an estimate:\n%s", out)
	}
}

// TestWideListNamesWhole: at 200 columns the model and agent columns hold
// their names whole.
func TestWideListNamesWhole(t *testing.T) {
	m := newListModel(t, []string{fleetFixture(t)}, "harness-rs-0.0.40", 200, 40, longAgo)
	for i := range m.fleet.list.rows {
		if r := &m.fleet.list.rows[i]; strings.HasSuffix(r.Path, "gamma.jsonl") {
			r.Models = []string{"claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"}
			r.Version = "2.1.126"
		}
	}
	m.fleet.list.refresh()
	if line := lineWith(t, m, "  2026-02-28 08:02 gamma"); !strings.Contains(line, "claude-sonnet-4-5-20250929 +1") {
		t.Errorf("gamma's model is cut: %s", line)
	}
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	checkSize(t, screen(m), 80, 24)
}

// TestFollowOffOnKeepsWarning: a log whose last line is cut off keeps the
// reader's warning of it after f f: following takes that line for one
// still being written; stopping reads the log whole again.
func TestFollowOffOnKeepsWarning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.jsonl")
	data := append(append([]byte{}, demoData(t)...), []byte(`{"type":"assistant","message":{"id":"x"`)...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	pol, _ := policy.Preset("harness-rs-0.0.40")
	m := New(Options{Source: Source{Name: path, Path: path}, Policy: pol, Prices: pricing.Default(), Counter: counter, Theme: "dark"})
	leaveAtEnd(t, m)
	drive(t, m, m.Init())
	send(t, m, tea.WindowSizeMsg{Width: 160, Height: 40})
	if f := lineWith(t, m, "16 calls"); !strings.Contains(f, "1 warning (W)") {
		t.Fatalf("opened: %q", f)
	}
	wait := driveWait
	driveWait = 500 * time.Millisecond // the follower answers only when the file grows
	t.Cleanup(func() { driveWait = wait })
	press(t, m, "f")
	press(t, m, "f")
	if f := lineWith(t, m, "16 calls"); !strings.Contains(f, "1 warning (W)") {
		t.Errorf("after f f: %q", f)
	}
}

// TestCostAndAfterRoundAlike: a call's cost and its cost after the policy,
// on one row, are written to the same cents: $1.04→$0.85, not
// $1.04→$0.8500; the same in the footer and the tools view's note.
func TestCostAndAfterRoundAlike(t *testing.T) {
	// gpt-4.1 at $2 a million input tokens: 520,000 tokens are $1.04;
	// the policy takes the big result out of the second call, bringing
	// it under a dollar.
	lines := []map[string]any{
		{"spillway": "transcript/v1", "session_id": "s"},
		{"role": "user", "content": "go"},
		{"role": "assistant", "model": "gpt-4.1", "content": "ok",
			"usage":      map[string]any{"input_tokens": 1000, "output_tokens": 10},
			"tool_calls": []any{map[string]any{"id": "t0", "name": "read_file", "arguments": map[string]any{"path": "a"}}}},
		{"role": "tool", "tool_call_id": "t0", "content": strings.Repeat("word ", 100_000)},
		{"role": "assistant", "model": "gpt-4.1", "content": "done",
			"usage": map[string]any{"input_tokens": 520_000, "output_tokens": 0}},
	}
	m := newModel(t, jsonLines(lines), "harness-rs-0.0.40", 160, 40, "dark")
	ci := m.sess.table.info[1]
	if ci.cost == nil || ci.costAfter == nil || *ci.cost < 1 || *ci.costAfter >= 1 {
		t.Fatalf("call 1 costs %v → %v, want a dollar or more before and less after", ci.cost, ci.costAfter)
	}
	after := fmt.Sprintf("$%.2f", *ci.costAfter)
	if row := lineWith(t, m, "    1 "); !strings.Contains(row, "$1.04→"+after+" ") {
		t.Errorf("call 1's row: %q, want $1.04→%s", row, after)
	}
	if f := lineWith(t, m, "2 calls"); !strings.Contains(f, "cost $1.04 → "+after+" ") {
		t.Errorf("footer: %q", f)
	}
	press(t, m, "T")
	if out := screenText(m); !strings.Contains(out, "share: of the session's cost $1.04 → "+after) {
		t.Errorf("the tools view's note:\n%s", out)
	}
}

// TestListTotalSaysWhatItLeavesOut: the list's total is of the sessions
// with a price; at 80 columns the footer still says how many it leaves
// out, as report's total says its cost is unknown, rather than reading as
// the cost of every session.
func TestListTotalSaysWhatItLeavesOut(t *testing.T) {
	// A warning and a hazard of their own: the footer is too long for 80
	// columns, so it drops parts.
	m := newListModel(t, []string{fleetWithWarning(t)}, "harness-rs-0.0.40", 80, 24, longAgo)
	lines := strings.Split(screenText(m), "\n")
	var footer string
	for _, l := range lines {
		if strings.Contains(l, "cost $0.1020") {
			footer = l
		}
	}
	if !strings.Contains(footer, "1 without a price") {
		t.Errorf("footer at 80 columns: %q", footer)
	}
}
