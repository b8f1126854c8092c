package tokens

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestParseEncoding(t *testing.T) {
	tests := []struct {
		in      string
		want    Encoding
		wantErr bool
	}{
		{"o200k_base", O200kBase, false},
		{"o200k", O200kBase, false},
		{"cl100k_base", Cl100kBase, false},
		{"cl100k", Cl100kBase, false},
		{" CL100K_BASE ", Cl100kBase, false},
		{"", "", true},
		{"p50k_base", "", true},
		{"gpt-4o", "", true},
	}
	for _, tc := range tests {
		got, err := ParseEncoding(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseEncoding(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestGet(t *testing.T) {
	for _, enc := range encodings {
		a, err := Get(enc)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Get(enc)
		if a != b {
			t.Errorf("Get(%s) returned two counters", enc)
		}
		if a.Encoding() != enc {
			t.Errorf("Encoding() = %s, want %s", a.Encoding(), enc)
		}
	}
	if _, err := Get("r50k_base"); err == nil {
		t.Error("Get(r50k_base) succeeded")
	}
}

func TestCount(t *testing.T) {
	// Counts as tiktoken-go's EncodeOrdinary gives them.
	tests := []struct {
		enc  Encoding
		text string
		want int
	}{
		{O200kBase, "", 0},
		{O200kBase, "hello world", 2},
		{O200kBase, "<|endoftext|>", 7}, // plain text: < | end of text | >
		{Cl100kBase, "hello world", 2},
		{Cl100kBase, "<|endoftext|>", 7},
		{O200kBase, "\xff", 1},          // U+FFFD
		{Cl100kBase, "\xff\xff", 1},     // U+FFFD U+FFFD is one token
		{Cl100kBase, "\uFFFD\uFFFD", 1}, // the same text
	}
	for _, tc := range tests {
		c, err := Get(tc.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Count(tc.text); got != tc.want {
			t.Errorf("%s: Count(%q) = %d, want %d", tc.enc, tc.text, got, tc.want)
		}
	}
}

func TestCountConcurrently(t *testing.T) {
	for _, enc := range encodings {
		c, err := Get(enc)
		if err != nil {
			t.Fatal(err)
		}
		texts := make([]string, 8)
		want := make([]int, len(texts))
		for i := range texts {
			texts[i] = generate(corpusKinds[i%len(corpusKinds)], 20000, uint64(i))
			want[i] = counter(t, enc).Count(texts[i])
		}
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 3; k++ {
					for i := range texts {
						if got := c.Count(texts[(i+w)%len(texts)]); got != want[(i+w)%len(texts)] {
							t.Errorf("worker %d: text %d: Count = %d, want %d", w, (i+w)%len(texts), got, want[(i+w)%len(texts)])
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}

func TestCache(t *testing.T) {
	c, err := Get(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	k := NewCache(c)
	if k.Counter() != c {
		t.Error("Counter() is not the cache's counter")
	}
	texts := make([]string, 50)
	for i := range texts {
		texts[i] = fmt.Sprintf("tool result %d: %s", i%10, strings.Repeat("x ", i%10))
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, text := range texts {
				if got, want := k.Count(text), c.Count(text); got != want {
					t.Errorf("Cache.Count(%q) = %d, want %d", text, got, want)
				}
			}
		}()
	}
	wg.Wait()
	if k.Len() != 10 {
		t.Errorf("Len() = %d, want 10 distinct texts", k.Len())
	}
}
