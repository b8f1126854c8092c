package index

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeSorted(t *testing.T) {
	for _, tt := range []struct {
		name string
		runs [][]int
		want []int
	}{
		{"none", nil, nil},
		{"one", [][]int{{1, 3, 3}}, []int{1, 3, 3}},
		{"empty ones", [][]int{{}, nil}, nil},
		{"two", [][]int{{1, 4, 9}, {2, 3, 9}}, []int{1, 2, 3, 4, 9, 9}},
		{"odd count, empty among them", [][]int{{5}, {}, {0, 10}, {2, 3}, {1}}, []int{0, 1, 2, 3, 5, 10}},
	} {
		total := 0
		for _, r := range tt.runs {
			total += len(r)
		}
		got := mergeSorted(tt.runs, total)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
		if len(got) != cap(got) {
			t.Errorf("%s: cap %d, len %d: an append would write into what it shares", tt.name, cap(got), len(got))
		}
	}
	// Many runs of random sizes: the merge is the sorted concatenation.
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		var runs [][]int
		var all []int
		for range n {
			run := make([]int, r.IntN(20))
			for i := range run {
				run[i] = r.IntN(1000)
			}
			slices.Sort(run)
			runs = append(runs, run)
			all = append(all, run...)
		}
		slices.Sort(all)
		if got := mergeSorted(runs, len(all)); !slices.Equal(got, all) {
			t.Fatalf("%d runs: %v, want %v", n, got, all)
		}
	}
}
