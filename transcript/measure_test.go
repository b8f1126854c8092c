package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/valyala/fastjson"
)

// decodedLen is the slow way escapedLen stands in for: fastjson decodes
// the string, and invalid UTF-8 is replaced as the readers replace it.
func decodedLen(t testing.TB, raw string) (int, bool) {
	t.Helper()
	var p fastjson.Parser
	v, err := p.Parse(`"` + raw + `"`)
	if err != nil || v.Type() != fastjson.TypeString {
		return 0, false
	}
	return len(strings.ToValidUTF8(string(v.GetStringBytes()), "\uFFFD")), true
}

func TestEscapedLen(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want int // -1: not measured this way, the caller decodes
	}{
		{"empty", ``, 0},
		{"ascii", `hello, world`, 12},
		{"ascii over a word", `0123456789abcdefghij`, 20},
		{"newline and tab", `a\nb\tc`, 5},
		{"quote, backslash, slash", `\"\\\/`, 3},
		{"backslash before a special byte", `\\\"`, 2},
		{"two-byte rune", `é`, 2},
		{"three-byte rune mid-word", `     1→abc`, 6 + 3 + 3},
		{"four-byte rune", `😀`, 4},
		{"escaped two-byte rune", `\u00e9`, 2},
		{"escaped three-byte rune", `\u20ac`, 3},
		{"escaped ASCII", `\u0041`, 1},
		{"escaped NUL", `\u0000`, 1},
		{"surrogate pair", `\ud83d\ude00`, 4},
		{"uppercase hex pair", `\uD83D\uDE00`, 4},
		{"high surrogate then a non-surrogate escape", `\ud83d\u0041`, 3},
		{"low surrogate first", `\ude00\ud83d`, 3},
		{"lone high surrogate kept as written", `\ud83dxyz`, 6 + 3},
		{"high surrogate then bad hex", `\ud83d\uzzzz`, 6 + 2 + 4},
		{"short \\u escape at the end", `ab\u12`, 2 + 2 + 2},
		{"bad hex kept as written", `\uxyz1`, 2 + 4},
		{"unknown escape kept", `\x41`, 4},
		{"U+FFFD written out", "\uFFFD", 3},
		{"invalid byte", "ab\xffcd", -1},
		{"overlong three-byte form", "\xe0\x80\x80", -1},
		{"UTF-8 surrogate", "\xed\xa0\x80", -1},
		{"truncated rune at the end", "abc\xe2\x86", -1},
		{"unknown escape of a non-ASCII byte", `\` + "é", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := escapedLen([]byte(tt.raw))
			if tt.want < 0 {
				if ok {
					t.Fatalf("escapedLen(%q) = %d, want it left to decoding", tt.raw, n)
				}
				return
			}
			if !ok || n != tt.want {
				t.Fatalf("escapedLen(%q) = %d, %v; want %d", tt.raw, n, ok, tt.want)
			}
			if ref, ok := decodedLen(t, tt.raw); !ok || ref != n {
				t.Fatalf("fastjson decodes %q to %d bytes, escapedLen says %d", tt.raw, ref, n)
			}
		})
		t.Run(tt.name+" in a line", func(t *testing.T) {
			// measureString finds the end itself, and reads on past it.
			line := []byte(`{"a":"` + tt.raw + `","b":"\u00e9"}`)
			end, n, ok := measureString(line, len(`{"a":"`))
			if tt.want < 0 {
				if ok {
					t.Fatalf("measureString(%q) = %d, want it left to decoding", tt.raw, n)
				}
				return
			}
			if !ok || n != tt.want || end != len(`{"a":"`)+len(tt.raw) {
				t.Fatalf("measureString(%q) = %d, %d, %v; want %d, %d", tt.raw, end, n, ok, len(`{"a":"`)+len(tt.raw), tt.want)
			}
		})
	}
	for _, raw := range []string{`ab`, `a\`, `\u12`, `\ud83d`, "\xe2\x86"} {
		if _, _, ok := measureString([]byte(raw), 0); ok {
			t.Errorf("measureString(%q) found an end in a string that has none", raw)
		}
	}
}

// FuzzEscapedLen checks escapedLen against fastjson's decoding of every
// string it agrees to measure.
func FuzzEscapedLen(f *testing.F) {
	for _, s := range []string{`a\nb`, `\ud83d\ude00`, `\ud83d\u0041`, `\u12`, `→\t→`, "\xe2\x86\x92", `\\\"x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, ok := escapedLen([]byte(raw))
		if !ok {
			return
		}
		if !utf8.ValidString(raw) {
			t.Fatalf("measured %q, which is not valid UTF-8", raw)
		}
		if ref, parsed := decodedLen(t, raw); parsed && ref != n {
			t.Fatalf("fastjson decodes %q to %d bytes, escapedLen says %d", raw, ref, n)
		}
	})
}

