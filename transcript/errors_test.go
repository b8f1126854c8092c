package transcript

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNotATranscript(t *testing.T) {
	tests := []struct {
		name, content, reason string
	}{
		{"notes.md", "# Notes\n\nSome text.\n", "no line is a JSON object"},
		{"package.json", "{\n  \"name\": \"x\"\n}\n", "no line is a JSON object"},
		{"events.jsonl", `{"event":"click","x":1}` + "\n" + `{"event":"scroll"}` + "\n", "its JSON lines match no known record shape"},
		{"numbers.jsonl", "1\n2\n3\n", "no line is a JSON object"},
		// ccusage's own fixtures write usage lines without a type.
		{"untyped.jsonl", `{"timestamp":"2026-05-22T02:34:40.000Z","message":{"id":"m","usage":{"input_tokens":1}}}` + "\n",
			`its JSON lines match no known record shape: line 1 has "message", as a Claude Code record does, but no "type" field`},
		{"untyped-late.jsonl", `{"event":"click"}` + "\n" + `{"sessionId":"s","timestamp":"2026-05-22T02:34:40.000Z"}` + "\n",
			`its JSON lines match no known record shape: line 2 has "sessionId", as a Claude Code record does, but no "type" field`},
		{"binary.bin", "\x00\x01\x02\xff\xfe", "no line is a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path, Options{})
			var nt *NotTranscriptError
			if !errors.As(err, &nt) {
				t.Fatalf("err = %v, want a NotTranscriptError", err)
			}
			if nt.Reason != tt.reason || nt.Path != path {
				t.Errorf("got path %q reason %q, want %q %q", nt.Path, nt.Reason, path, tt.reason)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "expected JSON Lines written by Claude Code, Codex CLI or Antigravity") {
				t.Errorf("message should be one line naming what was expected: %q", msg)
			}
		})
	}
}

func TestNotATranscriptStopsEarly(t *testing.T) {
	// A long non-transcript is rejected after detectLimit lines, not read to the end.
	r := strings.NewReader(strings.Repeat("plain text line\n", 1_000_000))
	_, err := Read(r, "big.txt", Options{})
	var nt *NotTranscriptError
	if !errors.As(err, &nt) {
		t.Fatalf("err = %v", err)
	}
	if left := r.Len(); left < 10_000_000 {
		t.Errorf("read %d bytes before rejecting, want at most a few chunks", 16_000_000-left)
	}
}

// TestNotATranscriptHoldsLittle: lines of other JSON are held while the
// format is unknown only up to the longest line's bytes: 1,000 here, so
// the second of 600 bytes ends the read, not the 200th.
func TestNotATranscriptHoldsLittle(t *testing.T) {
	line := `{"id":1,"text":"` + strings.Repeat("x", 580) + `"}` + "\n"
	r := strings.NewReader(strings.Repeat(line, 300))
	_, err := Read(r, "dataset.jsonl", Options{MaxLineBytes: 1000})
	var nt *NotTranscriptError
	if !errors.As(err, &nt) {
		t.Fatalf("err = %v", err)
	}
	if want := "its first 2 lines (1,196 bytes) are none of a known log's records: its JSON lines match no known record shape"; nt.Reason != want {
		t.Errorf("reason %q, want %q", nt.Reason, want)
	}
}

// TestCheckFormat: a log read as another agent's format it was told
// (--input-format) is no transcript where it holds no call, saying whose
// its records are; not told to check, it is an empty session as before.
func TestCheckFormat(t *testing.T) {
	codex := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s","cwd":"/w","cli_version":"0.128.0"}}` + "\n"
	for _, tt := range []struct{ content, reason string }{
		{codex, "read as claude-code (--input-format), its records are codex's"},
		{`{"a":1}` + "\n", "read as claude-code (--input-format), no line is one of its records"},
	} {
		_, err := Read(strings.NewReader(tt.content), "x.jsonl", Options{Format: FormatClaude, CheckFormat: true})
		var nt *NotTranscriptError
		if !errors.As(err, &nt) || nt.Reason != tt.reason {
			t.Errorf("%.40q: err = %v, want the reason %q", tt.content, err, tt.reason)
		}
		if s, err := Read(strings.NewReader(tt.content), "x.jsonl", Options{Format: FormatClaude}); err != nil || len(s.Calls) != 0 {
			t.Errorf("%.40q unchecked: %v", tt.content, err)
		}
	}
	claude, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "replays.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Read(strings.NewReader(string(claude)), "c.jsonl", Options{Format: FormatClaude, CheckFormat: true}); err != nil || len(s.Calls) == 0 {
		t.Errorf("a Claude Code log read as one: %v", err)
	}
}

func TestEmpty(t *testing.T) {
	for _, content := range []string{"", "\n\n  \n\r\n"} {
		_, err := Read(strings.NewReader(content), "empty.jsonl", Options{})
		if !errors.Is(err, ErrEmpty) {
			t.Errorf("Read(%q) err = %v, want ErrEmpty", content, err)
		}
	}
}

func TestDirectory(t *testing.T) {
	_, err := ReadFile(t.TempDir(), Options{})
	if err == nil || !strings.Contains(err.Error(), "is a folder, not a regular file") {
		t.Errorf("err = %v", err)
	}
}

func TestForcedFormat(t *testing.T) {
	// A Codex file read as Claude Code yields no calls and counts its
	// records as unknown types rather than failing.
	s, err := ReadFile(fixture("codex.jsonl"), Options{Format: FormatClaude})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"session_meta": 1, "turn_context": 1, "event_msg": 9, "response_item": 10, "compacted": 1}
	if len(s.Calls) != 0 || !maps.Equal(s.Skipped, want) {
		t.Errorf("calls %d, skipped %v", len(s.Calls), s.Skipped)
	}
}

func TestDetectAfterMalformedFirstLine(t *testing.T) {
	in := "{broken\n" + `{"spillway":"transcript/v1","session_id":"x"}` + "\n" + `{"role":"user","content":"hi"}` + "\n"
	s, err := Read(strings.NewReader(in), "g.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != FormatGeneric || s.ID != "x" || s.WarningCount != 1 || s.Warnings[0].Line != 1 {
		t.Errorf("format %s id %q warnings %v", s.Format, s.ID, s.Warnings)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": "", "auto": "", "claude": FormatClaude, "Codex": FormatCodex, "antigravity": FormatAntigravity, "generic": FormatGeneric} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("aider"); err == nil {
		t.Error("ParseFormat(aider) should fail")
	}
}
