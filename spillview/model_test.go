package spillview

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/themes"
)

// TestVerticalKeys drives every vertical key of the KeyMap, by each of its
// keys, from a start line; the window shows 10 lines of 100, so the last
// top line is 90.
func TestVerticalKeys(t *testing.T) {
	tests := []struct {
		keys      []string
		from, top int
	}{
		{[]string{"j", "down"}, 0, 1},
		{[]string{"j", "down"}, 90, 90},
		{[]string{"k", "up"}, 5, 4},
		{[]string{"k", "up"}, 0, 0},
		{[]string{"pgdown", "space"}, 0, 10},
		{[]string{"pgdown", "space"}, 85, 90},
		{[]string{"pgup", "b"}, 15, 5},
		{[]string{"pgup", "b"}, 3, 0},
		{[]string{"ctrl+d"}, 0, 5},
		{[]string{"ctrl+d"}, 88, 90},
		{[]string{"ctrl+u"}, 7, 2},
		{[]string{"ctrl+u"}, 2, 0},
		{[]string{"g", "home"}, 50, 0},
		{[]string{"g", "home"}, 0, 0},
		{[]string{"G", "end"}, 0, 90},
		{[]string{"G", "end"}, 90, 90},
	}
	for _, tt := range tests {
		for _, k := range tt.keys {
			m := open(t, Source{Text: numbered(100)}, themes.New(themes.Mono), 80, 12)
			m.setTop(tt.from)
			m, cmd := m.Update(press(k))
			if top, lines := m.Position(); top != tt.top || lines != 100 {
				t.Errorf("%s from %d: Position = %d, %d; want %d, 100", k, tt.from, top, lines, tt.top)
			}
			if cmd != nil { // the lines it brings into view, read off Update
				lines, ok := cmd().(LinesMsg)
				if !ok {
					t.Fatalf("%s: a Cmd that is not a read of lines", k)
				}
				m, _ = m.Update(lines)
			}
			if got := plainRows(m)[1]; !strings.HasPrefix(strings.TrimSpace(got), strconv.Itoa(tt.top+1)+" ") {
				t.Errorf("%s from %d: first text row = %q", k, tt.from, got)
			}
		}
	}
}

// TestBottomWithSeparator: G shows the last line even when a separator row
// shares the window.
func TestBottomWithSeparator(t *testing.T) {
	m := open(t, headTail(), themes.New(themes.Mono), 80, 20)
	m = send(m, press("G"))
	rows := plainRows(m)
	if last := rows[len(rows)-2]; !strings.Contains(last, "line 100:") {
		t.Errorf("last text row after G = %q", last)
	}
	// From the top, page down until the end: every line is shown once.
	m = send(m, press("g"))
	seen := map[string]bool{}
	for range 20 {
		for _, r := range plainRows(m) {
			if i := strings.Index(r, "line "); i >= 0 && strings.Contains(r, ": the") {
				seen[r[i:i+8]] = true
			}
		}
		m = send(m, press("pgdown"))
	}
	if len(seen) != 100 {
		t.Errorf("paging showed %d distinct lines, want 100", len(seen))
	}
}

func TestHorizontalKeys(t *testing.T) {
	text := "short\n" + strings.Repeat("0123456789", 20) + "\nend\n" // line 2 is 200 cells
	// 40 wide, 3-digit gutter less: numbers need 1 digit, gutter 4, text 36.
	m := open(t, Source{Text: text}, themes.New(themes.Mono), 40, 6)
	if tw := m.textWidth(); tw != 36 {
		t.Fatalf("text width = %d", tw)
	}
	steps := []struct {
		key string
		x   int
	}{{"h", 0}, {"left", 0}}
	for x := 18; x < 200-36; x += 18 {
		steps = append(steps, struct {
			key string
			x   int
		}{"l", x})
	}
	steps = append(steps, []struct {
		key string
		x   int
	}{
		{"right", 200 - 36}, {"l", 200 - 36}, // clamped: the longest line ends at the right edge
		{"h", 200 - 36 - 18}, {"left", 200 - 36 - 36},
		{"g", 200 - 36 - 36}, // vertical moves keep the column
	}...)
	for _, s := range steps {
		m = send(m, press(s.key))
		if m.x != s.x {
			t.Fatalf("after %s: x = %d, want %d", s.key, m.x, s.x)
		}
	}
	m.x = 200 - 36
	row := plainRows(m)[2]
	if want := "2 │ " + strings.Repeat("0123456789", 20)[200-36:]; row != want {
		t.Errorf("scrolled row = %q, want %q", row, want)
	}
	if status := plainRows(m)[5]; !strings.Contains(status, "col 165") {
		t.Errorf("status = %q, want the column", status)
	}
}

