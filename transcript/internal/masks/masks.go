// Package masks classifies the bytes of JSON text 64 at a time, a bit a
// byte, for the readers' string measuring and skipping: the one place
// that has processor-specific code. Strings and Quotes are assembly
// where Vector says so (amd64 with AVX2) and Go elsewhere, or with the
// purego build tag; the two give the same words for any input, which
// TestStrings and TestQuotes hold them to, and CI runs the tests both
// ways.
//
// The contract: p points at blocks×64 readable bytes and out at room for
// the words. For block k (bytes p[64k:64k+64]), bit j of each word
// stands for byte 64k+j. Strings writes Words words a block:
//
//	0  a quote (")
//	1  a backslash
//	2  a byte above 0x7F
//	3  a byte a backslash does not escape in two (not one of "\/bfnrt)
//	4  a UTF-8 continuation byte (0x80 to 0xBF)
//	5  a lead of two bytes (0xC2 to 0xDF)
//	6  a lead of three bytes but 0xE0 and 0xED (0xE1 to 0xEF)
//
// Quotes writes the first two of those, two words a block.
package masks

// Words is how many words Strings writes for a block.
const Words = 7
