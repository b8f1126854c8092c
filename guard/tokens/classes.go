package tokens

import (
	_ "embed"
	"fmt"
	"strings"
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

// The classes of every rune, built ahead of time (TestEmbeddedTables): the
// first classBlocks bytes name the block of each 1<<blockBits runes, the
// rest are the blocks, identical blocks stored once.
//
//go:embed tables/classes.bin
var classTable string

const classBlocks = (unicode.MaxRune + 1) >> blockBits

var (
	classIndex, blocks, classErr = openClasses(classTable)
	asciiClass                   = [utf8.RuneSelf]uint8([]byte(blocks[int(classIndex[0])<<blockBits:][:utf8.RuneSelf]))
)

// openClasses splits the class table, checking that every block it names
// is there. A damaged table gives an error, which Get returns, and a table
// of no classes, so that nothing reads out of bounds.
func openClasses(data string) (index, blocks string, err error) {
	if len(data) > classBlocks {
		index, blocks = data[:classBlocks], data[classBlocks:]
		if len(blocks)%(1<<blockBits) == 0 && maxByte(index) < len(blocks)>>blockBits {
			return index, blocks, nil
		}
	}
	return strings.Repeat("\x00", classBlocks), strings.Repeat("\x00", 1<<blockBits), fmt.Errorf("rune class table of %d bytes is damaged", len(data))
}

func maxByte(s string) int {
	m := 0
	for i := 0; i < len(s); i++ {
		m = max(m, int(s[i]))
	}
	return m
}

// classAt returns the class and byte width of the rune starting at s[i].
// A byte of invalid UTF-8 is a rune of U+FFFD's class, one byte wide.
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return blocks[int(classIndex[r>>blockBits])<<blockBits|int(r)&(1<<blockBits-1)], w
}
