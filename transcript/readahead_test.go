package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAhead checks that a log read ahead reads as line by line where
// lines are unusual or reading fails: whatever the batches, the same
// session, warnings and error.
func TestReadAhead(t *testing.T) {
	const (
		call   = `{"type":"assistant","uuid":"u%d","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-6","stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":7},"content":[{"type":"tool_use","id":"t%d","name":"Read","input":{"file_path":"/a"}}]}}`
		result = `{"type":"user","uuid":"v%d","timestamp":"2026-03-01T09:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"a\nb"}]}}`
	)
	log := func(n int, sep string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, call+sep+result+sep, i, i, i, i, i, i)
		}
		return b.String()
	}
	tests := []struct {
		name string
		data string
		opt  Options
	}{
		{"plain", log(40, "\n"), Options{}},
		{"claude named", log(40, "\n"), Options{Format: FormatClaude}},
		{"carriage returns", log(40, "\r\n"), Options{}},
		{"byte-order mark", "\uFEFF" + log(40, "\n"), Options{}},
		{"blank lines", "\n\n" + log(20, "\n\n  \n"), Options{}},
		{"no last newline", strings.TrimSuffix(log(20, "\n"), "\n"), Options{}},
		{"long lines", log(5, "\n") + strings.Repeat("x", 600) + "\n" + log(5, "\n") + strings.Repeat("y", 700), Options{MaxLineBytes: 500}},
		{"long first lines", strings.Repeat("x", 600) + "\n" + log(5, "\n"), Options{MaxLineBytes: 500}},
		{"general path lines", strings.ReplaceAll(log(20, "\n"), `"uuid"`, ` "uuid"`) + log(3, "\n") + "not json\n[1]\n", Options{}},
		{"repeated", log(10, "\n") + log(10, "\n"), Options{}},
		{"not a transcript", strings.Repeat("{\"a\":1}\n", 300), Options{}},
		{"not a transcript, then one", strings.Repeat("{\"a\":1}\n", 300) + log(5, "\n"), Options{}},
		{"empty", "\n\n", Options{}},
	}
	for _, tt := range tests {
		for _, batch := range []int{1, 100, 1000, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, batch), func(t *testing.T) {
				opt := tt.opt
				opt.SizesOnly = true
				want, wantErr := Read(strings.NewReader(tt.data), "x.jsonl", opt)
				opt.aheadBatch = batch
				sameAhead(t, []byte(tt.data), "x.jsonl", opt, want, wantErr)
			})
		}
	}
}

// TestReadAheadFails checks that an error reading the input ends reading
// ahead with it, as it ends reading line by line.
func TestReadAheadFails(t *testing.T) {
	boom := errors.New("disk gone")
	data := []byte(strings.Repeat(`{"type":"system","uuid":"x","subtype":"turn_duration"}`+"\n", 100))
	for _, batch := range []int{0, 1, 500} {
		opt := Options{SizesOnly: true, aheadBatch: batch}
		_, err := Read(io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom)), "x.jsonl", opt)
		if !errors.Is(err, boom) || err.Error() != "read x.jsonl: read lines: disk gone" {
			t.Errorf("batches of %d: error %v, want read x.jsonl: read lines: disk gone", batch, err)
		}
	}
}
