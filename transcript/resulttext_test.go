package transcript

import (
	"bytes"
	"strings"
	"testing"
)

// TestResultText: every result of the fixtures and the shared logs whose
// text's start the reader noted reads again from its line alone as the
// full read gives it, whichever way the first read went (in full, for
// sizes, without the results' texts); a line changed after the read is
// refused, not misread.
func TestResultText(t *testing.T) {
	noted := 0
	for _, path := range realLogs(t) {
		data := readFixture(t, path)
		lines := bytes.Split(data, []byte("\n"))
		full, err := Read(bytes.NewReader(data), path, Options{})
		if err != nil {
			continue // not a transcript: other tests say so
		}
		want := full.Results()
		for _, opt := range []Options{{}, {SizesOnly: true}, {DropResultTexts: true}} {
			s, err := Read(bytes.NewReader(data), path, opt)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range s.Results() {
				if r.TextAt != want[i].TextAt {
					t.Fatalf("%s line %d: text at %d read %+v, at %d in full", path, r.Line, r.TextAt, opt, want[i].TextAt)
				}
				text, ok := ResultText(lines[r.Line-1], r.Line, r)
				if ok != (r.TextAt > 0) || ok && text != want[i].Text {
					t.Fatalf("%s line %d: read again %q (%v), want %q", path, r.Line, text, ok, want[i].Text)
				}
				if ok && opt == (Options{}) {
					noted++
					changed := bytes.Clone(lines[r.Line-1])
					changed[r.TextAt] = ' '
					if _, ok := ResultText(changed, r.Line, r); ok {
						t.Fatalf("%s line %d: read again from a changed line", path, r.Line)
					}
				}
			}
		}
	}
	if noted == 0 {
		t.Fatal("no result's text was noted where it starts")
	}
	t.Logf("%d texts read again from their lines alone", noted)

	// A byte-order mark before the first line, and a text that is not
	// valid UTF-8 as written, which only a full read makes valid.
	user := func(text string) []byte {
		return []byte(`{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + text + `"}]}}`)
	}
	for _, tt := range []struct {
		name  string
		line  []byte
		again bool
	}{
		{"byte-order mark", append([]byte("\uFEFF"), user(`a \"quoted\" line\n`)...), true},
		{"invalid UTF-8", user("bad \xff\xfe\xfd byte"), false}, // as long as U+FFFD
	} {
		s, err := Read(bytes.NewReader(tt.line), "log.jsonl", Options{DropResultTexts: true})
		if err != nil {
			t.Fatal(err)
		}
		full, _ := Read(bytes.NewReader(tt.line), "log.jsonl", Options{})
		r := s.Results()[0]
		text, ok := ResultText(tt.line, 1, r)
		if ok != tt.again || ok && text != full.Results()[0].Text {
			t.Errorf("%s: read again %q (%v), want %q (%v)", tt.name, text, ok, full.Results()[0].Text, tt.again)
		}
	}
}

// TestResultTextAllocatesOnce: a text read again, escaped or not, costs
// one allocation of its size. The list reads every text of a month of
// logs again to index their hazards; a second copy was a fifth of all it
// allocated.
func TestResultTextAllocatesOnce(t *testing.T) {
	for _, content := range []string{`plain text of a result`, strings.Repeat(`a line of \"grep\" output, as most results hold\n`, 20)} {
		line := []byte(`{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + content + `"}]}}`)
		s, err := Read(bytes.NewReader(line), "log.jsonl", Options{DropResultTexts: true})
		if err != nil {
			t.Fatal(err)
		}
		r := s.Results()[0]
		if allocs := testing.AllocsPerRun(100, func() {
			if _, ok := ResultText(line, 1, r); !ok {
				t.Fatal("not read again")
			}
		}); allocs != 1 {
			t.Errorf("%.20s…: %v allocations, want 1", content, allocs)
		}
	}
}