func TestMouseWheel(t *testing.T) {
	m := open(t, Source{Text: numbered(100)}, themes.New(themes.Mono), 80, 12)
	for _, s := range []struct {
		button tea.MouseButton
		top    int
	}{
		{tea.MouseWheelDown, 3}, {tea.MouseWheelDown, 6}, {tea.MouseWheelUp, 3},
		{tea.MouseWheelUp, 0}, {tea.MouseWheelUp, 0},
	} {
		m = send(m, tea.MouseWheelMsg{Button: s.button})
		if top, _ := m.Position(); top != s.top {
			t.Errorf("wheel %v: top = %d, want %d", s.button, top, s.top)
		}
	}
	m.setTop(89)
	m = send(m, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if top, _ := m.Position(); top != 90 {
		t.Errorf("wheel down at the end: top = %d", top)
	}
	m = send(m, tea.MouseClickMsg{Button: tea.MouseLeft})
	if top, _ := m.Position(); top != 90 {
		t.Errorf("a click moved the view to %d", top)
	}
}

func TestClose(t *testing.T) {
	for _, k := range []string{"q", "esc"} {
		m := open(t, Source{Text: numbered(5)}, themes.New(themes.Mono), 80, 12)
		_, cmd := m.Update(press(k))
		if cmd == nil {
			t.Fatalf("%s: no Cmd", k)
		}
		if msg := cmd(); msg != (CloseMsg{}) {
			t.Errorf("%s: Cmd gave %#v, want CloseMsg", k, msg)
		}
	}
}

// search opens the prompt, types query, presses enter and delivers the
// result of the Cmd.
func search(t testing.TB, m Model, query string) Model {
	t.Helper()
	m = send(m, press("/"))
	if !m.Searching() {
		t.Fatal("/ did not open the prompt")
	}
	m = typeText(m, query)
	m, cmd := m.Update(press("enter"))
	if m.Searching() {
		t.Fatal("enter left the prompt open")
	}
	if cmd == nil {
		t.Fatal("enter gave no Cmd")
	}
	msg, ok := cmd().(SearchedMsg)
	if !ok {
		t.Fatalf("Cmd gave %T, want SearchedMsg", msg)
	}
	if msg.Query != query || msg.Err != nil {
		t.Fatalf("SearchedMsg = %+v", msg)
	}
	m = send(m, msg)
	return m
}

func TestSearchFlow(t *testing.T) {
	// Lines 1, 11, 21, ... 91 contain "1:" — and lines 10..19 contain "line 01".
	m := open(t, Source{Text: numbered(100)}, themes.New(themes.Mono), 80, 12)
	m.setTop(30)
	m = search(t, m, "1: THE")
	if diff := cmp.Diff([]int{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}, m.matches); diff != "" {
		t.Fatalf("matches (-want +got):\n%s", diff)
	}
	// The first match at or after the top (line 31, index 30) is current.
	if m.cur != 3 {
		t.Errorf("current match = %d, want 3", m.cur)
	}
	status := func() string { rows := plainRows(m); return rows[len(rows)-1] }
	if !strings.Contains(status(), `"1: THE" match 4 of 10 · n/N`) {
		t.Errorf("status = %q", status())
	}
	steps := []struct {
		key      string
		cur, top int
	}{
		{"n", 4, 40}, {"N", 3, 30}, {"N", 2, 20}, {"N", 1, 10}, {"N", 0, 0},
		{"N", 9, 90}, // wraps to the last
		{"n", 0, 0},  // and back to the first
	}
	for _, s := range steps {
		m = send(m, press(s.key))
		if top, _ := m.Position(); m.cur != s.cur || top != s.top {
			t.Errorf("after %s: match %d top %d, want match %d top %d", s.key, m.cur, top, s.cur, s.top)
		}
	}
	if !strings.Contains(status(), "match 1 of 10") {
		t.Errorf("status = %q", status())
	}
	// A match already on screen does not scroll.
	m.setTop(5)
	m = send(m, press("n"))
	if top, _ := m.Position(); top != 5 || m.cur != 1 {
		t.Errorf("n to a visible match: top %d match %d", top, m.cur)
	}
}

func TestSearchPrompt(t *testing.T) {
	m := open(t, Source{Text: numbered(100)}, themes.New(themes.Mono), 80, 12)
	m.setTop(50)
	m = send(m, press("/"))
	// In the prompt, keys are text: q and j do not close or scroll.
	m = typeText(m, "qj")
	if !m.Searching() || m.input.Value() != "qj" {
		t.Fatalf("prompt: searching %v value %q", m.Searching(), m.input.Value())
	}
	m = send(m, press("backspace"))
	if m.input.Value() != "q" {
		t.Errorf("backspace: value %q", m.input.Value())
	}
	if rows := plainRows(m); !strings.HasPrefix(rows[len(rows)-1], "/q") {
		t.Errorf("prompt row = %q", rows[len(rows)-1])
	}
	m = send(m, tea.PasteMsg{Content: "u\x1b[2Jx"})
	if v := m.input.Value(); strings.ContainsRune(v, '\x1b') {
		t.Errorf("pasted escape kept: %q", v)
	}
	// esc cancels the search only.
	m, cmd := m.Update(press("esc"))
	if m.Searching() {
		t.Error("esc left the prompt open")
	}
	if cmd != nil {
		if _, closed := cmd().(CloseMsg); closed {
			t.Error("esc in the prompt closed the viewer")
		}
	}
	if top, _ := m.Position(); top != 50 || m.query != "" {
		t.Errorf("after esc: top %d query %q", top, m.query)
	}
	// The prompt opens empty, the last query in its place; enter alone
	// searches again, as the inspector's prompts do.
	m = search(t, m, "line 099")
	if len(m.matches) != 1 {
		t.Fatalf("matches = %v", m.matches)
	}
	m = send(m, press("/"))
	if m.input.Value() != "" || m.input.Placeholder != "line 099" {
		t.Errorf("prompt: value %q, placeholder %q", m.input.Value(), m.input.Placeholder)
	}
	m, cmd = m.Update(press("enter"))
	if cmd == nil {
		t.Fatal("enter alone did not search again")
	}
	m = send(m, cmd())
	if len(m.matches) != 1 || m.query != "line 099" {
		t.Errorf("enter alone: matches %v query %q", m.matches, m.query)
	}
}

func TestSearchNoMatch(t *testing.T) {
	m := open(t, Source{Text: numbered(20)}, themes.New(themes.Mono), 80, 12)
	m = search(t, m, "zebra")
	rows := plainRows(m)
	if !strings.Contains(rows[len(rows)-1], `no match for "zebra"`) {
		t.Errorf("status = %q", rows[len(rows)-1])
	}
	m = send(m, press("n"))
	if top, _ := m.Position(); top != 0 {
		t.Errorf("n without matches moved to %d", top)
	}
}

// TestSearchStale: a result for a replaced query or another document is
// dropped.
func TestSearchStale(t *testing.T) {
	m := open(t, Source{Text: numbered(20)}, themes.New(themes.Mono), 80, 12)
	m = send(m, press("/"))
	m = typeText(m, "line 005")
	m, first := m.Update(press("enter"))
	m = send(m, press("/"))
	m = typeText(m, "line 007")
	m, second := m.Update(press("enter"))
	m = send(m, first())
	if m.query != "" || len(m.matches) != 0 {
		t.Fatalf("stale result taken: query %q", m.query)
	}
	if rows := plainRows(m); !strings.Contains(rows[len(rows)-1], `searching "line 007"`) {
		t.Errorf("status while searching = %q", rows[len(rows)-1])
	}
	m = send(m, second())
	if diff := cmp.Diff([]int{6}, m.matches); diff != "" || m.query != "line 007" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	other, err := Open(Source{Text: "line 007\n"})
	if err != nil {
		t.Fatal(err)
	}
	m = send(m, SearchedMsg{Query: "line 007", Lines: []int{0}, doc: other})
	if diff := cmp.Diff([]int{6}, m.matches); diff != "" {
		t.Errorf("result for another document taken:\n%s", diff)
	}
}

func TestSearchError(t *testing.T) {
	m := open(t, Source{Text: numbered(20)}, themes.New(themes.Mono), 80, 12)
	m = send(m, SearchedMsg{Query: "x", Err: errors.New("search: read failed\x1b[2J")})
	out := m.View()
	if strings.Contains(out, "\x1b[2J") {
		t.Error("error text reached the view raw")
	}
	if rows := plainRows(m); !strings.Contains(rows[len(rows)-1], `search: read failed\x1b[2J`) {
		t.Errorf("status = %q", rows[len(rows)-1])
	}
}

func TestOpenedMsg(t *testing.T) {
	path := writeFile(t, "spill.txt", numbered(30))
	src := Source{Title: "result 3", Path: path}
	m := New(themes.New(themes.Mono), DefaultKeyMap())
	m.SetSize(60, 10)
	cmd := m.Load(src)
	if rows := plainRows(m); !strings.Contains(rows[1], "opening…") || !strings.Contains(rows[0], "result 3") {
		t.Errorf("loading view = %q", rows)
	}
	m = send(m, cmd())
	if _, lines := m.Position(); lines != 30 {
		t.Fatalf("lines = %d", lines)
	}
	// An open superseded by a later Load is dropped and closed.
	late := OpenCmd(context.Background(), src)().(OpenedMsg)
	next := Source{Title: "result 4", Text: "x\n"}
	cmd = m.Load(next)
	m = send(m, late)
	if m.doc != nil {
		t.Error("stale OpenedMsg shown")
	}
	if _, err := late.Doc.Search("line"); err == nil {
		t.Error("stale document left open")
	}
	m = send(m, cmd())
	if _, lines := m.Position(); lines != 1 {
		t.Errorf("lines = %d", lines)
	}
	// Also when it arrives after the later open has been shown.
	m = send(m, OpenCmd(context.Background(), src)())
	if _, lines := m.Position(); lines != 1 || m.src.Title != "result 4" {
		t.Errorf("late OpenedMsg replaced the document: %d lines, %q", lines, m.src.Title)
	}
	if err := m.Close(); err != nil {
		t.Error(err)
	}
}

func TestOpenError(t *testing.T) {
	missing := filepath.Join("no", "such", "spill.txt")
	m := New(themes.New(themes.Mono), DefaultKeyMap())
	m.SetSize(80, 8)
	cmd := m.Load(Source{Title: "result 9", Path: missing})
	m = send(m, cmd())
	rows := plainRows(m)
	if want := "open spill file no/such/spill.txt: no such file or directory"; !strings.Contains(rows[1], want) {
		t.Errorf("rows = %q, want %q", rows, want)
	}
	// Keys do nothing but close.
	for _, k := range []string{"j", "G", "l", "/", "n", "ctrl+d"} {
		m = send(m, press(k))
	}
	if m.Searching() {
		t.Error("search opened without a document")
	}
	if _, cmd := m.Update(press("q")); cmd == nil || cmd() != (CloseMsg{}) {
		t.Error("q did not close")
	}
	checkSize(t, m.View(), 80, 8)
}

func TestSetDocumentClosesPrevious(t *testing.T) {
	first, err := Open(Source{Path: writeFile(t, "a.txt", "a\n")})
	if err != nil {
		t.Fatal(err)
	}
	second, err := Open(Source{Text: "b\n"})
	if err != nil {
		t.Fatal(err)
	}
	m := New(themes.New(themes.Mono), DefaultKeyMap())
	m.SetDocument(first, Source{})
	m.SetDocument(first, Source{}) // the same document stays open
	if _, err := first.Search("a"); err != nil {
		t.Fatalf("same document closed: %v", err)
	}
	m.SetDocument(second, Source{})
	if _, err := first.Search("a"); err == nil {
		t.Error("previous document left open")
	}
}

// TestHelp: every binding of the key map is in the help, and ? shows it
// and closes it again.
func TestHelp(t *testing.T) {
	k := DefaultKeyMap()
	listed := map[string]bool{}
	for _, col := range k.FullHelp() {
		for _, b := range col {
			listed[b.Help().Key+" "+b.Help().Desc] = true
		}
	}
	for _, b := range Bindings(k) {
		if b.Help().Key == "" || b.Help().Desc == "" || !listed[b.Help().Key+" "+b.Help().Desc] {
			t.Errorf("binding %v is not in the help", b.Keys())
		}
	}
	m := open(t, Source{Text: "one\ntwo\n"}, themes.New(themes.Mono), 80, 20)
	m = send(m, press("?"))
	rows := plainRows(m)
	if !strings.HasPrefix(rows[0], "viewer keys") || !strings.Contains(strings.Join(rows, "\n"), "ctrl+u prompt: clear") {
		t.Errorf("? does not show the help:\n%s", strings.Join(rows, "\n"))
	}
	m, cmd := m.Update(press("esc"))
	if cmd != nil || strings.HasPrefix(plainRows(m)[0], "viewer keys") {
		t.Error("esc does not close the help, or leaves the viewer")
	}
}

// TestSearchRevealsMatchSideways finds a word 50,000 cells into a long
// line: the view scrolls sideways to it, then back for a match at the
// start of a short line.
func TestSearchRevealsMatchSideways(t *testing.T) {
	long := strings.Repeat("ab\t", 10_000) + strings.Repeat("x", 20_000) + "needle" + strings.Repeat("y", 1000)
	m := open(t, Source{Text: "needle first\n" + long + "\nlast line\n"}, themes.New(themes.Mono), 80, 12)
	m = search(t, m, "NEEDLE")
	if m.cur != 0 || m.x != 0 {
		t.Fatalf("first match %d, x %d; want 0, 0", m.cur, m.x)
	}
	m = send(m, press("n"))
	// 10,000 × ("ab" and a tab to the next 4-cell stop) + 20,000 cells.
	col := 10_000*4 + 20_000
	if tw := m.textWidth(); m.x > col || col+len("needle") > m.x+tw {
		t.Fatalf("match at cell %d not in view [%d, %d)", col, m.x, m.x+tw)
	}
	if !strings.Contains(strings.Join(plainRows(m), "\n"), "needle") {
		t.Errorf("the match is not drawn:\n%s", strings.Join(plainRows(m), "\n"))
	}
	m = send(m, press("n"))
	if m.cur != 0 || m.x != 0 {
		t.Errorf("back to the first match: match %d, x %d; want 0, 0", m.cur, m.x)
	}
}

// TestFindScrollsNoFurtherThanNeeded: opened on a string past the right
// edge of a long line, the viewer scrolls sideways only until the string
// ends at the edge, so that the shorter lines around it stay in view.
func TestFindScrollsNoFurtherThanNeeded(t *testing.T) {
	short := "export PORT=8080 # the port the server listens on"
	long := strings.Repeat("x", 60) + " DATABASE_URL=postgres://db:5432/orders"
	text := short + "\n" + long + "\n" + short + "\n"
	src := Source{Text: text, Find: "postgres://db:5432/orders"}
	d, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	m := New(themes.New(themes.Mono), DefaultKeyMap())
	m.SetSize(80, 10)
	m = run(m, func() tea.Msg { return OpenedMsg{Doc: d, Src: src} })
	t.Cleanup(func() { d.Close() })
	if m.x == 0 {
		t.Fatal("the viewer did not scroll to the string")
	}
	rows := strings.Join(plainRows(m), "\n")
	if !strings.Contains(rows, "postgres://db:5432/orders") {
		t.Errorf("the string is not shown:\n%s", rows)
	}
	if !strings.Contains(rows, "listens on") {
		t.Errorf("the short lines are scrolled out of view (x=%d):\n%s", m.x, rows)
	}
}

// TestCloseGivesUpOpen: leaving the viewer while a file is indexed stops
// the indexing, and what the open brings afterwards is let go, the file
// closed; the search's matches go with the document.
func TestCloseGivesUpOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spill.txt")
	if err := os.WriteFile(path, []byte(numbered(30)), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(themes.New(themes.Mono), DefaultKeyMap())
	m.SetSize(60, 10)
	cmd := m.Load(Source{Title: "result 3", Path: path})
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	msg := cmd().(OpenedMsg)
	if !errors.Is(msg.Err, context.Canceled) {
		t.Errorf("open after close: %v, want it given up", msg.Err)
	}
	m = send(m, msg)
	if m.doc != nil || m.err != nil {
		t.Errorf("the viewer took what an open given up brought: doc %v, err %v", m.doc, m.err)
	}
	// Left and opened again at once: the open given up is not shown as an
	// error while the new one runs.
	first := m.Load(Source{Title: "result 3", Path: path})
	m.Close()
	second := m.Load(Source{Title: "result 3", Path: path})
	m = send(m, first())
	if m.err != nil || !m.loading {
		t.Errorf("an open given up showed: err %v, loading %v", m.err, m.loading)
	}
	m = send(m, second())
	if _, lines := m.Position(); lines != 30 || m.err != nil {
		t.Errorf("the second open: %d lines, err %v", lines, m.err)
	}

	// Opened, searched, closed: nothing kept.
	d, err := Open(Source{Text: numbered(30)})
	if err != nil {
		t.Fatal(err)
	}
	m.SetDocument(d, Source{Text: numbered(30)})
	m.pending = "line 01"
	m = send(m, searchCmd(d, "line 01")())
	if len(m.matches) == 0 {
		t.Fatal("no matches")
	}
	m.Close()
	if m.doc != nil || len(m.matches) != 0 {
		t.Errorf("closed, the viewer keeps %v and %d matches", m.doc, len(m.matches))
	}
	late := OpenCmd(context.Background(), Source{Text: "x\n"})().(OpenedMsg)
	m = send(m, late)
	if m.doc != nil {
		t.Error("an open that ends after the viewer was left was shown")
	}
}

// TestMatchPastShown: a match past the part of a long line the viewer
// reads is counted, and the status says it cannot be shown.
func TestMatchPastShown(t *testing.T) {
	text := "short line\n" + strings.Repeat("x", maxLineRead+100) + "NEEDLE\n"
	m := open(t, Source{Text: text}, themes.New(themes.Mono), 120, 10)
	m = search(t, m, "needle")
	rows := plainRows(m)
	if status := rows[len(rows)-1]; !strings.Contains(status, `"needle" match 1 of 1 past the 64.0 KiB of its line shown`) {
		t.Errorf("status %q", status)
	}
	m = search(t, m, "short")
	if rows := plainRows(m); strings.Contains(rows[len(rows)-1], "past the") {
		t.Errorf("a match shown is said to be past: %q", rows[len(rows)-1])
	}
}

// TestFindIsLastQuery: a result opened searching (from a hazard) takes
// that query as the one enter alone asks again.
func TestFindIsLastQuery(t *testing.T) {
	m := New(themes.New(themes.Mono), DefaultKeyMap())
	m.SetSize(60, 10)
	load := m.Load(Source{Text: numbered(30), Find: "line 012"})
	m = run(m, load)
	if len(m.matches) != 1 {
		t.Fatalf("matches %v", m.matches)
	}
	m = send(m, press("/"))
	if m.input.Placeholder != "line 012" {
		t.Errorf("placeholder %q", m.input.Placeholder)
	}
	m, cmd := m.Update(press("enter"))
	if cmd == nil {
		t.Fatal("enter alone did not search again")
	}
	if m = run(m, cmd); len(m.matches) != 1 {
		t.Errorf("matches %v", m.matches)
	}
}

// countingReaderAt counts the reads of a document.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(1)
	return c.r.ReadAt(p, off)
}

