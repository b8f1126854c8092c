package transcript

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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

// BenchmarkFollowCatchUp follows a log until it has read it all, as the
// inspector does a log written in the last minute: the time includes the
// updates sent while reading, each a copy of the session so far. The log
// is SPILLWAY_LARGE_SESSION's (LARGE=1 scripts/speed-table.sh), else a
// generated one of 200,000 calls with 256-byte results (about 210 MB).
func BenchmarkFollowCatchUp(b *testing.B) {
	path := os.Getenv("SPILLWAY_LARGE_SESSION")
	if path == "" {
		path = filepath.Join(b.TempDir(), "follow.jsonl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := corpus.WriteSession(f, 1, 200_000, 256); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	updates := 0
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		ch, err := Follow(ctx, path, FollowOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for u := range ch {
			updates++
			if u.Offset >= info.Size() {
				break
			}
		}
		cancel()
	}
	b.ReportMetric(float64(updates)/float64(b.N), "updates/op")
}
