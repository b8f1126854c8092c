package lines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// splitAll feeds chunks to a fresh Splitter and returns the lines (copied)
// and what is left pending.
func splitAll(t testing.TB, chunks [][]byte) (lines []string, pending string) {
	t.Helper()
	var s Splitter
	for _, c := range chunks {
		err := s.Split(c, func(line []byte) error {
			lines = append(lines, string(line))
			return nil
		})
		if err != nil {
			t.Fatalf("Split: %v", err)
		}
	}
	return lines, string(s.Pending())
}

// want gives the complete lines of data and its trailing partial line.
func want(data string) ([]string, string) {
	parts := strings.Split(data, "\n")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

func TestSplitterChunkBoundaries(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"empty", ""},
		{"one newline", "\n"},
		{"empty lines", "\n\n\n"},
		{"two lines", "a\nb\n"},
		{"partial last", "a\nbc"},
		{"no newline", "no newline at all"},
		{"multibyte", "héllo wörld\n日本語\n🙂\n"},
		{"crlf kept", "a\r\nb\r\n\r\n"},
		{"json", "{\"type\":\"user\",\"text\":\"€ 5\"}\n{\"type\":\"assistant\"}\n{\"part"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantLines, wantPending := want(tt.data)
			data := []byte(tt.data)
			// Every split into two chunks, and every split into three.
			for i := 0; i <= len(data); i++ {
				for j := i; j <= len(data); j++ {
					chunks := [][]byte{data[:i], data[i:j], data[j:]}
					lines, pending := splitAll(t, chunks)
					if diff := cmp.Diff(wantLines, lines, cmpopts.EquateEmpty()); diff != "" {
						t.Fatalf("cuts at %d,%d: lines mismatch (-want +got):\n%s", i, j, diff)
					}
					if pending != wantPending {
						t.Fatalf("cuts at %d,%d: pending %q, want %q", i, j, pending, wantPending)
					}
				}
			}
		})
	}
}

func TestSplitterLongLine(t *testing.T) {
	long := bytes.Repeat([]byte("0123456789abcdef"), 2<<20/16) // 2 MiB
	data := append([]byte("first\n"), long...)
	data = append(data, "\nlast\ntail"...)
	for _, size := range []int{1 << 10, 4 << 10, 1 << 20, len(data)} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			var chunks [][]byte
			for p := data; len(p) > 0; {
				n := min(size, len(p))
				chunks = append(chunks, p[:n])
				p = p[n:]
			}
			lines, pending := splitAll(t, chunks)
			if len(lines) != 3 || lines[0] != "first" || lines[1] != string(long) || lines[2] != "last" {
				t.Fatalf("got %d lines with lengths %v", len(lines), lens(lines))
			}
			if pending != "tail" {
				t.Fatalf("pending %q, want %q", pending, "tail")
			}
		})
	}
}

