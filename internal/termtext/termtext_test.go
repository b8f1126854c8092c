package termtext

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"clipboard \x1b]52;c;ZXZpbA==\x07 write", `clipboard \x1b]52;c;ZXZpbA==\x07 write`},
		{"title \x1b]0;pwned\x1b\\", `title \x1b]0;pwned\x1b\`},
		{"csi \x1b[2J\x1b[31mred", `csi \x1b[2J\x1b[31mred`},
		{"c1 \u009b2J", `c1 \x9b2J`},
		{"del \x7f", `del \x7f`},
		{"line\nbreak\ttab\rcr", `line\nbreak\ttab\x0dcr`},
		{"bad \xff\xfe bytes", "bad \uFFFD\uFFFD bytes"},
		{"bidi \u202eevil\u2066", `bidi \u202eevil\u2066`},
		{"wide 日本 é 😀", "wide 日本 é 😀"},
		{"Ba\u200bsh", `Ba\u200bsh`},
		{"zw \u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff", `zw \u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff`},
		{"soft\u00adhyphen mongolian\u180evs", `soft\u00adhyphen mongolian\u180evs`},
		{"tag \U000e0001\U000e0041\U000e007f", `tag \U000e0001\U000e0041\U000e007f`},
		{"zwj family 👨\u200d👩\u200d👧", `zwj family 👨\u200d👩\u200d👧`},
	}
	for _, tt := range tests {
		got := Escape(tt.in)
		if got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.ContainsAny(got, "\x1b\x07\u009b\r\n") {
			t.Errorf("Escape(%q) left a control character: %q", tt.in, got)
		}
	}
}

func TestJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"plain","b":"日本 → é"}`, `{"a":"plain","b":"日本 → é"}`},
		{"{\"c1\":\"\u009b31m\",\"del\":\"\x7f\"}", `{"c1":"\u009b31m","del":"\u007f"}`},
		{"[\"\u202eevil\u2066\u200f\u061c\"]", `["\u202eevil\u2066\u200f\u061c"]`},
		{"[\"… ¢ ؀\"]", "[\"… ¢ ؀\"]"}, // lead bytes C2, D8, E2 of harmless runes
		{"[\"Ba\u200bsh\ufeff\u00ad\u180e\u2064\"]", `["Ba\u200bsh\ufeff\u00ad\u180e\u2064"]`},
		{"[\"tag\U000e0041\"]", `["tag\udb40\udc41"]`},
		{"[" + strings.Repeat(`{"reason":"9 ≤ 10"},`, 50) + "\"\u202e\"]", "[" + strings.Repeat(`{"reason":"9 ≤ 10"},`, 50) + `"\u202e"]`},
		{"\"~\x7f~\u0080\u009f\u00a0\"", `"~\u007f~\u0080\u009f` + "\u00a0\""},
	}
	for _, tt := range tests {
		got := JSON([]byte(tt.in))
		if string(got) != tt.want {
			t.Errorf("JSON(%q) = %q, want %q", tt.in, got, tt.want)
		}
		var before, after any
		if err := json.Unmarshal([]byte(tt.in), &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("JSON(%q) is not JSON: %v", tt.in, err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("JSON(%q) changed the document (-before +after):\n%s", tt.in, diff)
		}
	}
}

func TestLines(t *testing.T) {
	got := Lines("a\tb\r\n\tc\x1b[31m\nab\tc\n日\tx")
	want := []string{"a   b", "    c\\x1b[31m", "ab  c", "日  x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}
}

// TestZWJColumn draws emoji joined by zero-width joiners in a fixed-width
// column. Terminals disagree on such a sequence (one glyph of 2 cells, or
// each emoji apart, 6 cells), so the column only lines up when what is
// drawn measures the same cluster by cluster as code point by code point.
func TestZWJColumn(t *testing.T) {
	for _, in := range []string{
		"👨\u200d👩\u200d👧 family",
		"👩\u200d💻 coder",
		"a\u200db\u200bc",
		"\U000e0067\U000e0062 tags",
	} {
		cell := Fit(Line(in), 12)
		if got, wc := ansi.StringWidth(cell), ansi.StringWidthWc(cell); got != 12 || wc != 12 {
			t.Errorf("Fit(Line(%q), 12) = %q: %d cells by grapheme, %d by code point, want 12 both", in, cell, got, wc)
		}
		row := cell + "│"
		if w := ansi.StringWidthWc(row); w != 13 {
			t.Errorf("the column rule after %q is at cell %d, want 13", in, w)
		}
	}
}

func TestWidths(t *testing.T) {
	if w := Width("日本"); w != 4 {
		t.Errorf("Width(日本) = %d, want 4", w)
	}
	for _, tt := range []struct {
		in    string
		width int
		trunc string
		fit   string
	}{
		{"hello world", 5, "hell…", "hell…"},
		{"hi", 5, "hi", "hi   "},
		{"日本語です", 5, "日本…", "日本…"},
		{"x", 0, "", ""},
	} {
		if got := Truncate(tt.in, tt.width); got != tt.trunc {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.trunc)
		}
		if got := Fit(tt.in, tt.width); got != tt.fit || Width(got) != tt.width {
			t.Errorf("Fit(%q, %d) = %q (%d cells)", tt.in, tt.width, got, Width(got))
		}
	}
	if got := FitLeft("7", 3); got != "  7" {
		t.Errorf("FitLeft = %q", got)
	}
}

// BenchmarkJSON escapes a report-like document whose reasons carry "≤" in
// every object, so the scan meets a multi-byte rune every ~100 bytes.
func BenchmarkJSON(b *testing.B) {
	doc := []byte("[" + strings.Repeat(`{"call_id":"toolu_01ABCDEF","tool":"Read","bytes":5123,"reason":"5,211 JSON bytes ≤ 24,576 JSON bytes"},`, 10000) + "{}]")
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		JSON(doc)
	}
}

