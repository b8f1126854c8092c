package replay

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// The distinctive strings of a text: what an agent could not guess, so
// that finding one of a result's hidden strings in the agent's own later
// output is evidence it used the hidden part. The thresholds were tuned
// on real logs (docs/policies.md, "Hazards"): shorter ones flag common identifiers,
// boilerplate and prose.
const (
	minTokenLen  = 12  // identifiers, paths, URLs and quoted strings
	maxQuotedLen = 200 // longer quotations are left to runs
	minDigits    = 6   // numbers
	minHexLen    = 12  // hex strings, with a digit and a letter
	runLen       = 40  // shared runs, after whitespace is normalised
	minRunLetter = 20  // letters a run must hold, so separators and dumps are not runs
)

// tokenScanner finds the distinctive strings of texts, one after another,
// reusing its buffers.
type tokenScanner struct {
	buf []byte // a run's window
	// only, when set, passes over every word or quoted string whose
	// first bytes no string of the set starts with, and runsOnly every
	// run whose hash it lacks: results are scanned for the agent's output
	// strings alone, and most of their strings are not.
	only, runsOnly *prefixSet
	// known is wellKnown, looked up once per text rather than per word.
	known map[string]bool
}

// distinctive calls emit for every distinctive string of text, with its
// byte range in text. The key is the string as compared: a run's key is
// its normalised form. Without a prefix set emit may keep keys; with one,
// a run's key is valid only during the call.
func (ts *tokenScanner) distinctive(text string, emit func(key string, from, to int)) {
	pass := emit
	if ts.only != nil {
		pass = func(key string, from, to int) {
			if ts.only.has(key) {
				emit(key, from, to)
			}
		}
	}
	ts.findWords(text, emit)
	quoted(text, ts.knownNames(), pass)
	ts.runs(text, emit)
}

// knownNames is wellKnown, kept by the scanner: its words are looked up
// in it one by one.
func (ts *tokenScanner) knownNames() map[string]bool {
	if ts.known == nil {
		ts.known = wellKnown()
	}
	return ts.known
}

// may tells whether key may be one of the strings looked for.
func (ts *tokenScanner) may(key string) bool { return ts.only == nil || ts.only.has(key) }

// prefixSet holds the first minPrefix bytes of a set of strings, hashed
// into a bitmap: has may say yes for a string none starts like, never no
// for one that does.
type prefixSet struct {
	bits  []uint64
	shift uint // 64 less the bitmap's bits, log 2
	empty bool // of no strings: has says no to all
}

const (
	minPrefix = minDigits // every key is at least this long
	// A set has bitsPerString bits for each string, between 2^12 and
	// 2^22 in all: about one word in 256 passes for one looked for. Every word
	// of every result is looked up, at random, and a set of the few
	// hundred strings of a typical session fits in the processor's
	// first cache where one of 2^22 bits (512 KB) did not: on the 2 GB
	// fleet the lookups took 0.6 s of processor time instead of 3.5.
	bitsPerString          = 256
	minSetBits, maxSetBits = 12, 22
)

// prefixSets are let go by the indexes done with them and taken again by
// the next: a list preparing thousands of sessions made two of 512 KB for
// each, 2.6 GB of garbage on a fleet of 2,000, for the collector to be
// run for with the sessions' whole heap to trace.
var prefixSets = sync.Pool{New: func() any { return new(prefixSet) }}

// newPrefixSet returns the set of the hashes given, sized to them.
func newPrefixSet(hashes []uint64) *prefixSet {
	logBits := minSetBits
	for logBits < maxSetBits && 1<<logBits < len(hashes)*bitsPerString {
		logBits++
	}
	ps := prefixSets.Get().(*prefixSet)
	words := 1 << logBits / 64
	if cap(ps.bits) < words {
		ps.bits = make([]uint64, words)
	}
	ps.bits, ps.shift, ps.empty = ps.bits[:words], uint(64-logBits), len(hashes) == 0
	for _, h := range hashes {
		h = h * 0x9E3779B97F4A7C15 >> ps.shift
		ps.bits[h/64] |= 1 << (h % 64)
	}
	return ps
}

