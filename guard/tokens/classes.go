package tokens

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Rune classes used by the split patterns. tiktoken-go matches its patterns
// with regexp2, which answers \p{..} from Go's unicode tables and \s with
// unicode.IsSpace, so the classes are built from the same tables.
const (
	cLetter  uint8 = 1 << iota // \p{L}
	cNumber                    // \p{N}
	cSpace                     // \s
	cNewline                   // [\r\n]
	cUpper                     // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower                     // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

const blockBits = 7

var (
	asciiClass [utf8.RuneSelf]uint8

	// classOf(r) = classBlocks[classIndex[r>>blockBits]<<blockBits | r&mask],
	// identical blocks stored once.
	classIndex  []uint16
	classBlocks []uint8
	classOnce   sync.Once
)

func buildClasses() {
	flat := make([]uint8, unicode.MaxRune+1)
	mark := func(t *unicode.RangeTable, bits uint8) {
		for _, r := range t.R16 {
			for c := int(r.Lo); c <= int(r.Hi); c += int(r.Stride) {
				flat[c] |= bits
			}
		}
		for _, r := range t.R32 {
			for c := int(r.Lo); c <= int(r.Hi); c += int(r.Stride) {
				flat[c] |= bits
			}
		}
	}
	mark(unicode.L, cLetter)
	mark(unicode.N, cNumber)
	mark(unicode.White_Space, cSpace) // unicode.IsSpace, for every rune
	for _, t := range []*unicode.RangeTable{unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M} {
		mark(t, cUpper)
	}
	for _, t := range []*unicode.RangeTable{unicode.Ll, unicode.Lm, unicode.Lo, unicode.M} {
		mark(t, cLower)
	}
	flat['\r'] |= cNewline
	flat['\n'] |= cNewline

	const size = 1 << blockBits
	seen := map[[size]uint8]uint16{}
	index := make([]uint16, len(flat)>>blockBits)
	var blocks []uint8
	for i := range index {
		var blk [size]uint8
		copy(blk[:], flat[i<<blockBits:])
		id, ok := seen[blk]
		if !ok {
			id = uint16(len(blocks) >> blockBits)
			seen[blk] = id
			blocks = append(blocks, blk[:]...)
		}
		index[i] = id
	}
	copy(asciiClass[:], flat)
	classIndex, classBlocks = index, blocks
}

// classAt returns the class and byte width of the rune starting at s[i].
// s must be valid UTF-8 and the classes built.
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return classBlocks[int(classIndex[r>>blockBits])<<blockBits|int(r)&(1<<blockBits-1)], w
}
