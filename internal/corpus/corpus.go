// Package corpus writes deterministic, realistic Claude Code session logs
// for benchmarks: the shape of real 2.1.x logs (one line per content block,
// each repeating the response's usage), with tool results of a set size.
package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Shape sizes a generated corpus.
type Shape struct {
	Sessions    int
	Calls       int // API calls per session
	ResultBytes int // approximate size of each tool result
}

// Default is the benchmark corpus: about 600 MB.
var Default = Shape{Sessions: 200, Calls: 1000, ResultBytes: 2048}

// Totals are what a correct reader must find in a generated session.
type Totals struct {
	Calls                                   int
	Input, CacheCreation, CacheRead, Output int64
}

// Add sums totals.
func (t *Totals) Add(o Totals) {
	t.Calls += o.Calls
	t.Input += o.Input
	t.CacheCreation += o.CacheCreation
	t.CacheRead += o.CacheRead
	t.Output += o.Output
}

// WriteDir writes shape.Sessions files into dir (created) and returns the
// totals over all of them. The same shape always gives the same bytes.
func WriteDir(dir string, shape Shape) (Totals, error) {
	var all Totals
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return all, err
	}
	for i := range shape.Sessions {
		path := filepath.Join(dir, fmt.Sprintf("session-%04d.jsonl", i))
		f, err := os.Create(path)
		if err != nil {
			return all, err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		tot, err := WriteSession(w, uint64(i), shape.Calls, shape.ResultBytes)
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return all, fmt.Errorf("write %s: %w", path, err)
		}
		all.Add(tot)
	}
	return all, nil
}

var (
	tools   = []string{"Read", "Bash", "Grep", "Edit", "Glob"}
	words   = strings.Fields("the context window tool result token cache read write budget policy ceiling spill preview head tail lock file grep match function return error value config module package import build test")
	epoch   = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	version = "2.1.126"
	// benchCwd is the working folder every record names, as Claude Code's
	// do: without it, finding a log's project read its first MiB.
	benchCwd = "/home/dev/src/bench"
)

// compactAt is the prompt size at which a generated session compacts, as
// Claude Code does near the top of a 200K window.
const compactAt = 160_000

// WriteSession writes one session of calls API calls, seeded by seed, and
// returns its totals.
func WriteSession(w io.Writer, seed uint64, calls, resultBytes int) (Totals, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", seed)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var tot Totals
	prompt := int64(12_000 + rng.IntN(4000))
	now := epoch.Add(time.Duration(seed) * time.Hour)
	parent := ""
	lineNo := 0
	line := func(v map[string]any) error {
		v["sessionId"], v["version"], v["cwd"] = sid, version, benchCwd
		v["timestamp"] = now.Format(time.RFC3339Nano)
		lineNo++
		uuid := fmt.Sprintf("%08x-0000-4000-8000-%012d", seed, lineNo)
		v["uuid"], v["parentUuid"] = uuid, parent
		parent = uuid
		return enc.Encode(v)
	}
	if err := line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Find where the token budget is enforced and tighten it."}}); err != nil {
		return tot, err
	}
	for i := range calls {
		now = now.Add(time.Duration(2+rng.IntN(20)) * time.Second)
		if prompt > compactAt {
			err := line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
				"compactMetadata": map[string]any{"trigger": "auto", "preTokens": prompt}})
			if err != nil {
				return tot, err
			}
			prompt = int64(15_000 + rng.IntN(5000))
		}
		write := int64(300 + rng.IntN(resultBytes/2))
		output := int64(40 + rng.IntN(400))
		usage := map[string]any{
			"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": prompt,
			"output_tokens": output,
		}
		tot.Calls++
		tot.Input += 3
		tot.CacheCreation += write
		tot.CacheRead += prompt
		tot.Output += output
		prompt += write + 3
		msgID := fmt.Sprintf("msg_%s%05d", sid[24:], i)
		reqID := fmt.Sprintf("req_%s%05d", sid[24:], i)
		toolID := fmt.Sprintf("toolu_%s%05d", sid[24:], i)
		tool := tools[rng.IntN(len(tools))]
		blocks := []map[string]any{
			{"type": "text", "text": sentence(rng, 3+rng.IntN(6))},
			{"type": "tool_use", "id": toolID, "name": tool, "input": map[string]any{"file_path": fmt.Sprintf("/p/file%03d.go", rng.IntN(300))}},
		}
		for _, b := range blocks {
			err := line(map[string]any{"type": "assistant", "requestId": reqID, "message": map[string]any{
				"id": msgID, "role": "assistant", "model": "claude-sonnet-4-6",
				"content": []any{b}, "stop_reason": "tool_use", "usage": usage,
			}})
			if err != nil {
				return tot, err
			}
		}
		result := body(rng, resultBytes)
		err := line(map[string]any{"type": "user",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": toolID, "content": result}}},
		})
		if err != nil {
			return tot, err
		}
	}
	return tot, nil
}

