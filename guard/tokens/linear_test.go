package tokens

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/internal/slowtest"
)

const mib = 1 << 20

// slowLimit fails a count of a megabyte that takes longer: far above the
// real figure (see BenchmarkCount), far below what a quadratic merge or
// split would take.
const slowLimit = 5 * time.Second

// A run of one byte that ends the text is one piece. Its count grows by one
// every period bytes: count(n) = n/period + count(n%period), so a MiB of it
// has mib/period tokens. TestRunPeriods checks the rule against tiktoken-go
// for short runs and against the counts npm tiktoken gave for long ones.
var runs = []struct {
	enc    Encoding
	unit   string
	period int
	mib    int         // tokens of a MiB of unit
	npm    map[int]int // length -> count, from npm tiktoken 1.0.22
}{
	{O200kBase, " ", 128, mib / 128, map[int]int{100000: 782, 200000: 1563, 500000: 3907}},
	{O200kBase, "a", 8, mib / 8, map[int]int{100000: 12500, 200000: 25000, 300000: 37500}},
	{Cl100kBase, " ", 128, mib / 128, map[int]int{100000: 782, 200000: 1563}},
	{Cl100kBase, "a", 8, mib / 8, map[int]int{100000: 12500, 200000: 25000}},
}

func TestRunsOfAMegabyte(t *testing.T) {
	for _, tc := range runs {
		t.Run(string(tc.enc)+"/"+tc.unit, func(t *testing.T) {
			c := counter(t, tc.enc)
			text := strings.Repeat(tc.unit, mib)
			start := time.Now()
			got := c.Count(text)
			if d := time.Since(start); d > slowLimit {
				t.Errorf("took %v", d)
			}
			if got != tc.mib {
				t.Errorf("Count = %d, want %d", got, tc.mib)
			}
		})
	}
}

func TestRunPeriods(t *testing.T) {
	for _, tc := range runs {
		t.Run(string(tc.enc)+"/"+tc.unit, func(t *testing.T) {
			c, r := counter(t, tc.enc), ref(t, tc.enc)
			lengths := []int{1000, 2047, 2048, 3001}
			for n := 0; n <= 2*tc.period+1; n++ {
				lengths = append(lengths, n)
			}
			for _, n := range lengths {
				checkAgainstReference(t, c, r, strings.Repeat(tc.unit, n))
			}
			for _, n := range []int{4096, 10007, 65537, 100000, 200000, 300000, 500000, mib - 1} {
				got := c.Count(strings.Repeat(tc.unit, n))
				if want := n/tc.period + c.Count(strings.Repeat(tc.unit, n%tc.period)); got != want {
					t.Errorf("count(%d) = %d, want %d", n, got, want)
				}
				if want, ok := tc.npm[n]; ok && got != want {
					t.Errorf("count(%d) = %d, npm tiktoken %d", n, got, want)
				}
			}
		})
	}
}

// TestGeneratedMegabytes compares a MiB of base64 and of minified code,
// whose pieces are short enough for tiktoken-go to count in under a second.
func TestGeneratedMegabytes(t *testing.T) {
	slowtest.OptIn(t, "counts 4 MiB with the reference tokenizer too")
	for _, enc := range encodings {
		for _, kind := range []string{"base64", "minified"} {
			t.Run(string(enc)+"/"+kind, func(t *testing.T) {
				c, r := counter(t, enc), ref(t, enc)
				text := generate(kind, mib, 42)
				start := time.Now()
				got := c.Count(text)
				if d := time.Since(start); d > slowLimit {
					t.Errorf("took %v", d)
				}
				if want := r.count(text); got != want {
					t.Errorf("Count = %d, reference %d", got, want)
				}
			})
		}
	}
}

