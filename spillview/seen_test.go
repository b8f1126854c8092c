package spillview

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/themes"
)

// headTail is a 100-line numbered text whose head preview ends 10 bytes
// into line 26 (index 25) and whose tail preview starts 25 bytes into line
// 75 (index 74).
func headTail() Source {
	text := numbered(100)
	return Source{
		Title: "result 12 · Grep · spilled by harness-rs-0.0.50",
		Text:  text,
		Seen:  []Range{{0, int64(25*lineLen + 10)}, {int64(74*lineLen + 25), int64(len(text))}},
		Note:  "the model saw a head and a tail preview",
	}
}

func TestSeenKinds(t *testing.T) {
	m := open(t, headTail(), themes.New(themes.Mono), 80, 20)
	var got []seenKind
	for i := range m.doc.Lines() {
		from, _, next := m.doc.span(i)
		got = append(got, m.seen.kind(from, next))
	}
	want := make([]seenKind, 100)
	for i := range want {
		switch {
		case i < 25 || i > 74:
			want[i] = seenAll
		case i == 25 || i == 74:
			want[i] = seenPart
		default:
			want[i] = seenNone
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("line kinds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]gap{{26, 73}}, m.seen.gaps, cmp.AllowUnexported(gap{})); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
}

func TestSeenMapEdges(t *testing.T) {
	text := numbered(10)
	tests := []struct {
		name string
		seen []Range
		gaps []gap
	}{
		{"nil saw all", nil, nil},
		{"empty saw none", []Range{}, []gap{{0, 9}}},
		{"truncation head", []Range{{0, int64(3 * lineLen)}}, []gap{{3, 9}}},
		{"tail only", []Range{{int64(8 * lineLen), int64(len(text))}}, []gap{{0, 7}}},
		{"overlapping unsorted out of bounds", []Range{{int64(5 * lineLen), 1 << 40}, {-5, 10}, {5, int64(2 * lineLen)}}, []gap{{2, 4}}},
		{"newline only counts", []Range{{int64(lineLen - 1), int64(lineLen)}}, []gap{{1, 9}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Open(Source{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			s := newSeenMap(d, tt.seen)
			if diff := cmp.Diff(tt.gaps, s.gaps, cmp.AllowUnexported(gap{})); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
		})
	}
}

// markStyles makes seen and unseen text visible without colour: seen runs
// in «», unseen in [].
func markStyles() *themes.Styles {
	s := themes.New(themes.Mono)
	s.Seen = lipgloss.NewStyle().Transform(func(t string) string { return "«" + t + "»" })
	s.Unseen = lipgloss.NewStyle().Transform(func(t string) string { return "[" + t + "]" })
	return s
}

func TestSeenRendering(t *testing.T) {
	m := open(t, headTail(), markStyles(), 80, 20)
	m.setTop(22)
	checkSize(t, m.View(), 80, 20)
	rows := plainRows(m)
	// Title, note, then lines 23.. with the separator before line 27.
	want := []string{
		" 23 «│» «line 023: the quick brown fox jumps»",
		" 24 «│» «line 024: the quick brown fox jumps»",
		" 25 «│» «line 025: the quick brown fox jumps»",
		" 26 «╎» «line 026: »[the quick brown fox jumps]",
		"── 48 lines the model would not see under the policy ──",
		" 27 [┆] [line 027: the quick brown fox jumps]",
	}
	for i, w := range want {
		if got := strings.TrimRight(rows[2+i], " ─"); got != strings.TrimRight(w, " ─") {
			t.Errorf("row %d = %q, want %q", 2+i, got, w)
		}
	}
	m.setTop(72)
	rows = plainRows(shown(m))
	want = []string{
		" 73 [┆] [line 073: the quick brown fox jumps]",
		" 74 [┆] [line 074: the quick brown fox jumps]",
		" 75 «╎» [line 075: the quick brown]« fox jumps»",
		" 76 «│» «line 076: the quick brown fox jumps»",
	}
	for i, w := range want {
		if got := strings.TrimRight(rows[2+i], " "); got != w {
			t.Errorf("row %d = %q, want %q", 2+i, got, w)
		}
	}
}

// TestSeenSplitsTabsAndRunes: a boundary inside a multi-byte rune moves to
// its start, and tab stops stay right across a boundary.
func TestSeenSplitsTabsAndRunes(t *testing.T) {
	text := "ab世cd\tx\n"
	for _, tt := range []struct {
		name string
		to   int64
		want string
	}{
		{"inside rune", 3, "«ab»[世cd  x]"},
		{"after rune", 5, "«ab世»[cd  x]"},
		{"before tab", 7, "«ab世cd»[  x]"},
		{"after tab", 8, "«ab世cd  »[x]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := Source{Text: text, Seen: []Range{{0, tt.to}}}
			m := open(t, src, markStyles(), 40, 3)
			// Height 3: title, one text row, status.
			row := plainRows(m)[1]
			if got := strings.TrimRight(row[strings.Index(row, "»")+len("» "):], " "); !strings.HasPrefix(got, tt.want) {
				t.Errorf("row = %q, want text %q", row, tt.want)
			}
		})
	}
}
