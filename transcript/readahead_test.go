package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/internal/slowtest"
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
		{"a last byte", log(3, "\n") + "x", Options{}},
		{"long lines", log(5, "\n") + strings.Repeat("x", 600) + "\n" + log(5, "\n") + strings.Repeat("y", 700), Options{MaxLineBytes: 500}},
		{"long first lines", strings.Repeat("x", 600) + "\n" + log(5, "\n"), Options{MaxLineBytes: 500}},
		{"lines at the limit", log(3, "\n") + strings.Repeat("x", 500) + "\n" + strings.Repeat("y", 501) + "\n" + log(3, "\n") + strings.Repeat("z", 500), Options{MaxLineBytes: 500}},
		{"long lines in a row", log(3, "\n") + strings.Repeat(strings.Repeat("x", 1500)+"\n", 4) + log(3, "\n"), Options{MaxLineBytes: 500}},
		{"long last line", log(3, "\n") + strings.Repeat("x", 70<<10), Options{MaxLineBytes: 500}},
		{"long last line, ended", log(3, "\n") + strings.Repeat("x", 70<<10) + "\n", Options{MaxLineBytes: 500}},
		{"lines longer than a read", log(3, "\n") + `{"type":"user","uuid":"big","message":{"content":"` + strings.Repeat("x", 70<<10) + `"}}` + "\n" + log(3, "\n"), Options{}},
		{"general path lines", strings.ReplaceAll(log(20, "\n"), `"uuid"`, ` "uuid"`) + log(3, "\n") + "not json\n[1]\n", Options{}},
		{"repeated", log(10, "\n") + log(10, "\n"), Options{}},
		{"not a transcript", strings.Repeat("{\"a\":1}\n", 300), Options{}},
		{"not a transcript, then one", strings.Repeat("{\"a\":1}\n", 300) + log(5, "\n"), Options{}},
		{"empty", "\n\n", Options{}},
	}
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"bytes", iotest.OneByteReader},
		{"halves", iotest.HalfReader},
		{"error with data", iotest.DataErrReader},
	}
	for _, tt := range tests {
		opt := tt.opt
		opt.SizesOnly = true
		want, wantErr := Read(strings.NewReader(tt.data), "x.jsonl", opt)
		for _, batch := range []int{1, 100, 1000, 1 << 20} {
			for _, rd := range readers {
				t.Run(fmt.Sprintf("%s/%d/%s", tt.name, batch, rd.name), func(t *testing.T) {
					opt := opt
					opt.aheadBatch = batch
					got, err := Read(rd.wrap(strings.NewReader(tt.data)), "x.jsonl", opt)
					if fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Fatalf("read ahead: %v; line by line: %v", err, wantErr)
					}
					if !reflect.DeepEqual(want, got) {
						t.Fatalf("read ahead, the session differs (-line by line +ahead):\n%s", cmp.Diff(want, got))
					}
				})
			}
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

// TestReadAheadHugeLines checks lines much longer than the bytes a batch
// keeps for the next (aheadKeepBytes): reads into a batch grown for one
// such line take in megabytes of the next, which must be carried whole to
// the batch it ends in, and read as line by line.
func TestReadAheadHugeLines(t *testing.T) {
	slowtest.OptIn(t, "reads three 40 MiB lines in batches of two sizes")
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"u%d","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-6","usage":{"input_tokens":3,"output_tokens":7},"content":[{"type":"tool_use","id":"t%d","name":"Read","input":{}}]}}`+"\n", i, i, i, i)
		fmt.Fprintf(&b, `{"type":"user","uuid":"v%d","timestamp":"2026-03-01T09:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"%s"}]}}`+"\n", i, i, strings.Repeat(`line\n`, 10*aheadKeepBytes/6))
	}
	data := b.String()
	want, err := Read(strings.NewReader(data), "x.jsonl", Options{SizesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(want.Results()); got != 3 || want.WarningCount != 0 {
		t.Fatalf("line by line: %d results, %d warnings; want 3 and none", got, want.WarningCount)
	}
	for _, batch := range []int{1 << 10, 1 << 20} {
		got, err := Read(strings.NewReader(data), "x.jsonl", Options{SizesOnly: true, aheadBatch: batch})
		if err != nil {
			t.Fatalf("batches of %d: %v", batch, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("batches of %d: read ahead (-line by line +ahead)\n%s", batch, diff)
		}
	}
}