// FuzzMeasureString checks measureString against fastjson: where it finds
// a string's end and measures it, fastjson reads the same string and
// decodes it to that many bytes of valid UTF-8.
func FuzzMeasureString(f *testing.F) {
	for _, s := range append(measureSeeds(), `a\nb"`, `\ud83d\ude00"x`, `\\"`, `\"\\\""`, `\u12"`, `→\t→"`, "\xe2\x86\x92\"", `a"b"`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := append([]byte{'"'}, data...)
		end, n, ok := measureString(b, 1)
		if !ok {
			return
		}
		var p fastjson.Parser
		v, err := p.ParseBytes(b[:end+1])
		if err != nil {
			t.Fatalf("measured %q, which fastjson does not read: %v", b[:end+1], err)
		}
		text := v.GetStringBytes()
		if !utf8.Valid(text) {
			t.Fatalf("measured %q, which decodes to invalid UTF-8", b[:end+1])
		}
		if len(text) != n {
			t.Fatalf("fastjson decodes %q to %d bytes, measureString says %d", b[:end+1], len(text), n)
		}
	})
}

// sameButTexts fails when reading with SizesOnly changed anything but
// dropping the texts.
func sameButTexts(t *testing.T, full, sizes *Session) {
	t.Helper()
	fr, sr := full.Results(), sizes.Results()
	if len(fr) != len(sr) {
		t.Fatalf("%d results read in full, %d by size", len(fr), len(sr))
	}
	for i := range fr {
		if fr[i].Bytes() != sr[i].Bytes() {
			t.Fatalf("result %d (line %d): %d bytes read in full, %d by size", i, fr[i].Line, fr[i].Bytes(), sr[i].Bytes())
		}
		if sr[i].Text != "" {
			t.Fatalf("result %d kept its text", i)
		}
	}
	if a, b := withoutTexts(full), withoutTexts(sizes); !reflect.DeepEqual(a, b) {
		t.Fatalf("reading by size changed the session (-full +sizes):\n%s", cmp.Diff(a, b))
	}
}

// withoutTexts copies s with every text a SizesOnly read drops cleared.
func withoutTexts(s *Session) *Session {
	return eachCall(s, func(call Call) Call {
		call.Text = ""
		call.Results = slices.Clone(call.Results)
		for i := range call.Results {
			call.Results[i].Text, call.Results[i].DroppedBytes = "", 0
		}
		call.Prompts = slices.Clone(call.Prompts)
		for i := range call.Prompts {
			call.Prompts[i].Text = ""
		}
		return call
	})
}

// eachCall copies s with f applied to every call, the leading one too.
func eachCall(s *Session, f func(Call) Call) *Session {
	c := *s
	c.Leading = f(c.Leading)
	c.Calls = slices.Clone(c.Calls)
	for i := range c.Calls {
		c.Calls[i] = f(c.Calls[i])
	}
	return &c
}

// readBoth reads data in full and for its sizes, and returns both. It
// checks on the way that the sizes read ahead are as read line by line,
// and that a read without the results' texts, line by line and ahead, is
// the full read with those texts dropped.
func readBoth(t *testing.T, data []byte, name string, opt Options) (full, sizes *Session, err error) {
	t.Helper()
	full, err = Read(bytes.NewReader(data), name, opt)
	opt.SizesOnly = true
	sizes, err2 := Read(bytes.NewReader(data), name, opt)
	if (err == nil) != (err2 == nil) {
		t.Fatalf("reading in full: %v; by size: %v", err, err2)
	}
	sameAhead(t, data, name, opt, sizes, err2)
	opt.SizesOnly, opt.DropResultTexts = false, true
	dropped, err3 := Read(bytes.NewReader(data), name, opt)
	if fmt.Sprint(err) != fmt.Sprint(err3) {
		t.Fatalf("reading in full: %v; without the results' texts: %v", err, err3)
	}
	sameAhead(t, data, name, opt, dropped, err3)
	if err == nil {
		if want := withoutResultTexts(full); !reflect.DeepEqual(want, dropped) {
			t.Fatalf("reading without the results' texts changed the session (-full +dropped):\n%s", cmp.Diff(want, dropped))
		}
	}
	return full, sizes, err
}

