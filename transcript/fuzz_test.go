package transcript

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// fuzzReader reads arbitrary bytes as format and checks the invariants
// every consumer relies on, and that reading sizes only changes nothing
// but the texts. The seeds are the fixtures, whole, spaced out and line by
// line.
func fuzzReader(f *testing.F, format Format, seedFiles ...string) {
	for _, name := range seedFiles {
		data, err := os.ReadFile(fixture(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(spaced(data))
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, sizes, err := readBoth(t, data, "fuzz.jsonl", Options{Format: format})
		if err != nil {
			var nt *NotTranscriptError
			if errors.Is(err, ErrEmpty) || errors.As(err, &nt) {
				return
			}
			t.Fatalf("unexpected error: %v", err)
		}
		checkSession(t, s)
		sameButTexts(t, s, sizes)
	})
}

func checkSession(t *testing.T, s *Session) {
	t.Helper()
	if s.WarningCount < len(s.Warnings) || len(s.Warnings) > MaxWarnings {
		t.Fatalf("%d warnings kept, %d counted", len(s.Warnings), s.WarningCount)
	}
	segment := 0
	for i, c := range s.Calls {
		if c.Index != i {
			t.Fatalf("call %d has index %d", i, c.Index)
		}
		if c.Segment < segment {
			t.Fatalf("call %d goes back to segment %d", i, c.Segment)
		}
		segment = c.Segment
		if u := c.Usage; u != nil && (u.Input < 0 || u.CacheCreation < 0 || u.CacheRead < 0 || u.Output < 0 || u.CacheCreation1h > u.CacheCreation) {
			t.Fatalf("call %d has impossible usage %+v", i, *u)
		}
	}
	for _, r := range s.Results() {
		if r.CallIndex < -1 || r.CallIndex >= len(s.Calls) {
			t.Fatalf("result %q links to call %d of %d", r.CallID, r.CallIndex, len(s.Calls))
		}
		if r.Line < 1 || r.Line > s.Lines {
			t.Fatalf("result on line %d of %d", r.Line, s.Lines)
		}
	}
	for _, e := range s.Events {
		if e.BeforeCall < 0 || e.BeforeCall > len(s.Calls) {
			t.Fatalf("event before call %d of %d", e.BeforeCall, len(s.Calls))
		}
	}
}

func FuzzClaude(f *testing.F) {
	// A call at the largest token counts read, whose cost overflowed
	// int64 micro-dollars three calls on.
	f.Add([]byte(`{"type":"assistant","uuid":"u0","sessionId":"s","timestamp":"2026-01-02T10:00:00Z","requestId":"r0",` +
		`"message":{"id":"m0","model":"big","stop_reason":"end_turn","usage":{"input_tokens":1000000000000,"output_tokens":1000000000000,` +
		`"cache_creation_input_tokens":1000000000000,"cache_read_input_tokens":1000000000001},"content":[{"type":"text","text":"hi"}]}}` + "\n"))
	fuzzReader(f, FormatClaude, "claude.jsonl", "../claude/replays.jsonl",
		"../claude/stream-logged-2.1.38.jsonl", "../claude/lines-disagree-glm-5.jsonl", "../claude/agent-progress-2.1.38.jsonl")
}
func FuzzCodex(f *testing.F)       { fuzzReader(f, FormatCodex, "codex.jsonl") }
func FuzzAntigravity(f *testing.F) { fuzzReader(f, FormatAntigravity, "antigravity.jsonl") }
func FuzzGeneric(f *testing.F)     { fuzzReader(f, FormatGeneric, "generic.jsonl") }

// FuzzDetect reads arbitrary bytes with format detection.
func FuzzDetect(f *testing.F) {
	fuzzReader(f, "", "claude.jsonl", "codex.jsonl", "antigravity.jsonl", "generic.jsonl")
}
