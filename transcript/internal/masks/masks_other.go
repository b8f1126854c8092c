//go:build purego || !amd64

package masks

import (
	"unicode/utf8"
	"unsafe"
)

// Vector is false where Strings has no assembly: the readers then read
// every string a word at a time, which is faster than walking masks
// built a byte at a time.
const Vector = false

// plainEscape are the bytes a backslash escapes in two.
var plainEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// Strings is masks_amd64.s's Strings in Go, for its tests; the readers
// do not call it here.
func Strings(p *byte, blocks int, out *uint64) {
	b := unsafe.Slice(p, blocks*64)
	m := unsafe.Slice(out, blocks*Words)
	for k := range blocks {
		w := m[k*Words : (k+1)*Words]
		clear(w)
		for j, c := range b[k*64 : k*64+64] {
			bit := uint64(1) << j
			set := func(i int, on bool) {
				if on {
					w[i] |= bit
				}
			}
			set(0, c == '"')
			set(1, c == '\\')
			set(2, c >= utf8.RuneSelf)
			set(3, !plainEscape[c])
			set(4, c >= 0x80 && c <= 0xBF)
			set(5, c >= 0xC2 && c <= 0xDF)
			set(6, c >= 0xE1 && c <= 0xEF && c != 0xED)
		}
	}
}

// Quotes is masks_amd64.s's Quotes in Go, for its tests.
func Quotes(p *byte, blocks int, out *uint64) {
	var w [Words]uint64
	m := unsafe.Slice(out, blocks*2)
	for k := range blocks {
		Strings((*byte)(unsafe.Add(unsafe.Pointer(p), 64*k)), 1, &w[0])
		m[2*k], m[2*k+1] = w[0], w[1]
	}
}
