package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/themes"
)

// TestHazardLines: the detail pane says what a hazard is, the later call
// its evidence came from and the evidence, escaped; the marker is the
// same letter in every theme, mono included.
func TestHazardLines(t *testing.T) {
	used := &replay.Result{Hazard: &replay.Hazard{Kind: replay.UsedHidden, Retrievable: true, ExtraTokens: 42, CallIndex: 1,
		From: "Bash input", Evidence: "psql 'postgres://orders@db:5432/orders' \x1b[2J", Why: "used a string of the spilled part"}}
	unseen := &replay.Result{Hazard: &replay.Hazard{Kind: replay.SuppressedUnseen, CallIndex: 2, Why: "repeat of result 0, which was truncated"}}
	for _, p := range []themes.Palette{themes.Dark, themes.Light, themes.HighContrast, themes.Mono} {
		st := themes.New(p)
		var got []string
		for _, r := range []*replay.Result{used, unseen, {}} {
			for _, l := range hazardLines(st, r, 3, 0, 200) {
				got = append(got, ansi.Strip(l))
			}
		}
		want := []string{
			"H used_hidden used a string of the spilled part · used at call 1 (Bash input) · retrievable: one more call, ~42 tok",
			`  “psql 'postgres://orders@db:5432/orders' \x1b[2J”`,
			"H suppressed_unseen repeat of result 0, which was truncated · call 2 got the repeat's stub",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p.Name, diff)
		}
		// Narrow, the quote wraps with its indent on every line.
		var narrow []string
		for _, l := range hazardLines(st, used, 3, 0, 30) {
			narrow = append(narrow, ansi.Strip(l))
		}
		if want := []string{`  “psql`, `  'postgres://orders@db:5432/o`, `  rders' \x1b[2J”`}; !slices.Equal(narrow[len(narrow)-3:], want) {
			t.Errorf("%s: narrow quote %q", p.Name, narrow)
		}
		// The marker looks like no other.
		h := st.Marker[themes.Hazard].Render(themes.Hazard.Glyph())
		for _, mk := range themes.Markers() {
			if mk != themes.Hazard && (mk.Glyph() == themes.Hazard.Glyph() || st.Marker[mk].Render(themes.Hazard.Glyph()) == h) {
				t.Errorf("%s: the hazard marker is drawn like %s", p.Name, mk.Name())
			}
		}
		if !strings.Contains(h, "H") {
			t.Errorf("%s: marker %q", p.Name, h)
		}
	}
}

// TestHazardInViewer: halving the ceiling three times (3,072 JSON bytes)
// cuts the settings file of testdata/hazards/tail-dsn.jsonl before its
// connection string, which the next call uses: the row is marked, H goes
// to it, and the viewer opens on the used string, found.
func TestHazardInViewer(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "hazards", "tail-dsn.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, data, "harness-rs-0.0.40", 120, 40, "mono")
	press(t, m, "-", "-", "-")
	if m.policy.Ceiling != 3072 || m.sess.replay == nil || m.sess.replay.Totals.Hazards.UsedHidden != 1 {
		t.Fatalf("ceiling %d, replay %v", m.policy.Ceiling, m.sess.replay != nil)
	}
	press(t, m, "G", "H")
	if m.sess.currentCall() != 0 {
		t.Fatalf("H went to call %d, want 0", m.sess.currentCall())
	}
	if !strings.Contains(ansi.Strip(screen(m)), "H used_hidden used a string of the part cut off · used at call 1 (Bash input)") {
		t.Errorf("the detail pane lacks the hazard:\n%s", ansi.Strip(screen(m)))
	}
	press(t, m, "enter")
	const dsn = "postgres://orders_app:Tr0ub4dor@db-7.internal:5432/orders"
	if q := m.sess.spill.Query(); q != dsn {
		t.Errorf("viewer searched %q, want %q", q, dsn)
	}
	if !strings.Contains(ansi.Strip(screen(m)), "DATABASE_URL="+dsn) {
		t.Errorf("the viewer does not show the used line:\n%s", ansi.Strip(screen(m)))
	}
}

// TestNextEventSelectsTheResult: ] stops on a call whose results the
// policy changed with the first such result selected, so that enter opens
// it, where it kept the one selected before (raze's call 3: result 9
// kept, result 10 spilled).
func TestNextEventSelectsTheResult(t *testing.T) {
	m := newModel(t, sharedLog(t, "codex_raze_*.jsonl"), "harness-rs-0.0.50", 120, 40, "dark")
	stops := 0
	for range 50 {
		before := m.sess.currentCall()
		press(t, m, "]")
		if m.sess.currentCall() == before {
			break
		}
		stops++
		p, call := m.sess.at(m.sess.currentCall())
		rs := callResults(p.replay, call)
		if i := m.sess.detail.result; i >= len(rs) || rs[i].Outcome == replay.Kept {
			t.Errorf("call %d: result %d of %d selected, which the policy keeps", call, i, len(rs))
		}
	}
	if stops == 0 {
		t.Fatal("] stopped nowhere")
	}
}