// withoutResultTexts copies s as a DropResultTexts read keeps it: every
// result's text dropped, its length in DroppedBytes.
func withoutResultTexts(s *Session) *Session {
	return eachCall(s, func(call Call) Call {
		call.Results = slices.Clone(call.Results)
		for i := range call.Results {
			r := &call.Results[i]
			r.DroppedBytes, r.Text = r.DroppedBytes+len(r.Text), ""
		}
		return call
	})
}

// sameAhead checks that data read ahead (readahead.go), in batches of
// opt's size or else of a few lines, read as many bytes at a time, reads
// as read line by line: want and wantErr.
func sameAhead(t *testing.T, data []byte, name string, opt Options, want *Session, wantErr error) {
	t.Helper()
	if opt.aheadBatch == 0 {
		opt.aheadBatch = 1 + len(data)%997
	}
	got, err := Read(&shortReader{bytes.NewReader(data), opt.aheadBatch}, name, opt)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("read ahead: %v; line by line: %v", err, wantErr)
	}
	if reflect.DeepEqual(want, got) {
		return
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("read ahead in batches of %d bytes, the session differs (-line by line +ahead):\n%s", opt.aheadBatch, d)
	}
}

// shortReader reads at most n bytes at a time.
type shortReader struct {
	r *bytes.Reader
	n int
}

func (r *shortReader) Read(p []byte) (int, error) { return r.r.Read(p[:min(len(p), r.n)]) }

// Size is the input's, for Read to size its tables by, as it would the
// bytes.Reader's.
func (r *shortReader) Size() int64 { return r.r.Size() }

