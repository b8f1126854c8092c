package masks

import (
	"strings"
	"testing"
)

// TestStrings checks Strings's words, bit by bit, over blocks holding
// every byte value at every offset.
func TestStrings(t *testing.T) {
	const blocks = 5
	b := make([]byte, blocks*64)
	for shift := range 64 {
		fillPattern(b, shift)
		var m [blocks * Words]uint64
		Strings(&b[0], blocks, &m[0])
		for j, c := range b {
			var got [Words]bool
			for w := range got {
				got[w] = m[j/64*Words+w]>>(j%64)&1 == 1
			}
			want := [Words]bool{
				c == '"', c == '\\', c >= 0x80, !strings.ContainsRune(`"\/bfnrt`, rune(c)),
				c >= 0x80 && c < 0xC0, c >= 0xC2 && c < 0xE0, c >= 0xE1 && c < 0xF0 && c != 0xED,
			}
			if got != want {
				t.Fatalf("byte %d (%#x): marked %v; want %v (quote, backslash, high, not escaped in two, continuation, lead of two, lead of three)", j, c, got, want)
			}
		}
	}
}

// TestQuotes checks Quotes against Strings's first words.
func TestQuotes(t *testing.T) {
	const blocks = 5
	b := make([]byte, blocks*64)
	for shift := range 64 {
		fillPattern(b, shift)
		var m [blocks * Words]uint64
		var qm [blocks * 2]uint64
		Strings(&b[0], blocks, &m[0])
		Quotes(&b[0], blocks, &qm[0])
		for k := range blocks {
			if got, want := qm[2*k:2*k+2], m[k*Words:k*Words+2]; got[0] != want[0] || got[1] != want[1] {
				t.Fatalf("block %d: Quotes %x, Strings %x", k, got, want)
			}
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
