package tokens

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The cold-start benchmark starts this test binary again for every run,
// with coldChildEnv naming a file of text: the child counts it once and
// prints how long after the parent started it the count was done. With
// coldChildEnv set to "-" the child counts nothing, which gives the cost of
// starting the process alone.
const (
	coldChildEnv = "SPILLWAY_TOKENS_COLD_TEXT"
	coldStartEnv = "SPILLWAY_TOKENS_COLD_START"
	coldEncEnv   = "SPILLWAY_TOKENS_COLD_ENCODING"
)

// TestColdCountChild is the child's side of BenchmarkColdStart; it does
// nothing in an ordinary test run.
func TestColdCountChild(t *testing.T) {
	path := os.Getenv(coldChildEnv)
	if path == "" {
		t.Skip("only run by BenchmarkColdStart")
	}
	start, err := strconv.ParseInt(os.Getenv(coldStartEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	n := -1
	var wall, cpu time.Duration
	if path != "-" {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t0, c0 := time.Now(), processorTime()
		c, err := Get(Encoding(os.Getenv(coldEncEnv)))
		if err != nil {
			t.Fatal(err)
		}
		n = c.Count(string(text))
		wall, cpu = time.Since(t0), processorTime()-c0
	}
	fmt.Printf("cold %d %d %d %d\n", time.Now().UnixNano()-start, n, wall, cpu)
}

// BenchmarkColdStart measures, in a fresh process each time, the time from
// starting the process to the end of its first count of 100 KB of mixed
// text, as a command that counts tokens once pays it. "start" is the same
// process counting nothing. It reports the median and 99th percentile over
// b.N runs (use -benchtime=200x) of that time (ms) and of the processor
// time the whole child took (cpu-ms), of the wall and processor time of
// Get and the count alone, inside the child (count-ms, count-cpu-ms), and
// the load average before and after.
func BenchmarkColdStart(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "text")
	text := generate("mixed", 100_000, 7)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	want := counter(b, O200kBase).Count(text)
	for _, tc := range []struct{ name, path string }{{"start", "-"}, {"count", path}} {
		b.Run(tc.name, func(b *testing.B) {
			load := loadAverage()
			var runs, cpu, getCount, getCountCPU []time.Duration
			for b.Loop() {
				cmd := exec.Command(exe, "-test.run=^TestColdCountChild$", "-test.count=1")
				start := time.Now()
				cmd.Env = append(os.Environ(), coldChildEnv+"="+tc.path, coldEncEnv+"="+string(O200kBase),
					coldStartEnv+"="+strconv.FormatInt(start.UnixNano(), 10))
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("child: %v\n%s", err, out)
				}
				var d, gc, gcCPU time.Duration
				var n int
				i := strings.Index(string(out), "cold ")
				if i < 0 {
					b.Fatalf("child said %q", out)
				}
				if _, err := fmt.Sscanf(string(out[i:]), "cold %d %d %d %d", &d, &n, &gc, &gcCPU); err != nil {
					b.Fatalf("child said %q: %v", out, err)
				}
				if tc.path != "-" && n != want {
					b.Fatalf("child counted %d, want %d", n, want)
				}
				runs = append(runs, d)
				cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
				getCount, getCountCPU = append(getCount, gc), append(getCountCPU, gcCPU)
			}
			for _, m := range []struct {
				name string
				d    []time.Duration
			}{{"ms", runs}, {"cpu-ms", cpu}, {"count-ms", getCount}, {"count-cpu-ms", getCountCPU}} {
				slices.Sort(m.d)
				b.ReportMetric(float64(m.d[len(m.d)/2])/1e6, "p50-"+m.name)
				b.ReportMetric(float64(m.d[(len(m.d)*99)/100])/1e6, "p99-"+m.name)
			}
			b.Logf("load average %s before, %s after", load, loadAverage())
		})
	}
}

// loadAverage returns the 1, 5 and 15 minute load averages, or "?".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
