package spillview

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/spillway-dev/spillway/themes"
)

// goldenSource is 40 short lines with a tab and wide characters; the model
// saw the first 300 bytes (into line 9) and the last 200 (from line 35).
func goldenSource(t *testing.T) Source {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		switch {
		case i%7 == 0:
			b.WriteString("\tindented by a tab · 世界 wide\n")
		case i == 12:
			b.WriteString("a long line: " + strings.Repeat("0123456789", 12) + " the end\n")
		case i%5 == 0:
			b.WriteString("func Example() error { return nil } // MATCH here\n")
		default:
			b.WriteString("plain line with some words, match " + strconv.Itoa(i) + "\n")
		}
	}
	text := b.String()
	return Source{
		Title: "result 12 · Grep · spilled by harness-rs-0.0.50",
		Path:  writeFile(t, "spill.txt", text),
		Seen:  []Range{{0, 300}, {int64(len(text) - 200), int64(len(text))}},
		Note:  "the model saw the first 300 bytes and the last 200",
	}
}

func TestGolden(t *testing.T) {
	themesByName := map[string]themes.Palette{"dark": themes.Dark, "mono": themes.Mono}
	for _, name := range []string{"dark", "mono"} {
		styles := themes.New(themesByName[name])
		t.Run(name, func(t *testing.T) {
			src := goldenSource(t)
			views := []struct {
				name string
				do   func(m Model) Model
			}{
				{"top", func(m Model) Model { return m }},
				{"gap", func(m Model) Model { m.setTop(5); return m }},
				{"bottom", func(m Model) Model { return send(m, press("G")) }},
				{"scrolled", func(m Model) Model { m.setTop(3); return send(m, press("l")) }},
				{"prompt", func(m Model) Model { return typeText(send(m, press("/")), "match") }},
				{"search", func(m Model) Model { m.setTop(2); m = search(t, m, "match"); return send(m, press("n")) }},
				{"help", func(m Model) Model { return send(m, press("?")) }},
			}
			for _, v := range views {
				t.Run(v.name, func(t *testing.T) {
					m := v.do(open(t, src, styles, 80, 20))
					out := m.View()
					checkSize(t, out, 80, 20)
					golden.RequireEqual(t, []byte(out))
				})
			}
			t.Run("error", func(t *testing.T) {
				m := New(styles, DefaultKeyMap())
				m.SetSize(80, 20)
				m = send(m, OpenCmd(context.Background(), Source{Title: "result 9", Path: filepath.Join("no", "such", "spill.txt")})())
				golden.RequireEqual(t, []byte(m.View()))
			})
		})
	}
}

// sgr matches the only escape sequences the view may emit: its own styling.
var sgr = regexp.MustCompile(`^\x1b\[[0-9;:]*m`)

// hostile is a tool result trying to take over the terminal, one attack
// a line so that each is on screen.
const hostile = "clip \x1b]52;c;ZXZpbCBwYXlsb2Fk\x07 end\n" +
	"title \x1b]0;pwned\x07 clear \x1b[2J\n" +
	"c1 \u009b31m red \u009d8;;http://x\u009c\n" +
	"bell \x07 del \x7f rlo \u202egnp.exe bad \xff\xfe\n" +
	"\x1b[31mred\x1b[0m\t\x1bP+q\x1b\\ \x1b[?1049h\r\n" +
	"lone \r cr\n"