func sentence(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}

// body is numbered source-like lines, as Read results look, of about size
// bytes once JSON-escaped.
func body(rng *rand.Rand, size int) string {
	var b strings.Builder
	escaped := 0
	for n := 1; escaped < size; n++ {
		before := b.Len()
		fmt.Fprintf(&b, "%6d→%s\n", n, sentence(rng, 4+rng.IntN(8)))
		escaped += b.Len() - before + 1 // the newline is escaped as two bytes
	}
	return b.String()
}

// WriteMixed writes a Claude Code session of n tool results whose sizes
// follow real logs: most a few KB, one in twenty 20-80 KB, one in a
// hundred 100-300 KB; a third are reads of a few dozen files, so repeats
// occur. Deterministic for a seed.
func WriteMixed(w io.Writer, seed uint64, n int) error {
	rng := rand.New(rand.NewPCG(seed, 0x313d))
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	sid := fmt.Sprintf("00000000-0000-4000-9000-%012d", seed)
	now := epoch
	prompt := int64(20_000)
	files := make([]string, 50)
	for i := range files {
		files[i] = body(rng, 800+rng.IntN(3000))
	}
	for i := range n {
		size := 500 + rng.IntN(4000)
		switch r := rng.IntN(100); {
		case r == 0:
			size = 100_000 + rng.IntN(200_000)
		case r < 5:
			size = 20_000 + rng.IntN(60_000)
		}
		tool, input, result := "Bash", map[string]any{"command": fmt.Sprintf("make step%d", i)}, ""
		if f := rng.IntN(len(files) * 3); f < len(files) {
			tool, input, result = "Read", map[string]any{"file_path": fmt.Sprintf("/p/f%02d.go", f)}, files[f]
		} else {
			result = body(rng, size)
		}
		now = now.Add(3 * time.Second)
		write := int64(len(result))/4 + 50
		usage := map[string]any{"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": prompt, "output_tokens": 80}
		prompt += write
		if prompt > compactAt {
			prompt = 20_000
			enc.Encode(map[string]any{"type": "system", "subtype": "compact_boundary", "sessionId": sid, "timestamp": now.Format(time.RFC3339),
				"compactMetadata": map[string]any{"trigger": "auto", "preTokens": compactAt}})
		}
		id := fmt.Sprintf("%05d", i)
		err := enc.Encode(map[string]any{"type": "assistant", "sessionId": sid, "uuid": "a" + id, "requestId": "r" + id, "timestamp": now.Format(time.RFC3339),
			"message": map[string]any{"id": "m" + id, "model": "claude-sonnet-4-5", "role": "assistant", "stop_reason": "tool_use", "usage": usage,
				"content": []any{map[string]any{"type": "tool_use", "id": "t" + id, "name": tool, "input": input}}}})
		if err == nil {
			err = enc.Encode(map[string]any{"type": "user", "sessionId": sid, "uuid": "u" + id, "timestamp": now.Format(time.RFC3339),
				"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t" + id, "content": result}}}})
		}
		if err != nil {
			return err
		}
	}
	return nil
}