// spaced rewrites every JSON line of data with a space after each colon,
// comma and bracket, as Python's json.dumps and pretty printers write, so
// that a reader's handling of whitespace is tested too.
func spaced(data []byte) []byte {
	var out, line bytes.Buffer
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		line.Reset()
		if err := json.Indent(&line, bytes.TrimRight(l, "\n"), "", " "); err != nil {
			out.Write(l)
			continue
		}
		// Indent's newlines all lie between tokens: a newline in a
		// string is escaped.
		out.Write(bytes.ReplaceAll(line.Bytes(), []byte("\n"), nil))
		if bytes.HasSuffix(l, []byte("\n")) {
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// realLogs are the fixtures and the real logs, the shared ones included.
func realLogs(t *testing.T) []string {
	paths, _ := filepath.Glob(fixture("*.jsonl"))
	claude, _ := filepath.Glob(fixture("../claude/*.jsonl"))
	paths = append(paths, claude...)
	real, _ := filepath.Glob(filepath.Join("..", "testdata", "real", "*.jsonl.gz"))
	paths = append(paths, real...)
	return append(paths, sharedtest.Transcripts(t, "*.jsonl")...)
}

// TestSizesOnly reads the fixtures, the shared real logs and a generated
// session both ways, as written and spaced out.
func TestSizesOnly(t *testing.T) {
	for _, path := range realLogs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data := readFixture(t, path)
			for _, text := range [][]byte{data, spaced(data)} {
				full, sizes, err := readBoth(t, text, path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				sameButTexts(t, full, sizes)
			}
		})
	}
	t.Run("generated", func(t *testing.T) {
		var buf bytes.Buffer
		if _, err := corpus.WriteSession(&buf, 7, 200, 2048); err != nil {
			t.Fatal(err)
		}
		full, sizes, err := readBoth(t, buf.Bytes(), "generated.jsonl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameButTexts(t, full, sizes)
	})
}

// referenceMeasure is what measureString must return, found the slow way:
// the end as stringEnd finds it, and the contents decoded by fastjson and
// measured. A string is left to decoding when it is not valid UTF-8 or a
// backslash escapes a byte above 0x7F.
func referenceMeasure(t *testing.T, b []byte, i int) (end, n int, ok bool) {
	end = stringEnd(b, i)
	if end < 0 {
		return 0, 0, false
	}
	raw := b[i:end]
	if !utf8.Valid(raw) {
		return 0, 0, false
	}
	for j := 0; j < len(raw); j++ {
		if raw[j] == '\\' {
			j++ // the escaped byte: the closing quote is never escaped, so there is one
			if raw[j] >= utf8.RuneSelf {
				return 0, 0, false
			}
		}
	}
	n, parsed := decodedLen(t, string(raw))
	if !parsed {
		t.Fatalf("fastjson does not read %q", raw)
	}
	return end, n, true
}

// measureSeeds are strings (the contents after an opening quote, and what
// follows) that take every branch of measureString: backslash runs of
// both parities before a quote, \u escapes and surrogates of every kind,
// unknown escapes, runes and invalid bytes at word and block boundaries,
// strings shorter than a word, and strings that end where the buffer does
// or not at all.
func measureSeeds() []string {
	pad := func(n int) string { return strings.Repeat("a", n) }
	seeds := []string{
		``, `"`, `a"`, `abcdefg"`, `abcdefgh"`, `abcdefghijklmno"`, `abcdefghijklmnop"`,
		`a"b"`, `abc`, `abc\`, `abc\"`, `abc\\\"`,
		`a\"b"`, `a\\"b"`, `a\\\"b"`, `\\\\"`, `\\\\\"x"`, `\"\\\""`,
		`a\nb\tc\r\f\b\/"`, `\u0041"`, `\u00e9"`, `\u20AC"`, `\u0000"`, `\uzzzz"`, `\u12"`, `\u"`, `\u004"`, `\u004g"`,
		`\ud83d\ude00"`, `\uD83D\uDE00"`, `\ud83d"`, `\ude00"`, `\ude00\ud83d"`, `\ud83dx"`, `\ud83d\u0041"`, `\ud83d\ud83d"`,
		`\ud83d\uzz"`, `\ud83d\\"`, `\ud83d\""`, `\ud83d\u"`,
		`\x"`, `\a\q\'"`, `\` + "é\"", `\` + "\xff\"", `\` + "\x80\"",
		"é\"", "→\"", "😀\"", "\uFFFD\"", "\xe0\x80\x80\"", "\xed\xa0\x80\"", "\xf4\x90\x80\x80\"",
		"abc\xe2\x86\"", "abc\xe2\"", "\xff\"", "abcdefg\xff\"", "abcdefg→\"", "abcdefgh\xc3\"", "abcdefgh\xc3\xa9\"",
		"0123456789abcde\xe2\"", "     1→abc\\n     2→def\\n\"",
	}
	for _, n := range []int{7, 15, 31, 55, 56, 57, 58, 60, 61, 62, 63, 64, 65, 127, 128} {
		seeds = append(seeds,
			pad(n)+`"`, pad(n)+`\""`, pad(n)+`\\"`, pad(n)+`\\\""`, pad(n)+`\\\\\\\\\"x"`,
			pad(n)+`\ud83d\ude00"`, pad(n)+`\ud83d\u0041"`, pad(n)+`\u00e9"`, pad(n)+`\uzz"`, pad(n)+`\x"`,
			pad(n)+"→\"", pad(n)+"😀\"", pad(n)+"\xe2\x86\"", pad(n)+"\xff\"", pad(n)+`\`+"é\"",
			pad(n), pad(n)+`\`, pad(n)+`\"`, pad(n)+"\xe2\x86",
		)
	}
	return seeds
}

// FuzzMeasureStringReference pins measureString to referenceMeasure on
// every input, the ones it leaves to decoding included.
func FuzzMeasureStringReference(f *testing.F) {
	for _, s := range measureSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// As written, and twice more after text that takes the
		// contents past the words measureString reads before it goes
		// on a block at a time, at two phases of the blocks.
		for _, pad := range []int{0, 16, 45} {
			b := append([]byte(`"`+strings.Repeat("a", pad)), data...)
			end, n, ok := measureString(b, 1)
			wantEnd, wantN, wantOK := referenceMeasure(t, b, 1)
			if end != wantEnd || n != wantN || ok != wantOK {
				t.Fatalf("measureString(%q) = %d, %d, %v; want %d, %d, %v", b, end, n, ok, wantEnd, wantN, wantOK)
			}
		}
	})
}
