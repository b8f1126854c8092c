package tokens

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// trickyInputs are edge cases of the split patterns and of the reference's
// handling of text; each is checked against tiktoken-go in both encodings.
var trickyInputs = []struct{ name, text string }{
	{"empty", ""},
	{"word", "hello"},
	{"sentence", "Hello, world! How's it going?"},
	{"endoftext plain", "a<|endoftext|>b <|endofprompt|> <|fim_prefix|>"},
	{"crlf", "line one\r\nline two\r\n\r\n  indented\r\n"},
	{"lone cr", "a\rb\r\rc \r d"},
	{"trailing spaces", "word   "},
	{"spaces before word", "a     b"},
	{"spaces before newline", "a   \n   b"},
	{"newline runs", "a\n\n\n\nb\n \n \nc"},
	{"tabs", "\tfunc main() {\n\t\treturn\n\t}\n"},
	{"space then punct", "a !? b ... c ///x"},
	{"punct then newline", "end.\n\nnext;\r\n//\n/"},
	{"slashes", "a/b//c /d/ /\n/"},
	{"digits", "1 12 123 1234 12345 123456 1234567"},
	{"unicode digits", "٣٤٥٦ ²³ ½¼ Ⅻ 𝟘𝟙𝟚𝟛"},
	{"digits and letters", "abc123def 4ever x86_64"},
	{"contractions", "don't I'm you're we've they'll she'd it's"},
	{"contractions upper", "DON'T I'M YOU'RE WE'VE THEY'LL SHE'D IT'S"},
	{"contractions mixed case", "dOn'T yoU'rE we'Ve they'lL"},
	{"contraction alone", "'s 't 're 've 'm 'll 'd 'x 'r 'l ''s"},
	{"contraction start", "'sword 'Tis 'REally"},
	{"contraction long s", "it'ſ 'ſ"},
	{"curly apostrophe", "don’t it’s"},
	{"camel case", "McDonald iPhone HTTPServer parseJSON XMLHttpRequest"},
	{"all caps", "HELLO WORLD ABC'S"},
	{"title case digraph", "ǅungla ǈudi ǋ"},
	{"modifier letters", "ʰʲ ˢa aʰ Aʰ ʰA"},
	{"combining marks", "e\u0301te\u0301 cafe\u0301 \u0301 a\u0301\u0302\u0303"},
	{"leading mark", "\u0301A \u0301a \u0301's \u0301 x\u0301"},
	{"marks after caps", "A\u0301B\u0301c E\u0301E\u0301 \u0301\u0301A"},
	{"enclosing and spacing marks", "a\u20dd b\u0903 \u0903\u0903"},
	{"cjk", "机器学习是人工智能的一个分支。東京都は日本の首都です"},
	{"cjk and latin", "Go语言 and 中文text 中文's"},
	{"hangul", "한국어 문장도 섞여 있습니다."},
	{"arabic", "مرحبا بالعالم، هذا نص عربي."},
	{"devanagari", "नमस्ते दुनिया।"},
	{"thai", "สวัสดีชาวโลก"},
	{"emoji", "🙂 🎉🎉🎉 ❤\ufe0f"},
	{"emoji zwj", "👨\u200d👩\u200d👧\u200d👦 🏳\ufe0f\u200d🌈 👩🏽\u200d💻"},
	{"skin tones", "👍🏽👍🏿 👋🏻"},
	{"astral letters", "𝐀𝐁𝐂 𝒶𝒷𝒸 𠀀𠀁𠀂 𝐀'S"},
	{"unicode spaces", "a\u00a0b\u2009c\u3000d\u1680e\u202ff\u205fg\u2028h\u2029i"},
	{"nel and vt ff", "a\u0085b\v\fc \u0085 \v\f"},
	{"not spaces", "a\u200bb\u180ec\ufeffd\x1ce\x1df"},
	{"space runs unicode", "x \u3000\u3000 y\u00a0\u00a0\u00a0z"},
	{"nul and controls", "a\x00b\x01\x7f c"},
	{"invalid byte", "a\xffb"},
	{"invalid sequences", "\xc3 \xe4\xb8 \xed\xa0\x80 \x80\x80 \xf0\x9f\x98"},
	{"invalid in word", "caf\xe9 na\xefve"},
	{"replacement char", "\uFFFD a\uFFFDb"},
	{"only invalid", "\xff\xfe\xfd"},
	{"url", "https://example.com/path/to/file.go?x=1&y=2#frag"},
	{"json", `{"a": [1, 2.5, true, null], "b": {"c": "d\n"}}`},
	{"base64", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="},
	{"long word", strings.Repeat("abcdefghij", 30)},
	{"long spaces", strings.Repeat(" ", 300) + "x" + strings.Repeat(" ", 301)},
	{"long newlines", strings.Repeat("\n", 200) + strings.Repeat("\r\n", 100)},
	{"repeated letter", strings.Repeat("a", 200)},
	{"repeated digit", strings.Repeat("9", 200)},
	{"repeated punct", strings.Repeat("=", 200) + strings.Repeat("-", 77)},
	{"repeated emoji", strings.Repeat("😀", 50)},
	{"repeated cjk", strings.Repeat("的", 100)},
	{"markdown", "## Title\n\n- item **bold** _it_ `code`\n> quote\n\n```go\nx := 1\n```\n"},
}

func TestCountMatchesReferenceOnTrickyInputs(t *testing.T) {
	for _, enc := range encodings {
		c, r := counter(t, enc), ref(t, enc)
		for _, tc := range trickyInputs {
			t.Run(string(enc)+"/"+tc.name, func(t *testing.T) {
				checkAgainstReference(t, c, r, tc.text)
			})
		}
	}
}

func TestCountMatchesReferenceOnGeneratedText(t *testing.T) {
	kinds := []string{"prose", "code", "lock", "base64", "minified", "mixed", "tricky"}
	for _, enc := range encodings {
		c, r := counter(t, enc), ref(t, enc)
		for _, kind := range kinds {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s/%s/%d", enc, kind, seed), func(t *testing.T) {
					checkAgainstReference(t, c, r, generate(kind, 20000, seed))
				})
			}
		}
	}
}