// FuzzJSON encodes any string as JSON, escapes the document, and checks
// that it decodes to the same string with no control left raw.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{"Ba\u200bsh", "\U000e0041\ufeff", "plain", "\u009b31m", "a\x7fb", "\u202eevil\u2066", "≤ → …", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := json.Marshal([]string{s, s})
		if err != nil {
			t.Skip()
		}
		var before, after []string
		if err := json.Unmarshal(doc, &before); err != nil {
			t.Fatal(err)
		}
		got := JSON(doc)
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("JSON(%q) = %q is not JSON: %v", doc, got, err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("JSON(%q) changed the strings (-before +after):\n%s", doc, diff)
		}
		for _, r := range string(got) {
			if r == 0x7f || r >= 0x80 && r < 0xa0 || bidi(r) || invisible(r) {
				t.Fatalf("JSON(%q) = %q left %U raw", doc, got, r)
			}
		}
	})
}

// TestText: a text for the clipboard keeps its lines and tabs, and no
// control or escape sequence.
func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain\n\tindented\r\nnext":                     "plain\n\tindented\nnext",
		"\x1b]52;c;ZXZpbA==\x07 and \x1b[31mred\x1b[0m": `\x1b]52;c;ZXZpbA==\x07 and \x1b[31mred\x1b[0m`,
		"lone\rcarriage \u009b1m \u202eevil \u200bx":    `lone\x0dcarriage \x9b1m \u202eevil ` + "\u200bx",
		"bad \xff byte": "bad \ufffd byte",
	} {
		if got := Clipboard(in); got != want {
			t.Errorf("Clipboard(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCombiningMarks: a letter keeps the marks written scripts stack on
// it; past four in a row they are escaped, not drawn over the rows around.
func TestCombiningMarks(t *testing.T) {
	acute := "\u0301"
	for in, want := range map[string]string{
		"e" + acute:                      "e" + acute,
		"e" + strings.Repeat(acute, 4):   "e" + strings.Repeat(acute, 4),
		"e" + strings.Repeat(acute, 6):   "e" + strings.Repeat(acute, 4) + `\u0301\u0301`,
		"a" + acute + "b" + acute + "\t": "a" + acute + "b" + acute, // each letter its own
	} {
		if got := Escape(in); !strings.HasPrefix(got, want) {
			t.Errorf("Escape(%q) = %q, want %q…", in, got, want)
		}
		if got := Line(in); !strings.HasPrefix(got, want) {
			t.Errorf("Line(%q) = %q, want %q…", in, got, want)
		}
	}
	if got := Line(strings.Repeat(acute, 500)); strings.Count(got, acute) != 4 || Width(got) != 6*496 {
		t.Errorf("500 marks: %d drawn, %d cells", strings.Count(got, acute), Width(got))
	}
}

// TestClipboard: what is copied keeps the format characters that belong
// to the text and escapes what would act when pasted.
func TestClipboard(t *testing.T) {
	for in, want := range map[string]string{
		"👨\u200d👩\u200d👧":            "👨\u200d👩\u200d👧", // one family, not three faces
		"می\u200cخواهم":              "می\u200cخواهم",
		"co\u00adoperate":            "co\u00adoperate",
		"\x1b[31mred\x1b[0m\r\nok\t": `\x1b[31mred\x1b[0m` + "\nok\t",
		"abc\u202edef":               `abc\u202edef`,
		"a\u200fb":                   `a\u200fb`,
		"\u0085\x7f":                 `\x85\x7f`,
	} {
		if got := Clipboard(in); got != want {
			t.Errorf("Clipboard(%q) = %q, want %q", in, got, want)
		}
	}
}
