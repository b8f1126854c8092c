package index

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestSizedReaderFolder: the folder a log names is found among its first
// bytes however the reads that bring them are cut, and a cwd past the
// first peekBytes is not looked for.
func TestSizedReaderFolder(t *testing.T) {
	line := func(size int) string { // a record of size bytes, newline included
		return `{"type":"progress","data":"` + strings.Repeat("x", size-len(`{"type":"progress","data":""}`)-1) + `"}` + "\n"
	}
	filler := line(3000)
	withCwd := `{"type":"user","cwd":"/home/dev/shop","message":{"content":"hi"}}` + "\n"
	tests := []struct {
		name, log, want string
	}{
		{"first line", withCwd + filler, "/home/dev/shop"},
		{"short file", withCwd, "/home/dev/shop"},
		{"after some lines", strings.Repeat(filler, 20) + withCwd, "/home/dev/shop"},
		{"just within the peek", strings.Repeat(filler, 21) + line(peekBytes-21*3000-len(withCwd)) + withCwd, "/home/dev/shop"},
		{"cut by the peek", strings.Repeat(filler, 21) + line(peekBytes-21*3000-30) + withCwd, ""},
		{"past the peek", strings.Repeat(filler, 22) + withCwd, ""},
		{"none", strings.Repeat(filler, 3), ""},
	}
	reads := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte at a time", iotest.OneByteReader},
		{"halves", iotest.HalfReader},
	}
	for _, tt := range tests {
		for _, rd := range reads {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				r := &sizedReader{r: rd.wrap(strings.NewReader(tt.log)), size: int64(len(tt.log)), peek: peekBytes}
				if _, err := io.Copy(io.Discard, struct{ io.Reader }{r}); err != nil {
					t.Fatal(err)
				}
				if got := r.folder(); got != tt.want {
					t.Errorf("folder() = %q, want %q", got, tt.want)
				}
			})
		}
	}
}

// TestSummarizeTotalsOnly: what the index keeps of each shared log, alone
// and reconciled with the others, is the same read for its totals only
// (as the index reads) as read for its sizes.
func TestSummarizeTotalsOnly(t *testing.T) {
	paths := sharedtest.Transcripts(t, "*.jsonl")
	read := func(opt transcript.Options) []*transcript.Session {
		var sessions []*transcript.Session
		for _, p := range paths {
			s, err := transcript.ReadFile(p, opt)
			if err != nil {
				t.Fatal(err)
			}
			sessions = append(sessions, s)
		}
		return sessions
	}
	sizes := read(transcript.Options{SizesOnly: true})
	totals := read(transcript.Options{SizesOnly: true, TotalsOnly: true})
	same := func(how string) {
		t.Helper()
		for i := range paths {
			want, got := summarize(sizes[i], pricing.Default()), summarize(totals[i], pricing.Default())
			if d := cmp.Diff(want, got, cmp.AllowUnexported(fileSum{})); d != "" {
				t.Errorf("%s, %s (-sizes +totals):\n%s", filepath.Base(paths[i]), how, d)
			}
		}
	}
	same("alone")
	transcript.Reconcile(sizes)
	transcript.Reconcile(totals)
	same("reconciled")
}
