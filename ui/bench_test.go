package ui

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkFirstFrame opens a generated 100 MB Claude Code transcript and
// draws the first frame with calls and their recorded costs (those of its
// first megabyte; the rest, then its texts, are read and counted in the
// background); ns/op is the time from New to that frame. The program adds
// its start and the terminal's setup: README states the figure measured
// both ways.
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
		s := m.sess
		cmd := loadCmd(s.run, s.src, m.opt)
		var texts tea.Cmd // the texts' read, when the rows came first
		for {
			msg := cmd()
			if p, ok := msg.(progressMsg); ok {
				s.update(p)
				cmd = p.next
				continue
			}
			if rows, ok := msg.(rowsMsg); ok {
				// A file this large shows its rows from a read of its
				// sizes, priced as recorded, while its texts are read.
				texts = s.update(rows)
				break
			}
			s.update(msg.(loadedMsg)) // starts counting in the background
			break
		}
		if m.sess.session == nil || len(m.sess.session.Calls) == 0 || m.sess.recorded == nil || m.sess.recorded.Totals.Cost == nil {
			b.Fatal("no calls with recorded costs on the first frame")
		}
		if out := m.View().Content; !strings.Contains(out, "so far") {
			b.Fatalf("the first frame:\n%s", out)
		}
		b.StopTimer()
		waitForTexts(b, texts) // the texts' read is not the next frame's
		m.quit()               // nor what this one asked of the collector
		b.StartTimer()
	}
}

// waitForTexts lets the texts' read that rows left running end.
func waitForTexts(b *testing.B, cmd tea.Cmd) {
	for cmd != nil {
		switch msg := cmd().(type) {
		case progressMsg:
			cmd = msg.next
		case rowsMsg:
			cmd = msg.next
		case loadedMsg:
			return
		default:
			b.Fatalf("waiting for the texts: %T", msg)
		}
	}
}

// BenchmarkRetune presses + or - on a session of 10,000 tool results, a
// ceiling not used before each time, while the savings chart has every
// point still to compute (as after d, s or p): ns/op is the time from the
// key to the replayed totals and rows on screen. Commands run in their own
// goroutines, as the program runs them, so the chart competes for the
// processor as it would.
func BenchmarkRetune(b *testing.B) {
	for _, preset := range retunePresets {
		b.Run(preset, func(b *testing.B) {
			m, l := openMixed(b, preset)
			i := 0
			for b.Loop() {
				m.policy.SetCeiling(m.policy.Ceiling + 512) // a ceiling not used before each time
				m.sess.chart.points = map[string]map[int64]replay.SweepPoint{}
				l.send(keyMsg(retuneKeys[i%len(retuneKeys)]))
				i++
				l.until(func() bool { return m.sess.replayed == m.sess.seq })
				_ = m.View()
			}
			b.StopTimer()
			if m.sess.replay == nil || m.sess.replay.Policy.Ceiling != m.sess.applied().Ceiling {
				b.Fatalf("replay not applied: %v, notice %q, ceiling %d", m.sess.replay == nil, m.ctx.notice, m.policy.Ceiling)
			}
			l.until(func() bool { return !m.sess.chart.busy })
		})
	}
}

// BenchmarkChart is the time from a key to the savings chart drawn in
// full: after a new ceiling ("ceiling": every other point is known, the
// current one is the replay) and after a change of the other knobs
// ("knobs": every point new).
func BenchmarkChart(b *testing.B) {
	for _, preset := range retunePresets {
		for _, kind := range []string{"ceiling", "knobs"} {
			b.Run(preset+"/"+kind, func(b *testing.B) {
				m, l := openMixed(b, preset)
				i := 0
				for b.Loop() {
					m.policy.SetCeiling(m.policy.Ceiling + 512) // per-tool ceilings scale, as + scales them
					if kind == "knobs" {
						m.sess.chart.points = map[string]map[int64]replay.SweepPoint{}
					}
					l.send(keyMsg(retuneKeys[i%len(retuneKeys)]))
					i++
					l.until(func() bool {
						_, missing := m.sess.chart.curve(m.sess.applied())
						return m.sess.replayed == m.sess.seq && missing == 0 && !m.sess.chart.busy
					})
					_ = m.View()
				}
			})
		}
	}
}

var (
	retunePresets = []string{"harness-rs-0.0.50", "claude-code", "harness-rs-0.0.40", "codex", "deepseek", "agentscope"}
	retuneKeys    = []string{"+", "-", "-", "+"}
	mixed         []byte
)

// mixedSession is a generated session of 10,000 tool results.
func mixedSession(b testing.TB) []byte {
	if mixed == nil {
		var buf bytes.Buffer
		if err := corpus.WriteMixed(&buf, 1, 10_000); err != nil {
			b.Fatal(err)
		}
		mixed = buf.Bytes()
	}
	return mixed
}

// openMixed opens mixedSession under preset and waits, however long the
// counting takes, for the replay and the whole chart.
func openMixed(b *testing.B, preset string) (*Model, *loop) {
	pause := chartPause
	chartPause = 150 * time.Millisecond // as the program runs
	b.Cleanup(func() { chartPause = pause })
	policy, err := policy.Preset(preset)
	if err != nil {
		b.Fatal(err)
	}
	m := New(Options{Source: Source{Name: "mixed.jsonl", Data: mixedSession(b)}, Policy: policy, Prices: pricing.Default(), Counter: counter, Theme: "dark"})
	leaveAtEnd(b, m)
	l := newLoop(m)
	l.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	l.run(m.Init())
	l.until(func() bool {
		_, missing := m.sess.chart.curve(m.sess.applied())
		return m.sess.replay != nil && missing == 0 && !m.sess.chart.busy && m.sess.hazardsIndexed
	})
	return m, l
}

// loop delivers messages to the model one at a time, as the program does,
// while their commands run in goroutines of their own.
type loop struct {
	m    *Model
	msgs chan tea.Msg
}

func newLoop(m *Model) *loop { return &loop{m: m, msgs: make(chan tea.Msg, 64)} }

func (l *loop) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		// Cursor blinks re-arm forever; terminal queries need a terminal.
		if msg != nil {
			if pkg := reflect.TypeOf(msg).PkgPath(); strings.HasSuffix(pkg, "/cursor") || strings.HasSuffix(pkg, "bubbletea/v2") {
				if _, batch := msg.(tea.BatchMsg); !batch {
					return
				}
			}
		}
		l.msgs <- msg
	}()
}

func (l *loop) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			l.run(c)
		}
	default:
		_, cmd := l.m.Update(msg)
		l.run(cmd)
	}
}

// until delivers messages until done holds.
func (l *loop) until(done func() bool) {
	for !done() {
		l.send(<-l.msgs)
	}
}