// release lets the scanner's sets go; no copy of it may look at them
// after.
func (ts *tokenScanner) release() {
	for _, ps := range []*prefixSet{ts.only, ts.runsOnly} {
		if ps != nil {
			clear(ps.bits) // the rest of its capacity was never set
			prefixSets.Put(ps)
		}
	}
	ts.only, ts.runsOnly = nil, nil
}

func prefixHash(s string) uint64 {
	_ = s[minPrefix-1]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 | uint64(s[4])<<32 | uint64(s[5])<<40
}

func (ps *prefixSet) hasHash(h uint64) bool {
	h = h * 0x9E3779B97F4A7C15 >> ps.shift
	return ps.bits[h/64]&(1<<(h%64)) != 0
}

func (ps *prefixSet) has(s string) bool {
	if len(s) < minPrefix {
		return false
	}
	return ps.hasHash(prefixHash(s))
}

// Byte classes, looked up rather than compared: results are scanned a
// byte at a time.
var wordBytes, pathBytes, urlBytes, trimmedAfter, trimmedBefore [256]bool

func init() {
	for c := range 256 {
		b := byte(c)
		wordBytes[c] = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
		// what a path, a dotted name or a package name is made of
		pathBytes[c] = wordBytes[c] || strings.IndexByte(".-/~+@", b) >= 0
		urlBytes[c] = b > ' ' && b < 0x7f && strings.IndexByte("\"'`<>()[]{}\\|^", b) < 0
		trimmedAfter[c] = strings.IndexByte(".,;:-/!?", b) >= 0
		trimmedBefore[c] = b == '.' || b == '-'
	}
}

func isWordByte(c byte) bool { return wordBytes[c] }

func isPathByte(c byte) bool { return pathBytes[c] }

// isURLByte: what a URL or DSN holds after its scheme, up to a space, a
// quote or a bracket.
func isURLByte(c byte) bool { return urlBytes[c] }

// findWords finds URLs and DSNs, paths, identifiers, numbers and hex.
func (ts *tokenScanner) findWords(text string, emit func(string, int, int)) {
	ts.knownNames() // for word
	n := len(text)
	for i := 0; i < n; {
		if !isPathByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < n && isPathByte(text[j]) {
			j++
		}
		// A scheme followed by :// makes the whole word, up to a space or
		// a quote, a URL or DSN.
		if j+2 < n && text[j] == ':' && text[j+1] == '/' && text[j+2] == '/' && isScheme(text[i:j]) {
			k := j + 3
			for k < n && isURLByte(text[k]) {
				k++
			}
			from, to := trimWord(text, i, k)
			if to-from >= minTokenLen && ts.may(text[from:to]) {
				emit(text[from:to], from, to)
			}
			i = k
			continue
		}
		if j-i >= minDigits {
			ts.word(text, i, j, emit)
		}
		i = j
	}
}

