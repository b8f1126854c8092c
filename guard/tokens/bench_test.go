package tokens

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var corpusDir = flag.String("corpus-dir", "", "TestWriteBenchCorpus writes the benchmark texts and their counts here")

const benchSize = 1 << 20

var (
	benchMu   sync.Mutex
	benchData = map[string]string{}
)

// benchText returns the generated text of kind the benchmarks use.
func benchText(kind string) string {
	benchMu.Lock()
	defer benchMu.Unlock()
	s, ok := benchData[kind]
	if !ok {
		s = generate(kind, benchSize, 42)
		benchData[kind] = s
	}
	return s
}

// BenchmarkCount measures throughput with an empty piece cache at the start
// of every count: the figure for text never seen before.
func BenchmarkCount(b *testing.B) {
	benchmarkCount(b, false)
}

// BenchmarkCountWarm measures throughput when the piece cache already holds
// the text's pieces.
func BenchmarkCountWarm(b *testing.B) {
	benchmarkCount(b, true)
}

func benchmarkCount(b *testing.B, warm bool) {
	for _, enc := range encodings {
		for _, kind := range corpusKinds {
			b.Run(string(enc)+"/"+kind, func(b *testing.B) {
				text := benchText(kind)
				c := counter(b, enc)
				if warm {
					c.Count(text)
				}
				b.SetBytes(int64(len(text)))
				b.ResetTimer()
				for b.Loop() {
					if !warm {
						b.StopTimer()
						c.pieces = newPieceCache()
						b.StartTimer()
					}
					c.Count(text)
				}
			})
		}
	}
}

// TestWriteBenchCorpus writes the benchmark texts, KIND.txt, and our counts
// of them, counts.tsv (encoding, kind, bytes, tokens), for comparison with
// other tokenizers. It runs only when -corpus-dir is given.
func TestWriteBenchCorpus(t *testing.T) {
	if *corpusDir == "" {
		t.Skip("no -corpus-dir")
	}
	if err := os.MkdirAll(*corpusDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kind := range corpusKinds {
		if err := os.WriteFile(filepath.Join(*corpusDir, kind+".txt"), []byte(benchText(kind)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var counts strings.Builder
	for _, enc := range encodings {
		c := counter(t, enc)
		for _, kind := range corpusKinds {
			text := benchText(kind)
			fmt.Fprintf(&counts, "%s\t%s\t%d\t%d\n", enc, kind, len(text), c.Count(text))
		}
	}
	if err := os.WriteFile(filepath.Join(*corpusDir, "counts.tsv"), []byte(counts.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
