package validutf8

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestString compares String with utf8.ValidString on texts of every length
// to 100 bytes and past the vector path's 32-byte blocks, with an invalid
// or multi-byte sequence at each place.
func TestString(t *testing.T) {
	seqs := []string{
		"é", "→", "✓", "😀", // valid, 2 to 4 bytes
		"\xff", "\xc3", "\xe2\x86", "\xf0\x9f\x98", // invalid, truncated
		"\xed\xa0\x80",     // a surrogate
		"\xc0\xaf",         // overlong
		"\xf4\x90\x80\x80", // past U+10FFFF
		"\x80",             // a lone continuation byte
	}
	checked := 0
	for n := range 100 {
		base := strings.Repeat("a", n)
		for _, seq := range seqs {
			for at := 0; at <= n; at += 1 + n/9 {
				s := base[:at] + seq + base[at:]
				if got, want := String(s), utf8.ValidString(s); got != want {
					t.Fatalf("String(%q) = %v, utf8.ValidString %v", s, got, want)
				}
				checked++
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "\n", "é", "→", "😀", "\xff", "\x80", "\xe2"}
	invalid := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(200) {
			// Mostly valid: one piece in 64 may be invalid.
			p := alphabet[r.IntN(5)]
			if r.IntN(64) == 0 {
				p = alphabet[5+r.IntN(3)]
			}
			b.WriteString(p)
		}
		s := b.String()
		want := utf8.ValidString(s)
		if got := String(s); got != want {
			t.Fatalf("String(%q) = %v, utf8.ValidString %v", s, got, want)
		}
		if !want {
			invalid++
		}
		checked++
	}
	if invalid < 1000 || invalid > 19000 {
		t.Fatalf("%d of the random texts were invalid: the test does not cover both", invalid)
	}
	t.Logf("%d texts agree", checked)
}

// BenchmarkString validates a text like a tool result with a few characters
// past ASCII per line, with each validator.
func BenchmarkString(b *testing.B) {
	text := strings.Repeat("func main() {\n\tfmt.Println(\"héllo, wörld → ✓\")\n}\n// a comment line here\n", 2000)
	for _, v := range []struct {
		name  string
		valid func(string) bool
	}{{"stdlib", utf8.ValidString}, {"validutf8", String}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if !v.valid(text) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
