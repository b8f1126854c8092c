package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/transcript"
)

// TestWriteColumns pins how a table gives way to its width: names are
// shortened to their least first, then the column of the highest
// priority number goes, then the names get back what is left over, a
// cell each in turn.
func TestWriteColumns(t *testing.T) {
	cols := func() []textColumn {
		return []textColumn{
			{title: "name", cells: []string{"abcdefghijklmnop", "total"}, elide: elideMid, min: 6},
			{title: "model", cells: []string{"claude-sonnet-4-5 +2", ""}, elide: elideStart, min: 8, priority: 2},
			{title: "calls", cells: []string{"12", "12"}, right: true, priority: 1},
			{title: "cost", cells: []string{"$1.000000", "$1.000000"}, right: true},
		}
	}
	for _, tt := range []struct {
		width int
		want  string
	}{
		// 2 + 16 + 2 + 20 + 2 + 5 + 2 + 9 = 58: all whole.
		{58, "  name              model                 calls       cost\n  abcdefghijklmnop  claude-sonnet-4-5 +2     12  $1.000000\n  total                                      12  $1.000000\n"},
		// 57: 2 + 6 + 2 + 8 + 2 + 5 + 2 + 9 = 36 at their least, 21 cells
		// given back in turn: the name's 10, the model 11 of its 12.
		{57, "  name              model                calls       cost\n  abcdefghijklmnop  claude-sonnet-4… +2     12  $1.000000\n  total                                     12  $1.000000\n"},
		// 40: 36 at their least, 4 left: two cells each (name 8, a third
		// of it before the "…"; model 10, its count kept whole).
		{40, "  name      model       calls       cost\n  ab…lmnop  claude… +2     12  $1.000000\n  total                    12  $1.000000\n"},
	} {
		var b strings.Builder
		writeColumns(&b, cols(), tt.width, nil)
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("width %d (-want +got)\n%s", tt.width, diff)
		}
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if w := termtext.Width(line); w > tt.width {
				t.Errorf("width %d: line of %d cells: %q", tt.width, w, line)
			}
		}
	}
	// Below its names' least the model goes first (priority 2), then the
	// calls; the name and the cost are never dropped.
	var b strings.Builder
	cs := cols()
	cs[0].cells[0] = strings.Repeat("x", 40)
	cs[0].min = 30
	writeColumns(&b, cs, 40, nil)
	// 2 + 30 + 2 + 8 + 2 + 5 + 2 + 9 = 60 > 40: the model goes; 50 > 40:
	// the calls go; 2 + 30 + 2 + 9 = 43 > 40 and only the never-dropped
	// are left: they stay, wider than the width.
	want := "  name                                 cost\n  xxxxxxxxx…xxxxxxxxxxxxxxxxxxxx  $1.000000\n  total                           $1.000000\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("dropped (-want +got)\n%s", diff)
	}
}

