package tokens

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unsafe"
)

// The vocabularies are built ahead of time from tiktoken-go-loader's rank
// files into the layout Counter reads, so counting starts without decoding
// or hashing a rank file: a table is a header, read once, and arrays read in
// place from the embedded bytes. TestEmbeddedTables builds them again and
// compares; -update (below) rewrites them.
//
//go:generate go test -run ^TestEmbeddedTables$ -update

var (
	//go:embed tables/o200k_base.bin
	o200kTable string
	//go:embed tables/cl100k_base.bin
	cl100kTable string
)

// tables is what a Counter needs of its encoding; it is never modified.
type tables struct {
	next func(s string, p int) int
	vocab
}

func loadTables(enc Encoding) (*tables, error) {
	if classErr != nil {
		return nil, classErr
	}
	t := &tables{next: nextO200k}
	data := o200kTable
	if enc == Cl100kBase {
		t.next, data = nextCl100k, cl100kTable
	}
	if err := t.vocab.open(data); err != nil {
		return nil, fmt.Errorf("load %s tables: %w", enc, err)
	}
	return t, nil
}

const (
	rankBits = 18 // ranks of both encodings are below 1<<rankBits
	noRank   = 1<<32 - 1
	maxToken = 255 // longest token the tables can hold
)

// A vocabulary file is a header of vocabFields little-endian uint32s, then
// byteRank (256 uint32), pairByte (1<<16 uint32), the token slots and the
// pair slots (uint64 each) and the tokens' bytes.
const (
	vocabMagic   = 0x6b6f7473 // "stok"
	vocabVersion = 1
	// magic, version, maxLen, token homes, token slots, pair homes, pair
	// slots, arena bytes
	vocabFields = 8
)

// vocab answers the two questions byte-pair merging asks: is a piece a
// token, and which token, if any, are two adjacent tokens together. Tokens
// are named by their rank.
type vocab struct {
	byteRank [256]uint32
	// pairByte[a<<8|b] is the rank of the two bytes a b, or noRank.
	pairByte []uint32

	// An open-addressing set of the tokens, whose bytes are in arena. A
	// token is in its home slot, fold(tokenHash(token), tokenHomes), or
	// the next free one after it; the slots run on past the homes so that
	// a search never wraps around, and end with an empty one. A slot is 0
	// when empty, else 1<<63 | tag<<50 | rank<<32 | len<<24 | offset, the
	// tag being the hash's low tagBits.
	tokens     []uint64
	tokenHomes uint64
	arena      string
	maxLen     int

	// pairs maps two ranks a, b whose concatenation is a token to its rank,
	// laid out as tokens is from home slot
	// fold(pairHash(a<<rankBits|b), pairHomes). A slot is 0 when empty,
	// else 1<<63 | a<<(2*rankBits) | b<<rankBits | rank.
	pairs     []uint64
	pairHomes uint64
}

const (
	tagBits   = 13
	slotUsed  = 1 << 63
	tokenKey  = slotUsed | (1<<tagBits-1)<<50 | 0xff<<24 // the bits a lookup compares
	rankMask  = 1<<rankBits - 1
	pairShift = 2 * rankBits
)

