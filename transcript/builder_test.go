package transcript

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChunk checks that slices cut from one chunk keep their own
// elements whatever order their owners append in, and that a slice
// appended to by anyone else is copied, not written over its neighbour.
func TestChunk(t *testing.T) {
	var c chunk[int]
	var a, b []int
	want := map[string][]int{}
	step := func(name string, s *[]int, v int) {
		*s = c.append(*s, v)
		want[name] = append(want[name], v)
	}
	// Enough to fill several chunks, the owners taking turns unevenly.
	for i := range 3 * maxChunk {
		step("a", &a, i)
		if i%3 == 0 {
			step("b", &b, -i)
		}
		if i%5 == 0 {
			step("a", &a, 10*i) // a again, after b took the array's end
		}
	}
	if diff := cmp.Diff(want["a"], a); diff != "" {
		t.Errorf("a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want["b"], b); diff != "" {
		t.Errorf("b (-want +got):\n%s", diff)
	}
	// An append from outside copies: the next owner's first element stays.
	var x, y []int
	x = c.append(x, 1)
	y = c.append(y, 2)
	_ = append(x, 3)
	if y[0] != 2 {
		t.Errorf("append outside the chunk wrote over the next slice: %v", y)
	}
}
