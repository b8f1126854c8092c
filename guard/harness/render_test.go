package harness

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestSerdeString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, `"plain"`},
		{"q\"b\\n\n", `"q\"b\\n\n"`},
		{"\b\f\r\t\x00\x1f\x7f", `"\b\f\r\t\u0000\u001f` + "\x7f\""},
		// serde_json leaves HTML characters, U+2028/9 and non-ASCII raw.
		{"<a>&\u2028é😀", "\"<a>&\u2028é😀\""},
		{"bad\xffbyte", "\"bad\uFFFDbyte\""},
	}
	for _, tt := range tests {
		got := serdeString(tt.in)
		if got != tt.want {
			t.Errorf("serdeString(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if n := JSONLen(tt.in); n != int64(len(tt.want)) {
			t.Errorf("JSONLen(%q) = %d, want %d", tt.in, n, len(tt.want))
		}
	}
}

// TestSerdeStringEightAtATime puts every byte that matters at every offset
// of long texts, valid UTF-8 and not, and compares with escaping one rune
// at a time.
func TestSerdeStringEightAtATime(t *testing.T) {
	specials := []string{"\"", "\\", "\n", "\x00", "\x1f", " ", "\x7f", "é", "😀", "\u2028", "\xff", "\xe2\x82",
		"\b", "\t", "\v", "\f", "\r", "\x07", "\x0e", "\x20", "!", "\x1b"}
	for _, sp := range specials {
		for at := range 24 {
			for _, fill := range []string{"a", "é"} {
				in := strings.Repeat(fill, at) + sp + strings.Repeat("b", 23-at) + sp
				want := serdeStringByRune(in)
				if got := serdeString(in); got != want {
					t.Fatalf("serdeString(%q) = %q, want %q", in, got, want)
				}
				checkMeasure(t, in)
			}
		}
	}
}

// checkMeasure compares Measure with the quoting written plainly and the
// standard library's counts.
func checkMeasure(t *testing.T, s string) {
	t.Helper()
	want := Sizes{JSON: int64(len(serdeStringByRune(s))), UTF16: int64(len(utf16.Encode([]rune(s)))), Runes: int64(utf8.RuneCountInString(s))}
	if got := Measure(s); got != want {
		t.Fatalf("Measure(%q) = %+v, want %+v", s, got, want)
	}
	if got := UTF16Len(s); got != want.UTF16 {
		t.Fatalf("UTF16Len(%q) = %d, want %d", s, got, want.UTF16)
	}
	if UTF16Over(s, want.UTF16) || want.UTF16 > 0 && !UTF16Over(s, want.UTF16-1) {
		t.Fatalf("UTF16Over(%q) is wrong at its length, %d units", s, want.UTF16)
	}
}

func FuzzMeasure(f *testing.F) {
	for _, s := range []string{"", "plain text of more than eight bytes", "q\"b\\\n\x00\x1f\x7f", "aé😀b\u2028", "bad\xffbyte\xe2\x82", "  12→\tline\n"} {
		f.Add(s)
	}
	f.Fuzz(checkMeasure)
}

