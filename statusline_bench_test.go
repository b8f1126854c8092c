package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkStatuslineExec times what Claude Code waits for: the spillway
// binary run as a status line, a new process each time, on a generated
// session of about 100 MB, once the first call has read it. It reports
// the median and the 90th percentile of the runs (go test -bench
// StatuslineExec -benchtime 40x), and the median processor time (user and
// system) the process took, which depends less on what else the machine
// runs; it logs the load average beside them:
//
//	unchanged   the log as the last call left it
//	grown       about 4 KB appended before each run, as a response adds
//	predicted   unchanged, with a policy whose replay is made and current
//	version     spillway --version, for the cost of starting the program
func BenchmarkStatuslineExec(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "spillway")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	log := filepath.Join(dir, "session.jsonl")
	f, err := os.Create(log)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := corpus.WriteMixedSize(w, 1, 100<<20); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	data, err := os.ReadFile(log)
	if err != nil {
		b.Fatal(err)
	}
	// Complete lines from the middle of the log, about 4 KB of them.
	mid := len(data) / 2
	mid += bytes.IndexByte(data[mid:], '\n') + 1
	end := mid + 4096
	end += bytes.IndexByte(data[end:], '\n') + 1
	chunk := data[mid:end]
	in := fmt.Sprintf(`{"session_id":"bench","transcript_path":%q,"cost":{"total_cost_usd":1}}`, log)

	run := func(b *testing.B, cache string, args ...string) (wall, cpu time.Duration) {
		cmd := exec.Command(bin, append([]string{"statusline", "--color", "never"}, args...)...)
		if args[0] == "--version" {
			cmd = exec.Command(bin, args...)
		}
		cmd.Env = append(os.Environ(), "SPILLWAY_CACHE_DIR="+cache, "COLUMNS=120")
		cmd.Stdin = strings.NewReader(in)
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		if err != nil || !bytes.HasPrefix(out, []byte("$")) && args[0] != "--version" {
			b.Fatalf("%v: %q", err, out)
		}
		return took, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	bench := func(name string, args []string, before func(b *testing.B, cache string)) {
		b.Run(name, func(b *testing.B) {
			cache := b.TempDir()
			first, _ := run(b, cache, args...)
			if before != nil {
				before(b, cache)
			}
			var times, cpus []time.Duration
			for b.Loop() {
				if name == "grown" {
					appendTo(b, log, chunk)
				}
				wall, cpu := run(b, cache, args...)
				times, cpus = append(times, wall), append(cpus, cpu)
			}
			slices.Sort(times)
			slices.Sort(cpus)
			median, p90, cpu := times[len(times)/2], times[len(times)*9/10], cpus[len(cpus)/2]
			b.ReportMetric(float64(median.Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(p90.Microseconds())/1000, "ms-p90")
			b.ReportMetric(float64(cpu.Microseconds())/1000, "ms-cpu-median")
			b.Logf("%s: first call %v; %d runs, median %v, 90th percentile %v, processor time median %v; load average %s", name,
				first.Round(time.Millisecond), len(times), median.Round(100*time.Microsecond), p90.Round(100*time.Microsecond),
				cpu.Round(100*time.Microsecond), loadAverage())
		})
	}
	bench("version", []string{"--version"}, nil)
	bench("unchanged", []string{"--preset", "none"}, nil)
	bench("grown", []string{"--preset", "none"}, nil)
	bench("predicted", []string{"--preset", "claude-code"}, func(b *testing.B, cache string) {
		// The first call started the replay: wait for it to land.
		for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(time.Second) {
			if m, _ := filepath.Glob(filepath.Join(cache, "statusline", "*.predict.json")); len(m) > 0 {
				if l, _ := filepath.Glob(filepath.Join(cache, "statusline", "*.lock")); len(l) == 0 {
					return
				}
			}
			if time.Now().After(deadline) {
				b.Fatal("no prediction in 10 minutes")
			}
		}
	})
}

func appendTo(b *testing.B, path string, text []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(text); err != nil {
		b.Fatal(err)
	}
}

// loadAverage is the system's 1, 5 and 15 minute load averages, where
// known.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
