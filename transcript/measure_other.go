//go:build purego || !amd64

package transcript

import (
	"unicode/utf8"
	"unsafe"
)

// vectorStrings is false where stringMasks has no assembly: measureString
// then reads every string a word at a time, which is faster than
// walkString on masks built a byte at a time.
const vectorStrings = false

// stringMasks is measure_amd64.s's stringMasks in Go, for its tests; the
// readers do not call it here.
func stringMasks(p *byte, blocks int, out *uint64) {
	b := unsafe.Slice(p, blocks*64)
	m := unsafe.Slice(out, blocks*maskWords)
	for k := range blocks {
		w := m[k*maskWords : (k+1)*maskWords]
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

// quoteMasks is measure_amd64.s's quoteMasks in Go, for its tests.
func quoteMasks(p *byte, blocks int, out *uint64) {
	var w [maskWords]uint64
	m := unsafe.Slice(out, blocks*2)
	for k := range blocks {
		stringMasks((*byte)(unsafe.Add(unsafe.Pointer(p), 64*k)), 1, &w[0])
		m[2*k], m[2*k+1] = w[0], w[1]
	}
}
