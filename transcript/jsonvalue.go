package transcript

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Values as written: what the readers look up in a value the scanner has
// read whole (a record's payload, a tool's arguments), where reading it
// as it passes would gain nothing. A value here is always one the scanner
// read, so it is well formed.

// unescape appends the contents of a string as written, raw, to dst,
// unescaped as fastjson unescapes it: an unknown escape, a \u without
// four hex digits and a surrogate without a partner are kept as written,
// a pair that is not one is U+FFFD, and nothing is checked as UTF-8.
// No escape is longer unescaped than written, so dst grows once, not by
// doubling: growing an empty buffer by doubling (a Claude Code result read
// again on its own line, before unescapedString) was a tenth of the
// processor time of a chart's replays.
func unescape(dst, raw []byte) []byte {
	n := bytes.IndexByte(raw, '\\')
	if n < 0 {
		return append(dst, raw...)
	}
	dst = append(slices.Grow(dst, len(raw)), raw[:n]...)
	s := raw[n+1:]
	for len(s) > 0 {
		c := s[0]
		s = s[1:]
		switch c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			x, ok := hex4(s)
			if !ok {
				dst = append(dst, `\u`...)
				break
			}
			xs := s[:4]
			s = s[4:]
			if !utf16.IsSurrogate(rune(x)) {
				dst = utf8.AppendRune(dst, rune(x))
				break
			}
			if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
				dst = append(append(dst, `\u`...), xs...)
				break
			}
			x1, ok := hex4(s[2:])
			if !ok {
				dst = append(append(dst, `\u`...), xs...)
				break
			}
			dst = utf8.AppendRune(dst, utf16.DecodeRune(rune(x), rune(x1)))
			s = s[6:]
		default:
			dst = append(dst, '\\', c)
		}
		n = bytes.IndexByte(s, '\\')
		if n < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:n]...)
		s = s[n+1:]
	}
	return dst
}

// stringOf is the text of v unescaped, nil where v is not a string: what
// fastjson's GetStringBytes gives. It is v's own bytes where v has no
// escape.
func stringOf(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	return unescape(nil, raw)
}

// textOf is string(stringOf(v)) in one allocation, where a text kept
// from a line is made: unescaping never lengthens a text, so the buffer
// it is unescaped into is sized once and becomes the string.
func textOf(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	return unescapedString(v[1 : len(v)-1])
}

// unescapedString is the contents of a string as written, raw, unescaped
// into one allocation, unless the escapes took more than an eighth of it:
// a kept text does not hold more than that unused.
func unescapedString(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	b := unescape(make([]byte, 0, len(raw)), raw)
	if cap(b)-len(b) > cap(b)/8 {
		return string(b)
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// kindOf is the kind of v as scanner.kind names it, 0 for no value.
func kindOf(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	var s scanner
	s.reset(v)
	return s.kind()
}

// typeName names the kind k as fastjson does in its messages.
func typeName(k byte) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return "null"
	}
	return "number"
}

// member returns the value of obj's member named key, unescaped keys
// compared, and nil where there is none or obj is not an object: the last
// where last is set, as the readers take repeated keys, else the first,
// as fastjson's Get finds it. *dup, where dup is not nil, is set when
// the key is repeated.
func member(obj []byte, key string, last bool, dup *bool) []byte {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	var found []byte
	var s scanner
	s.reset(obj)
	s.enter('{')
	for k, ok := s.member(); ok; k, ok = s.member() {
		v := s.skip()
		if string(k) != key {
			continue
		}
		if !last {
			return v
		}
		if found != nil && dup != nil {
			*dup = true
		}
		found = v
	}
	return found
}

// path is member for a path of keys, each the last of its object.
func path(v []byte, keys ...string) []byte {
	for _, k := range keys {
		if v = member(v, k, true, nil); v == nil {
			return nil
		}
	}
	return v
}

// elements calls f with each element of arr, where arr is an array.
func elements(arr []byte, f func(v []byte)) {
	if len(arr) == 0 || arr[0] != '[' {
		return
	}
	var s scanner
	s.reset(arr)
	s.enter('[')
	for s.more(']') {
		f(s.skip())
	}
}

// members calls f with each member of obj, where obj is an object; key
// is valid only during the call.
func members(obj []byte, f func(key, v []byte)) {
	if len(obj) == 0 || obj[0] != '{' {
		return
	}
	var s scanner
	s.reset(obj)
	s.enter('{')
	for k, ok := s.member(); ok; k, ok = s.member() {
		f(k, s.skip())
	}
}

// compact appends v without the whitespace between its tokens: as
// fastjson writes back a value it parsed and no one looked into.
func compact(dst, v []byte) []byte {
	for i := 0; i < len(v); {
		switch c := v[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			end := stringEnd(v, i+1) + 1
			dst = append(dst, v[i:end]...)
			i = end
		default:
			j := i + 1
			for j < len(v) && v[j] != '"' && v[j] > ' ' {
				j++
			}
			dst = append(dst, v[i:j]...)
			i = j
		}
	}
	return dst
}

// deduped appends v as fastjson writes back a value whose objects'
// repeated keys were removed: in each object only the last of a key,
// where it stands, and the keys unescaped and written again as
// escapeString writes them; strings, numbers and the rest as written,
// without whitespace between tokens.
func deduped(dst, v []byte) []byte {
	var s scanner
	s.reset(v)
	return s.deduped(dst)
}

