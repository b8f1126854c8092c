package sessions

import (
	"testing"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
)

// counter counts o200k_base tokens, each session with a memo of its own.
func counter() (replay.TokenCounter, error) {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		return nil, err
	}
	return tokens.NewCache(c), nil
}

// TestLastElement: a project is named by the last folder of where the
// agent worked; no folder names none, so the row falls back to its file.
func TestLastElement(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"/home/dev/shop":    "shop",
		"/home/dev/shop/":   "shop",
		`C:\Users\dev\shop`: "shop",
		"shop":              "shop",
	} {
		if got := lastElement(in); got != want {
			t.Errorf("lastElement(%q) = %q, want %q", in, got, want)
		}
	}
}
