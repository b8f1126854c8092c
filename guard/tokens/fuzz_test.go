package tokens

import (
	"slices"
	"testing"
)

// FuzzCount compares the split and the count of arbitrary text with
// tiktoken-go's, in both encodings.
func FuzzCount(f *testing.F) {
	for _, tc := range trickyInputs {
		f.Add(tc.text)
	}
	for _, kind := range []string{"prose", "code", "lock", "mixed", "tricky"} {
		f.Add(generate(kind, 300, 1))
	}
	counters := map[Encoding]*Counter{}
	for _, enc := range encodings {
		counters[enc] = counter(f, enc)
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
			if got, want := c.Count(text), r.count(text); got != want {
				t.Fatalf("%s: Count(%q) = %d, want %d", enc, text, got, want)
			}
		}
	})
}

// FuzzMerge compares the merges with tiktoken's quadratic algorithm on
// arbitrary byte strings, long ones included.
func FuzzMerge(f *testing.F) {
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
		}
	})
}