func isScheme(s string) bool {
	if s == "" || len(s) > 16 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWordByte(c) && c != '+' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// trimWord drops what ends a sentence or a clause, and a leading "./".
func trimWord(text string, from, to int) (int, int) {
	for to > from && trimmedAfter[text[to-1]] {
		to--
	}
	for to-from > 2 && text[from] == '.' && text[from+1] == '/' {
		from += 2
	}
	for to > from && trimmedBefore[text[from]] {
		from++
	}
	return from, to
}

// word classifies the path-like word text[i:j].
func (ts *tokenScanner) word(text string, i, j int, emit func(string, int, int)) {
	from, to := trimWord(text, i, j)
	w := text[from:to]
	if strings.IndexByte(w, '/') >= 0 {
		// A path has two parts at least: "/linearGradient" is a closing tag.
		if len(w) >= minTokenLen && ts.may(w) && hasLetter(w) && pathParts(w) >= 2 {
			emit(w, from, to)
		}
		return
	}
	// Split at the punctuation of dotted and dashed names: each part is an
	// identifier, a number or a hex string of its own.
	for k := from; k < to; {
		if !isWordByte(text[k]) {
			k++
			continue
		}
		m := k
		for m < to && isWordByte(text[m]) {
			m++
		}
		if part := text[k:m]; m-k >= minDigits && ts.may(part) && distinctivePart(part) && !ts.known[part] {
			emit(part, k, m)
		}
		k = m
	}
}

// distinctivePart tells whether a run of word bytes is an identifier, a
// number or a hex string nobody would guess.
func distinctivePart(s string) bool {
	var digits, hexLetters, lower, upper, under int
	camel := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z':
			lower++
			if c <= 'f' {
				hexLetters++
			}
		case c >= 'A' && c <= 'Z':
			upper++
			if c <= 'F' {
				hexLetters++
			}
			if i > 0 && s[i-1] >= 'a' && s[i-1] <= 'z' {
				camel = true
			}
		case c == '_':
			under++
		}
	}
	switch {
	case digits == len(s):
		return len(s) >= minDigits && !strings.HasSuffix(s, "0000") && strings.Count(s, s[:1]) != len(s)
	case digits+hexLetters == len(s):
		if len(s) >= minHexLen && digits > 0 {
			return true
		}
	}
	if len(s) < minTokenLen || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	// A long word of letters alone is prose ("implementation"); an
	// identifier has an underscore, a capital inside, or a digit.
	return under > 0 && lower+upper > under+1 || camel || digits > 0 && lower+upper > 0
}

// pathParts counts the parts of a path that hold a letter or a digit.
func pathParts(w string) int {
	n := 0
	for part := range strings.SplitSeq(w, "/") {
		for i := 0; i < len(part); i++ {
			if isWordByte(part[i]) && part[i] != '_' {
				n++
				break
			}
		}
	}
	return n
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// quoted finds strings between matching quotes on one line.
func quoted(text string, known map[string]bool, emit func(string, int, int)) {
	n := len(text)
	for i := 0; i < n; i++ {
		q := text[i]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		if q == '\'' && i > 0 && isWordByte(text[i-1]) {
			continue // an apostrophe
		}
		j := i + 1
		for j < n && text[j] != q && text[j] != '\n' {
			if text[j] == '\\' {
				j++
			}
			j++
		}
		if j >= n || text[j] != q {
			continue
		}
		if q == '\'' && j+1 < n && isWordByte(text[j+1]) {
			continue
		}
		content := text[i+1 : j]
		if len(content) >= minTokenLen && len(content) <= maxQuotedLen && hasLetter(content) && strings.TrimSpace(content) == content && !known[content] {
			emit(content, i+1, j)
		}
		i = j
	}
}

// skipLineNumber returns where line i's text starts after a file viewer's
// line number ("  12→", "  12\t"), i when it has none.
func skipLineNumber(text string, i int) int {
	k := i
	for k < len(text) && text[k] == ' ' {
		k++
	}
	d := k
	for d < len(text) && text[d] >= '0' && text[d] <= '9' {
		d++
	}
	if d == k {
		return i
	}
	switch {
	case strings.HasPrefix(text[d:], "→"):
		return d + len("→")
	case d < len(text) && text[d] == '\t':
		return d + 1
	}
	return i
}

// runs emits every run of runLen normalised bytes that starts a word: a
// word byte after a byte that is not one, in the text with every run of
// whitespace made one space and the line numbers a file viewer prefixes
// ("  12→", "  12\t") dropped. The text is normalised as it is read, and
// a rolling hash of the last runLen bytes tells, with a scanner's set,
// whether a window may be one looked for before it is built.
func (ts *tokenScanner) runs(text string, emit func(string, int, int)) {
	if len(text) < runLen || ts.runsOnly != nil && ts.runsOnly.empty {
		return
	}
	known := ts.knownNames()
	var ring [64]byte  // the last normalised bytes, by index & 63
	var from [64]int32 // where each word's first byte came from in text, by index & 63
	// starts has bit k set when the normalised byte k back starts a word:
	// a shift and a test per byte where looking back in the ring took two
	// dependent loads (a sixth of the scan's time).
	var starts uint64
	const windowStart = 1 << (runLen - 1)
	n := 0 // normalised bytes so far
	var h uint64
	space, word := true, false // no space at the start
	i := skipLineNumber(text, 0)
	for i < len(text) {
		c := text[i]
		i++
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			if c == '\n' {
				if i = skipLineNumber(text, i); i >= len(text) {
					return
				}
			}
			if space {
				continue
			}
			// A window ending on this space is no run: the byte is only
			// taken in.
			space, word = true, false
			starts <<= 1
			ring[n&63] = ' '
			h = h*runBase + ' '
			if n >= runLen {
				h -= uint64(ring[(n-runLen)&63]) * runPow
			}
			n++
			continue
		}
		space = false
		starts <<= 1
		if wordBytes[c] {
			if !word {
				starts |= 1
				from[n&63] = int32(i - 1)
			}
			word = true
		} else {
			word = false
		}
		ring[n&63] = c
		h = h*runBase + uint64(c)
		if n >= runLen {
			h -= uint64(ring[(n-runLen)&63]) * runPow
		}
		n++
		if n < runLen || starts&windowStart == 0 || ts.runsOnly != nil && !ts.runsOnly.hasHash(h) {
			continue
		}
		start := n - runLen
		buf := ts.buf[:0]
		letters := 0
		for k := start; k < n; k++ {
			b := ring[k&63]
			buf = append(buf, b)
			if b |= 0x20; b >= 'a' && b <= 'z' {
				letters++
			}
		}
		ts.buf = buf
		if letters < minRunLetter || !wholeRunes(buf) {
			continue
		}
		// The window's last byte is text[i-1].
		if boilerplate(buf, i < len(text) && word && wordBytes[text[i]], known) {
			continue
		}
		window := unsafe.String(&buf[0], runLen)
		if ts.runsOnly == nil {
			window = string(buf) // kept by the caller
		}
		emit(window, int(from[start&63]), i)
	}
}

