package transcript

import (
	"math/bits"
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

// TestStringMasks checks stringMasks's words, bit by bit, over blocks
// holding every byte value at every offset.
func TestStringMasks(t *testing.T) {
	const blocks = 5
	b := make([]byte, blocks*64)
	for shift := range 64 {
		fillPattern(b, shift)
		var m [blocks * maskWords]uint64
		stringMasks(&b[0], blocks, &m[0])
		for j, c := range b {
			var got [maskWords]bool
			for w := range got {
				got[w] = m[j/64*maskWords+w]>>(j%64)&1 == 1
			}
			want := [maskWords]bool{
				c == '"', c == '\\', c >= 0x80, !strings.ContainsRune(`"\/bfnrt`, rune(c)),
				c >= 0x80 && c < 0xC0, c >= 0xC2 && c < 0xE0, c >= 0xE1 && c < 0xF0 && c != 0xED,
			}
			if got != want {
				t.Fatalf("byte %d (%#x): marked %v; want %v (quote, backslash, high, not escaped in two, continuation, lead of two, lead of three)", j, c, got, want)
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

// TestQuoteMasks checks quoteMasks against stringMasks's first words.
func TestQuoteMasks(t *testing.T) {
	const blocks = 5
	b := make([]byte, blocks*64)
	for shift := range 64 {
		fillPattern(b, shift)
		var m [blocks * maskWords]uint64
		var qm [blocks * 2]uint64
		stringMasks(&b[0], blocks, &m[0])
		quoteMasks(&b[0], blocks, &qm[0])
		for k := range blocks {
			if got, want := qm[2*k:2*k+2], m[k*maskWords:k*maskWords+2]; got[0] != want[0] || got[1] != want[1] {
				t.Fatalf("block %d: quoteMasks %x, stringMasks %x", k, got, want)
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

// fillPattern fills b with a pattern of bytes that, over shifts 0 to 63,
// puts every byte value at every offset of a block.
func fillPattern(b []byte, shift int) {
	for j := range b {
		b[j] = byte(j*shift + j/3)
	}
}

// TestNarrowMasks runs the tests above with the AVX2 masks where the
// AVX-512 ones are in use, so that both are checked on such a processor.
func TestNarrowMasks(t *testing.T) {
	if !wideStrings {
		t.Skip("the masks are not made with AVX-512 here")
	}
	wideStrings = false
	defer func() { wideStrings = true }()
	for _, test := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"MeasureStringBlocks", TestMeasureStringBlocks}, {"StringMasks", TestStringMasks},
		{"SkipStringBlocks", TestSkipStringBlocks}, {"QuoteMasks", TestQuoteMasks}, {"StringEndBlocks", TestStringEndBlocks},
	} {
		t.Run(test.name, test.run)
	}
}

// passBlocks is what walkBlocks must do, from stringMasks's words and
// walkString's own tests of a block: pass blocks while each has no end of
// the string, no escape but a plain one and only runes of two or three
// bytes, carrying the escape and the rune continued into the next.
func passBlocks(b []byte, blocks int, esc, cont uint64) (done, saved int, escOut, contOut uint64, back int) {
	var w [maskWords]uint64
	for k := 0; k < blocks; k++ {
		stringMasks(&b[64*k], 1, &w[0])
		q, bs, h := w[0], w[1], w[2]
		pot := bs &^ esc
		code := ((pot<<1 | oddBits) - pot) ^ oddBits
		escaped := code ^ (bs | esc)
		escape := code & bs
		if q&^escaped != 0 || escaped&w[3] != 0 {
			break
		}
		c, l2, l3 := w[4], w[5], w[6]
		if h != c|l2|l3 || c != l2<<1|l3<<1|l3<<2|cont {
			break
		}
		saved += bits.OnesCount64(escape)
		esc, cont = escape>>63, l2>>63|l3>>62|l3>>63
		back = 1
		if l3>>62 == 1 {
			back = 2
		}
		done++
	}
	return done, saved, esc, cont, back
}

// TestWalkBlocks: walkBlocks passes the blocks passBlocks does, with the
// same escapes counted and the same state carried, on random runs of
// text, plain escapes and runes, and now and then a byte that stops it.
func TestWalkBlocks(t *testing.T) {
	if !wideStrings {
		t.Skip("walkBlocks runs only with AVX-512")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	common := []string{"a", "a", "a", `\n`, `\\`, `\"`, "é", "→"}
	stops := []string{"\\", "\"", "😀", `\u`, "\xed\x9f\xbf", "\xe0\xa0\x80", "\xc3", "\xe2\x86"}
	var passed [8]int
	for range 100_000 {
		n := 1 + rng.IntN(6)
		var b []byte
		for len(b) < 64*n+8 {
			if rng.IntN(50) == 0 {
				b = append(b, stops[rng.IntN(len(stops))]...)
			} else {
				b = append(b, common[rng.IntN(len(common))]...)
			}
		}
		esc, cont := uint64(rng.IntN(2)), uint64(0)
		if esc == 0 {
			cont = []uint64{0, 0, 1, 3}[rng.IntN(4)]
		}
		d, s, e, c, k := walkBlocks(&b[0], n, esc, cont)
		wd, ws, we, wc, wk := passBlocks(b, n, esc, cont)
		if d != wd || s != ws || e != we || c != wc || k != wk {
			t.Fatalf("%q, %d blocks, esc %d, cont %d: walkBlocks %d %d %d %d %d, want %d %d %d %d %d", b, n, esc, cont, d, s, e, c, k, wd, ws, we, wc, wk)
		}
		passed[d]++
	}
	if passed[0] == 0 || passed[1] == 0 || passed[3] == 0 {
		t.Errorf("blocks passed, by count: %v; want runs stopped at the first block, the second and later", passed)
	}
}
