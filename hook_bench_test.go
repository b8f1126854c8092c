package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkHook runs spillway, built as README installs it, as Claude Code
// runs its hook, once per iteration, on the PostToolUse input of a 100 KB
// Read, and reports the median and 99th percentile of the wall time per
// call: kept under a ceiling above it, spilled under one below it (which
// counts its tokens for the ledger), and measured in tokens; and the
// processor time of the call (user and system), which other work on the
// machine does not stretch. Run it with a count of calls:
//
//	go test -run '^$' -bench BenchmarkHook -benchtime 200x .
func BenchmarkHook(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: builds spillway")
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "spillway")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as README installs it
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var content strings.Builder
	for i := 1; content.Len() < 100_000; i++ {
		fmt.Fprintf(&content, "line %d: func handler(w http.ResponseWriter, r *http.Request) { serve(w, r, %d) }\n", i, i*7)
	}
	work := b.TempDir()
	input := func(id string) []byte {
		data, _ := json.Marshal(map[string]any{"session_id": "bench", "transcript_path": filepath.Join(work, "bench.jsonl"), "cwd": work,
			"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": id, "tool_input": map[string]any{"file_path": "/big.go"},
			"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "/big.go", "content": content.String(), "startLine": 1}}})
		return data
	}
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"kept", []string{"--preset", "harness-rs-0.0.50", "--max-bytes", "256KiB", "--unit", "utf8_bytes"}},
		{"spilled", []string{"--preset", "harness-rs-0.0.50", "--max-bytes", "20KiB", "--unit", "utf8_bytes"}},
		{"tokens", []string{"--preset", "harness-rs-0.0.50", "--max-bytes", "8000", "--unit", "tokens"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := append(os.Environ(), "XDG_CACHE_HOME="+b.TempDir())
			var took, cpu []time.Duration
			for i := 0; b.Loop(); i++ {
				cmd := exec.Command(bin, append([]string{"hook", "claude-code"}, c.flags...)...)
				cmd.Env, cmd.Stdin = env, bytes.NewReader(input(fmt.Sprintf("toolu_%d", i)))
				start := time.Now()
				out, err := cmd.Output()
				took = append(took, time.Since(start))
				if cmd.ProcessState != nil {
					cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
				}
				if err != nil || (c.name == "kept") != (len(out) == 0) {
					b.Fatalf("%v: %d bytes answered", err, len(out))
				}
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			for _, m := range []struct {
				name string
				d    []time.Duration
			}{{"", took}, {"cpu-", cpu}} {
				slices.Sort(m.d)
				b.ReportMetric(ms(m.d[len(m.d)/2]), m.name+"median-ms")
				b.ReportMetric(ms(m.d[min(len(m.d)-1, len(m.d)*99/100)]), m.name+"p99-ms")
			}
		})
	}
}