// TestSplitterLimit cuts every line at every place: a line of exactly Max
// bytes comes through, a longer one is reported by its length, in order,
// and nothing of it is kept pending.
func TestSplitterLimit(t *testing.T) {
	data := []byte("abcd\nabcde\n\nabcdefghij\nab\nabcdefg")
	want := []string{"abcd", "<5>", "", "<10>", "ab"}
	for i := 0; i <= len(data); i++ {
		for j := i; j <= len(data); j++ {
			var got []string
			s := Splitter{Limit: Limit{Max: 4, Long: func(n int64) error {
				got = append(got, fmt.Sprintf("<%d>", n))
				return nil
			}}}
			for _, c := range [][]byte{data[:i], data[i:j], data[j:]} {
				if err := s.Split(c, func(line []byte) error {
					got = append(got, string(line))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if len(s.Pending()) > 4 {
					t.Fatalf("cuts at %d,%d: %d bytes pending over a limit of 4", i, j, len(s.Pending()))
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("cuts at %d,%d (-want +got):\n%s", i, j, diff)
			}
			if s.Skipping() != 7 || len(s.Pending()) != 0 {
				t.Fatalf("cuts at %d,%d: skipping %d, pending %q; want the last line's 7 bytes skipped", i, j, s.Skipping(), s.Pending())
			}
		}
	}
}

// patternReader yields n bytes of a repeating pattern, never all in memory.
type patternReader struct {
	pattern []byte
	off, n  int64
}

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.off < r.n {
		c := copy(p[k:min(len(p), k+int(r.n-r.off))], r.pattern[r.off%int64(len(r.pattern)):])
		k += c
		r.off += int64(c)
	}
	return k, nil
}

// allocated is the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadAllHugeLine streams a 200 MiB line past a 1 MiB limit: it is
// reported with its length, the lines around it come through, and what is
// allocated stays far below the line's size.
func TestReadAllHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MiB")
	}
	const huge = 200 << 20
	r := io.MultiReader(strings.NewReader("first\n"),
		&patternReader{pattern: []byte("0123456789abcdef"), n: huge},
		strings.NewReader("\nlast\n"))
	var got []string
	var err error
	alloc := allocated(func() {
		err = ReadAll(r, Limit{Max: 1 << 20, Long: func(n int64) error {
			got = append(got, fmt.Sprintf("skipped %d", n))
			return nil
		}}, func(line []byte, complete bool) error {
			got = append(got, string(line))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first", fmt.Sprintf("skipped %d", huge), "last"}, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if alloc > 8<<20 {
		t.Errorf("reading allocated %d bytes; want at most 8 MiB, whatever the input", alloc)
	}
}

// endless is /dev/zero: it never ends and never writes a newline.
type endless struct{ n, stop int64 }

func (r *endless) Read(p []byte) (int, error) {
	if r.n >= r.stop {
		return 0, errStopped
	}
	clear(p)
	r.n += int64(len(p))
	return len(p), nil
}

var errStopped = errors.New("stopped")

// TestReadAllEndless reads an endless input without a newline (stopped
// after 512 MiB) under a 1 MiB limit: memory does not grow with it.
func TestReadAllEndless(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 512 MiB")
	}
	r := &endless{stop: 512 << 20}
	var err error
	alloc := allocated(func() {
		err = ReadAll(r, Limit{Max: 1 << 20}, func([]byte, bool) error {
			t.Error("a line came out of an endless one")
			return nil
		})
	})
	if !errors.Is(err, errStopped) {
		t.Fatalf("got %v, want the reader's error", err)
	}
	if alloc > 8<<20 {
		t.Errorf("reading %d bytes allocated %d; want at most 8 MiB, whatever the input", r.n, alloc)
	}
}

func lens(ss []string) []int {
	var n []int
	for _, s := range ss {
		n = append(n, len(s))
	}
	return n
}

func TestSplitterPendingReset(t *testing.T) {
	var s Splitter
	var got []string
	collect := func(line []byte) error { got = append(got, string(line)); return nil }

	if err := s.Split([]byte("abc"), collect); err != nil {
		t.Fatal(err)
	}
	if err := s.Split([]byte("de"), collect); err != nil {
		t.Fatal(err)
	}
	if p := string(s.Pending()); p != "abcde" {
		t.Fatalf("Pending = %q, want %q", p, "abcde")
	}
	s.Reset()
	if p := s.Pending(); len(p) != 0 {
		t.Fatalf("Pending after Reset = %q, want empty", p)
	}
	if err := s.Split([]byte("x\ny"), collect); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"x"}, got); diff != "" {
		t.Fatalf("lines (-want +got):\n%s", diff)
	}
	if p := string(s.Pending()); p != "y" {
		t.Fatalf("Pending = %q, want %q", p, "y")
	}
}

