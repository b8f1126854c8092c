package transcript

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMeasureStringBlocks puts every kind of escape and rune, and the
// closing quote, at every offset of the first blocks walkString reads, so
// that each lands on a block's first and last bytes and straddles two
// blocks, and pins measureString to referenceMeasure there.
func TestMeasureStringBlocks(t *testing.T) {
	tokens := []string{
		``, `\n`, `\"`, `\\`, `\\\"`, `\\\\`, `\/`, `\t\r\b\f`, `\x`, `\u0041`, `\u00e9`, `\ud83d\ude00`, `\ud83d\u0041`,
		`\ud83d`, `\uzz`, `\u12`, `\` + "é", `\` + "\xff", "é", "→", "😀", "\uFFFD", "\u0800", "\ud7ff",
		"\xe0\x80\x80", "\xed\xa0\x80", "\xc0\x80", "\xff", "\xe2\x86", "\xe2", "→\\n", "é→😀",
	}
	tails := []string{`","b":"\u00e9"}`, `"` + strings.Repeat(`,"k":"v"`, 20) + `}`, `"`, ``}
	for _, tok := range tokens {
		for off := 0; off < 200; off++ {
			for _, tail := range tails {
				for _, after := range []int{0, 1, 70} {
					b := []byte(`"` + strings.Repeat("a", off) + tok + strings.Repeat("b", after) + tail)
					end, n, ok := measureString(b, 1)
					wantEnd, wantN, wantOK := referenceMeasure(t, b, 1)
					if end != wantEnd || n != wantN || ok != wantOK {
						t.Fatalf("measureString(%q) = %d, %d, %v; want %d, %d, %v", b, end, n, ok, wantEnd, wantN, wantOK)
					}
				}
			}
		}
	}
	// Runs of escapes and runes, densely: every block has several, and
	// the runs cross block boundaries at every phase.
	for _, unit := range []string{`\n`, `\\`, `→`, `é`, `\"→`, `a\\\"`, `😀\t`, `\u0041→`, ` 1→x\n`} {
		for reps := 1; reps < 100; reps++ {
			for _, tail := range tails {
				b := []byte(`"` + strings.Repeat(unit, reps) + tail)
				end, n, ok := measureString(b, 1)
				wantEnd, wantN, wantOK := referenceMeasure(t, b, 1)
				if end != wantEnd || n != wantN || ok != wantOK {
					t.Fatalf("measureString(%q) = %d, %d, %v; want %d, %d, %v", b, end, n, ok, wantEnd, wantN, wantOK)
				}
			}
		}
	}
}

// TestSkipStringBlocks puts escapes of both parities and quotes at every
// offset of the first blocks a long string is skipped by, and pins where
// skipString and quoteOrBackslash stop to stringEnd and a byte-by-byte
// search.
func TestSkipStringBlocks(t *testing.T) {
	tokens := []string{``, `\n`, `\"`, `\\`, `\\\"`, `\\\\`, `\`, `"`, `\\"`, "→", `\u0041`}
	tails := []string{`","b":1}` + strings.Repeat(" ", 130), `"`, ``, `\`}
	for _, tok := range tokens {
		for off := 0; off < 200; off++ {
			for _, tail := range tails {
				for _, after := range []int{0, 1, 70, 130} {
					b := []byte(`"` + strings.Repeat("a", off) + tok + strings.Repeat("b", after) + tail)
					s := scanner{buf: b}
					s.skipString()
					want := stringEnd(b, 1)
					if got := s.pos - 1; s.bad != (want < 0) || !s.bad && got != want {
						t.Fatalf("skipString(%q) ended at %d (bad %v); the string ends at %d", b, got, s.bad, want)
					}
					want = strings.IndexAny(string(b[1:]), `"\`)
					if want >= 0 {
						want++
					}
					if got := quoteOrBackslash(b, 1); got != want {
						t.Fatalf("quoteOrBackslash(%q, 1) = %d, want %d", b, got, want)
					}
				}
			}
		}
	}
}

// TestStringEndBlocks pins stringEndBlocks to stringEnd on strings of
// backslashes, quotes and letters, which put escapes of both parities
// across every block boundary and at the end of the buffer.
func TestStringEndBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 64+r.IntN(300))
		for j := range b {
			b[j] = `a\\`[r.IntN(2)]
		}
		// One quote or two near the end, where the blocks give way to
		// the bytes one by one, or none.
		for range r.IntN(3) {
			b[len(b)-1-r.IntN(min(len(b), 80))] = '"'
		}
		if got, want := stringEndBlocks(b, 0), stringEnd(b, 0); got != want {
			t.Fatalf("stringEndBlocks(%q) = %d, want %d", b, got, want)
		}
	}
}
