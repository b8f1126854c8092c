package transcript

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkReadClaude parses one generated Claude Code session of 1,000
// calls with 2 KB tool results (about 3.4 MB), held in memory.
func BenchmarkReadClaude(b *testing.B) {
	for _, so := range []bool{false, true} {
		b.Run(fmt.Sprint(so), func(b *testing.B) { benchReadClaude(b, so) })
	}
}
func benchReadClaude(b *testing.B, so bool) {
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 1, 1000, 2048); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Read(bytes.NewReader(data), "bench.jsonl", Options{SizesOnly: so})
		if err != nil || len(s.Calls) != 1000 {
			b.Fatalf("%v, %d calls", err, len(s.Calls))
		}
	}
}