// open points v at the tables in data.
func (v *vocab) open(data string) error {
	const head = 4 * vocabFields
	if len(data) < head {
		return errors.New("truncated header")
	}
	field := func(i int) uint64 { return le32(data[4*i:]) }
	if field(0) != vocabMagic || field(1) != vocabVersion {
		return fmt.Errorf("not a version %d vocabulary", vocabVersion)
	}
	maxLen, tokenHomes, tokenSlots, pairHomes, pairSlots, arena := field(2), field(3), field(4), field(5), field(6), field(7)
	sizes := []uint64{4 * 256, 4 << 16, 8 * tokenSlots, 8 * pairSlots, arena}
	want := uint64(head)
	for _, n := range sizes {
		want += n
	}
	if uint64(len(data)) != want {
		return fmt.Errorf("%d bytes, header says %d", len(data), want)
	}
	if maxLen > maxToken || tokenHomes == 0 || tokenHomes > tokenSlots || pairHomes == 0 || pairHomes > pairSlots {
		return errors.New("header out of range")
	}
	var sections [5]string
	off := uint64(head)
	for i, n := range sizes {
		sections[i] = data[off : off+n]
		off += n
	}
	copy(v.byteRank[:], words[uint32](sections[0]))
	v.pairByte, v.tokens, v.pairs = words[uint32](sections[1]), words[uint64](sections[2]), words[uint64](sections[3])
	if v.tokens[tokenSlots-1] != 0 || v.pairs[pairSlots-1] != 0 {
		return errors.New("slots do not end empty")
	}
	v.tokenHomes, v.pairHomes, v.arena, v.maxLen = tokenHomes, pairHomes, sections[4], int(maxLen)
	return nil
}

// words returns s, little-endian words, as a slice: in place when the
// processor is little-endian and s aligned, as the embedded tables are
// where the linker puts them, so that opening a table reads nothing of it;
// else decoded into a copy. The slice must never be written to.
func words[W uint32 | uint64](s string) []W {
	size := int(unsafe.Sizeof(W(0)))
	p := unsafe.StringData(s)
	if littleEndian && uintptr(unsafe.Pointer(p))%uintptr(size) == 0 {
		return unsafe.Slice((*W)(unsafe.Pointer(p)), len(s)/size)
	}
	w := make([]W, len(s)/size)
	for i := range w {
		for j := size - 1; j >= 0; j-- {
			w[i] = w[i]<<8 | W(s[i*size+j])
		}
	}
	return w
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// pairOfBytes returns the rank of the two bytes a b, or noRank.
func (v *vocab) pairOfBytes(a, b byte) uint32 {
	return v.pairByte[uint16(a)<<8|uint16(b)]
}

// fold maps a hash to a slot of n, by its high bits.
func fold(h, n uint64) uint64 {
	hi, _ := bits.Mul64(h, n)
	return hi
}

// isToken reports whether s is a token.
func (v *vocab) isToken(s string) bool {
	_, ok := v.lookup(s)
	return ok
}

// lookup returns the rank of token s.
func (v *vocab) lookup(s string) (uint32, bool) {
	if len(s) > v.maxLen {
		return 0, false
	}
	h := tokenHash(s)
	want := slotUsed | (h&(1<<tagBits-1))<<50 | uint64(len(s))<<24
	for i := fold(h, v.tokenHomes); ; i++ {
		slot := v.tokens[i]
		if slot == 0 {
			return 0, false
		}
		if slot&tokenKey == want {
			off := slot & (1<<24 - 1)
			if v.arena[off:off+uint64(len(s))] == s {
				return uint32(slot >> 32 & rankMask), true
			}
		}
	}
}

// pair returns the rank of tokens a and b together, or noRank.
func (v *vocab) pair(a, b uint32) uint32 {
	key := uint64(a)<<rankBits | uint64(b)
	for i := fold(pairHash(key), v.pairHomes); ; i++ {
		slot := v.pairs[i]
		if slot == 0 {
			return noRank
		}
		if slot>>rankBits&(1<<pairShift-1) == key {
			return uint32(slot & rankMask)
		}
	}
}

func pairHash(key uint64) uint64 { return key * 0x9E3779B97F4A7C15 }

// tokenHash is a fixed hash of a string, after wyhash: the token slots are
// laid out with it ahead of time, so it cannot be seeded per process.
func tokenHash(s string) uint64 {
	const k0, k1, k2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3
	h := uint64(len(s)) ^ k0
	for len(s) > 16 {
		h = mix(le64(s)^k1, le64(s[8:])^h)
		s = s[16:]
	}
	var a, b uint64
	switch n := len(s); {
	case n >= 8:
		a, b = le64(s), le64(s[n-8:])
	case n >= 4:
		a, b = le32(s), le32(s[n-4:])
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix(mix(a^k1, b^h), k2)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}