// TestNoReadsInViewOrUpdate: the file is read only by the Cmds the viewer
// returns, never while it draws or handles a message, and a match on a
// line not yet read is revealed sideways once the line arrives.
func TestNoReadsInViewOrUpdate(t *testing.T) {
	text := numbered(200) + strings.Repeat("wide 世界\tcell ", 400) + "needle\n" + numbered(5)
	m := open(t, Source{Path: writeFile(t, "spill.txt", text)}, themes.New(themes.Dark), 80, 20)
	reads := &countingReaderAt{r: m.doc.r}
	m.doc.r = reads
	step := func(name string, msg tea.Msg) {
		t.Helper()
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		_ = m.View()
		if n := reads.n.Load(); n != 0 {
			t.Fatalf("%s: %d reads in Update or View", name, n)
		}
		for cmd != nil { // the Cmd reads; what it brings is handled without reading
			var next tea.Cmd
			got := cmd()
			if batch, ok := got.(tea.BatchMsg); ok && len(batch) > 0 {
				got = batch[len(batch)-1]()
			}
			reads.n.Store(0)
			m, next = m.Update(got)
			_ = m.View()
			if n := reads.n.Load(); n != 0 {
				t.Fatalf("%s: %d reads handling %T", name, n, got)
			}
			cmd = next
		}
	}
	for _, k := range []string{"j", "G", "l", "l", "h", "g", "pgdown", "ctrl+d"} {
		step(k, press(k))
	}
	step("/", press("/"))
	for _, r := range "needle" {
		m, _ = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	step("enter", press("enter"))
	if m.matches == nil || m.x == 0 || m.revealing {
		t.Fatalf("match not revealed: matches %v, x %d, still to reveal %v", m.matches, m.x, m.revealing)
	}
	if rows := strings.Join(plainRows(m), "\n"); !strings.Contains(rows, "needle") {
		t.Errorf("the match is not on screen:\n%s", rows)
	}
}

// TestStepFromScreen: n and N go on from the current match while it is
// on screen, and, once the user has scrolled away, from what is on screen,
// as less does.
func TestStepFromScreen(t *testing.T) {
	m := open(t, Source{Text: numbered(200)}, themes.New(themes.Mono), 80, 20)
	m = search(t, m, "5: the") // lines 5, 15, …, 195: 0-based 4, 14, …, 194
	current := func() int { return m.matches[m.cur] }
	if current() != 4 {
		t.Fatalf("first match on line %d", current()+1)
	}
	m = send(m, press("G"))
	m = send(m, press("n"))
	if current() != 184 {
		t.Errorf("n at the bottom: line %d, want 185, the first on screen", current()+1)
	}
	m = send(m, press("N"))
	if current() != 174 {
		t.Errorf("N from there: line %d, want 175", current()+1)
	}
	m = send(m, press("g"))
	m = send(m, press("N"))
	if top, _ := m.Position(); current() != 14 || top != 0 {
		t.Errorf("N at the top: line %d (top %d), want 15, the last on screen", current()+1, top)
	}
}

// TestLateLinesKeepScreen: the read asked for where the window went does
// not blank the screen when the window has come back to lines held, and
// a match's line arriving after the user moved on does not pull the view
// sideways.
func TestLateLinesKeepScreen(t *testing.T) {
	m := open(t, Source{Text: numbered(1000)}, themes.New(themes.Mono), 80, 24)
	m, away := m.Update(press("G")) // its read in flight
	m, back := m.Update(press("g"))
	if back != nil {
		t.Fatal("the lines at the top are held: nothing to read")
	}
	m, _ = m.Update(away())
	if rows := plainRows(m); !strings.Contains(rows[1], "line 001") {
		t.Errorf("the late read blanked the screen: %q", rows[1])
	}

	long := strings.Repeat("x", 300) + " needle\n"
	m = open(t, Source{Text: numbered(500) + long}, themes.New(themes.Mono), 80, 24)
	m = send(m, press("/"))
	m = typeText(m, "needle")
	m, find := m.Update(press("enter"))
	m, read := m.Update(find()) // the match's line is not held yet
	if !m.revealing || read == nil {
		t.Fatal("the match's column is not waited for")
	}
	m, _ = m.Update(press("g"))
	if lines, ok := read().(LinesMsg); ok {
		m, _ = m.Update(lines)
	}
	if m.x != 0 || m.top != 0 {
		t.Errorf("moved to line %d, column %d after the user went back to the top", m.top+1, m.x)
	}
}

// TestHeldBudget: of long lines, those on screen are always held, and
// those around them only within the budget; scrolling on reads the rest.
func TestHeldBudget(t *testing.T) {
	defer func(b int) { heldBudget = b }(heldBudget)
	heldBudget = 64 << 10
	line := strings.Repeat("\x01", 4095) + "\n" // 16 KiB escaped: the budget holds 4 besides the screen's
	m := open(t, Source{Text: strings.Repeat(line, 300)}, themes.New(themes.Mono), 80, 24)
	win := m.layout().win
	if m.held.first != 0 || len(m.held.lines) < win || len(m.held.lines) > win+5 {
		t.Errorf("held lines [%d, %d) of a %d-line window", m.held.first, m.held.first+len(m.held.lines), win)
	}
	m.held, m.asked = heldLines{}, [2]int{}
	read := m.fill()
	if m, next := m.Update(read()); next != nil || !m.held.holds(0, win) {
		t.Fatal("a read that came back short is asked for again at once, and again after it")
	}
	for range 12 {
		m = send(m, press("space"))
		top, _ := m.Position()
		if !m.held.holds(top, top+win) {
			t.Fatalf("at line %d the window is not held: [%d, %d)", top, m.held.first, m.held.first+len(m.held.lines))
		}
	}
}

// TestHelpScrolls: at 40x10 the help is longer than the screen: it says
// so, and j scrolls it to its last keys, which it cut off unseen.
func TestHelpScrolls(t *testing.T) {
	m := open(t, Source{Text: "one\ntwo\n"}, themes.New(themes.Mono), 40, 10)
	m = send(m, press("?"))
	if rows := plainRows(m); !strings.Contains(rows[0], "j/k scroll") || strings.Contains(strings.Join(rows, "\n"), "prompt: clear") {
		t.Errorf("the help's first screen:\n%s", strings.Join(rows, "\n"))
	}
	for range 60 {
		m = send(m, press("j"))
	}
	if rows := plainRows(m); !strings.HasPrefix(rows[0], "viewer keys") || !strings.Contains(strings.Join(rows, "\n"), "prompt: clear") {
		t.Errorf("scrolled to the end:\n%s", strings.Join(rows, "\n"))
	}
}
