package transcript

import (
	"bytes"
	"testing"

	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkReadClaude parses one generated Claude Code session of 1,000
// calls with 2 KB tool results (about 3.4 MB), held in memory, keeping the
// texts (what the inspector and policies need), keeping sizes only
// (what report without a policy needs) and keeping totals only (what the
// session index needs).
func BenchmarkReadClaude(b *testing.B) {
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 1, 1000, 2048); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, mode := range []struct {
		name string
		opt  Options
	}{{"texts", Options{}}, {"sizes-only", Options{SizesOnly: true}}, {"totals-only", Options{SizesOnly: true, TotalsOnly: true}}} {
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

// BenchmarkReadCodex parses one generated Codex rollout (the many-sessions
// corpus's first, with 2 KB outputs on average: about 1 MB), held in
// memory, keeping the texts, keeping sizes only and keeping totals only.
func BenchmarkReadCodex(b *testing.B) {
	data := generatedCodex(b, 240)
	calls := bytes.Count(data, []byte(`"type":"token_count"`))
	for _, mode := range []struct {
		name string
		read func() (*Session, error)
	}{
		{"texts", func() (*Session, error) { return Read(bytes.NewReader(data), "bench.jsonl", Options{}) }},
		{"sizes-only", func() (*Session, error) { return Read(bytes.NewReader(data), "bench.jsonl", Options{SizesOnly: true}) }},
		{"totals-only", func() (*Session, error) {
			return Read(bytes.NewReader(data), "bench.jsonl", Options{SizesOnly: true, TotalsOnly: true})
		}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s, err := mode.read()
				if err != nil || len(s.Calls) != calls {
					b.Fatalf("%v, %d calls, want %d", err, len(s.Calls), calls)
				}
			}
		})
	}
}
