package tokens

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"
)

// TestCacheKeepsNoText: a text counted through the cache is let go with
// the last reference to it, and counting it again still answers from the
// cache with the same count.
func TestCacheKeepsNoText(t *testing.T) {
	c, err := Get(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	k := NewCache(c)
	text := strings.Repeat("a spill marker with a preview of the result, ", 20_000)
	want := c.Count(text)
	if got := k.Count(text); got != want {
		t.Fatalf("cache counts %d, counter %d", got, want)
	}
	again := strings.Clone(text)
	held := weak.Make(unsafe.StringData(text))
	text = ""
	runtime.GC()
	if held.Value() != nil {
		t.Error("the cache keeps the text it counted alive")
	}
	if got := k.Count(again); got != want || k.Len() != 1 {
		t.Errorf("counted again: %d (want %d), %d entries", got, want, k.Len())
	}
	if got := k.Count(again[1:]); got == want && k.Len() != 2 {
		t.Errorf("another text shares the entry")
	}
}

// TestCacheBounded: past cachedTexts distinct texts the cache forgets what
// it held and starts again, every count still the counter's.
func TestCacheBounded(t *testing.T) {
	c, err := Get(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { cachedTexts = n }(cachedTexts)
	cachedTexts = 4
	k := NewCache(c)
	for i := range 10 {
		text := fmt.Sprintf("result %d: %s", i, strings.Repeat("word ", i))
		if got, want := k.Count(text), c.Count(text); got != want {
			t.Errorf("text %d: cache counts %d, counter %d", i, got, want)
		}
		if k.Len() > cachedTexts {
			t.Fatalf("after %d texts the cache holds %d, bound %d", i+1, k.Len(), cachedTexts)
		}
	}
	if k.Len() != 2 { // forgot at the 5th and the 9th
		t.Errorf("holds %d texts after 10, want 2", k.Len())
	}
}
