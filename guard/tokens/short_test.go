package tokens

import (
	"math/rand/v2"
	"testing"
)

// TestShortKeysAreDistinct checks that the short memo's keys tell every
// piece it holds from every other: pieces of each length it takes, of
// bytes that include zero (a short piece padded with zeros must not pass
// for a longer one), and that no key reaches the count's bits.
func TestShortKeysAreDistinct(t *testing.T) {
	seen := map[uint64]string{}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}
	for n := 3; n <= maxShortPiece; n++ {
		for range 20000 {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			piece := string(b)
			key := shortKey(piece)
			if key>>shortKeyBits != 0 {
				t.Fatalf("key of %q is %#x: it reaches the count's bits", piece, key)
			}
			if other, ok := seen[key]; ok && other != piece {
				t.Fatalf("%q and %q share the key %#x", piece, other, key)
			}
			seen[key] = piece
		}
	}
}
