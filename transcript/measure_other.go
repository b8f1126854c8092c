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

// stringMasks is measure_amd64.s's stringMasks in Go, so that walkString
// is tested everywhere.
func stringMasks(p *byte, blocks int, out *uint64) {
	b := unsafe.Slice(p, blocks*64)
	m := unsafe.Slice(out, blocks*3)
	for k := range blocks {
		var q, bs, h uint64
		for j, c := range b[k*64 : k*64+64] {
			bit := uint64(1) << j
			switch {
			case c == '"':
				q |= bit
			case c == '\\':
				bs |= bit
			case c >= utf8.RuneSelf:
				h |= bit
			}
		}
		m[3*k], m[3*k+1], m[3*k+2] = q, bs, h
	}
}