func TestViewEscapesHostileText(t *testing.T) {
	src := Source{
		Title: "result \x1b]0;title\x07 \x1b[2J",
		Note:  "note \u009b2J \x1b]52;c;eA==\x07",
		Text:  strings.Repeat(hostile, 30),
		Seen:  []Range{{0, 40}, {int64(30*len(hostile) - 40), int64(30 * len(hostile))}},
	}
	for _, styles := range []*themes.Styles{themes.New(themes.Dark), themes.New(themes.Mono)} {
		views := map[string]func(m Model) Model{
			"top":      func(m Model) Model { return m },
			"scrolled": func(m Model) Model { return send(send(m, press("l")), press("j")) },
			"search":   func(m Model) Model { return search(t, m, "title") },
			"prompt": func(m Model) Model {
				m = send(m, press("/"))
				m = send(m, tea.PasteMsg{Content: "\x1b]0;x\x07"})
				return m
			},
			"narrow": func(m Model) Model { m.SetSize(7, 4); return m },
		}
		for name, do := range views {
			m := do(open(t, src, styles, 100, 20))
			out := m.View()
			for i := strings.IndexByte(out, '\x1b'); i >= 0; i = strings.IndexByte(out, '\x1b') {
				loc := sgr.FindStringIndex(out[i:])
				if loc == nil {
					t.Fatalf("%s: raw escape in view: %q", name, out[i:min(len(out), i+20)])
				}
				out = out[:i] + out[i+loc[1]:]
			}
			for _, bad := range []string{"\x07", "\u009b", "\u009d", "\u009c", "\x7f", "\u202e", "\r", "\xff"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s: view contains %q", name, bad)
				}
			}
			if !strings.Contains(out, "\uFFFD") && name == "top" {
				t.Errorf("%s: invalid UTF-8 not replaced", name)
			}
			if name == "top" && !strings.Contains(out, `clip \x1b]52;c;ZXZpbCBwYXlsb2Fk\x07 end`) {
				t.Errorf("%s: clipboard write not shown escaped:\n%s", name, out)
			}
			checkSize(t, m.View(), m.width, m.height)
		}
	}
}

// TestViewSizes: any size, resize and state draws exactly in its cells.
func TestViewSizes(t *testing.T) {
	sizes := [][2]int{{0, 0}, {1, 1}, {0, 5}, {5, 0}, {1, 5}, {5, 1}, {2, 2}, {3, 3}, {20, 5}, {20, 2}, {13, 4}, {80, 20}, {200, 3}, {7, 40}}
	long := strings.Repeat("wide 世界 and tabs\there ", 4000) + "\n" + numbered(50)
	states := map[string]func(t *testing.T) Model{
		"seen": func(t *testing.T) Model { return open(t, headTail(), themes.New(themes.Dark), 80, 20) },
		"long": func(t *testing.T) Model {
			m := open(t, Source{Text: long, Seen: []Range{{0, 5000}}, Note: "n"}, themes.New(themes.Mono), 80, 20)
			for range 5 {
				m = send(m, press("l"))
			}
			return m
		},
		"prompt": func(t *testing.T) Model {
			m := open(t, headTail(), themes.New(themes.Dark), 80, 20)
			m = send(m, press("/"))
			return typeText(m, strings.Repeat("long query ", 20))
		},
		"search": func(t *testing.T) Model {
			return search(t, open(t, headTail(), themes.New(themes.Dark), 80, 20), "line 05")
		},
		"empty": func(t *testing.T) Model { return open(t, Source{Title: "empty"}, themes.New(themes.Dark), 80, 20) },
		"nodoc": func(t *testing.T) Model { return New(nil, DefaultKeyMap()) },
		"error": func(t *testing.T) Model {
			m := New(themes.New(themes.Dark), DefaultKeyMap())
			m = send(m, OpenedMsg{Src: Source{Title: "x"}, Err: os.ErrNotExist})
			return m
		},
	}
	for name, mk := range states {
		t.Run(name, func(t *testing.T) {
			m := mk(t)
			for _, s := range sizes {
				m.SetSize(s[0], s[1])
				checkSize(t, m.View(), s[0], s[1])
				// Moving at this size keeps it inside the cells too.
				for _, k := range []string{"G", "l", "pgup", "ctrl+d", "k"} {
					if !m.Searching() {
						m = send(m, press(k))
					}
					checkSize(t, m.View(), s[0], s[1])
				}
			}
		})
	}
}

