package tokens

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unsafe"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

var update = flag.Bool("update", false, "TestEmbeddedTables rewrites the embedded tables (go generate)")

// rankURLs name the rank files; the offline loader reads its embedded copy
// by base name and opens no connection.
var rankURLs = map[Encoding]string{
	O200kBase:  "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
	Cl100kBase: "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}

var (
	loaderMu  sync.Mutex
	loaderMap = map[Encoding]map[string]int{}
)

// loaderRanks returns the ranks of enc as tiktoken-go-loader reads them.
func loaderRanks(t testing.TB, enc Encoding) map[string]int {
	t.Helper()
	loaderMu.Lock()
	defer loaderMu.Unlock()
	ranks, ok := loaderMap[enc]
	if !ok {
		var err error
		if ranks, err = tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(rankURLs[enc]); err != nil {
			t.Fatal(err)
		}
		loaderMap[enc] = ranks
	}
	return ranks
}

// Load factors of the two hash tables: higher is smaller, lower is fewer
// probes per lookup.
const tokenLoad, pairLoad = 0.7, 0.7

// TestEmbeddedTables builds the tables from tiktoken-go-loader's rank files
// and from the unicode package and compares them with the embedded ones,
// so that they cannot drift from their sources; with -update it writes
// them.
func TestEmbeddedTables(t *testing.T) {
	files := map[string][]byte{"classes.bin": buildClassFile(t)}
	for _, enc := range encodings {
		data, err := buildVocabFile(loaderRanks(t, enc))
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		files[string(enc)+".bin"] = data
	}
	embedded := map[string]string{"classes.bin": classTable, "o200k_base.bin": o200kTable, "cl100k_base.bin": cl100kTable}
	for name, want := range files {
		path := filepath.Join("tables", name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got := embedded[name]; got != string(want) {
			t.Errorf("%s differs from what its sources make (%d bytes, built %d): run go generate ./guard/tokens", path, len(got), len(want))
		}
	}
}

// TestTablesAnswerAsRanks asks the embedded tables about every token and
// every pair of tokens that makes one, against the rank files themselves.
func TestTablesAnswerAsRanks(t *testing.T) {
	for _, enc := range encodings {
		ranks := loaderRanks(t, enc)
		v := &counter(t, enc).t.vocab
		errs := 0
		check := func(ok bool, format string, args ...any) {
			if !ok && errs < 10 {
				errs++
				t.Errorf("%s: "+format, append([]any{enc}, args...)...)
			}
		}
		for tok, r := range ranks {
			got, ok := v.lookup(tok)
			check(ok && got == uint32(r), "lookup(%q) = %d, %v; want %d", tok, got, ok, r)
			for i := 1; i < len(tok); i++ {
				a, okA := ranks[tok[:i]]
				b, okB := ranks[tok[i:]]
				if okA && okB {
					check(v.pair(uint32(a), uint32(b)) == uint32(r), "pair(%q, %q) = %d, want %d", tok[:i], tok[i:], v.pair(uint32(a), uint32(b)), r)
				}
			}
			// A token with one more byte, or one fewer, is a token only if
			// the ranks say so.
			for _, s := range []string{tok + "\x00", tok + "é", tok[1:]} {
				want, ok := ranks[s]
				got, found := v.lookup(s)
				check(found == ok && (!ok || got == uint32(want)), "lookup(%q) = %d, %v; ranks say %d, %v", s, got, found, want, ok)
			}
		}
		for i := range 1 << 16 {
			s := string([]byte{byte(i >> 8), byte(i)})
			want, ok := ranks[s]
			if !ok {
				want = noRank
			}
			check(v.pairOfBytes(s[0], s[1]) == uint32(want), "pairOfBytes(%q) = %d, want %d", s, v.pairOfBytes(s[0], s[1]), want)
			check(v.byteRank[i&0xff] == uint32(ranks[string([]byte{byte(i)})]), "byteRank[%#x] = %d", i&0xff, v.byteRank[i&0xff])
		}
		// Pairs of tokens that do not make one.
		byRank := make([]string, 1<<rankBits)
		for tok, r := range ranks {
			byRank[r] = tok
		}
		for a := 0; a < len(ranks); a += 397 {
			for b := 0; b < len(ranks); b += 1009 {
				want, ok := ranks[byRank[a]+byRank[b]]
				if !ok {
					want = noRank
				}
				check(v.pair(uint32(a), uint32(b)) == uint32(want), "pair(%q, %q) = %d, want %d", byRank[a], byRank[b], v.pair(uint32(a), uint32(b)), want)
			}
		}
	}
}

// buildClassFile lays out classTable from the unicode package.
func buildClassFile(t *testing.T) []byte {
	flat := make([]uint8, unicode.MaxRune+1)
	mark := func(tab *unicode.RangeTable, bits uint8) {
		for _, r := range tab.R16 {
			for c := int(r.Lo); c <= int(r.Hi); c += int(r.Stride) {
				flat[c] |= bits
			}
		}
		for _, r := range tab.R32 {
			for c := int(r.Lo); c <= int(r.Hi); c += int(r.Stride) {
				flat[c] |= bits
			}
		}
	}
	mark(unicode.L, cLetter)
	mark(unicode.N, cNumber)
	mark(unicode.White_Space, cSpace) // unicode.IsSpace, for every rune
	for _, tab := range []*unicode.RangeTable{unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M} {
		mark(tab, cUpper)
	}
	for _, tab := range []*unicode.RangeTable{unicode.Ll, unicode.Lm, unicode.Lo, unicode.M} {
		mark(tab, cLower)
	}
	flat['\r'] |= cNewline
	flat['\n'] |= cNewline

	const size = 1 << blockBits
	seen := map[string]int{}
	index := make([]byte, classBlocks)
	var blocks []byte
	for i := range index {
		blk := string(flat[i<<blockBits : (i+1)<<blockBits])
		id, ok := seen[blk]
		if !ok {
			id = len(blocks) / size
			if id > 0xff {
				t.Fatal("more than 256 distinct blocks of rune classes")
			}
			seen[blk] = id
			blocks = append(blocks, blk...)
		}
		index[i] = byte(id)
	}
	return append(index, blocks...)
}

// buildVocabFile lays out the tables vocab.open reads from the ranks of an
// encoding's tokens. Tokens are placed in rank order, so the file depends
// on the ranks alone.
func buildVocabFile(ranks map[string]int) ([]byte, error) {
	if len(ranks) == 0 || len(ranks) >= 1<<rankBits {
		return nil, fmt.Errorf("%d ranks, want 1 to %d", len(ranks), 1<<rankBits-1)
	}
	byRank := make([]string, 1<<rankBits)
	seen := make([]bool, 1<<rankBits)
	size, maxLen := 0, 0
	for tok, r := range ranks {
		if tok == "" || len(tok) > maxToken || r < 0 || r >= 1<<rankBits {
			return nil, fmt.Errorf("token %q has rank %d: out of range", tok, r)
		}
		// Merging tells pairs apart by rank.
		if seen[r] {
			return nil, fmt.Errorf("rank %d is given twice", r)
		}
		seen[r] = true
		byRank[r] = tok
		size += len(tok)
		maxLen = max(maxLen, len(tok))
	}
	if size >= 1<<24 {
		return nil, fmt.Errorf("tokens take %d bytes, too many", size)
	}
	var byteRank [256]uint32
	for b := range byteRank {
		r, ok := ranks[string([]byte{byte(b)})]
		if !ok {
			return nil, fmt.Errorf("byte %#x has no rank", b)
		}
		byteRank[b] = uint32(r)
	}
	pairByte := make([]uint32, 1<<16)
	for i := range pairByte {
		pairByte[i] = noRank
		if r, ok := ranks[string([]byte{byte(i >> 8), byte(i)})]; ok {
			pairByte[i] = uint32(r)
		}
	}

	tokenHomes := homesFor(len(ranks), tokenLoad)
	var tokenSlots []uint64
	var arena []byte
	for r, tok := range byRank {
		if !seen[r] {
			continue
		}
		h := tokenHash(tok)
		tokenSlots = place(tokenSlots, fold(h, tokenHomes), slotUsed|(h&(1<<tagBits-1))<<50|uint64(r)<<32|uint64(len(tok))<<24|uint64(len(arena)))
		arena = append(arena, tok...)
	}
	tokenSlots = endSlots(tokenSlots, tokenHomes)

	var pairs []uint64 // a<<pairShift | b<<rankBits | rank
	for r, tok := range byRank {
		if !seen[r] {
			continue
		}
		for i := 1; i < len(tok); i++ {
			a, ok := ranks[tok[:i]]
			if !ok {
				continue
			}
			if b, ok := ranks[tok[i:]]; ok {
				pairs = append(pairs, uint64(a)<<pairShift|uint64(b)<<rankBits|uint64(r))
			}
		}
	}
	pairHomes := homesFor(len(pairs), pairLoad)
	var pairSlots []uint64
	for _, p := range pairs {
		pairSlots = place(pairSlots, fold(pairHash(p>>rankBits), pairHomes), slotUsed|p)
	}
	pairSlots = endSlots(pairSlots, pairHomes)

	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	le([vocabFields]uint32{vocabMagic, vocabVersion, uint32(maxLen), uint32(tokenHomes), uint32(len(tokenSlots)), uint32(pairHomes), uint32(len(pairSlots)), uint32(len(arena))})
	le(byteRank)
	le(pairByte)
	le(tokenSlots)
	le(pairSlots)
	b.Write(arena)
	return b.Bytes(), nil
}

// le32u returns header field i of a vocabulary file.
func le32u(data string, i int) uint32 { return uint32(le32(data[4*i:])) }

// testVocab builds and opens the tables of ranks.
func testVocab(t testing.TB, ranks map[string]int) *vocab {
	t.Helper()
	data, err := buildVocabFile(ranks)
	if err != nil {
		t.Fatal(err)
	}
	v := &vocab{}
	if err := v.open(string(data)); err != nil {
		t.Fatal(err)
	}
	return v
}

// homesFor is the number of home slots of a table of n keys at the load
// factor.
func homesFor(n int, load float64) uint64 { return uint64(float64(n)/load) + 1 }

// place puts slot in the first free one from home, past the end of slots
// if need be.
func place(slots []uint64, home, slot uint64) []uint64 {
	i := home
	for ; i < uint64(len(slots)) && slots[i] != 0; i++ {
	}
	for uint64(len(slots)) <= i {
		slots = append(slots, 0)
	}
	slots[i] = slot
	return slots
}

// endSlots makes slots run past every home and end with an empty one.
func endSlots(slots []uint64, homes uint64) []uint64 {
	for uint64(len(slots)) < homes || slots[len(slots)-1] != 0 {
		slots = append(slots, 0)
	}
	return slots
}

func TestVocabBuildRejectsBadRanks(t *testing.T) {
	bytes := func() map[string]int {
		m := map[string]int{}
		for b := 0; b < 256; b++ {
			m[string([]byte{byte(b)})] = b
		}
		return m
	}
	tests := []struct {
		name   string
		edit   func(map[string]int)
		errHas string
	}{
		{"missing byte", func(m map[string]int) { delete(m, "a") }, "no rank"},
		{"rank twice", func(m map[string]int) { m["ab"] = 5 }, "twice"},
		{"rank too large", func(m map[string]int) { m["ab"] = 1 << rankBits }, "out of range"},
		{"negative rank", func(m map[string]int) { m["ab"] = -1 }, "out of range"},
		{"empty token", func(m map[string]int) { m[""] = 300 }, "out of range"},
		{"long token", func(m map[string]int) { m[strings.Repeat("a", maxToken+1)] = 300 }, "out of range"},
	}
	for _, tc := range tests {
		m := bytes()
		tc.edit(m)
		if _, err := buildVocabFile(m); err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: build error %v, want one saying %q", tc.name, err, tc.errHas)
		}
	}
	data, err := buildVocabFile(bytes())
	if err != nil {
		t.Fatalf("build of the 256 bytes: %v", err)
	}
	var v vocab
	if err := v.open(string(data)); err != nil {
		t.Fatalf("open the 256 bytes: %v", err)
	}
	for b := range 256 {
		if r, ok := v.lookup(string([]byte{byte(b)})); !ok || r != uint32(b) {
			t.Errorf("byte %#x: rank %d, %v; want %d", b, r, ok, b)
		}
	}
	if _, ok := v.lookup("ab"); ok {
		t.Error(`"ab" is a token of the 256 bytes`)
	}
}

// TestVocabOpenRejectsBadFiles: a file whose header does not describe it,
// its kind, version or length, is an error, not sections cut in the wrong
// places.
func TestVocabOpenRejectsBadFiles(t *testing.T) {
	good := cl100kTable
	var v vocab
	if err := v.open(good); err != nil {
		t.Fatalf("the embedded file: %v", err)
	}
	edit := func(field int, val uint32) string {
		b := []byte(good)
		binary.LittleEndian.PutUint32(b[4*field:], val)
		return string(b)
	}
	for name, data := range map[string]string{
		"empty":            "",
		"short header":     good[:10],
		"truncated":        good[:len(good)-1],
		"longer":           good + "\x00",
		"magic":            edit(0, 1),
		"version":          edit(1, vocabVersion+1),
		"long tokens":      edit(2, maxToken+1),
		"no token homes":   edit(3, 0),
		"homes past slots": edit(3, le32u(good, 4)+1),
		"more token slots": edit(4, 1<<30),
		"no pair homes":    edit(5, 0),
		"more pair slots":  edit(6, le32u(good, 6)+1),
		"last slot taken":  good[:len(good)-int(le32u(good, 7))-8] + "\x01\x00\x00\x00\x00\x00\x00\x80" + good[len(good)-int(le32u(good, 7)):],
	} {
		if err := v.open(data); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}

// TestLoadTablesReadsInPlace: opening an encoding's tables allocates a
// header's worth, whatever the vocabulary's size: the tables are read
// where they are embedded, never decoded into memory of their own.
func TestLoadTablesReadsInPlace(t *testing.T) {
	for _, enc := range encodings {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const loads = 10
		for range loads {
			if _, err := loadTables(enc); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if perLoad := (after.TotalAlloc - before.TotalAlloc) / loads; perLoad > 4<<10 {
			t.Errorf("%s: loading the tables allocates %d bytes", enc, perLoad)
		}
	}
}

// TestOpenClassesRejectsDamage: a class table that names a block it lacks
// is an error, with a table of no classes in its place.
func TestOpenClassesRejectsDamage(t *testing.T) {
	if _, _, err := openClasses(classTable); err != nil {
		t.Fatalf("the embedded table: %v", err)
	}
	for name, data := range map[string]string{
		"empty":          "",
		"index only":     classTable[:classBlocks],
		"partial block":  classTable[:len(classTable)-1],
		"missing blocks": classTable[:len(classTable)-1<<blockBits],
	} {
		index, blocks, err := openClasses(data)
		if err == nil || len(index) != classBlocks || len(blocks) < 1<<blockBits || maxByte(index) != 0 {
			t.Errorf("%s: error %v, index of %d bytes, %d bytes of blocks", name, err, len(index), len(blocks))
		}
	}
}

// TestWordsInPlaceOrCopied: a table is read in place when aligned, and
// decoded into a copy otherwise, with the same words either way.
func TestWordsInPlaceOrCopied(t *testing.T) {
	data := o200kTable[:4096]
	shifted := ("x" + data)[1:] // the same bytes, one past an aligned start
	for _, s := range []string{data, shifted} {
		w64, w32 := words[uint64](s), words[uint32](s)
		for i := range w64 {
			if w64[i] != le64(s[8*i:]) {
				t.Fatalf("uint64 word %d = %#x, want %#x", i, w64[i], le64(s[8*i:]))
			}
		}
		for i := range w32 {
			if uint64(w32[i]) != le32(s[4*i:]) {
				t.Fatalf("uint32 word %d = %#x, want %#x", i, w32[i], le32(s[4*i:]))
			}
		}
		if len(w64) != len(s)/8 || len(w32) != len(s)/4 {
			t.Fatalf("%d and %d words of %d bytes", len(w64), len(w32), len(s))
		}
	}
	if in := words[uint64](data); littleEndian && unsafe.Pointer(&in[0]) != unsafe.Pointer(unsafe.StringData(data)) {
		t.Error("the embedded table was copied")
	}
}
