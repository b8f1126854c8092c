package tokens

import (
	"testing"
	"unicode"
)

// TestClassesMatchUnicode checks every rune's class against the unicode
// package, which is what regexp2 asks.
func TestClassesMatchUnicode(t *testing.T) {
	in := func(r rune, tabs ...*unicode.RangeTable) bool { return unicode.IsOneOf(tabs, r) }
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not in valid UTF-8
		}
		var want uint8
		if unicode.IsLetter(r) {
			want |= cLetter
		}
		if unicode.IsNumber(r) {
			want |= cNumber
		}
		if unicode.IsSpace(r) {
			want |= cSpace
		}
		if r == '\r' || r == '\n' {
			want |= cNewline
		}
		if in(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
			want |= cUpper
		}
		if in(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
			want |= cLower
		}
		if got, _ := classAt(string(r), 0); got != want {
			t.Fatalf("class of %U = %06b, want %06b", r, got, want)
		}
	}
}

// TestOnlyASCIIFoldsToContractionLetters backs contraction's byte test:
// regexp2 matches (?i:...) by lower-casing each rune with unicode.ToLower.
func TestOnlyASCIIFoldsToContractionLetters(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		switch unicode.ToLower(r) {
		case 's', 't', 'r', 'e', 'v', 'm', 'l', 'd':
			t.Errorf("%U lower-cases to %q", r, unicode.ToLower(r))
		}
	}
}