// TestHugeSingleLine: a 50 MB minified line opens at once, shows its first
// 64 KiB and scrolls sideways through them.
func TestHugeSingleLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 50 MB file")
	}
	path := filepath.Join(t.TempDir(), "min.js")
	block := []byte(strings.Repeat("var a=1;function f(){return a}", 1<<10)) // 30 KiB, no newline
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 50<<20; n += len(block) {
		f.Write(block)
	}
	f.Close()
	start := time.Now()
	m := open(t, Source{Path: path, Seen: []Range{{0, 4096}}}, themes.New(themes.Mono), 80, 10)
	if m.doc.Lines() != 1 {
		t.Fatalf("lines = %d", m.doc.Lines())
	}
	first := plainRows(m)[1]
	for range 2000 {
		m = send(m, press("l"))
	}
	end := plainRows(m)[1]
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("open and 2,000 scrolls took %v", took)
	}
	if !strings.HasPrefix(first, "1 ╎ var a=1;function") {
		t.Errorf("first row = %q", first)
	}
	if !strings.Contains(end, "more bytes of this line not shown") || m.x == 0 {
		t.Errorf("after scrolling to the end (x=%d): %q", m.x, end)
	}
}

// BenchmarkViewLargeFile jumps to random lines of a 48k-line file and draws.
func BenchmarkViewLargeFile(b *testing.B) {
	var sb strings.Builder
	for i := range 48_000 {
		sb.WriteString("func handler")
		sb.WriteString(strconv.Itoa(i))
		sb.WriteString("(w http.ResponseWriter, r *http.Request) {\tlog.Printf(\"served %s\", r.URL)\t}\n")
	}
	path := filepath.Join(b.TempDir(), "big.go")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	size := int64(sb.Len())
	src := Source{Path: path, Seen: []Range{{0, 4096}, {size - 4096, size}}}
	for _, query := range []string{"", "handler1"} {
		name := "plain"
		if query != "" {
			name = "search"
		}
		b.Run(name, func(b *testing.B) {
			m := open(b, src, themes.New(themes.Dark), 120, 40)
			if query != "" {
				m = search(b, m, query)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				m.setTop(rng.IntN(48_000))
				if len(m.View()) == 0 {
					b.Fatal("empty view")
				}
			}
		})
	}
}

func TestCutWideCharacters(t *testing.T) {
	pieces := convert([]byte("a世界b"), []Range{{0, 8}})
	for _, tt := range []struct {
		x, w int
		want string
	}{
		{0, 6, "a世界b"},
		{1, 4, "世界"},
		{2, 4, " 界b"}, // half of 世 is cut: a blank keeps the columns
		{1, 2, "世"},
		{2, 2, " 界"[:1] + " "},
		{0, 2, "a "},
		{3, 2, "界"},
	} {
		got := ""
		width := 0
		for _, p := range cut(pieces, tt.x, tt.w) {
			got += p.text
			width += p.width
		}
		if got != tt.want || ansi.StringWidth(got) != width {
			t.Errorf("cut(%d, %d) = %q (width %d), want %q", tt.x, tt.w, got, width, tt.want)
		}
	}
}

// TestPaint: the built-in themes take the fast path, which draws the same
// text as Style.Render.
func TestPaint(t *testing.T) {
	for _, pal := range []themes.Palette{themes.Dark, themes.Light, themes.HighContrast, themes.Mono} {
		p := newPainter(themes.New(pal))
		if !p.fast {
			t.Errorf("%s: slow paint", pal.Name)
		}
		for tn, pt := range p.tone {
			if got := pt.render("a b"); ansi.Strip(got) != "a b" || ansi.StringWidth(got) != 3 {
				t.Errorf("%s tone %d: render = %q", pal.Name, tn, got)
			}
		}
	}
	if p := newPainter(markStyles()); p.fast || p.tone[toneSeen].render("a") != "«a»" {
		t.Error("a transforming style must be rendered by lipgloss")
	}
}