// TestCountMatchesReferenceOnRandomTricky checks many short texts made of
// edge-case atoms, where splits interact most.
func TestCountMatchesReferenceOnRandomTricky(t *testing.T) {
	for _, enc := range encodings {
		c, r := counter(t, enc), ref(t, enc)
		for seed := uint64(100); seed < 600; seed++ {
			text := generate("tricky", 40+int(seed%200), seed)
			if !checkAgainstReference(t, c, r, text) {
				t.Fatalf("%s: seed %d: %q", enc, seed, text)
			}
		}
	}
}

// checkAgainstReference compares the split (which pins down a divergence)
// and the count of text with the reference's.
func checkAgainstReference(t *testing.T, c *Counter, r *reference, text string) bool {
	t.Helper()
	ok := true
	if got, want := c.split(text), r.pieces(text); !slices.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: split differs at piece %d: got %q, want %q", c.enc, i, got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
		ok = false
	}
	if got, want := c.Count(text), r.count(text); got != want {
		t.Errorf("%s: Count = %d, reference %d", c.enc, got, want)
		ok = false
	}
	return ok
}

// TestCountMatchesReferenceOnSharedTranscripts counts lines of the real
// transcripts, JSON as written, against tiktoken-go: the first 64 KB of
// lines of each, or with SPILLWAY_TOKENS_TRANSCRIPTS=all every line (12 MB,
// half a minute of tiktoken-go per encoding).
func TestCountMatchesReferenceOnSharedTranscripts(t *testing.T) {
	if testing.Short() {
		t.Skip("counts with tiktoken-go: skipped under -short")
	}
	budget := 64 << 10
	if os.Getenv("SPILLWAY_TOKENS_TRANSCRIPTS") == "all" {
		budget = math.MaxInt
	}
	for _, path := range sharedtest.Transcripts(t, "*.jsonl") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, enc := range encodings {
			c, r := counter(t, enc), ref(t, enc)
			counted := 0
			for i, line := range strings.Split(string(data), "\n") {
				if counted += len(line); counted > budget {
					break
				}
				if got, want := c.Count(line), r.count(line); got != want {
					t.Errorf("%s: %s line %d: Count = %d, tiktoken-go %d", filepath.Base(path), enc, i+1, got, want)
				}
			}
		}
	}
}
