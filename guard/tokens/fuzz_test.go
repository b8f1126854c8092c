package tokens

import (
	"slices"
	"strings"
	"testing"
)

// fuzzWindow is the window of the fuzzers' second counter, short so that
// short texts are merged in many windows.
const fuzzWindow = 64

// addRuns adds runs of runUnits whose lengths are around multiples of
// fuzzWindow, where windows are glued.
func addRuns(f *testing.F) {
	for _, unit := range runUnits {
		for _, n := range []int{fuzzWindow - 1, fuzzWindow + 1, 2*fuzzWindow + 3, 5*fuzzWindow - 2, 17 * fuzzWindow} {
			f.Add(strings.Repeat(unit, max(1, n/len(unit))))
		}
	}
}

// FuzzCount compares the split and the count of arbitrary text with
// tiktoken-go's, in both encodings, counting long pieces in the usual
// windows and in windows of fuzzWindow bytes.
func FuzzCount(f *testing.F) {
	for _, tc := range trickyInputs {
		f.Add(tc.text)
	}
	for _, kind := range []string{"prose", "code", "lock", "mixed", "tricky"} {
		f.Add(generate(kind, 300, 1))
	}
	addRuns(f)
	counters := map[Encoding]*Counter{}
	small := map[Encoding]*Counter{}
	for _, enc := range encodings {
		counters[enc] = counter(f, enc)
		small[enc] = withWindow(f, enc, fuzzWindow)
		ref(f, enc)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return // the reference is quadratic in a piece's length
		}
		for _, enc := range encodings {
			c, r := counters[enc], ref(t, enc)
			if got, want := c.split(text), r.pieces(text); !slices.Equal(got, want) {
				t.Fatalf("%s: split of %q = %q, want %q", enc, text, got, want)
			}
			want := r.count(text)
			if got := c.Count(text); got != want {
				t.Fatalf("%s: Count(%q) = %d, want %d", enc, text, got, want)
			}
			if got := small[enc].Count(text); got != want {
				t.Fatalf("%s: Count(%q) in windows of %d = %d, want %d", enc, text, fuzzWindow, got, want)
			}
		}
	})
}

// FuzzMerge compares the merges with tiktoken's quadratic algorithm on
// arbitrary byte strings, long ones included, merged whole and in windows
// of fuzzWindow bytes.
func FuzzMerge(f *testing.F) {
	addRuns(f)
	f.Add("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Add("                                                                                ")
	f.Add("中文的中文的中文的中文的中文的中文的中文的中文的中文的中文的中文的中文的")
	f.Add("\xff\x00\x01abc\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n")
	vocabs := map[Encoding]*vocab{}
	for _, enc := range encodings {
		vocabs[enc] = &counter(f, enc).t.vocab
	}
	f.Fuzz(func(t *testing.T, piece string) {
		if len(piece) > 4096 {
			return
		}
		for _, enc := range encodings {
			v := vocabs[enc]
			want := quadraticMerge(v, piece)
			if got := v.merge(piece); got != want {
				t.Fatalf("%s: merge(%q) = %d, want %d", enc, piece, got, want)
			}
			if got := mergeLarge[int32](v, piece); got != want {
				t.Fatalf("%s: mergeLarge(%q) = %d, want %d", enc, piece, got, want)
			}
			if len(piece) > fuzzWindow {
				if got := v.countLong(piece, fuzzWindow); got != want {
					t.Fatalf("%s: countLong(%q, %d) = %d, want %d", enc, piece, fuzzWindow, got, want)
				}
			}
		}
	})
}