func TestSplitterZeroCopy(t *testing.T) {
	var s Splitter
	p := []byte("one\ntwo\n")
	err := s.Split(p, func(line []byte) error {
		if &line[0] != &p[0] && &line[0] != &p[4] {
			t.Errorf("line %q was copied", line)
		}
		if cap(line) != len(line) {
			t.Errorf("line %q has cap %d: appending to it would overwrite the input", line, cap(line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSplitterError(t *testing.T) {
	stop := errors.New("stop")
	for _, prefix := range []string{"", "held"} {
		t.Run("pending="+prefix, func(t *testing.T) {
			var s Splitter
			var got []string
			if err := s.Split([]byte(prefix), nil); err != nil {
				t.Fatal(err)
			}
			err := s.Split([]byte("a\nb\nc\nd"), func(line []byte) error {
				got = append(got, string(line))
				if len(got) == 2 {
					return stop
				}
				return nil
			})
			if !errors.Is(err, stop) {
				t.Fatalf("Split error = %v, want %v", err, stop)
			}
			if diff := cmp.Diff([]string{prefix + "a", "b"}, got); diff != "" {
				t.Fatalf("lines (-want +got):\n%s", diff)
			}
			if p := s.Pending(); len(p) != 0 {
				t.Fatalf("Pending after error = %q, want empty", p)
			}
		})
	}
}

type readLine struct {
	Line     string
	Complete bool
}

func readAll(t *testing.T, r io.Reader) []readLine {
	t.Helper()
	var got []readLine
	err := ReadAll(r, Limit{}, func(line []byte, complete bool) error {
		got = append(got, readLine{string(line), complete})
		return nil
	})
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return got
}

func TestReadAll(t *testing.T) {
	big := func(c byte) string { return `{"image":"` + strings.Repeat(string(c), 833_000) + `"}` }
	tests := []struct {
		name string
		data string
		want []readLine
	}{
		{"empty", "", nil},
		{"final line without newline", "a\nb", []readLine{{"a", true}, {"b", false}}},
		{"final newline", "a\n", []readLine{{"a", true}}},
		{"empty line", "\n", []readLine{{"", true}}},
		{"crlf", "a\r\nb\r", []readLine{{"a\r", true}, {"b\r", false}}},
		{"833 KB lines", big('A') + "\n" + big('B') + "\n" + big('C'),
			[]readLine{{big('A'), true}, {big('B'), true}, {big('C'), false}}},
	}
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"plain", func(r io.Reader) io.Reader { return r }},
		{"half", iotest.HalfReader},
		{"data with EOF", iotest.DataErrReader},
	}
	for _, tt := range tests {
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				got := readAll(t, rd.wrap(strings.NewReader(tt.data)))
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Fatalf("lines (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestReadAllErrors(t *testing.T) {
	boom := errors.New("boom")
	err := ReadAll(io.MultiReader(strings.NewReader("a\n"), iotest.ErrReader(boom)), Limit{},
		func([]byte, bool) error { return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("reader error: got %v, want it to wrap %v", err, boom)
	}

	stop := errors.New("stop")
	n := 0
	err = ReadAll(strings.NewReader("a\nb\nc"), Limit{}, func([]byte, bool) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("callback error: got %v after %d calls, want %v after 1", err, n, stop)
	}
	err = ReadAll(strings.NewReader("a\nb\nc"), Limit{}, func(_ []byte, complete bool) error {
		if !complete {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Fatalf("callback error on final line: got %v, want %v", err, stop)
	}
}

type chunkReader struct {
	data []byte
	cuts []byte
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(r.data)
	if len(r.cuts) > 0 {
		n = int(r.cuts[0])%64 + 1
		r.cuts = r.cuts[1:]
	}
	n = copy(p, r.data[:min(n, len(r.data))])
	r.data = r.data[n:]
	return n, nil
}

func FuzzSplitter(f *testing.F) {
	f.Add([]byte("a\nb\nc"), []byte{1, 2, 3})
	f.Add([]byte(""), []byte{})
	f.Add([]byte("\n\n\n"), []byte{0, 0, 0})
	f.Add([]byte("héllo\r\nwörld\r\n日本語"), []byte{2, 5, 7, 11})
	f.Add([]byte("{\"a\":1}\n{\"b\":\"€\"}\n{\"c\""), []byte{9, 3})
	f.Add(bytes.Repeat([]byte("x"), 300), []byte{63, 63, 63, 63, 63})
	// Standard input without a newline, which was read past forever.
	f.Add(append([]byte("{}\n"), bytes.Repeat([]byte("x"), 5000)...), []byte{3, 60, 60})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		wantLines, wantPending := want(string(data))

		// Chunk boundaries chosen by cuts.
		var chunks [][]byte
		rest := data
		for _, c := range cuts {
			n := min(int(c), len(rest))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		chunks = append(chunks, rest)
		lines, pending := splitAll(t, chunks)
		if !slices.Equal(wantLines, lines) || pending != wantPending {
			t.Fatalf("Split(%q in chunks at %v) = %q + pending %q, want %q + %q",
				data, cuts, lines, pending, wantLines, wantPending)
		}

		var got []readLine
		err := ReadAll(&chunkReader{data, cuts}, Limit{}, func(line []byte, complete bool) error {
			got = append(got, readLine{string(line), complete})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var wantAll []readLine
		for _, l := range wantLines {
			wantAll = append(wantAll, readLine{l, true})
		}
		if wantPending != "" {
			wantAll = append(wantAll, readLine{wantPending, false})
		}
		if !slices.Equal(wantAll, got) {
			t.Fatalf("ReadAll(%q in chunks at %v) = %v, want %v", data, cuts, got, wantAll)
		}

		// With a limit, a longer line is reported by its length alone, in
		// its place among the others (final or not).
		max := 1 + len(cuts)%16
		var wantLimited []readLine
		for _, l := range wantAll {
			if len(l.Line) > max {
				l = readLine{fmt.Sprintf("<%d bytes>", len(l.Line)), true}
			}
			wantLimited = append(wantLimited, l)
		}
		got = got[:0]
		lim := Limit{Max: max, Long: func(n int64) error {
			got = append(got, readLine{fmt.Sprintf("<%d bytes>", n), true})
			return nil
		}}
		err = ReadAll(&chunkReader{data, cuts}, lim, func(line []byte, complete bool) error {
			if len(line) > max {
				t.Fatalf("a line of %d bytes came through a limit of %d", len(line), max)
			}
			got = append(got, readLine{string(line), complete})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(wantLimited, got) {
			t.Fatalf("ReadAll(%q in chunks at %v, limit %d) = %v, want %v", data, cuts, max, got, wantLimited)
		}

		// With a line that may go on only so far without its end, reading
		// stops at one past it: what came before is as without, and the
		// line stopped at is longer than the bound.
		endless := int64(max + len(data)%32)
		got = got[:0]
		lim.Endless = endless
		err = ReadAll(&chunkReader{data, cuts}, lim, func(line []byte, complete bool) error {
			got = append(got, readLine{string(line), complete})
			return nil
		})
		var e *EndlessError
		switch {
		case err == nil:
			if !slices.Equal(wantLimited, got) {
				t.Fatalf("ReadAll(%q, limit %d, endless %d) = %v, want %v", data, max, endless, got, wantLimited)
			}
		case errors.As(err, &e):
			n := len(got)
			if n >= len(wantAll) || !slices.Equal(wantLimited[:n], got) || int64(len(wantAll[n].Line)) <= endless || e.Size <= endless {
				t.Fatalf("ReadAll(%q, limit %d, endless %d) stopped (%v) after %v, want a prefix of %v before a line over the bound", data, max, endless, err, got, wantLimited)
			}
		default:
			t.Fatal(err)
		}
	})
}

// jsonl generates transcript-like data of about size bytes. Mixed: mostly
// short and medium lines, some large tool outputs and the odd base64 image;
// otherwise only short lines.
func jsonl(size int, mixed bool) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		n := 200 + rng.IntN(800)
		if r := rng.IntN(100); mixed && r >= 70 {
			switch {
			case r < 95:
				n = 1000 + rng.IntN(19000)
			case r < 99:
				n = 50_000 + rng.IntN(50_000)
			default:
				n = 833_000
			}
		}
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"%08x","message":{"content":"`, i)
		for j := 0; j < n; j++ {
			b.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789+/"[rng.IntN(38)])
		}
		b.WriteString("\"}}\n")
	}
	return b.Bytes()
}

func BenchmarkSplitter(b *testing.B) {
	for _, mixed := range []bool{true, false} {
		name := "short"
		if mixed {
			name = "mixed"
		}
		b.Run(name, func(b *testing.B) {
			data := jsonl(32<<20, mixed)
			b.SetBytes(int64(len(data)))
			var s Splitter
			n := 0
			count := func([]byte) error { n++; return nil }
			for b.Loop() {
				for p := data; len(p) > 0; {
					c := min(readChunk, len(p))
					if err := s.Split(p[:c], count); err != nil {
						b.Fatal(err)
					}
					p = p[c:]
				}
			}
			if n == 0 {
				b.Fatal("no lines")
			}
		})
	}
}

// TestEndless: a line over the limit that goes on past Limit.Endless
// without its end stops the read, whatever the chunks; one that ends
// before is skipped as any long line.
func TestEndless(t *testing.T) {
	lim := Limit{Max: 4, Endless: 10}
	var s Splitter
	s.Limit = lim
	var got []string
	fn := func(line []byte) error { got = append(got, string(line)); return nil }
	if err := s.Split([]byte("ab\nxxxxx"), fn); err != nil {
		t.Fatal(err)
	}
	if err := s.Split([]byte("xxxxx"), fn); err != nil { // 10 bytes: at the bound, not past it
		t.Fatal(err)
	}
	var endless *EndlessError
	if err := s.Split([]byte("x"), fn); !errors.As(err, &endless) || endless.Size != 11 {
		t.Errorf("11 bytes without an end: %v", err)
	}
	// ReadAll over a reader that never ends.
	err := ReadAll(endlessReader{}, Limit{Max: 1 << 10, Endless: 1 << 20}, func([]byte, bool) error { return nil })
	if !errors.As(err, &endless) || endless.Size <= 1<<20 {
		t.Errorf("ReadAll of an endless line: %v", err)
	}
	if fmt.Sprint(got) != "[ab]" {
		t.Errorf("lines %q", got)
	}
}

// endlessReader is an input of 'x' that never ends.
type endlessReader struct{}

func (endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
