package tokens

// nextO200kASCII is nextO200k for the common case, in one loop per piece
// without the rune decoding and the calls of the general path: it returns
// the end of the piece at s[p] where every byte that decides it is ASCII,
// and -1 where one is not (a byte past 0x7f may be a letter, a mark, a
// number or a space that continues the piece), which leaves the piece to
// the general path.
func nextO200kASCII(s string, p int) int {
	b := s[p] // ASCII, as the caller checked
	c0 := asciiClass[b]
	i := p
	if c0&(cLetter|cNumber|cNewline) == 0 && p+1 < len(s) {
		// An optional prefix before a word.
		if b1 := s[p+1]; b1 >= 0x80 {
			return -1
		} else if asciiClass[b1]&cLetter != 0 {
			i = p + 1
		}
	}
	switch {
	case asciiClass[s[i]]&cLetter != 0:
		// Capitals, then small letters: in ASCII a letter is one or the
		// other, so both word alternatives end where this run does.
		for i < len(s) && s[i]-'A' < 26 {
			i++
		}
		for i < len(s) && s[i]-'a' < 26 {
			i++
		}
		if i < len(s) && s[i] >= 0x80 {
			return -1
		}
		return contraction(s, i)
	case c0&cNumber != 0:
		for k := 0; k < 3 && i < len(s); k++ {
			if b := s[i]; b >= 0x80 {
				return -1
			} else if asciiClass[b]&cNumber == 0 {
				break
			}
			i++
		}
		return i
	}
	// " ?[^\s\p{L}\p{N}]+[\r\n/]*"
	if c0&wordish == 0 || b == ' ' && p+1 < len(s) && s[p+1] < 0x80 && asciiClass[s[p+1]]&wordish == 0 {
		i = p + 1
		for i < len(s) {
			if b := s[i]; b >= 0x80 {
				return -1
			} else if asciiClass[b]&wordish != 0 {
				break
			}
			i++
		}
		for i < len(s) && (s[i] == '\r' || s[i] == '\n' || s[i] == '/') {
			i++
		}
		return i
	}
	// A run of spaces, as whitespace does.
	q, lastNL, last := p, -1, p
	for q < len(s) {
		b := s[q]
		if b >= 0x80 {
			return -1
		}
		c := asciiClass[b]
		if c&cSpace == 0 {
			break
		}
		if c&cNewline != 0 {
			lastNL = q
		}
		last = q
		q++
	}
	return spacesEnd(s, p, q, lastNL, last)
}
