package tokens

// The split patterns are matched by hand: each next* function returns the
// end of the piece that starts at s[p], which is what the leftmost match of
// the pattern at p would be under backtracking (first alternative that
// matches, greedy quantifiers giving back one rune at a time). Every
// function consumes at least one rune and, over a whole text, looks at each
// rune a bounded number of times.
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+

// Every rune is in exactly one of letters, numbers, spaces and the rest
// (punctuation, symbols, marks, controls), so some alternative always
// matches and pieces tile the text.
const wordish = cLetter | cNumber | cSpace

func nextO200k(s string, p int) int {
	if s[p] < 0x80 {
		if e := nextO200kASCII(s, p); e >= 0 {
			return e
		}
	}
	c0, w0 := classAt(s, p)
	if c0&(cLetter|cNumber|cNewline) == 0 {
		// An optional prefix rune before a word.
		q := p + w0
		if e := wordLower(s, q); e >= 0 {
			return contraction(s, e)
		}
		if c0&cLower != 0 {
			// A mark, which is upper and lower: without the prefix it
			// begins a word of the first alternative by itself.
			return contraction(s, wordLower(s, p))
		}
		if e := wordUpper(s, q); e >= 0 {
			return contraction(s, e)
		}
	} else if c0&cLetter != 0 {
		e := wordLower(s, p)
		if e < 0 {
			e = wordUpper(s, p) // c0 is upper then, so this matches
		}
		return contraction(s, e)
	}
	if c0&cNumber != 0 {
		return digits(s, p)
	}
	if e := punctuation(s, p, c0); e >= 0 {
		for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
			e++
		}
		return e
	}
	return whitespace(s, p)
}

func nextCl100k(s string, p int) int {
	if s[p] == '\'' {
		if e := contraction(s, p); e > p {
			return e
		}
	}
	c0, w0 := classAt(s, p)
	if c0&cLetter != 0 {
		return run(s, p, cLetter)
	}
	if c0&(cNumber|cNewline) == 0 {
		if q := p + w0; q < len(s) {
			if c1, _ := classAt(s, q); c1&cLetter != 0 {
				return run(s, q, cLetter)
			}
		}
	}
	if c0&cNumber != 0 {
		return digits(s, p)
	}
	if e := punctuation(s, p, c0); e >= 0 {
		for e < len(s) && (s[e] == '\r' || s[e] == '\n') {
			e++
		}
		return e
	}
	return whitespace(s, p)
}

// wordLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// at i and returns its end, or -1. When the greedy upper run is not followed
// by a lower rune, backtracking ends the match after the run's last rune that
// is also lower.
func wordLower(s string, i int) int {
	last := -1
	for i < len(s) {
		c, w := classAt(s, i)
		if c&cUpper == 0 {
			if c&cLower != 0 {
				return run(s, i, cLower)
			}
			break
		}
		i += w
		if c&cLower != 0 {
			last = i
		}
	}
	return last
}

// wordUpper matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// at i and returns its end, or -1.
func wordUpper(s string, i int) int {
	j := run(s, i, cUpper)
	if j == i {
		return -1
	}
	return run(s, j, cLower)
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i and returns the end
// of the match, or i. Only ASCII letters lower-case to these letters.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	}
	return i
}

// punctuation matches " ?[^\s\p{L}\p{N}]+" at p, whose rune has class c0,
// and returns its end, or -1.
func punctuation(s string, p int, c0 uint8) int {
	if s[p] == ' ' && p+1 < len(s) {
		if c1, _ := classAt(s, p+1); c1&wordish == 0 {
			return runNot(s, p+1, wordish)
		}
	}
	if c0&wordish == 0 {
		return runNot(s, p, wordish)
	}
	return -1
}

// whitespace matches \s*[\r\n]+|\s+(?!\S)|\s+ at p, which starts a run of
// spaces: up to the run's last newline if it has one; else the whole run if
// it ends the text or is a single rune; else all but its last rune, which
// is left to prefix the next piece.
func whitespace(s string, p int) int {
	q, lastNL, last := p, -1, p
	for q < len(s) {
		c, w := classAt(s, q)
		if c&cSpace == 0 {
			break
		}
		if c&cNewline != 0 {
			lastNL = q
		}
		last = q
		q += w
	}
	return spacesEnd(s, p, q, lastNL, last)
}

// spacesEnd is where the piece of the run of spaces s[p:q] ends, lastNL
// being the start of its last newline (-1 for none) and last of its last
// rune.
func spacesEnd(s string, p, q, lastNL, last int) int {
	switch {
	case lastNL >= 0:
		return lastNL + 1
	case q == len(s) || last == p:
		return q
	}
	return last
}

// digits matches \p{N}{1,3} at p.
func digits(s string, p int) int {
	for k := 0; k < 3 && p < len(s); k++ {
		c, w := classAt(s, p)
		if c&cNumber == 0 {
			break
		}
		p += w
	}
	return p
}

// run returns the end of the run of runes with any of the class bits from i.
func run(s string, i int, bits uint8) int {
	for i < len(s) {
		if b := s[i]; b < 0x80 {
			if asciiClass[b]&bits == 0 {
				return i
			}
			i++
			continue
		}
		c, w := classAt(s, i)
		if c&bits == 0 {
			return i
		}
		i += w
	}
	return i
}

// runNot returns the end of the run of runes with none of the class bits.
func runNot(s string, i int, bits uint8) int {
	for i < len(s) {
		c, w := classAt(s, i)
		if c&bits != 0 {
			return i
		}
		i += w
	}
	return i
}
