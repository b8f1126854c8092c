// Package validutf8 tells whether a text is valid UTF-8, as utf8.ValidString
// does, with the vector instructions of the processor where it has them.
//
// Every tool result is checked where it is read, and again where it is
// measured, counted and quoted: on the generated 2 GB fleet,
// utf8.ValidString was 5% of the session list's processor time before its
// chart. On text with a few characters past ASCII per line it validates
// 2.5-4 GB/s on a two-core test machine, segmentio/asm's AVX2 path
// 23-25 GB/s (BenchmarkString); on ASCII alone both pass 40 GB/s.
package validutf8

import (
	"unicode/utf8"
	"unsafe"

	asmutf8 "github.com/segmentio/asm/utf8"
)

// String reports whether s is valid UTF-8, as utf8.ValidString(s).
func String(s string) bool {
	if len(s) < 32 {
		return utf8.ValidString(s) // the vector path starts at 32 bytes
	}
	// The bytes are only read.
	return asmutf8.Valid(unsafe.Slice(unsafe.StringData(s), len(s)))
}
