package tokens

import (
	"fmt"
	"hash/maphash"
	"math/bits"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// rankURLs name the rank files; the offline loader reads its embedded copy
// by base name and opens no connection.
var rankURLs = map[Encoding]string{
	O200kBase:  "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
	Cl100kBase: "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}

// tables is what a Counter needs of its encoding; it is never modified
// after loading.
type tables struct {
	next func(s string, p int) int
	vocab
}

func loadTables(enc Encoding) (*tables, error) {
	classOnce.Do(buildClasses)
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(rankURLs[enc])
	if err != nil {
		return nil, fmt.Errorf("load %s ranks: %w", enc, err)
	}
	t := &tables{next: nextO200k}
	if enc == Cl100kBase {
		t.next = nextCl100k
	}
	if err := t.vocab.build(ranks); err != nil {
		return nil, fmt.Errorf("load %s ranks: %w", enc, err)
	}
	return t, nil
}

const (
	rankBits = 18 // ranks of both encodings are below 1<<rankBits
	noRank   = 1<<32 - 1
	maxToken = 255 // longest token the tables can hold
)

// vocab answers the two questions byte-pair merging asks: is a piece a
// token, and which token, if any, are two adjacent tokens together. Tokens
// are named by their rank.
type vocab struct {
	byteRank [256]uint32
	// pairByte[a<<8|b] is the rank of the two bytes a b, or noRank.
	pairByte []uint32

	// An open-addressing set of the tokens, whose bytes are in arena. A slot
	// is 0 when empty, else used<<63 | tag<<50 | rank<<32 | len<<24 | offset.
	arena    string
	slots    []uint64
	slotMask uint64
	seed     maphash.Seed
	maxLen   int

	// pairs maps two ranks a, b whose concatenation is a token to its rank.
	// A slot is 0 when empty, else used<<63 | a<<(18+18) | b<<18 | rank.
	pairs     []uint64
	pairShift uint
}

func (v *vocab) build(ranks map[string]int) error {
	if len(ranks) == 0 || len(ranks) >= 1<<rankBits {
		return fmt.Errorf("%d ranks, want 1 to %d", len(ranks), 1<<rankBits-1)
	}
	size := 0
	seen := make([]bool, 1<<rankBits)
	for tok, r := range ranks {
		if tok == "" || len(tok) > maxToken || r < 0 || r >= 1<<rankBits {
			return fmt.Errorf("token %q has rank %d: out of range", tok, r)
		}
		// Merging tells pairs apart by rank.
		if seen[r] {
			return fmt.Errorf("rank %d is given twice", r)
		}
		seen[r] = true
		size += len(tok)
		v.maxLen = max(v.maxLen, len(tok))
	}
	if size >= 1<<24 {
		return fmt.Errorf("tokens take %d bytes, too many", size)
	}
	for b := range v.byteRank {
		r, ok := ranks[string([]byte{byte(b)})]
		if !ok {
			return fmt.Errorf("byte %#x has no rank", b)
		}
		v.byteRank[b] = uint32(r)
	}
	v.pairByte = make([]uint32, 1<<16)
	for i := range v.pairByte {
		v.pairByte[i] = noRank
		if r, ok := ranks[string([]byte{byte(i >> 8), byte(i)})]; ok {
			v.pairByte[i] = uint32(r)
		}
	}

	v.seed = maphash.MakeSeed()
	n := 1 << bits.Len(uint(len(ranks)*2))
	v.slots = make([]uint64, n)
	v.slotMask = uint64(n - 1)
	arena := make([]byte, 0, size)
	for tok, r := range ranks {
		h := maphash.String(v.seed, tok)
		i := h & v.slotMask
		for v.slots[i] != 0 {
			i = (i + 1) & v.slotMask
		}
		v.slots[i] = 1<<63 | (h>>51)<<50 | uint64(r)<<32 | uint64(len(tok))<<24 | uint64(len(arena))
		arena = append(arena, tok...)
	}
	v.arena = string(arena)

	type pair struct{ a, b, r uint32 }
	var ps []pair
	for tok, r := range ranks {
		for i := 1; i < len(tok); i++ {
			a, ok := ranks[tok[:i]]
			if !ok {
				continue
			}
			if b, ok := ranks[tok[i:]]; ok {
				ps = append(ps, pair{uint32(a), uint32(b), uint32(r)})
			}
		}
	}
	shift := bits.Len(uint(len(ps) * 2))
	v.pairs = make([]uint64, 1<<shift)
	v.pairShift = uint(64 - shift)
	mask := uint64(len(v.pairs) - 1)
	for _, p := range ps {
		key := uint64(p.a)<<rankBits | uint64(p.b)
		i := pairHash(key) >> v.pairShift
		for v.pairs[i] != 0 {
			i = (i + 1) & mask
		}
		v.pairs[i] = 1<<63 | key<<rankBits | uint64(p.r)
	}
	return nil
}

func pairHash(key uint64) uint64 { return key * 0x9E3779B97F4A7C15 }

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
	h := maphash.String(v.seed, s)
	tag := h >> 51
	for i := h & v.slotMask; ; i = (i + 1) & v.slotMask {
		slot := v.slots[i]
		if slot == 0 {
			return 0, false
		}
		if (slot>>50)&(1<<13-1) == tag && int(slot>>24&0xff) == len(s) {
			off := int(slot & (1<<24 - 1))
			if v.arena[off:off+len(s)] == s {
				return uint32(slot >> 32 & (1<<rankBits - 1)), true
			}
		}
	}
}

// pair returns the rank of tokens a and b together, or noRank.
func (v *vocab) pair(a, b uint32) uint32 {
	key := uint64(a)<<rankBits | uint64(b)
	mask := uint64(len(v.pairs) - 1)
	for i := pairHash(key) >> v.pairShift; ; i = (i + 1) & mask {
		slot := v.pairs[i]
		if slot == 0 {
			return noRank
		}
		if slot>>rankBits&(1<<(2*rankBits)-1) == key {
			return uint32(slot & (1<<rankBits - 1))
		}
	}
}
