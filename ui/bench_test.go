package ui

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkFirstFrame opens a generated 100 MB Claude Code transcript and
// draws the first frame with the recorded costs (token counting goes on in
// the background); ns/op is the time to that frame.
func BenchmarkFirstFrame(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for seed := uint64(0); seed < 30; seed++ { // 30 × 1,000 calls of 2 KB results ≈ 100 MB
		if _, err := corpus.WriteSession(w, seed, 1000, 2048); err != nil {
			b.Fatal(err)
		}
	}
	w.Flush()
	f.Close()
	info, _ := os.Stat(path)
	b.SetBytes(info.Size())
	pol, _ := policy.Preset(policy.DefaultPreset)
	for b.Loop() {
		m := New(Options{Source: Source{Name: path, Path: path}, Policy: pol, Prices: pricing.Default(), Counter: counter})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		cmd := loadCmd(m.opt.Source, m.opt.Read)
		for {
			msg := cmd()
			if p, ok := msg.(progressMsg); ok {
				m.Update(p)
				cmd = p.next
				continue
			}
			m.Update(msg.(loadedMsg)) // starts counting in the background
			break
		}
		if m.session == nil || len(m.session.Calls) != 30_000 {
			b.Fatal("not loaded")
		}
		_ = m.View()
	}
}

// BenchmarkRetune presses + on a session of 10,000 tool results and waits
// for the replayed totals: the time from key to updated screen.
func BenchmarkRetune(b *testing.B) {
	var buf bytes.Buffer
	if err := corpus.WriteMixed(&buf, 1, 10_000); err != nil {
		b.Fatal(err)
	}
	for _, preset := range []string{"harness-rs-0.0.50", "claude-code", "harness-rs-0.0.40", "codex", "deepseek", "agentscope"} {
		b.Run(preset, func(b *testing.B) {
			m := newModel(b, buf.Bytes(), preset, 120, 40, "dark")
			keys := []string{"+", "-", "-", "+"}
			i := 0
			for b.Loop() {
				// A ceiling not used before each time: nothing is cached.
				m.policy.Ceiling += 512
				send(b, m, keyMsg(keys[i%len(keys)]))
				i++
				_ = m.View()
			}
			if m.replay == nil || m.replay.Policy.Ceiling != m.policy.Ceiling {
				b.Fatal("replay not applied")
			}
		})
	}
}
