package spillview

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeFile writes text to a file in a fresh temporary folder.
func writeFile(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// lineTexts reads every line of d as displayed (capped, CR dropped).
func lineTexts(t testing.TB, d *Document) []string {
	t.Helper()
	var out []string
	for i := range d.Lines() {
		raw, _, _, err := d.readLine(i)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(raw))
	}
	return out
}

func TestOpenLineIndex(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 833*1024/16) // 833 KiB, one line
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"only newline", "\n", []string{""}},
		{"one line no newline", "abc", []string{"abc"}},
		{"one line newline", "abc\n", []string{"abc"}},
		{"final newline", "a\nbb\nccc\n", []string{"a", "bb", "ccc"}},
		{"no final newline", "a\nbb\nccc", []string{"a", "bb", "ccc"}},
		{"blank lines", "\n\na\n\n", []string{"", "", "a", ""}},
		{"crlf", "a\r\nbb\r\n\r\nccc", []string{"a", "bb", "", "ccc"}},
		{"lone cr kept", "a\rb\n", []string{"a\rb"}},
		{"single long line", long, []string{long[:maxLineRead]}},
		{"long line then short", long + "\nend\n", []string{long[:maxLineRead], "end"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"file", "memory"} {
				src := Source{Text: tt.text}
				if mode == "file" {
					src = Source{Path: writeFile(t, "spill.txt", tt.text)}
				}
				d, err := Open(src)
				if err != nil {
					t.Fatal(err)
				}
				if d.Size() != int64(len(tt.text)) {
					t.Errorf("%s: Size = %d, want %d", mode, d.Size(), len(tt.text))
				}
				if d.Lines() != len(tt.want) {
					t.Errorf("%s: Lines = %d, want %d", mode, d.Lines(), len(tt.want))
				}
				if diff := cmp.Diff(tt.want, lineTexts(t, d)); diff != "" {
					t.Errorf("%s: lines (-want +got):\n%.500s", mode, diff)
				}
				if err := d.Close(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestReadLineCap(t *testing.T) {
	// A 3-byte rune straddles the cap: it is left out, not half-shown.
	text := strings.Repeat("a", maxLineRead-1) + "世" + strings.Repeat("b", 100)
	d, err := Open(Source{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	raw, from, rest, err := d.readLine(0)
	if err != nil {
		t.Fatal(err)
	}
	if from != 0 || len(raw) != maxLineRead-1 || rest != int64(len(text)-(maxLineRead-1)) {
		t.Errorf("readLine = %d bytes from %d, rest %d; want %d bytes, rest %d", len(raw), from, rest, maxLineRead-1, len(text)-(maxLineRead-1))
	}
}

func TestOpenErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.txt")
	_, err := Open(Source{Path: missing})
	if err == nil {
		t.Fatal("Open of a missing file succeeded")
	}
	if want := "open spill file " + missing + ": no such file or directory"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v is not fs.ErrNotExist", err)
	}
	dir := t.TempDir()
	if _, err := Open(Source{Path: dir}); err == nil || !strings.Contains(err.Error(), "is a folder, not a regular file") {
		t.Errorf("Open of a directory: err = %v", err)
	}
}

func TestSearch(t *testing.T) {
	tests := []struct {
		name, text, query string
		want              []int
	}{
		{"case-insensitive", "Alpha\nbeta\nALPHA beta\ngamma", "alpha", []int{0, 2}},
		{"upper query", "Alpha\nbeta\nalpha", "ALPHA", []int{0, 2}},
		{"one hit per line", "aaaa\nb\naa", "a", []int{0, 2}},
		{"last line without newline", "x\ny\nneedle", "needle", []int{2}},
		{"crlf", "one\r\ntwo\r\nthree\r\n", "two", []int{1}},
		{"unicode fold", "ÉCOLE\nécole\necole", "école", []int{0, 1}},
		{"no match", "a\nb\n", "zzz", nil},
		{"empty query", "a\nb\n", "", nil},
		{"empty text", "", "a", nil},
		{"query across lines does not match", "ab\ncd", "b\nc", []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Open(Source{Text: tt.text})
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Search(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Search(%q) (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

// TestSearchChunks puts a match across a chunk boundary inside a line
// longer than a chunk (found through the overlap kept there), then matches
// on ordinary lines after it, whose line numbers must still be right.
func TestSearchChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("start\n")
	b.WriteString(strings.Repeat("x", searchChunk-4) + "NeEdLe" + strings.Repeat("y", searchChunk) + "\n") // line 1
	b.WriteString("plain\n")                                                                               // line 2
	for b.Len() < 3*searchChunk-3 {
		b.WriteString("filler line\n")
	}
	straddle := strings.Count(b.String(), "\n")
	b.WriteString("a needle that crosses a chunk edge\n")
	b.WriteString("tail needle")
	text := b.String()
	want := []int{1, straddle, straddle + 1}
	for _, src := range []Source{{Text: text}, {Path: writeFile(t, "big.txt", text)}} {
		d, err := Open(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Search("needle")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Search (-want +got):\n%s", diff)
		}
		d.Close()
	}
}

func TestSearchClosed(t *testing.T) {
	d, err := Open(Source{Path: writeFile(t, "a.txt", "a\nb\n")})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := d.Search("a"); err == nil {
		t.Error("Search on a closed document succeeded")
	}
}

// write50MB writes a 50 MB file of numbered 80-byte lines.
func write50MB(t testing.TB) (path string, lines int) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "big.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := []byte("00000000 " + strings.Repeat("lorem ipsum ", 6)[:70] + "\n")
	for n := 0; n < 50<<20; n += len(line) {
		for i, v := 7, lines; i >= 0; i, v = i-1, v/10 {
			line[i] = byte('0' + v%10)
		}
		w.Write(line)
		lines++
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, lines
}

// TestOpen50MB checks that opening a large file is fast and streams: what it
// allocates is the line index (8 bytes a line) and one read buffer, far
// less than the file.
func TestOpen50MB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 50 MB file")
	}
	path, lines := write50MB(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	d, err := Open(Source{Path: path})
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Lines() != lines || d.Size() != 50<<20 {
		t.Fatalf("Lines, Size = %d, %d; want %d, %d", d.Lines(), d.Size(), lines, 50<<20)
	}
	if took > time.Second {
		t.Errorf("Open took %v", took)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(8*lines*2 + 1<<20); alloc > limit {
		t.Errorf("Open allocated %d bytes for %d lines; want at most %d (the file is %d)", alloc, lines, limit, 50<<20)
	}
	t.Logf("open 50 MB, %d lines: %v, %d bytes allocated", lines, took, alloc)
	if raw, _, _, err := d.readLine(lines - 1); err != nil || !strings.HasPrefix(string(raw), fmt.Sprintf("%08d ", lines-1)) {
		t.Errorf("last line = %q, %v", raw, err)
	}
}

func BenchmarkOpen50MB(b *testing.B) {
	path, _ := write50MB(b)
	b.SetBytes(50 << 20)
	b.ReportAllocs()
	for b.Loop() {
		d, err := Open(Source{Path: path})
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

func BenchmarkSearch50MB(b *testing.B) {
	path, _ := write50MB(b)
	d, err := Open(Source{Path: path})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.SetBytes(50 << 20)
	for b.Loop() {
		if _, err := d.Search("00012345"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoneCRKept: a CR before a line's LF is the line break's; one that
// ends the text is the text's own and is shown.
func TestLoneCRKept(t *testing.T) {
	for text, want := range map[string]string{"one\rtwo\r": "one\rtwo\r", "one\r\n": "one", "one\r\ntwo\r": "one"} {
		d, err := Open(Source{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if raw, _, _, _ := d.readLine(0); string(raw) != want {
			t.Errorf("%q: line 1 %q, want %q", text, raw, want)
		}
	}
	d, _ := Open(Source{Text: "one\r\ntwo\r"})
	if raw, _, _, _ := d.readLine(1); string(raw) != "two\r" {
		t.Errorf("last line %q, want %q", raw, "two\r")
	}
}

// TestShrunk: a line the file no longer holds says so, where it said
// "read line 9: EOF".
func TestShrunk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shrink.txt")
	if err := os.WriteFile(path, []byte(numbered(20)), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Open(Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := d.readLine(10); err == nil || err.Error() != "line 11 is gone: the file is shorter than when it was opened" {
		t.Errorf("line 11: %v", err)
	}
}
