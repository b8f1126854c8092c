package replay

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/transcript"
)

// benchSession is a generated Claude Code session of n tool results with
// the sizes of real logs (internal/corpus.WriteMixed).
func benchSession(b *testing.B, n int) *transcript.Session {
	b.Helper()
	var buf bytes.Buffer
	if err := corpus.WriteMixed(&buf, 1, n); err != nil {
		b.Fatal(err)
	}
	s, err := transcript.Read(&buf, "bench.jsonl", transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// withOutputs gives every call from the fourth on a text that quotes the
// last 120 bytes of a result three calls back, as an agent quotes what it
// read: the generated session has no text of the agent's own, so its
// hazards would cost nothing to find.
func withOutputs(s *transcript.Session) *transcript.Session { return quoting(s, 1) }

// quoting is withOutputs giving the text to one call in every, not to
// each.
func quoting(s *transcript.Session, every int) *transcript.Session {
	for i := 3; i < len(s.Calls); i += every {
		if rs := s.Calls[i-3].Results; len(rs) > 0 && len(rs[0].Text) > 200 {
			t := rs[0].Text
			s.Calls[i].Text = "Looking at " + t[len(t)-120:]
		}
	}
	return s
}

func prepareBench(b *testing.B, s *transcript.Session) *Prepared {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	p, err := Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkReplay replays 10,000 results after a key changed the policy:
// each replay has a ceiling not seen before, so every truncation text is
// new and counted afresh (a spill's preview does not depend on the ceiling).
func BenchmarkReplay(b *testing.B) {
	p := prepareBench(b, withOutputs(benchSession(b, 10_000)))
	p.hazardIndex() // built once per session, before the first replay that shapes
	for _, preset := range []string{"harness-rs-0.0.40", "harness-rs-0.0.50", "claude-code", "codex"} {
		for _, hazards := range []bool{false, true} {
			name := preset + "/no-hazards"
			if hazards {
				name = preset + "/hazards"
			}
			b.Run(name, func(b *testing.B) {
				pol, _ := policy.Preset(preset)
				base := pol.Ceiling
				i := 0
				for b.Loop() {
					q := pol.Clone()
					q.SetCeiling(base + int64(i%64)*512)
					i++
					if _, err := p.Replay(q, Options{NoHazards: !hazards}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkHazardIndex builds the index of the agent's output strings
// that every policy's hazard pass shares, once per session: where every
// call quotes a result, and where one in 50 does (a few hundred strings
// to look for, as in the sessions of the generated fleet).
func BenchmarkHazardIndex(b *testing.B) {
	for _, every := range []int{1, 50} {
		b.Run(fmt.Sprintf("quoting-every-%d", every), func(b *testing.B) {
			p := prepareBench(b, quoting(benchSession(b, 10_000), every))
			for b.Loop() {
				buildHazardIndex(p)
			}
		})
	}
}

// BenchmarkPrepare measures and counts 10,000 results once.
func BenchmarkPrepare(b *testing.B) {
	s := benchSession(b, 10_000)
	c, _ := tokens.Get(tokens.O200kBase)
	for b.Loop() {
		if _, err := Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHazards is the hazard pass alone, after a replay of 10,000
// results: what looking for hazards adds to each replay.
func BenchmarkHazards(b *testing.B) {
	p := prepareBench(b, withOutputs(benchSession(b, 10_000)))
	p.hazardIndex()
	for _, preset := range []string{"harness-rs-0.0.40", "harness-rs-0.0.50", "claude-code", "codex"} {
		b.Run(preset, func(b *testing.B) {
			pol, _ := policy.Preset(preset)
			rp, err := p.Replay(pol, Options{NoHazards: true})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				rp.Totals.Hazards = HazardCounts{}
				rp.findHazards()
			}
			b.ReportMetric(float64(rp.Totals.Hazards.Total()), "hazards")
		})
	}
}

// BenchmarkHazardShare measures what looking for hazards adds to a
// replay of 10,000 results, as a share: each iteration replays at a new
// ceiling with and without the hazard pass, in alternating order, so that
// a busy machine slows both alike.
func BenchmarkHazardShare(b *testing.B) {
	p := prepareBench(b, withOutputs(benchSession(b, 10_000)))
	p.hazardIndex()
	for _, preset := range []string{"harness-rs-0.0.40", "harness-rs-0.0.50", "claude-code", "codex"} {
		b.Run(preset, func(b *testing.B) {
			pol, _ := policy.Preset(preset)
			base := pol.Ceiling
			var with, without time.Duration
			i := 0
			for b.Loop() {
				q := pol.Clone()
				q.SetCeiling(base + int64(i%64)*512)
				for k := range 2 {
					hazards := (i+k)%2 == 0
					start := time.Now()
					if _, err := p.Replay(q, Options{NoHazards: !hazards}); err != nil {
						b.Fatal(err)
					}
					if hazards {
						with += time.Since(start)
					} else {
						without += time.Since(start)
					}
				}
				i++
			}
			b.ReportMetric(100*float64(with-without)/float64(without), "%added")
		})
	}
}
