package tokens

import (
	"sync"
	"testing"

	"github.com/dlclark/regexp2"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The reference: tiktoken-go's ordinary encoding, and the split patterns it
// matches with regexp2 (copied from its encoding.go).
var refPatterns = map[Encoding]string{
	O200kBase:  `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	Cl100kBase: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

var encodings = []Encoding{O200kBase, Cl100kBase}

type reference struct {
	tk *tiktoken.Tiktoken
	re *regexp2.Regexp
}

var (
	refOnce sync.Once
	refs    map[Encoding]*reference
	refErr  error
)

func ref(t testing.TB, enc Encoding) *reference {
	t.Helper()
	refOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		refs = map[Encoding]*reference{}
		for _, e := range encodings {
			tk, err := tiktoken.GetEncoding(string(e))
			if err != nil {
				refErr = err
				return
			}
			refs[e] = &reference{tk: tk, re: regexp2.MustCompile(refPatterns[e], regexp2.None)}
		}
	})
	if refErr != nil {
		t.Fatalf("load reference: %v", refErr)
	}
	return refs[enc]
}

func (r *reference) count(text string) int { return len(r.tk.EncodeOrdinary(text)) }

// pieces returns the split of text as tiktoken-go makes it: regexp2 matches
// on the text's runes, so invalid bytes come back as U+FFFD.
func (r *reference) pieces(text string) []string {
	runes := []rune(text)
	var out []string
	m, _ := r.re.FindStringMatch(text)
	for m != nil {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
		m, _ = r.re.FindNextMatch(m)
	}
	return out
}

// counter returns a Counter of enc with a private, empty piece cache.
func counter(t testing.TB, enc Encoding) *Counter {
	t.Helper()
	c, err := Get(enc)
	if err != nil {
		t.Fatal(err)
	}
	return newCounter(enc, c.t)
}

// split returns our split of text.
func (c *Counter) split(text string) []string {
	text = string([]rune(text))
	var out []string
	for p := 0; p < len(text); {
		e := c.t.next(text, p)
		out = append(out, text[p:e])
		p = e
	}
	return out
}
