package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/transcript"
)

// BenchmarkTextAgain reads every result's text of a generated session
// again from its line, as a chart's replays read the results they cut:
// through a pool that keeps no text, so each is read from the file.
func BenchmarkTextAgain(b *testing.B) {
	path := filepath.Join(b.TempDir(), "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := corpus.WriteMixed(f, 3, 400); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	pool := NewFilePool(1, 0)
	defer pool.Close()
	s, texts, err := Options{}.readTexts(path, nil, pool)
	if err != nil {
		b.Fatal(err)
	}
	dropTexts(s)
	var results []*transcript.ToolResult
	var bytes int64
	for _, r := range s.Results() {
		if r.DroppedBytes > 0 {
			results = append(results, r)
			bytes += int64(r.DroppedBytes)
		}
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range results {
			if _, err := texts.Text(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
