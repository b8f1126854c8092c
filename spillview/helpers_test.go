package spillview

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/internal/keytest"
	"github.com/spillway-dev/spillway/themes"
)

// numbered is n lines "line 001: <filler>", each lineLen bytes with its
// newline, so byte offsets are easy to compute.
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %03d: the quick brown fox jumps\n", i)
	}
	return b.String()
}

const lineLen = len("line 001: the quick brown fox jumps\n")

// open opens src and returns a model of size w×h showing it.
func open(t testing.TB, src Source, styles *themes.Styles, w, h int) Model {
	t.Helper()
	d, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	m := New(styles, DefaultKeyMap())
	m.SetSize(w, h)
	m.SetDocument(d, src)
	return shown(m)
}

// shown runs the read of the lines m asked for, as the program would run
// the Cmd, and hands them to it.
func shown(m Model) Model {
	if read := m.fill(); read != nil {
		m, _ = m.Update(read())
	} else if m.doc != nil && !m.held.holds(m.asked[0], m.asked[1]) {
		m, _ = m.Update(readLines(m.doc, m.seen, m.reads, m.asked[0], m.asked[1], m.asked[0], m.asked[1], m.held))
	}
	return m
}

// run runs cmd, and those of the messages it brings, as the program
// would: only for Cmds that end, never a cursor's blink.
func run(m Model, cmd tea.Cmd) Model {
	if cmd == nil {
		return m
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			m = run(m, c)
		}
		return m
	}
	m, cmd = m.Update(msg)
	return run(m, cmd)
}

// send hands msg to m, then the lines it asked for.
func send(m Model, msg tea.Msg) Model {
	m, _ = m.Update(msg)
	return shown(m)
}

func press(s string) tea.KeyPressMsg { return keytest.Press(s) }

// typeText sends each rune of s as a key press.
func typeText(m Model, s string) Model {
	for _, r := range s {
		m = send(m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

// plainRows is the view without styling, one string per row.
func plainRows(m Model) []string {
	return strings.Split(ansi.Strip(m.View()), "\n")
}

// checkSize fails unless view fills exactly w×h cells.
func checkSize(t testing.TB, view string, w, h int) {
	t.Helper()
	if w <= 0 || h <= 0 {
		if view != "" {
			t.Errorf("%d×%d: view = %q, want empty", w, h, view)
		}
		return
	}
	rows := strings.Split(view, "\n")
	if len(rows) != h {
		t.Errorf("%d×%d: %d rows", w, h, len(rows))
	}
	for i, row := range rows {
		if got := ansi.StringWidth(row); got != w {
			t.Errorf("%d×%d: row %d is %d cells: %q", w, h, i, got, ansi.Strip(row))
		}
	}
}
