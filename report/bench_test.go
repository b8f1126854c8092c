package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkGenerate reports 20 generated Claude Code sessions of 1,000
// calls with 2 KB results (about 68 MB, the shape of
// scripts/bench-report.sh's corpus) in each format.
func BenchmarkGenerate(b *testing.B) {
	dir := b.TempDir()
	var size int64
	for i := range 20 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("session-%04d.jsonl", i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := corpus.WriteSession(f, uint64(i), 1000, 2048); err != nil {
			b.Fatal(err)
		}
		info, _ := f.Stat()
		size += info.Size()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	none, err := policy.Preset("none")
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"json", "text", "csv"} {
		b.Run(format, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				w, err := NewWriter(format, io.Discard, "")
				if err != nil {
					b.Fatal(err)
				}
				p, err := Generate([]string{dir}, nil, Options{Prices: pricing.Default(), Policy: none}, w, io.Discard)
				if err != nil || p != (Problems{}) {
					b.Fatalf("%v %+v", err, p)
				}
			}
		})
	}
}
