package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/transcript"
)

// benchSession is a generated session of n tool results whose sizes follow
// real logs: most a few KB, one in twenty over 20 KB, one in a hundred
// over 100 KB; a third are repeated reads.
func benchSession(b *testing.B, n int) *transcript.Session {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the context window tool result token cache read write budget policy ceiling spill preview head tail lock file grep match func return error value config module package import build test")
	text := func(size int) string {
		var sb strings.Builder
		for line := 1; sb.Len() < size; line++ {
			fmt.Fprintf(&sb, "%6d→", line)
			for range 4 + rng.IntN(9) {
				sb.WriteString(words[rng.IntN(len(words))])
				sb.WriteByte(' ')
			}
			sb.WriteByte('\n')
		}
		return sb.String()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	prompt := 20_000
	for i := range n {
		size := 500 + rng.IntN(4000)
		switch r := rng.IntN(100); {
		case r == 0:
			size = 100_000 + rng.IntN(200_000)
		case r < 5:
			size = 20_000 + rng.IntN(60_000)
		}
		tool, input := "Bash", map[string]any{"command": fmt.Sprintf("step %d", i)}
		if rng.IntN(3) == 0 {
			tool, input = "Read", map[string]any{"file_path": fmt.Sprintf("/p/f%d.go", rng.IntN(50))}
		}
		id := fmt.Sprintf("t%d", i)
		prompt += size / 4
		enc.Encode(map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "",
			"tool_calls": []any{map[string]any{"id": id, "name": tool, "arguments": input}},
			"usage":      map[string]any{"input_tokens": 3, "cache_creation_input_tokens": size / 4, "cache_read_input_tokens": prompt, "output_tokens": 80}})
		enc.Encode(map[string]any{"role": "tool", "tool_call_id": id, "content": text(size)})
	}
	s, err := transcript.Read(&buf, "bench.jsonl", transcript.Options{Format: transcript.FormatGeneric})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func benchPrepared(b *testing.B, n int) *Prepared {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	p, err := Prepare(context.Background(), benchSession(b, n), tokens.NewCache(c), pricing.Default(), nil)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkReplay replays 10,000 results after a key changed the policy:
// each replay has a ceiling not seen before, so every truncation text is
// new and counted afresh (a spill's preview does not depend on the ceiling).
func BenchmarkReplay(b *testing.B) {
	p := benchPrepared(b, 10_000)
	for _, preset := range []string{"harness-rs-0.0.40", "harness-rs-0.0.50", "claude-code", "codex"} {
		b.Run(preset, func(b *testing.B) {
			pol, _ := Preset(preset)
			base := pol.Ceiling
			i := 0
			for b.Loop() {
				q := clone(pol)
				q.SetCeiling(base + int64(i%64)*512)
				i++
				if _, err := p.Replay(q, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPrepare measures and counts 10,000 results once.
func BenchmarkPrepare(b *testing.B) {
	s := benchSession(b, 10_000)
	c, _ := tokens.Get(tokens.O200kBase)
	for b.Loop() {
		if _, err := Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
