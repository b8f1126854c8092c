package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// spliceTexts are long texts of every generated kind, plus ones whose split
// points sit next to what the patterns treat specially.
func spliceTexts() map[string]string {
	texts := map[string]string{}
	for _, kind := range []string{"prose", "code", "lock", "mixed", "tricky", "minified", "base64"} {
		texts[kind] = generate(kind, 20_000, 7)
	}
	texts["contractions"] = strings.Repeat("it's  don't\n'll 9 'S x'd  \t\r\n A1 ", 800)
	texts["marks"] = strings.Repeat("e\u0301 a\u0300\u0301 ABc d  日本 z \u00a0q ", 900)
	texts["runs"] = strings.Repeat("a", 3000) + " " + strings.Repeat(" ", 3000) + "b " + strings.Repeat("7", 3000) + " x"
	return texts
}

func TestSplitPointsAreAdditive(t *testing.T) {
	for _, enc := range encodings {
		c := counter(t, enc)
		for kind, text := range spliceTexts() {
			text = text[:min(len(text), 4000)]
			whole := c.Count(text)
			for b := nextSplit(text, 1, len(text)); b >= 0; b = nextSplit(text, b+1, len(text)) {
				if got := c.Count(text[:b]) + c.Count(text[b:]); got != whole {
					t.Fatalf("%s %s: cut at %d gives %d tokens, whole text %d", enc, kind, b, got, whole)
				}
			}
		}
	}
}

// TestCountParts checks CountParts against Count of the joined text for
// the shapes replacements take: a head inside a template, head and tail
// around a marker, head and tail side by side, a middle slice, and every
// cut reused on one index as a tuner would.
func TestCountParts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, enc := range encodings {
		c := counter(t, enc)
		for kind, text := range spliceTexts() {
			full, prefixes := NewIndex(text), NewIndex("")
			for range 60 {
				h := cut(text, r.IntN(len(text)+1))
				s := cut(text, h+r.IntN(len(text)-h+1))
				m := cut(text, r.IntN(len(text)+1))
				shapes := [][]Part{
					{Lit(`{"head":"`), Slice(prefixes, 0, text[:h]), Lit(`","note":"cut"}`)},
					{Slice(full, 0, text[:h]), Lit("…12 tokens truncated…"), Slice(full, s, text[s:])},
					{Slice(full, 0, text[:h]), Slice(full, s, text[s:]), Lit("\n\n(Omitted)")},
					{Lit("x"), Slice(full, min(m, h), text[min(m, h):max(m, h)]), Lit(" y")},
					{Slice(full, s, text[s:])},
				}
				for i, parts := range shapes {
					var joined strings.Builder
					for _, p := range parts {
						joined.WriteString(p.Text)
					}
					if got, want := c.CountParts(parts...), c.Count(joined.String()); got != want {
						t.Fatalf("%s %s shape %d (h=%d s=%d m=%d): CountParts = %d, Count = %d", enc, kind, i, h, s, m, got, want)
					}
				}
			}
		}
	}
}

// cut moves i back to a character boundary.
func cut(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

func TestCountPartsRemembersCounts(t *testing.T) {
	c := counter(t, O200kBase)
	text := generate("prose", 200_000, 3)
	ix := NewIndex(text)
	c.CountParts(Slice(ix, 0, text))
	if len(ix.fwd.list) < len(text)/(4*markGap) {
		t.Fatalf("%d marks over %d bytes of prose, want one every few hundred bytes", len(ix.fwd.list), len(text))
	}
	// Splitting points are found once: a shorter head adds none.
	n := len(ix.fwd.list)
	c.CountParts(Slice(ix, 0, text[:len(text)/2]))
	if len(ix.fwd.list) != n {
		t.Fatalf("marks grew from %d to %d on a shorter head", n, len(ix.fwd.list))
	}
}

// FuzzCountParts joins a head and a tail of arbitrary text around a
// literal, as a middle truncation does.
func FuzzCountParts(f *testing.F) {
	f.Add(generate("mixed", 3000, 1), 700, 2100, "…")
	f.Add(strings.Repeat("ab ", 1000), 999, 1001, "")
	f.Add(strings.Repeat("9 '", 700), 10, 1500, "'s")
	shared := counter(f, O200kBase)
	// The mutator grows a text to megabytes by duplicating its chunks;
	// counted twice under coverage, such an input takes the worker seconds
	// and reaches no code a few KB would not (marks fall every markGap
	// bytes). Cut points out of range are folded into the text rather
	// than wasting the input.
	const maxText, maxLit = 4 << 10, 256
	f.Fuzz(func(t *testing.T, text string, h, s int, lit string) {
		text, lit = text[:min(len(text), maxText)], lit[:min(len(lit), maxLit)]
		if h < 0 || s < h || s > len(text) {
			h = int(uint(h) % uint(len(text)+1))
			s = h + int(uint(s)%uint(len(text)-h+1))
		}
		// A counter of its own: with the piece cache of earlier runs, which
		// code runs would depend on them, and the fuzzer, finding coverage
		// it cannot reproduce, would spend its time re-checking inputs.
		c := newCounter(shared.enc, shared.t)
		ix := NewIndex(text)
		parts := []Part{Slice(ix, 0, text[:h]), Lit(lit), Slice(ix, s, text[s:])}
		if got, want := c.CountParts(parts...), c.Count(text[:h]+lit+text[s:]); got != want {
			t.Fatalf("CountParts = %d, Count = %d", got, want)
		}
	})
}
