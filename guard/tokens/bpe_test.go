package tokens

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// quadraticMerge is tiktoken's merge as written there: byte offsets of the
// parts, ranks of byte strings, a full scan for the lowest rank per merge.
func quadraticMerge(v *vocab, piece string) int {
	type part struct {
		start int
		rank  uint32
	}
	parts := make([]part, len(piece)+1)
	rankAt := func(i int) uint32 { // rank of parts i and i+1 together
		if i+2 < len(parts) {
			if r, ok := v.lookup(piece[parts[i].start:parts[i+2].start]); ok {
				return r
			}
		}
		return noRank
	}
	for i := range parts {
		parts[i] = part{i, noRank}
	}
	for i := range parts {
		parts[i].rank = rankAt(i)
	}
	for len(parts) > 1 {
		best, bi := uint32(noRank), -1
		for i, p := range parts[:len(parts)-1] {
			if p.rank < best {
				best, bi = p.rank, i
			}
		}
		if bi < 0 {
			break
		}
		parts = append(parts[:bi+1], parts[bi+2:]...)
		parts[bi].rank = rankAt(bi)
		if bi > 0 {
			parts[bi-1].rank = rankAt(bi - 1)
		}
	}
	return len(parts) - 1
}

// TestMergeMatchesQuadratic checks the merges on pieces of up to 1500
// bytes, most of them repetitive, where the order of merges matters most.
func TestMergeMatchesQuadratic(t *testing.T) {
	alphabets := []string{" ", "a", "ab", " \t", "=-", "aA", "0123456789", "abcdefghijklmnopqrstuvwxyz", "中文的", "😀", "\n", " \n"}
	for _, enc := range encodings {
		c := counter(t, enc)
		r := rand.New(rand.NewPCG(7, uint64(len(enc))))
		for k := 0; k < 200; k++ {
			var piece string
			switch k % 4 {
			case 0, 1:
				alpha := []rune(alphabets[r.IntN(len(alphabets))])
				var b strings.Builder
				for n := 2 + r.IntN(1000); n > 0; n-- {
					b.WriteRune(alpha[r.IntN(len(alpha))])
				}
				piece = b.String()
			case 2:
				piece = strings.Repeat(alphabets[r.IntN(len(alphabets))], 1+r.IntN(400))
			default:
				buf := make([]byte, 2+r.IntN(1000))
				for i := range buf {
					buf[i] = byte(r.IntN(256))
				}
				piece = string(buf)
			}
			piece = piece[:min(len(piece), 1500)]
			want := quadraticMerge(&c.t.vocab, piece)
			v := &c.t.vocab
			got := map[string]int{
				"merge":        v.merge(piece),
				"large, int32": mergeLarge[int32](v, piece),
				"large, int":   mergeLarge[int](v, piece),
			}
			if len(piece) <= smallPiece {
				got["small"] = v.mergeSmall(piece)
			}
			for name, n := range got {
				if n != want {
					t.Fatalf("%s: %s(%q) = %d, want %d", enc, name, piece, n, want)
				}
			}
		}
	}
}

// TestMergeWithArbitraryVocab checks the merges with small random
// vocabularies whose ranks follow no training order, so that new pairs can
// outrank the pair just merged and pairs of one rank appear out of order.
func TestMergeWithArbitraryVocab(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	randomString := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcd"[r.IntN(4)]
		}
		return string(b)
	}
	for k := 0; k < 60; k++ {
		ranks := map[string]int{}
		perm := r.Perm(2000)
		for b := 0; b < 256; b++ {
			ranks[string([]byte{byte(b)})] = perm[b]
		}
		for next := 256; len(ranks) < 256+80; next++ {
			if tok := randomString(2 + r.IntN(5)); ranks[tok] == 0 {
				ranks[tok] = perm[next]
			}
		}
		v := testVocab(t, ranks)
		for j := 0; j < 20; j++ {
			piece := randomString(2 + r.IntN(300))
			want := quadraticMerge(v, piece)
			if got := v.merge(piece); got != want {
				t.Fatalf("vocab %d: merge(%q) = %d, want %d", k, piece, got, want)
			}
			if got := mergeLarge[int32](v, piece); got != want {
				t.Fatalf("vocab %d: mergeLarge(%q) = %d, want %d", k, piece, got, want)
			}
		}
	}
}

// TestPairQueue checks that the queue yields its keys in order whatever the
// order of pushes; merging rarely pushes a rank's pairs out of order. One
// queue serves every round, emptied in between, as a merger's does, some
// rounds leaving keys behind and some using many ranks.
func TestPairQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	q := &pairQueue[int32]{}
	for k := 0; k < 200; k++ {
		q.reset()
		ranks := 6
		if k%10 == 9 {
			ranks = 500
		}
		var pending []uint64
		for step := 0; step < 300; step++ {
			if r.IntN(2) > 0 || len(pending) == 0 {
				rank, pos := uint32(r.IntN(ranks)), int32(r.IntN(50))
				q.push(rank, pos)
				pending = append(pending, pairKey(rank, int(pos)))
				continue
			}
			slices.Sort(pending)
			rank, pos, ok := q.pop()
			if !ok || pairKey(rank, int(pos)) != pending[0] {
				t.Fatalf("pop = %d, %d, %v; want key %#x", rank, pos, ok, pending[0])
			}
			pending = pending[1:]
		}
		if k%3 == 0 {
			q.reset() // keys left behind are forgotten
		} else {
			for range pending {
				q.pop()
			}
		}
		if _, _, ok := q.pop(); ok {
			t.Fatal("pop from an empty queue succeeded")
		}
	}
}

// mergeLarge merges piece with a new merger.
func mergeLarge[P int32 | int](v *vocab, piece string) int {
	return new(merger[P]).merge(v, piece)
}