// TestSearchWhileViewing runs a search Cmd as Bubble Tea would, on another
// goroutine, while the view keeps drawing the same document (run -race).
func TestSearchWhileViewing(t *testing.T) {
	m := open(t, Source{Text: numbered(2000), Seen: []Range{{0, 100}}}, themes.New(themes.Dark), 80, 20)
	m = send(m, press("/"))
	m = typeText(m, "line 1")
	m, cmd := m.Update(press("enter"))
	done := make(chan tea.Msg)
	go func() { done <- cmd() }()
	for range 50 {
		m = send(m, press("space"))
		_ = m.View()
	}
	m = send(m, <-done)
	if len(m.matches) != 1100 { // "line 100".."line 199" and "line 1000".."line 1999"
		t.Errorf("matches = %d, want 1100", len(m.matches))
	}
}

// TestMarksAcrossPieces: the line is made safe 1 KiB at a time, and a run
// of combining marks that crosses a piece's end still draws only four.
func TestMarksAcrossPieces(t *testing.T) {
	raw := []byte(strings.Repeat("x", 1014) + "a" + strings.Repeat("\u0301", 100))
	pieces := convert(raw, nil)
	var all strings.Builder
	for _, p := range pieces {
		all.WriteString(p.text)
	}
	if n := strings.Count(all.String(), "\u0301"); n != 4 {
		t.Errorf("%d marks drawn over %d pieces, want 4", n, len(pieces))
	}
}

// TestConvertFewPieces: a line is held as pieces of about 1 KiB each,
// however many tabs it has, with its tab stops kept across them.
func TestConvertFewPieces(t *testing.T) {
	raw := []byte(strings.Repeat("\tab", 1<<14)) // 48 KiB, 16,384 tabs
	pieces := convert(raw, []Range{{0, 1 << 15}})
	if len(pieces) > 50 {
		t.Errorf("%d pieces for %d bytes", len(pieces), len(raw))
	}
	var all strings.Builder
	width := 0
	for _, p := range pieces {
		all.WriteString(p.text)
		width += p.width
	}
	if want := "    ab" + strings.Repeat("  ab", 1<<14-1); all.String() != want || width != len(want) {
		t.Errorf("converted to %d cells, want %d", width, len(want))
	}
}

// A line that goes on past the right edge ends in a mark in the edge's
// column, as less marks a chopped line; one that ends at the edge, or
// scrolled to its end, has none, and a wide character cut by the mark's
// column leaves a blank, not a shifted mark.
func TestMoreMark(t *testing.T) {
	const w = 40
	probe := open(t, Source{Text: "x\n"}, themes.New(themes.Mono), w, 8)
	tw := probe.textWidth()
	text := strings.Repeat("a", tw) + "\n" + strings.Repeat("b", tw+1) + "\n" + strings.Repeat("c", tw-2) + "世界\n"
	m := open(t, Source{Text: text}, themes.New(themes.Mono), w, 8)
	row := func(m Model, c string) string {
		for _, r := range plainRows(m) {
			if strings.Contains(r, c+c+c) {
				return r
			}
		}
		t.Fatalf("no row of %q in\n%s", c, strings.Join(plainRows(m), "\n"))
		return ""
	}
	ends := func(r string) string { return string([]rune(r)[len([]rune(r))-2:]) }
	if got := ends(row(m, "a")); got != "aa" {
		t.Errorf("a line as wide as the pane ends %q, want no mark", got)
	}
	if got := ends(row(m, "b")); got != "b›" {
		t.Errorf("a line one cell wider ends %q, want the mark", got)
	}
	if got := ends(row(m, "c")); got != " ›" {
		t.Errorf("a wide character at the edge: the row ends %q, want a blank and the mark", got)
	}
	for _, r := range plainRows(m) {
		if ansi.StringWidth(r) != w {
			t.Errorf("row %q is %d cells, want %d", r, ansi.StringWidth(r), w)
		}
	}
	m = send(m, press("l"))
	if got := ends(row(m, "c")); got != "世界" {
		t.Errorf("scrolled to its end, the longest line ends %q, want no mark", got)
	}
}