// serdeStringByRune is serde_json's escaping written plainly.
func serdeStringByRune(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r) // U+FFFD for an invalid byte
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestCuts(t *testing.T) {
	// "aé😀b": a(1) é(2) 😀(4) b(1) bytes; UTF-16: a é, then the surrogate pair, b.
	s := "aé😀b"
	tests := []struct{ name, got, want string }{
		{"head 2 bytes stops before é", headBytes(s, 2), "a"},
		{"head 3 bytes keeps é", headBytes(s, 3), "aé"},
		{"head 6 bytes stops before 😀", headBytes(s, 6), "aé"},
		{"tail 3 bytes skips 😀's continuation bytes", tailBytes(s, 3), "b"},
		{"tail 5 bytes keeps 😀", tailBytes(s, 5), "😀b"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if n := UTF16Len(s); n != 5 {
		t.Errorf("UTF16Len = %d, want 5", n)
	}
	// 8 bytes, 5 units; "€€" 6 bytes, 2 units; two invalid bytes, 2 units.
	for _, tt := range []struct {
		s    string
		n    int64
		want bool
	}{{s, 4, true}, {s, 5, false}, {s, 8, false}, {"€€", 1, true}, {"€€", 2, false}, {"\xff\xfe", 1, true}, {"\xff\xfe", 2, false}, {"", 0, false}} {
		if got := UTF16Over(tt.s, tt.n); got != tt.want {
			t.Errorf("UTF16Over(%q, %d) = %v, want %v", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestHarnessTruncate(t *testing.T) {
	// 200,000 bytes of "x" as a JSON string: 200,002 serialized bytes. The
	// head is the first 24,576 of them: the opening quote and 24,575 x's,
	// re-escaped as `"\"xxx…"` (24,579 bytes).
	s := Subject{Text: strings.Repeat("x", 200_000), Tool: "firehose"}
	got, _ := HarnessRSTruncate(s, 24*1024)
	note := "This result was 200002 bytes and was cut to 24576 to protect the context window. " +
		"Do not ask for it again unchanged — narrow it: request a smaller range, a filter, or a specific field."
	want := `{"bytes_kept":24576,"bytes_total":200002,"head":"\"` + strings.Repeat("x", 24575) + `","note":"` + note +
		`","tool":"firehose","truncated":true}`
	if got != want {
		t.Fatalf("marker differs: got %d bytes, want %d", len(got), len(want))
	}
	// 20 + 21 + 7 + 24,579 + 8 + (185 + 2) + 18 + 18 bytes: larger than the ceiling it enforces.
	if len(note) != 185 || len(got) != 24858 {
		t.Errorf("note %d bytes, marker %d bytes; want 185 and 24,858", len(note), len(got))
	}
	// The cut backs off to a character boundary of the serialized text:
	// `"` + "é" ×3 is 7 bytes, so 4 bytes keep `"é` and drop half of the next é.
	small, _ := HarnessRSTruncate(Subject{Text: "ééé", Tool: "t"}, 4)
	if !strings.HasPrefix(small, `{"bytes_kept":3,"bytes_total":8,"head":"\"é",`) {
		t.Errorf("multi-byte cut: %s", small)
	}
}

func TestHarnessSpill(t *testing.T) {
	s := Subject{Text: strings.Repeat("x", 200_000), Tool: "firehose", CallID: "call_1", Template: ".harness/spill/{call_id}-{tool}.{ext}"}
	got, f := HarnessRSSpill(s, 4096)
	rel := ".harness/spill/call_1-firehose.txt"
	note := "This result was 200002 bytes — too large to inline, so the FULL content was saved to '" + rel +
		"' (workspace-relative). Nothing was lost. Retrieve exactly the part you need: grep(path=\\\"" + rel +
		"\\\", pattern=...) or read_file(path=\\\"" + rel + "\\\", offset=..., limit=...). Do not repeat the original call — it will spill again."
	want := `{"bytes_total":200002,"meta":"[200000 bytes spilled to ` + rel + `]","note":"` + note + `","path":"` + rel +
		`","preview":"` + strings.Repeat("x", 4096) + `","spilled":true,"tool":"firehose"}`
	if got != want {
		t.Errorf("marker differs:\n got %.300s…\nwant %.300s…", got, want)
	}
	if f.Locator != rel || f.File != "spill/call_1-firehose.txt" || f.Content != s.Text {
		t.Errorf("file %+v", f)
	}
	// A result that is mostly escapes is not its own dominant string: the
	// file holds its JSON and no meta is attached. 100 quotes serialize to 202 bytes.
	got, f = HarnessRSSpill(Subject{Text: strings.Repeat(`"`, 100), Tool: "t", CallID: "weird id!/..", Template: ".harness/spill/{call_id}-{tool}.{ext}"}, 4096)
	if f.Locator != ".harness/spill/weirdid-t.json" || f.Content != `"`+strings.Repeat(`\"`, 100)+`"` || strings.Contains(got, `"meta"`) {
		t.Errorf("structured spill: %+v\n%s", f, got)
	}
	if id := harnessCallID(strings.Repeat("a", 60)); len(id) != 48 {
		t.Errorf("call ids keep 48 characters, got %d", len(id))
	}
	if id := harnessCallID("!!"); id != "call" {
		t.Errorf("empty id = %q", id)
	}
}

// TestHarnessRSNameLength: harness-rs's spill file is <call id>-<tool>.json
// at most, the id cut to 48 bytes; a name over 255 bytes cannot be written.
func TestHarnessRSNameLength(t *testing.T) {
	long := strings.Repeat("a", 60) // kept as 48
	for _, tt := range []struct {
		tool, id string
		fits     bool
	}{
		{strings.Repeat("t", 201), long, true},  // 48 + 1 + 201 + 5 = 255
		{strings.Repeat("t", 202), long, false}, // 256
		{strings.Repeat("t", 202), "c1", true},  // 2 + 1 + 202 + 5 = 210
		{strings.Repeat("t", 245), "!!", true},  // "call": 4 + 1 + 245 + 5 = 255
		{strings.Repeat("t", 246), "!!", false}, // 256
		{strings.Repeat("t", 249), "", false},   // "call" too
	} {
		if why := HarnessRSUnwritable(tt.tool, tt.id); (why == "") != tt.fits {
			t.Errorf("a tool of %d bytes, id %q: %q", len(tt.tool), tt.id, why)
		}
	}
}

func TestHarnessRepeat(t *testing.T) {
	want := `{"note":"You already made this exact call in this run and nothing has changed the workspace since. ` +
		`The earlier result above still stands — use it rather than asking again.","repeat_of_earlier_call":true,"tool":"firehose"}`
	if got := HarnessRSRepeat("firehose"); got != want || len(got) != 223 {
		t.Errorf("stub (%d bytes):\n%s", len(got), got)
	}
}

// TestAgentScope is AgentScope's own test case (ToolResultEvictionMiddlewareTest):
// 100 characters, a 4-character preview, call id "call:1", agent "Test Agent".
func TestAgentScope(t *testing.T) {
	s := Subject{Text: strings.Repeat("0123456789", 10), CallID: "call:1", Template: "large_tool_results/{agent}/{call_id}-{sha256_16}"}
	got, _, f := AgentScopeSpill(s, "Test Agent", 4, 4)
	path := "large_tool_results/Test_Agent/call_1-9cfe7faff7054298" // first 8 bytes of SHA-256 of the text
	want := "Tool output was too large (100 chars) and has been saved to `" + path + "`.\n" +
		"To read the full output, use `read_file` with path `" + path + "`.\n\n" +
		"Preview (first 4 chars):\n0123\n\n... and last 4 chars:\n6789"
	if got != want || len(got) != 283 {
		t.Errorf("placeholder (%d chars):\n%s", len(got), got)
	}
	if f.Locator != path || f.File != "Test_Agent/call_1-9cfe7faff7054298" {
		t.Errorf("file %+v", f)
	}
	// Thousands are grouped; the preview is min(2,000, len/2) UTF-16 units
	// each side, cutting a surrogate pair in half where it falls.
	big := strings.Repeat("a", 1999) + "😀" + strings.Repeat("b", 121_454) // 1,999 + 2 + 121,454 = 123,455 units
	got, _, _ = AgentScopeSpill(Subject{Text: big, CallID: "c", Template: "/large_tool_results/{agent}/{call_id}"}, "agent", 2000, 2000)
	if !strings.Contains(got, "Preview (first 2,000 chars):\n"+strings.Repeat("a", 1999)+"\uFFFD\n\n... and last 2,000 chars:\n"+strings.Repeat("b", 2000)) {
		t.Errorf("preview wrong: %.200s", got)
	}
	if !strings.HasPrefix(got, "Tool output was too large (123,455 chars) and has been saved to `/large_tool_results/agent/c`.") {
		t.Errorf("old path form: %.120s", got)
	}
}

// TestDeepSeek is DeepSeek Harness's own test case (spill-policy.spec.ts):
// 1,600 bytes under a 200-byte cap with a stub store's locator and hint.
func TestDeepSeek(t *testing.T) {
	text := strings.Repeat("HEAD", 200) + strings.Repeat("TAIL", 200)
	got, _, ok := deepseekReplace(text, nil, 200, "/spill/big.txt", "Use the stub retrieval path.")
	// The notice priced at 1,600 omitted bytes is 99 bytes; with the blank
	// line it reserves 101, leaving 99: 50 bytes of head, 49 of tail; 1,501 omitted.
	want := strings.Repeat("HEAD", 12) + "HE" + "L" + strings.Repeat("TAIL", 12) +
		"\n\n(Omitted 1501 bytes. Full formatted result stored at: /spill/big.txt. Use the stub retrieval path.)"
	if !ok || got != want || len(got) != 200 {
		t.Errorf("replacement (%d bytes, ok %v):\n%q", len(got), ok, got)
	}
	// A cap the notice alone overflows keeps the original.
	if _, _, ok := deepseekReplace("xxxxx", nil, 4, "/spill/big.txt", "hint"); ok {
		t.Error("a 4-byte cap must keep the original")
	}
	// Cuts trim partial characters. The worst-case notice here is 58 bytes,
	// so a 63-byte cap leaves a 3-byte budget: 2 bytes of head (one é) and 1
	// of tail, which is half an é and is dropped.
	got, _, _ = deepseekReplace(strings.Repeat("é", 100), nil, 63, "L", "h")
	if !strings.HasPrefix(got, "é\n\n(Omitted 198 bytes.") {
		t.Errorf("multi-byte cut: %q", got)
	}
	if enc := encodeSegment("a b/c~.txt"); enc != "a~0020b~002Fc~007E.txt" {
		t.Errorf("encodeSegment = %q", enc)
	}
	for in, want := range map[string]string{"": "~", ".": "~002E", "..": "~002E~002E", "😀": "~D83D~DE00"} {
		if got := encodeSegment(in); got != want {
			t.Errorf("encodeSegment(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDeepSeekToolNames: the store encodes the suggested name "<tool>.txt"
// as one segment, so an empty tool name leaves "<hex>-.txt" (not "-~.txt"),
// and the locator's length moves the preview budget byte for byte.
func TestDeepSeekToolNames(t *testing.T) {
	text := strings.Repeat("HEAD", 200) + strings.Repeat("TAIL", 200) // 1,600 bytes
	s := Subject{Text: text, Tool: "", CallID: "c0", Session: "s",
		Template: "/tmp/dsh-spill-000000/session-{session_sha12}/{random12}-{tool}.txt"}
	got, _, f, ok := DeepSeekSpill(s, 400)
	// SHA-256 of "s" starts 043a718774c5, of "c0" 122c597083bd: a 60-byte
	// locator, a 183-byte notice priced at 1,600 omitted, 400-183-2 = 215
	// bytes of preview: 108 of head, 107 of tail; 1,385 omitted.
	locator := "/tmp/dsh-spill-000000/session-043a718774c5/122c597083bd-.txt"
	want := strings.Repeat("HEAD", 27) + "AIL" + strings.Repeat("TAIL", 26) +
		"\n\n(Omitted 1385 bytes. Full formatted result stored at: " + locator +
		". Use read with offset/limit, or grep this path to search within it.)"
	if !ok || got != want || len(got) != 400 {
		t.Errorf("replacement (%d bytes, ok %v):\n%q", len(got), ok, got)
	}
	if f.Locator != locator || f.File != "session-043a718774c5/122c597083bd-.txt" {
		t.Errorf("file %+v", f)
	}
	for tool, want := range map[string]string{"": "", ".": ".", "..": "..", "bash": "bash", "a/b": "a~002Fb", "~": "~007E"} {
		if got := deepseekToolName(tool); got != want {
			t.Errorf("deepseekToolName(%q) = %q, want %q", tool, got, want)
		}
	}
}

func TestClaudeCode(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "line %05d %s\n", i, strings.Repeat("x", 40))
	}
	text := b.String() // 1,000 lines of 52 characters
	s := Subject{Text: text, CallID: "toolu_01ABC", Session: "SESSION", Dir: "/home/u/.claude/projects/-home-u-proj",
		Template: "{transcript_dir}/{session}/tool-results/{call_id}.txt"}
	got, f := ClaudeSpill(s, latestClaude, 2000, true)
	path := "/home/u/.claude/projects/-home-u-proj/SESSION/tool-results/toolu_01ABC.txt"
	// The last newline in the first 2,000 characters is at 1,975 (line 38
	// ends there), past half of the preview: the preview stops before it.
	want := "<persisted-output>\nOutput too large (50.8KB). Full output saved to: " + path + "\n\n" +
		"Preview (first 2KB):\n" + text[:1975] + "\n...\n</persisted-output>"
	if got != want || len(path) != 74 {
		t.Errorf("message differs (%d chars):\n%.200s", len(got), got)
	}
	if f.Locator != path || f.File != "tool-results/toolu_01ABC.txt" {
		t.Errorf("file %+v", f)
	}
	// Without a newline past half, the preview is exactly 2,000 units.
	flat := strings.Repeat("y", 3000)
	got, _ = ClaudeSpill(Subject{Text: flat, Template: "x"}, latestClaude, 2000, true)
	if !strings.Contains(got, "Preview (first 2KB):\n"+strings.Repeat("y", 2000)+"\n...\n") {
		t.Errorf("flat preview: %.100s", got)
	}
}

func TestFileSize(t *testing.T) {
	// Binary units, one decimal rounded half up (JavaScript's toFixed), ".0" dropped.
	for n, want := range map[int64]string{
		1023: "1023 bytes", 1024: "1KB", 1280: "1.3KB", 2000: "2KB", 30001: "29.3KB",
		50000: "48.8KB", 87654: "85.6KB", 5_000_000: "4.8MB", 3 << 30: "3GB",
	} {
		if got := fileSize(n); got != want {
			t.Errorf("fileSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCodex replays Codex's own truncation tests (truncate.rs and
// output-truncation), without the exec-output header.
func TestCodex(t *testing.T) {
	long := "this is an example of a long output that should be truncated"
	emoji := strings.Repeat("😀", 10) + "\nsecond line with text\n"
	tests := []struct {
		text   string
		budget int64
		tokens bool
		want   string
	}{
		{"example output", 1, false, "…13 chars truncated…t"},
		{"example output", 4, true, "ex…3 tokens truncated…ut"},
		{long, 20, true, "this is an…10 tokens truncated… truncated"},
		{long, 30, false, "this is an exam…30 chars truncated…ld be truncated"},
		{long + "\nalso some other line", 30, false, "this is an exam…51 chars truncated…some other line"},
		{long + "\nalso some other line", 40, true, "this is an example o…11 tokens truncated…also some other line"},
		{emoji, 20, false, "😀😀…21 chars truncated…with text\n"},
		{emoji, 32, true, "😀😀😀😀…8 tokens truncated… line with text\n"},
		{"abcdef", 0, true, "…2 tokens truncated…"},
		{"short", 100, true, "short"},
	}
	for _, tt := range tests {
		if got, _ := CodexTruncate(tt.text, nil, tt.budget, tt.tokens); got != tt.want {
			t.Errorf("CodexTruncate(%q, %d, %v) = %q, want %q", tt.text, tt.budget, tt.tokens, got, tt.want)
		}
	}
}

func TestSeenRanges(t *testing.T) {
	text := strings.Repeat("a", 100) + strings.Repeat("b", 100) + strings.Repeat("c", 100)
	arrows := strings.Repeat("1→x\n", 50) // 3-byte arrows; the preview keeps 20 lines, escaped
	if got := SeenRanges(HarnessRS, arrows, `{"preview":`+serdeString(arrows[:120])+`}`); len(got) != 1 || got[0] != (Range{0, 120}) {
		t.Errorf("escaped multi-byte head: %v, want [{0 120}]", got)
	}
	tests := []struct {
		name        string
		style       Style
		replacement string
		want        []Range
	}{
		{"head and tail", DeepSeek, strings.Repeat("a", 50) + strings.Repeat("c", 20) + "\n\n(notice)", []Range{{0, 50}, {280, 300}}},
		{"head only", ClaudeCode, "<persisted-output>\n" + strings.Repeat("a", 100) + "bbb\n...", []Range{{0, 103}}},
		{"escaped head", HarnessRS, `{"head":"\"` + strings.Repeat("a", 10) + `"}`, []Range{{0, 10}}},
		{"nothing", Codex, "zzz", []Range{}},
		{"multi-byte characters", HarnessRS, `"preview":"` + strings.Repeat("a", 100) + `"`, []Range{{0, 100}}},
	}
	for _, tt := range tests {
		got := SeenRanges(tt.style, text, tt.replacement)
		if len(got) != len(tt.want) || (len(got) > 0 && (got[0] != tt.want[0] || got[len(got)-1] != tt.want[len(tt.want)-1])) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestJavaSafe: AgentScope cleans path parts with Java's
// replaceAll("[^a-zA-Z0-9_-]", "_"), which matches by code point.
func TestJavaSafe(t *testing.T) {
	for in, want := range map[string]string{
		"call_1-a": "call_1-a", "call/😀1": "call__1", "é.x y": "__x_y", "": "",
	} {
		if got := javaSafe(in); got != want {
			t.Errorf("javaSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAgentSpillPath reads back, from each harness's own spill notice as
// rendered above, the file it names; texts without one name none.
func TestAgentSpillPath(t *testing.T) {
	big := strings.Repeat("0123456789\n", 10_000)
	claude, claudeFile := ClaudeSpill(Subject{Text: big, CallID: "toolu_1", Session: "S", Dir: "/p",
		Template: "{transcript_dir}/{session}/tool-results/{call_id}.txt"}, latestClaude, ClaudePreviewUnits, true)
	scope, _, scopeFile := AgentScopeSpill(Subject{Text: big, CallID: "c1",
		Template: "large_tool_results/{agent}/{call_id}-{sha256_16}"}, "agent", 10, 10)
	rs, rsFile := HarnessRSSpill(Subject{Text: big, Tool: "grep", CallID: "c1",
		Template: ".harness/spill/{call_id}-{tool}.{ext}"}, HarnessRSSpillPreviewBytes)
	deepseek, _, deepseekFile, ok := DeepSeekSpill(Subject{Text: big, Tool: "bash", CallID: "c1", Session: "s",
		Template: "/tmp/dsh-spill-000000/session-{session_sha12}/{random12}-{tool}.txt"}, 50_000)
	if !ok {
		t.Fatal("DeepSeek kept the original")
	}
	codex, _ := CodexTruncate(big, nil, 4000, true)
	tests := []struct {
		name, text, want, locator string
	}{
		{"Claude Code", claude, "/p/S/tool-results/toolu_1.txt", claudeFile.Locator},
		{"AgentScope", scope, scopeFile.Locator, scopeFile.Locator},
		{"harness-rs", rs, ".harness/spill/c1-grep.txt", rsFile.Locator},
		{"DeepSeek", deepseek, deepseekFile.Locator, deepseekFile.Locator},
		{"Codex truncates", codex, "", ""},
		{"plain", "no notice here: saved to disk", "", ""},
	}
	for _, tt := range tests {
		if got := AgentSpillPath(tt.text); got != tt.want || got != tt.locator {
			t.Errorf("%s: AgentSpillPath = %q, want %q (the locator rendered: %q)", tt.name, got, tt.want, tt.locator)
		}
	}
	if !strings.HasPrefix(scopeFile.Locator, "large_tool_results/agent/c1-") || !strings.HasPrefix(deepseekFile.Locator, "/tmp/dsh-spill-000000/session-") {
		t.Errorf("locators %q, %q", scopeFile.Locator, deepseekFile.Locator)
	}
}

// latestClaude is the era of the latest Claude Code.
var latestClaude = ClaudeEras[len(ClaudeEras)-1]

// TestClaudeEraOf: every version of the recorded logs, and each bound
// with the version before it.
func TestClaudeEraOf(t *testing.T) {
	for version, want := range map[string]string{
		"1.0.17": "", "2.0.76": "", "2.1.1": "", "2.1.2": "2.1.2", "2.1.5": "2.1.2", "2.1.6": "2.1.6",
		"2.1.14": "2.1.6", "2.1.22": "2.1.6", "2.1.44": "2.1.6", "2.1.45": "2.1.45", "2.1.50": "2.1.45",
		"2.1.51": "2.1.51", "2.1.58": "2.1.51", "2.1.59": "2.1.59", "2.1.73": "2.1.59", "2.1.74": "2.1.74",
		"2.1.78": "2.1.74", "2.1.79": "2.1.79", "2.1.85": "2.1.79", "2.1.86": "2.1.86", "2.1.112": "2.1.86",
		"2.1.121": "2.1.86", "2.1.126": "2.1.86", "2.1.128": "2.1.128", "2.1.146": "2.1.128",
		"2.1.308": "2.1.128", "2.1.309": "2.1.309", "2.1.316": "2.1.309", "2.1.317": "2.1.317",
		"2.1.328": "2.1.317", "10.0.0": "2.1.317", "": "2.1.317", "2.1": "2.1.317", "2.1.112-beta": "2.1.86",
	} {
		if got := ClaudeEraOf(version).From; got != want {
			t.Errorf("ClaudeEraOf(%q) = era from %q, want %q", version, got, want)
		}
	}
}

// TestClaudeCut: Claude Code's own cut before 2.1.2, as 2.1.1 sent it: a
// single line of 30,001 characters, and 120,000 characters of 11-character
// lines (the cut falls inside a line; the rest holds 8,183 pieces).
func TestClaudeCut(t *testing.T) {
	x := strings.Repeat("x", 30_001)
	if got, want := ClaudeCut(x, 30_000), x[:30_000]+"\n\n... [1 lines truncated] ..."; got != want {
		t.Errorf("one line: %q", got[29_990:])
	}
	lines := strings.Repeat("0123456789\n", 10_910)[:120_000]
	got := ClaudeCut(lines, 30_000)
	if want := lines[:30_000] + "\n\n... [8183 lines truncated] ..."; got != want {
		t.Errorf("lines: %q", got[29_990:])
	}
	if got := ClaudeCut(x[:30_000], 30_000); got != x[:30_000] {
		t.Error("a text at the limit was cut")
	}
	// A surrogate pair across the cut: its first half is sent, as U+FFFD.
	if got, want := ClaudeCut("ab😀c\nd", 3), "ab\uFFFD\n\n... [2 lines truncated] ..."; got != want {
		t.Errorf("pair: %q, want %q", got, want)
	}
}

// TestClaudeSpillNames: a persisted Bash output's file is named after its
// task by era (the call id, then b and 6 or 8 characters), any other
// tool's after its call id; an MCP result is persisted as its content
// block in indented JSON, which the message sizes and previews. The
// texts are as Claude Code 2.1.328 sent them (its session folder
// shortened).
func TestClaudeSpillNames(t *testing.T) {
	text := strings.Repeat("x", 50_001)
	s := Subject{Text: text, Tool: "mcp__standin__cat", CallID: "toolu_04", Session: "s1", Dir: "/p",
		Template: "{transcript_dir}/{session}/tool-results/{task_id8}.{ext}"}
	got, f := ClaudeSpill(s, latestClaude, ClaudePreviewUnits, true)
	want := "<persisted-output>\nOutput too large (48.9KB). Full output saved to: /p/s1/tool-results/toolu_04.json\n\nPreview (first 2KB):\n[\n  {\n    \"type\": \"text\",\n    \"text\": \"" +
		strings.Repeat("x", 1961) + "\n...\n</persisted-output>"
	if got != want {
		t.Errorf("MCP: %d bytes, %q", len(got), got[:min(len(got), 300)])
	}
	if want := "[\n  {\n    \"type\": \"text\",\n    \"text\": \"" + text + "\"\n  }\n]"; f.Content != want || len(f.Content) != 50_047 {
		t.Errorf("MCP file: %d bytes", len(f.Content))
	}
	for template, want := range map[string]string{
		"{transcript_dir}/{session}/tool-results/{call_id}.{ext}":  "/p/s1/tool-results/toolu_04.txt",
		"{transcript_dir}/{session}/tool-results/{task_id6}.{ext}": "/p/s1/tool-results/bn7rzk2.txt",
		"{transcript_dir}/{session}/tool-results/{task_id8}.{ext}": "/p/s1/tool-results/bn7rzk2dd.txt",
	} {
		s := Subject{Text: text, Tool: "Bash", CallID: "toolu_04", Session: "s1", Dir: "/p", Template: template}
		if _, f := ClaudeSpill(s, latestClaude, ClaudePreviewUnits, true); f.Locator != want {
			t.Errorf("Bash under %s: %s, want %s", template, f.Locator, want)
		}
	}
	if got := jsString("a\"\\\b\f\n\r\t\x01\x1f\u2028é\x7f"); got != `"a\"\\\b\f\n\r\t\u0001\u001f`+"\u2028é\x7f"+`"` {
		t.Errorf("jsString: %s", got)
	}
}

// TestClaudeShaped: a result Claude Code cut under its own marker, which
// ends the text, or persisted, is shaped already; a marker elsewhere, or
// one without its count, is not.
func TestClaudeShaped(t *testing.T) {
	for text, want := range map[string]bool{
		"out\n\n... [4321 lines truncated] ...":        true,
		"\n\n... [1 lines truncated] ...":              true,
		"out\n\n... [ lines truncated] ...":            false,
		"out\n\n... [12x lines truncated] ...":         false,
		"out\n... [12 lines truncated] ...":            false,
		"out\n\n... [12 lines truncated] ...\nmore":    false,
		"out\n\n... [12 lines truncated] ... ":         false,
		"<persisted-output>\nOutput too large (31KB).": true,
		" <persisted-output>\n":                        false,
		"":                                             false,
		" lines truncated] ...":                        false,
	} {
		if got := ClaudeShaped(text); got != want {
			t.Errorf("ClaudeShaped(%q) = %v, want %v", text, got, want)
		}
	}
}

// BenchmarkMeasure measures a Read's numbered lines, as most of a Claude
// Code log's result text is: a newline and an arrow every few dozen bytes.
func BenchmarkMeasure(b *testing.B) {
	var sb strings.Builder
	words := []string{"return", "value", "ceiling", "\"quoted\"", "budget", "\tindent", "é", "window"}
	for line := 1; sb.Len() < 1<<20; line++ {
		fmt.Fprintf(&sb, "%6d→", line)
		for k := range 3 + line%9 {
			sb.WriteString(words[(line*7+k)%len(words)])
			sb.WriteByte(' ')
		}
		sb.WriteByte('\n')
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Measure(text)
	}
}

// The searches Claude Code 2.1.328 cut or stopped, by the lines it adds
// (GlobTool's mapToolResultToToolResultBlockParam).
func TestClaudeSearchIncomplete(t *testing.T) {
	for _, c := range []struct {
		tool, text string
		want       bool
	}{
		{"Glob", "/a\n/b\n(Showing 2 of 5 matching files; 3 more are not listed. Narrow the pattern or path to see the rest.)", true},
		{"Glob", "/a\n(Showing the first 1 files; there are more than 9 matches. Narrow the pattern or path to see the rest.)", true},
		{"Glob", "/a\n(Results are truncated. Consider using a more specific path or pattern.)", true},
		{"Glob", claudeSearchStopped + "/a\n/b", true},
		{"Grep", claudeSearchStopped + "a.go:1:x", true},
		{"Glob", "/a\n/b", false},
		{"Grep", "/a\n(Results are truncated. Consider using a more specific path or pattern.)", false},
		{"Bash", claudeSearchStopped + "x", false},
	} {
		if got := ClaudeSearchIncomplete(c.tool, c.text); got != c.want {
			t.Errorf("%s %.60q: %v, want %v", c.tool, c.text, got, c.want)
		}
	}
}
