package index

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
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
