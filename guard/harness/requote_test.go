package harness

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRequotedHead cuts texts full of quotes, backslashes and multi-byte
// characters at every few bytes, in an order that grows, shrinks and
// jumps, and compares with quoting the whole serialization's head afresh.
func TestRequotedHead(t *testing.T) {
	texts := []string{
		strings.Repeat(`say "hi" \ C:\dir\ é 日本 😀`+"\n\t", 300),
		strings.Repeat("é", 2000),
		strings.Repeat(`\"`, 2000),
		"short \"one\"",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, text := range texts {
		serialized := serdeString(text)
		q := &Requoted{}
		keeps := []int{1, 2, 3, 4, 5, 40, 41, 42, 43}
		for range 300 {
			keeps = append(keeps, rng.IntN(len(serialized)+10))
		}
		for _, keep := range keeps {
			head := headBytes(serialized, int64(keep))
			want := serdeString(head)
			kept, inner := q.head(text, keep)
			if kept != len(head) || `"`+inner+`"` != want {
				t.Fatalf("keep %d of %d: kept %d, %.40q…; want %d, %.40q…", keep, len(serialized), kept, inner, len(head), want)
			}
		}
	}
}
