package harness

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The texts below are as Codex sent them (chunk ids and wall times aside).
const (
	unifiedStatus = "Chunk ID: a52ab9\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 10001\nOutput:\n"
	warningHeader = "Warning: truncated output (original token count: 10001)\nTotal output lines: 1\n\n"
)

// TestParseCodexOutput: the layouts of Codex's command outputs, and the
// cuts Codex made of them, as 0.114 to 0.169 sent them.
func TestParseCodexOutput(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	const marker = "…1 tokens truncated…"
	cut40001 := x(20_000) + marker + x(20_000)
	st, hd, m := int32(len(unifiedStatus)), int32(len(warningHeader)), int32(len(marker))
	tests := []struct {
		name, text string
		want       CodexOutput
	}{
		{"exec_command, 0.169, uncut", unifiedStatus + "hello\nworld",
			CodexOutput{Kind: CodexUnified, Status: int32(len(unifiedStatus)), Original: 10_001}},
		{"exec_command, 0.169, 40,001 bytes cut", unifiedStatus + warningHeader + cut40001,
			CodexOutput{Kind: CodexUnified, Status: st, Cut: true, Tokens: true, Header: hd,
				HeadEnd: st + hd + 20_000, TailStart: st + hd + 20_000 + m, Budget: 40_000, Removed: 1, Original: 10_001}},
		{"exec_command, 0.128, 40,001 bytes cut", unifiedStatus + "Total output lines: 1\n\n" + cut40001,
			CodexOutput{Kind: CodexUnified, Status: st, Cut: true, Tokens: true, Header: 23,
				HeadEnd: st + 23 + 20_000, TailStart: st + 23 + 20_000 + m, Budget: 40_000, Removed: 1, Original: 10_001}},
		{"0.118, a Command line first", "Command: /bin/bash -lc 'seq 1 3'\n" + unifiedStatus + "1\n2\n3\n",
			CodexOutput{Kind: CodexUnified, Status: 33 + st, Original: 10_001}},
		{"shell_command, 0.128, cut", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n" + cut40001,
			CodexOutput{Kind: CodexFreeform, Status: 44, Cut: true, Tokens: true, HeadEnd: 44 + 20_000, TailStart: 44 + 20_000 + m,
				Budget: 40_000, Removed: 1}},
		// 0.114 with a model it sizes in bytes cut everything it recorded
		// to 12,000 bytes: the marker halves the whole text.
		{"recorded cut, in characters", x(6_000) + "…28105 chars truncated…" + x(6_000),
			CodexOutput{Cut: true, History: true, HeadEnd: 6_000, TailStart: 6_000 + int32(len("…28105 chars truncated…")), Budget: 12_000, Removed: 28_105}},
		{"a marker off the middle is none", x(100) + "…5 tokens truncated…" + x(200), CodexOutput{}},
		{"the header with no marker", unifiedStatus + warningHeader + "x",
			CodexOutput{Kind: CodexUnified, Status: st, Cut: true, Header: hd, Original: 10_001}},
		// A command that printed Codex's header (a log of Codex): the
		// status lines count its 80 bytes whole, 20 tokens.
		{"the header printed, not cut", strings.Replace(unifiedStatus, "10001", "20", 1) + warningHeader[:56] + "Total output lines: 9\n\nx",
			CodexOutput{Kind: CodexUnified, Status: st - 3, Original: 20}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseCodexOutput(tt.text)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestCodexRecut: an output Codex cut at 40,000 bytes, cut again at 8,000
// as Codex 0.169 with tool_output_token_limit = 2000 cut the uncut one;
// shell_command's line count stays where the first cut put it, and comes
// where the second cut changes the lines; a cut in characters counts the
// characters the second cut removes too.
func TestCodexRecut(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	text := unifiedStatus + warningHeader + x(20_000) + "…1 tokens truncated…" + x(20_000)
	want := unifiedStatus + warningHeader + x(4_000) + "…8001 tokens truncated…" + x(4_000)
	if got := CodexRecut(text, ParseCodexOutput(text), 8_000); got != want {
		t.Errorf("exec_command: %d bytes, want %d", len(got), len(want))
	}
	var seq strings.Builder
	for i := 1; i <= 12_000; i++ {
		seq.WriteString(strings.Repeat("7", 4) + "\n")
	}
	out := seq.String() // 60,000 bytes, 12,000 lines
	status := "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"
	first := CodexExec(CodexEra{}, status+out, ParseCodexOutput(status+out), 40_000, true)
	if !strings.HasPrefix(first, "Exit code: 0\nWall time: 0.1 seconds\nTotal output lines: 12000\nOutput:\n7777\n") {
		t.Errorf("shell_command's first cut: %.120q", first)
	}
	direct := CodexExec(CodexEra{}, status+out, ParseCodexOutput(status+out), 8_000, true)
	if got := CodexRecut(first, ParseCodexOutput(first), 8_000); got != direct {
		t.Errorf("shell_command cut again:\n%.200q\nwant\n%.200q", got, direct)
	}
	// One line: no cut changes its count, so no status line names it.
	one := status + x(40_001)
	first = CodexExec(CodexEra{}, one, ParseCodexOutput(one), 40_000, true)
	if got, want := CodexRecut(first, ParseCodexOutput(first), 8_000), status+x(4_000)+"…8001 tokens truncated…"+x(4_000); got != want {
		t.Errorf("one line cut again: %.120q", got)
	}
	chars := x(6_000) + "…28105 chars truncated…" + x(6_000)
	if got, want := CodexRecut(chars, ParseCodexOutput(chars), 9_600), x(4_800)+"…30505 chars truncated…"+x(4_800); got != want {
		t.Errorf("in characters: %.60q", got[4_790:])
	}
}

// TestCodexExecHeader: before 0.142 the header over a cut command output
// names its line count alone.
func TestCodexExecHeader(t *testing.T) {
	for _, tt := range []struct {
		version, want string
	}{
		{"0.141.0", "Total output lines: 2\n\n"},
		{"0.142.0", "Warning: truncated output (original token count: 1)\nTotal output lines: 2\n\n"},
		{"", "Warning: truncated output (original token count: 1)\nTotal output lines: 2\n\n"},
	} {
		if got := CodexExecHeader(CodexEraOf(tt.version), "a\nbc"); got != tt.want {
			t.Errorf("%q: %q", tt.version, got)
		}
	}
	if CodexEraOf("0.124.0").ExecFollowsLimit || !CodexEraOf("0.125.0").ExecFollowsLimit {
		t.Error("a command's cut follows the limit from 0.125.0")
	}
}

// TestRustLinesOf: the lines of a cut's pieces are those of the pieces
// joined, an empty piece or one ending a line included.
func TestRustLinesOf(t *testing.T) {
	pieces := []string{"", "a", "a\n", "\n", "a\nb", "…3 tokens truncated…", "\n\n"}
	for _, h := range pieces {
		for _, m := range pieces {
			for _, tl := range pieces {
				if got, want := rustLinesOf(h, m, tl), rustLines(h+m+tl); got != want {
					t.Errorf("rustLinesOf(%q, %q, %q) = %d, want %d", h, m, tl, got, want)
				}
			}
		}
	}
}

// TestCodexExecCap: `seq 1 800000` (5,488,895 bytes) as Codex 0.169.0 and
// 0.142.0 sent it, header and marker: from 0.145 the halves kept (1 MiB)
// are joined by a 31-byte note of the 4,440,319 bytes left out, the
// counts are the whole output's (ceil(5,488,895/4) = 1,372,224), and the
// marker counts from the 1,048,607 bytes kept: ceil(1,008,607/4) =
// 252,152. Before, the 1 MiB kept is counted as the output: 262,144
// tokens, 164,131 lines, a marker of (1,048,576-40,000)/4 = 252,144.
func TestCodexExecCap(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 800_000; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	seq := b.String()
	status := "Chunk ID: a52ab9\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 1372224\nOutput:\n"
	raw := status + seq
	for _, tt := range []struct {
		era          CodexEra
		header, mark string
	}{
		{CodexEraOf("0.169.0"), "Warning: truncated output (original token count: 1372224)\n... 4440319 bytes omitted ...\n\n", "…252152 tokens truncated…"},
		{CodexEraOf("0.142.0"), "Warning: truncated output (original token count: 262144)\nTotal output lines: 164131\n\n", "…252144 tokens truncated…"},
	} {
		got := CodexExec(tt.era, raw, ParseCodexOutput(raw), 40_000, true)
		want := status + tt.header + seq[:20_000] + tt.mark + seq[len(seq)-20_000:]
		if got != want {
			t.Errorf("from %s: %d bytes, want %d:\n%.300q", tt.era.From, len(got), len(want), got[len(status):])
		}
		o := ParseCodexOutput(got)
		if o.Budget != 40_000 || o.Omitted != map[bool]int64{true: 4_440_319}[tt.era.ExecCapNote] {
			t.Errorf("from %s: parsed as cut at %d, %d bytes omitted", tt.era.From, o.Budget, o.Omitted)
		}
		// Cut again lower, from the head and tail kept, as from the raw.
		if again, direct := CodexRecut(got, o, 8_000), CodexExec(tt.era, raw, ParseCodexOutput(raw), 8_000, true); again != direct {
			t.Errorf("from %s: recut at 8,000 %.300q\nwant %.300q", tt.era.From, again[len(status):], direct[len(status):])
		}
	}
}

// TestRustLossy: a maximal part of an ill-formed sequence is one U+FFFD,
// as in Rust's from_utf8_lossy; bytes that form a character across a cut
// are that character.
func TestRustLossy(t *testing.T) {
	for in, want := range map[string]string{
		"\xC3" + "\x82\xAC":       "Â\uFFFD",    // é's lead and €'s rest: Â, then a lone continuation byte
		"\xE2\x82" + "\n":         "\uFFFD\n",   // € cut after two bytes: one
		"\xF0\x9F" + "\x82\xAC":   "\U0001F0AC", // 😀's first half and €'s rest: 🂬
		"\x80\x80":                "\uFFFD\uFFFD",
		"\xE0\x80":                "\uFFFD\uFFFD", // E0 takes A0-BF next
		"a\uFFFDb":                "a\uFFFDb",
		"\xF4\x90\x80\x80":        "\uFFFD\uFFFD\uFFFD\uFFFD", // past U+10FFFF
		"\xED\xA0\x80":            "\uFFFD\uFFFD\uFFFD",       // a surrogate
		"\xF0\x9F\x98" + "\n... ": "\uFFFD\n... ",
	} {
		if got := rustLossy(in); got != want {
			t.Errorf("rustLossy(%q) = %q, want %q", in, got, want)
		}
	}
}
