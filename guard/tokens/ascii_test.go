package tokens

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestASCIISplit compares the split of short texts made mostly of the
// ASCII bytes every alternative of o200k_base's pattern tells apart with
// the reference's: the texts the ASCII path takes whole, and, through
// the bytes past 0x7f among them, the places it leaves to the general
// path.
func TestASCIISplit(t *testing.T) {
	atoms := []string{
		"a", "z", "A", "Z", "ab", "AB", "Ab", "aB", "0", "9", "123", "4567",
		" ", "  ", "\t", "\n", "\r", "\r\n", "\v", "\f", "\x00", "\x1c", "\x7f",
		"'", "'s", "'S", "'ll", "'Re", "'x", ".", ",", "/", "//", "(", ")", "{", "\"", "-", "_", "#",
		"é", "É", "٣", "\u00a0", "\u0085", "\u2003", "…", "\u0301", "\xff", "\xc3",
	}
	c, r := counter(t, O200kBase), ref(t, O200kBase)
	rnd := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		var text []byte
		for range 1 + rnd.IntN(12) {
			atom := atoms[rnd.IntN(len(atoms))]
			if rnd.IntN(5) > 0 {
				atom = atoms[rnd.IntN(len(atoms)-10)] // ASCII mostly
			}
			text = append(text, atom...)
		}
		if got, want := c.split(string(text)), r.pieces(string(text)); !slices.Equal(got, want) {
			t.Fatalf("split of %q = %q, want %q", text, got, want)
		}
	}
}
