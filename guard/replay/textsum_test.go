package replay

import (
	"hash/fnv"
	"testing"
)

// TestTextSumIsFNV: the sums saved between the hook's calls stay FNV-1a's,
// whatever computes them.
func TestTextSumIsFNV(t *testing.T) {
	for _, s := range []string{"", "a", "Read\x00/src/main.go", "héllo\n\twörld", string(make([]byte, 4096))} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := textSum(s), max(h.Sum64(), 1); got != want {
			t.Errorf("textSum(%q) = %x, FNV-1a %x", s, got, want)
		}
	}
}