func TestShortIDs(t *testing.T) {
	ids := []string{"019e06e6-0c4e-72d2", "019e06e6-1d00-0000", "da254fb0-aaaa", "c45af7b1-x", "c45af7b1-x", "short", "",
		"abcdefghij-1", "abc", "zzzzzzzz-1", "abcdefgh", "abcdefghij-2"}
	want := []string{"019e06e6-0", "019e06e6-1", "da254fb0", "c45af7b1", "c45af7b1", "short", "",
		"abcdefghij-1", "abc", "zzzzzzzz", "abcdefgh", "abcdefghij-2"}
	if diff := cmp.Diff(want, shortIDs(ids, 8)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestShortProjects(t *testing.T) {
	projects := []string{"/home/dev/shop", "/srv/shop", "/home/dev/blog", `C:\Users\dev\rain`, "/workspace", "", "/home/dev/blog",
		"/a/x/api/", "/b/x/api", "/c/api", "api", "/home/dev/\x1b[31mred"}
	want := []string{"dev/shop", "srv/shop", "blog", "rain", "workspace", "–", "blog",
		"a/x/api", "b/x/api", "c/api", "api", `\x1b[31mred`}
	if diff := cmp.Diff(want, shortProjects(projects)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestWriteNote(t *testing.T) {
	var b strings.Builder
	writeNote(&b, "cost unknown where a model has no price: claude-opus-4-9; the priced calls cost $0.026535", 40, "  ")
	want := "  cost unknown where a model has no\n    price: claude-opus-4-9; the priced\n    calls cost $0.026535\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestGroupTableWidths keeps the session table and a --by table, with and
// without a policy, at 80, 120 and 200 columns: no line is wider than the
// width, and the sessions are told apart by project, id, time and model.
func TestGroupTableWidths(t *testing.T) {
	none, _ := policy.Preset("none")
	spill, _ := policy.Preset("harness-rs-0.0.50")
	for _, width := range []int{80, 120, 200} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			var all bytes.Buffer
			for _, tt := range []struct {
				by  string
				pol policy.Policy
			}{{"session", none}, {"session", spill}, {"model", none}, {"day", spill}} {
				var out, errw bytes.Buffer
				opt := Options{Prices: pricing.Default(), Policy: tt.pol, SpillRoot: t.TempDir()}
				if !tt.pol.Inert() {
					opt.Counter = app.Tokenizer(tokens.O200kBase)
				}
				g := Grouping{By: tt.by, Zone: time.UTC, ZoneName: "UTC", Width: width}
				if _, err := GenerateGroups([]string{byFixture}, nil, opt, g, "text", &out, &errw); err != nil || errw.Len() > 0 {
					t.Fatalf("%v %s", err, errw.String())
				}
				for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
					if w := termtext.Width(line); w > width {
						t.Errorf("--by %s: line of %d cells: %q", tt.by, w, line)
					}
				}
				fmt.Fprintf(&all, "$ report --by %s --preset %s\n%s", tt.by, tt.pol.Name, out.String())
			}
			golden.RequireEqual(t, all.Bytes())
		})
	}
}

// TestSweepWidths keeps the sweep and the repeat-suppression sweep at 80,
// 120 and 200 columns: the figures that answer the question (ceiling,
// dollars and tokens saved) stay, the policy's own row stays marked, no
// line is wider than the width.
func TestSweepWidths(t *testing.T) {
	pol, _ := policy.Preset("harness-rs-0.0.40")
	opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}
	demo := []string{filepath.Join("..", "testdata", "demo.jsonl")}
	sw, _, err := Sweep(demo, nil, opt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	dd, _, err := SweepDedupe(demo, nil, opt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{80, 120, 200} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			var out bytes.Buffer
			if err := sw.Write(&out, "text", width); err != nil {
				t.Fatal(err)
			}
			if err := dd.Write(&out, "text", width); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if w := termtext.Width(line); w > width {
					t.Errorf("line of %d cells: %q", w, line)
				}
			}
			for _, want := range []string{"ceiling", "saved", "tokens saved", "← the policy's own", "from the 2nd identical call"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("lacks %q:\n%s", want, out.String())
				}
			}
			golden.RequireEqual(t, out.Bytes())
		})
	}
}

// TestCallTableWidths: a session's call table gives way to the width as
// the other tables do, the call and its cost always kept; its rows are
// the same cells, fewer columns.
func TestCallTableWidths(t *testing.T) {
	ts, err := transcript.ReadFile(fixture("claude.jsonl"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, preset := range []string{"none", "harness-rs-0.0.50"} {
		s := buildWith(t, ts, pricing.Default(), preset)
		for _, width := range []int{60, 80, 200} {
			t.Run(fmt.Sprintf("%s/%d", preset, width), func(t *testing.T) {
				var out bytes.Buffer
				w := &textWriter{w: &out, group: &Grouping{Width: width, Calls: true}}
				writeSession(t, w, s)
				lines := strings.Split(out.String(), "\n")
				i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "  call ") })
				if i < 0 {
					t.Fatalf("no call table:\n%s", out.String())
				}
				for _, l := range lines[i : i+1+len(s.Calls)] {
					if termtext.Width(l) > width {
						t.Errorf("line of %d cells: %q", termtext.Width(l), l)
					}
				}
				if !strings.Contains(lines[i], " cost") {
					t.Errorf("the cost column went: %q", lines[i])
				}
				golden.RequireEqual(t, strings.Join(lines[i:i+1+len(s.Calls)], "\n")+"\n")
			})
		}
	}
}