func (s *scanner) deduped(dst []byte) []byte {
	switch s.peek() {
	case '{':
		dst = append(dst, '{')
		for i, m := range lastMembers(s.skip()) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(escapeString(dst, m.key), ':')
			dst = deduped(dst, m.value)
		}
		return append(dst, '}')
	case '[':
		dst = append(dst, '[')
		s.enter('[')
		for i := 0; s.more(']'); i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = s.deduped(dst)
		}
		return append(dst, ']')
	}
	return append(dst, s.skip()...)
}

// keyValue is a member of an object: its key unescaped, and its value.
type keyValue struct {
	key   string
	value []byte
}

// lastMembers is the members of the object obj but the first of a
// repeated key, each where it stands: what is left of an object once
// fastjson deletes the first of a repeated key, again and again.
func lastMembers(obj []byte) []keyValue {
	var kvs []keyValue
	members(obj, func(key, v []byte) { kvs = append(kvs, keyValue{string(key), v}) })
	last := make(map[string]int, len(kvs))
	for i, m := range kvs {
		last[m.key] = i
	}
	kept := kvs[:0]
	for i, m := range kvs {
		if last[m.key] == i {
			kept = append(kept, m)
		}
	}
	return kept
}

// jsonValue is the one value s holds, without whitespace around it; nil
// where s is not one value, as fastjson reads JSON.
func jsonValue(s []byte) []byte {
	var sc scanner
	sc.reset(s)
	sc.peek()
	start := sc.pos
	sc.skip()
	end := sc.pos
	if !sc.end() {
		return nil
	}
	return s[start:end]
}

// escapeString appends s quoted as fastjson quotes a string it writes:
// as it is where it holds no quote, backslash or control character, else
// as strconv.Quote quotes it.
func escapeString(dst []byte, s string) []byte {
	special := strings.ContainsAny(s, "\"\\")
	for i := 0; !special && i < len(s); i++ {
		special = s[i] < 0x20
	}
	if !special {
		return append(append(append(dst, '"'), s...), '"')
	}
	return strconv.AppendQuote(dst, s)
}

// bestInt is fastjson's GetInt of v: an integer that fits an int, 0 for
// anything else.
func bestInt(v []byte) int {
	n := intOf(v)
	if int64(int(n)) != n {
		return 0
	}
	return int(n)
}

// uintOf is fastjson's Uint64 of v: decimal digits that fit a uint64.
func uintOf(v []byte) (uint64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	return n, err == nil
}

// object is the object line holds, without whitespace around it; nil
// where line is not one object, as fastjson reads JSON.
func object(line []byte) []byte {
	if v := jsonValue(line); len(v) > 0 && v[0] == '{' {
		return v
	}
	return nil
}

// repeatsKeys tells whether an object in v, v itself or one inside it,
// repeats a key.
func repeatsKeys(v []byte) bool {
	var k keyCheck
	k.reset(v)
	k.value()
	return k.dup
}

// keyCheck is a scanner that notes whether an object repeats a key:
// keys holds the keys of the objects being read, outermost first, and
// big those of an object with more than bigObject keys.
type keyCheck struct {
	scanner
	keys [][]byte
	big  []map[string]bool
	dup  bool
}

// bigObject is how many keys of an object are compared one by one with
// those before; past it they go in a map.
const bigObject = 32

func (k *keyCheck) reset(b []byte) {
	k.scanner.reset(b)
	k.keys, k.big, k.dup = k.keys[:0], k.big[:0], false
}

// key reads the next key of the object whose first key is keys[start],
// and the colon after it, noting a repeated key.
func (k *keyCheck) key(start int) []byte {
	key, esc := k.raw()
	if esc {
		key = unescape(nil, key)
	}
	k.colon()
	if k.bad {
		return nil
	}
	if n := len(k.keys) - start; n < bigObject {
		for _, seen := range k.keys[start:] {
			if string(seen) == string(key) {
				k.dup = true
				break
			}
		}
		k.keys = append(k.keys, key)
		return key
	}
	// A big object: its keys so far into a map, at its bigObject'th.
	if len(k.keys)-start == bigObject {
		m := make(map[string]bool, 2*bigObject)
		for _, seen := range k.keys[start:] {
			m[string(seen)] = true
		}
		k.big = append(k.big, m)
		k.keys = append(k.keys, nil) // a mark: the object is big
	}
	m := k.big[len(k.big)-1]
	if m[string(key)] {
		k.dup = true
	}
	m[string(key)] = true
	return key
}

// value passes over one value, noting a repeated key of any object in it,
// and returns its bytes; nil once the scanner gave up.
func (k *keyCheck) value() []byte {
	switch k.peek() {
	case '{':
		from, start, bigs := k.pos, len(k.keys), len(k.big)
		k.enter('{')
		for k.more('}') {
			k.key(start)
			k.value()
		}
		k.keys, k.big = k.keys[:start], k.big[:bigs]
		if k.bad {
			return nil
		}
		return k.buf[from:k.pos]
	case '[':
		from := k.pos
		k.enter('[')
		for k.more(']') {
			k.value()
		}
		if k.bad {
			return nil
		}
		return k.buf[from:k.pos]
	}
	return k.skip()
}