// TestWorstCasesAreLinear times a MiB of inputs that make long pieces or
// long backtracking in a regular-expression split.
func TestWorstCasesAreLinear(t *testing.T) {
	slowtest.OptIn(t, "counts 30 MiB of worst cases")
	cases := map[string]string{
		"newlines":       strings.Repeat("\n", mib),
		"crlf":           strings.Repeat("\r\n", mib/2),
		"spaces then x":  strings.Repeat(" ", mib-1) + "x",
		"tabs and space": strings.Repeat("\t ", mib/2),
		"equals":         strings.Repeat("=", mib),
		"digits":         strings.Repeat("7", mib),
		"upper":          strings.Repeat("A", mib),
		"upper then low": strings.Repeat("A", mib-1) + "a",
		"title pairs":    strings.Repeat("Aa", mib/2),
		"cjk":            strings.Repeat("中文", mib/6),
		"marks":          strings.Repeat("\u0301", mib/2),
		"emoji":          strings.Repeat("👍🏽", mib/8),
		"invalid":        strings.Repeat("\xff", mib),
		"apostrophes":    strings.Repeat("'", mib),
		"contractions":   strings.Repeat("'s", mib/2),
	}
	for _, enc := range encodings {
		c := counter(t, enc)
		for name, text := range cases {
			start := time.Now()
			if n := c.Count(text); n <= 0 {
				t.Errorf("%s/%s: Count = %d", enc, name, n)
			}
			if d := time.Since(start); d > slowLimit {
				t.Errorf("%s/%s: took %v", enc, name, d)
			}
		}
	}
}

// runUnits repeated make the texts whose pieces are longest (one letter, a
// rune of three or four bytes, spaces, newlines, punctuation, marks,
// invalid bytes) or most numerous (digits, a letter and a space).
var runUnits = []string{"a", "Q", "中", "😀", " ", "\n", "\r\n", "7", "ab", "a ", "=-", "\u0301", "é", "\xff"}

// withWindow returns a Counter of enc merging long pieces window bytes at
// a time.
func withWindow(t testing.TB, enc Encoding, window int) *Counter {
	c := counter(t, enc)
	c.window = window
	return c
}

// TestLongRunsAcrossWindows counts runs of every length around the ends of
// small windows, where windows are glued, against tiktoken-go, and longer
// runs against the merge of whole pieces.
func TestLongRunsAcrossWindows(t *testing.T) {
	for _, enc := range encodings {
		r, whole := ref(t, enc), withWindow(t, enc, 1<<30)
		for _, w := range []int{64, 200, 1000} {
			c := withWindow(t, enc, w)
			for _, unit := range runUnits {
				var sizes []int
				for _, k := range []int{1, 2, 5, 12} {
					for d := -2; d <= 2; d++ {
						sizes = append(sizes, k*w+d)
					}
				}
				for _, size := range sizes {
					text := strings.Repeat(unit, max(1, size/len(unit)))
					if len(text) <= 1100 {
						if got, want := c.Count(text), r.count(text); got != want {
							t.Errorf("%s, window %d: Count(%q × %d) = %d, tiktoken-go %d", enc, w, unit, len(text)/len(unit), got, want)
						}
					} else if got, want := c.Count(text), whole.Count(text); got != want {
						t.Errorf("%s, window %d: Count(%q × %d) = %d, whole pieces %d", enc, w, unit, len(text)/len(unit), got, want)
					}
				}
			}
		}
	}
}

// Bytes a count of 2 MiB may allocate per byte: the arrays of a window,
// under 512 KB whatever the length of the text, where merging whole pieces
// took 40 to 60 bytes per byte; and for invalid UTF-8 the piece copied with
// each invalid byte made U+FFFD, three bytes.
const (
	allocPerByte        = 1.0 / 4
	allocPerInvalidByte = 3 + allocPerByte
)

// TestCountMemoryIsBounded counts 2 MiB runs of one letter, of a rune of
// three bytes, of spaces, of digits, of a pair of letters and of an
// invalid byte, and checks what the count allocates: a window's arrays,
// not arrays as long as the run.
func TestCountMemoryIsBounded(t *testing.T) {
	const size = 2 * mib
	for _, enc := range encodings {
		c := counter(t, enc)
		for _, unit := range []string{"a", "中", " ", "7", "ab", "\xff"} {
			text := strings.Repeat(unit, size/len(unit))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got := c.Count(text)
			runtime.ReadMemStats(&after)
			perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text))
			limit := allocPerByte
			if !utf8.ValidString(unit) {
				limit = allocPerInvalidByte
			}
			if perByte > limit || got <= 0 {
				t.Errorf("%s: %q × %d: %d tokens, allocated %.3f bytes per byte, limit %.3f", enc, unit, len(text)/len(unit), got, perByte, limit)
			}
		}
	}
}
