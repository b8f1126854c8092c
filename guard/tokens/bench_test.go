package tokens

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
				cpu := processorTime()
				for b.Loop() {
					if !warm {
						b.StopTimer()
						c.pieces, c.short = newPieceCache(), new(shortMemo)
						b.StartTimer()
					}
					c.Count(text)
				}
				reportProcessorTime(b, cpu, len(text))
			})
		}
	}
}

// processorTime is the processor time the process has taken so far.
func processorTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportProcessorTime reports the throughput in processor time since
// start, steadier than wall time on a machine others share.
func reportProcessorTime(b *testing.B, start time.Duration, size int) {
	if d := processorTime() - start; d > 0 && start > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
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
