package transcript

import (
	"bytes"
	"testing"

	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkReadClaude parses one generated Claude Code session of 1,000
// calls with 2 KB tool results (about 3.4 MB), held in memory, keeping the
// texts (what the inspector and policies need) and keeping sizes only
// (what report without a policy needs).
func BenchmarkReadClaude(b *testing.B) {
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 1, 1000, 2048); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, mode := range []struct {
		name string
		opt  Options
	}{{"texts", Options{}}, {"sizes-only", Options{SizesOnly: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s, err := Read(bytes.NewReader(data), "bench.jsonl", mode.opt)
				if err != nil || len(s.Calls) != 1000 {
					b.Fatalf("%v, %d calls", err, len(s.Calls))
				}
			}
		})
	}
}
