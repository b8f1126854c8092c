package transcript

import (
	"bytes"
	"os"
	"testing"

	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// measured is a string as the scanner hands it to measureString: its
// line, and where its contents start.
type measured struct {
	line  []byte
	start int
}

// longStrings finds every string of the JSON lines in data whose contents
// are longer than over bytes as written, and the total of their lengths.
func longStrings(data []byte, over int) (out []measured, total int64) {
	for line := range bytes.Lines(data) {
		for i := 0; ; {
			q := bytes.IndexByte(line[i:], '"')
			if q < 0 {
				break
			}
			start := i + q + 1
			end := stringEnd(line, start)
			if end < 0 {
				break
			}
			if end-start > over {
				out = append(out, measured{line, start})
				total += int64(end - start)
			}
			i = end + 1
		}
	}
	return out, total
}

// BenchmarkMeasureString measures the long strings of the real logs and of
// a generated session; MB/s counts the strings' bytes as written.
func BenchmarkMeasureString(b *testing.B) {
	var gen bytes.Buffer
	if _, err := corpus.WriteSession(&gen, 3, 1000, 2048); err != nil {
		b.Fatal(err)
	}
	sets := []struct {
		name string
		data func(b *testing.B) []byte
	}{
		{"real", func(b *testing.B) []byte {
			var all []byte
			for _, path := range sharedtest.Transcripts(b, "*.jsonl") {
				data, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				all = append(all, data...)
			}
			return all
		}},
		{"generated", func(*testing.B) []byte { return gen.Bytes() }},
	}
	for _, set := range sets {
		b.Run(set.name, func(b *testing.B) {
			strs, total := longStrings(set.data(b), 256)
			b.SetBytes(total)
			for b.Loop() {
				for _, s := range strs {
					if _, _, ok := measureString(s.line, s.start); !ok {
						b.Fatalf("not measured: %.80q", s.line[s.start:])
					}
				}
			}
		})
	}
}