// boilerplate tells whether a run says nothing an agent could not write
// without having read it: every word of it, of minCodeWord bytes or more,
// is well known. A number is no such word; the last word, when cut, is
// not weighed.
func boilerplate(run []byte, cut bool, known map[string]bool) bool {
	words := 0
	for i := 0; i < len(run); {
		if !wordBytes[run[i]] {
			i++
			continue
		}
		j := i
		for j < len(run) && wordBytes[run[j]] {
			j++
		}
		if j-i >= minCodeWord && !(j == len(run) && cut) {
			if !known[string(run[i:j])] {
				return false
			}
			words++
		}
		i = j
	}
	return words > 0
}

// minCodeWord is the length of the shortest word boilerplate weighs.
const minCodeWord = 3

// The rolling hash of runs: h = sum of byte i times runBase^(runLen-1-i).
const runBase = 1099511628211

var runPow = func() uint64 {
	p := uint64(1)
	for range runLen {
		p *= runBase
	}
	return p
}()

func runHash(s string) uint64 {
	var h uint64
	for i := 0; i < len(s); i++ {
		h = h*runBase + uint64(s[i])
	}
	return h
}

// wholeRunes tells whether b ends at the end of a character.
func wholeRunes(b []byte) bool {
	for j := len(b) - 1; j >= 0 && j >= len(b)-utf8.UTFMax; j-- {
		if utf8.RuneStart(b[j]) {
			return utf8.FullRune(b[j:])
		}
	}
	return true
}

// inputStrings calls f with every string of a tool call's JSON input.
func inputStrings(input json.RawMessage, f func(string)) {
	if len(input) == 0 {
		return
	}
	var v any
	if json.Unmarshal(input, &v) != nil {
		f(string(input))
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			f(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(v)
}
