package harness

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/guard/tokens"
)

// CodexRule is one row of what Codex CLI did with tool outputs, for the
// versions From (inclusive) to Until (exclusive; "" is open), with the
// evidence for it.
type CodexRule struct {
	From, Until string
	What        string
	Source      string
}

// CodexRules are the version rules, each with the versions it was
// observed on: the real Codex CLI of each version, installed from npm and
// run with `codex exec` against a stand-in of the Responses API, its
// requests recorded (internal/realharness), with a model each version
// sizes in tokens (gpt-5.4 before 0.128, gpt-5.5 after).
var CodexRules = []CodexRule{
	{"", "", "a tool output is recorded cut in the middle to 1.2 times the limit (10,000 tokens, or tool_output_token_limit: 12,000 tokens, 48,000 bytes), \"…N tokens truncated…\" between the halves, N counting the bytes removed past the budget by 4",
		"observed on 0.114.0 and 0.118.0 with tool_output_token_limit = 2000 (9,600 bytes kept), and with a model they size in bytes (10,000 bytes: 12,000 kept, \"…N chars truncated…\"); codex-rs/utils/output-truncation"},
	{"", "", "exec_command (and write_stdin) output over 10,000 tokens (40,000 bytes; max_output_tokens where the call sets it) cut in the middle by the tool, after its status lines (Chunk ID, Wall time, exit code, Original token count, Output:)",
		"observed on 0.114.0, 0.118.0, 0.128.0, 0.129.0, 0.141.0, 0.142.0, 0.144.1 and 0.169.0: 40,000 bytes sent whole, 40,001 cut; 0.169.0 with tool_output_token_limit = 20000 still cut at 40,000"},
	{"", "0.125.0", "the command's cut ignores a lower tool_output_token_limit: only the recording cut follows it",
		"observed on 0.114.0, 0.118.0, 0.122.0 and 0.124.0 with tool_output_token_limit = 2000"},
	{"0.125.0", "", "the command's cut follows a lower tool_output_token_limit",
		"observed on 0.125.0, 0.128.0 and 0.169.0 with tool_output_token_limit = 2000: cut at 8,000 bytes"},
	{"", "0.142.0", "the cut output headed \"Total output lines: L\" and a blank line",
		"observed on 0.114.0, 0.118.0, 0.128.0, 0.129.0 and 0.141.0"},
	{"0.142.0", "", "the cut output headed \"Warning: truncated output (original token count: T)\", \"Total output lines: L\" and a blank line (also a code-mode exec script's output)",
		"observed on 0.142.0, 0.144.1 and 0.169.0; 0.144.1 logs of exec"},
	{"", codexCapNoteFrom, "exec_command output over 1 MiB kept as its first and last half MiB or so, joined as they are, and counted and headed as if that were the output",
		"observed on 0.114.0, 0.128.0, 0.142.0 and 0.144.1 with `seq 1 800000` (5,488,895 bytes): 1,048,576 bytes kept, yet 1,122,560 in one run of 0.144.1 and 1,052,540 of 1,199,994 in one of 0.128.0 (what was kept varied with how the output arrived)"},
	{codexCapNoteFrom, "", "exec_command output over 1 MiB kept as its first and last half MiB joined by \"\\n... N bytes omitted ...\\n\", a character cut at either read as Rust's from_utf8_lossy reads it; the status lines and warning count the whole output, \"... N bytes omitted ...\" stands in for the line count, and the cut counts from what was kept",
		"observed on 0.145.0, 0.150.0, 0.156.0 and 0.169.0 with 5,488,895 bytes, and 1,199,994 bytes cutting a character at both halves"},
	{"", "", "shell_command output (unified exec off) over the limit cut in the middle, with \"Total output lines: L\" among its status lines when the cut changed the line count",
		"observed on 0.128.0 (features.unified_exec = false); 0.169.0 no longer offers shell_command"},
	{"", "", "nothing persisted, no repeat suppressed", "no version observed does either"},
}

// CodexEra is what Codex did in one range of versions: the rules of
// CodexRules that hold there.
type CodexEra struct {
	From string // first version, "" for the earliest
	// ExecFollowsLimit: a command's own cut is at most the limit
	// (tool_output_token_limit), not only the recording cut.
	ExecFollowsLimit bool
	// ExecWarning: the header over a command output Codex cut opens with
	// "Warning: truncated output (original token count: T)".
	ExecWarning bool
	// ExecCapNote: unified exec joins the halves it keeps of a command's
	// output over CodexExecCap with a note of the bytes left out, and the
	// status lines and header count the whole output; before, the halves
	// were joined as they were and counted as if they were the output.
	ExecCapNote bool
}

// CodexExecTokens is the budget of a command's own cut where the call
// sets none (exec_command's max_output_tokens).
const CodexExecTokens = 10_000

// CodexEras are the ranges between the bounds of CodexRules, oldest first.
var CodexEras = []CodexEra{
	{From: ""},
	{From: "0.125.0", ExecFollowsLimit: true},
	{From: "0.142.0", ExecFollowsLimit: true, ExecWarning: true},
	{From: codexCapNoteFrom, ExecFollowsLimit: true, ExecWarning: true, ExecCapNote: true},
}

const codexCapNoteFrom = "0.145.0"

// CodexEraOf is the era of a Codex version; a version that does not
// parse (none recorded) gets the latest.
func CodexEraOf(version string) CodexEra {
	return eraOf(CodexEras, func(e CodexEra) string { return e.From }, version)
}

// CodexKind is how a Codex tool output is laid out.
type CodexKind uint8

// The layouts.
const (
	// CodexPlain is output alone, with no status lines.
	CodexPlain CodexKind = iota
	// CodexScript is a code-mode exec script's: "Script completed", "Wall
	// time N seconds", "Output:", then the output.
	CodexScript
	// CodexUnified is exec_command's and write_stdin's: an optional
	// "Command:" line, "Chunk ID:", "Wall time:", the exit code or a
	// session id, "Original token count:", "Output:", then the output.
	CodexUnified
	// CodexFreeform is shell_command's: "Exit code:", "Wall time:", the
	// line count where a cut changed it, "Output:", then the output.
	CodexFreeform
)

// CodexOutput is a recorded Codex tool output taken apart: its status
// lines, and the cut Codex made, if any. Offsets are bytes of the text.
type CodexOutput struct {
	Kind   CodexKind
	Status int32 // the status lines, through "Output:\n"
	// Cut: Codex cut the text. History: it cut all of it as it recorded
	// it; else the tool cut the output after the status lines.
	Cut, History bool
	// Tokens: the marker counts tokens, else characters.
	Tokens bool
	// Header is the truncation header opening the output ("Warning: …",
	// "Total output lines: L" and a blank line).
	Header int32
	// The marker is text[HeadEnd:TailStart].
	HeadEnd, TailStart int32
	// Budget is the bytes the cut kept: the budget it was made at; 0 when
	// the header is there but no marker where the cut puts one.
	Budget int64
	// Removed is the marker's count.
	Removed int64
	// Original is the uncut output's size in tokens where the header or a
	// status line says it, else 0.
	Original int64
	// Omitted is the bytes of a command's output over CodexExecCap that
	// unified exec left out before the cut, as the header says.
	Omitted int64
}

// CodexExecWarning opens the header of command output Codex cut.
const CodexExecWarning = "Warning: truncated output (original token count: "

// ParseCodexOutput takes a recorded tool output apart. It reads the
// status lines and a few bytes around the middle: every result of every
// session is parsed once.
func ParseCodexOutput(text string) CodexOutput {
	var o CodexOutput
	if at, end, n, tok, ok := codexMarker(text); ok {
		// Cut whole as recorded: the marker halves the text.
		o.Cut, o.History, o.Tokens, o.HeadEnd, o.TailStart, o.Removed = true, true, tok, int32(at), int32(end), n
		o.Budget = codexBudget(at, len(text)-end, tok, 0, 0)
		o.Kind, o.Status, o.Original = codexStatus(text[:at])
		return o
	}
	o.Kind, o.Status, o.Original = codexStatus(text)
	output := text[o.Status:]
	whole := o.Original > 0 && ApproxTokens(int64(len(output))) == o.Original
	header, original, omitted := codexHeader(output)
	if original > 0 {
		o.Original = original
	}
	o.Omitted = omitted
	at, end, n, tok, ok := codexMarker(output[header:])
	if !ok {
		if whole {
			// As long as the status lines count it: a command printed
			// what opens as the header (a log of Codex), uncut.
			return CodexOutput{Kind: o.Kind, Status: o.Status, Original: ApproxTokens(int64(len(output)))}
		}
		// Codex's header with no marker where its cut puts one: cut, at a
		// budget unknown (0), so not to be cut again.
		o.Cut, o.Header = header > 0, int32(header)
		return o
	}
	base := int(o.Status) + header
	o.Cut, o.Tokens, o.Header, o.Removed = true, tok, int32(header), n
	o.HeadEnd, o.TailStart = int32(base+at), int32(base+end)
	if omitted == 0 {
		o.Budget = codexBudget(at, len(output)-header-end, tok, n, o.Original)
	} else {
		// The marker counts from what unified exec kept, not the original.
		o.Budget = codexBudget(at, len(output)-header-end, tok, 0, 0)
	}
	return o
}

// codexStatus finds the status lines a layout heads its output with.
func codexStatus(text string) (CodexKind, int32, int64) {
	const mark = "\nOutput:\n"
	find := func(limit int, wall string) int {
		head := text[:min(len(text), limit)]
		i := strings.Index(head, mark)
		if i < 0 || !strings.Contains(head[:i], wall) {
			return -1
		}
		return i + len(mark)
	}
	switch {
	case strings.HasPrefix(text, "Script "):
		if n := find(256, "\nWall time "); n > 0 {
			return CodexScript, int32(n), 0
		}
	case strings.HasPrefix(text, "Exit code: "):
		if n := find(256, "\nWall time: "); n > 0 {
			return CodexFreeform, int32(n), 0
		}
	case strings.HasPrefix(text, "Chunk ID: "), strings.HasPrefix(text, "Command: "):
		// A Command line holds the whole command, however long.
		if n := find(64<<10, "Chunk ID: "); n > 0 {
			var original int64
			if i := strings.LastIndex(text[:n], "\nOriginal token count: "); i >= 0 {
				original, _ = strconv.ParseInt(text[i+len("\nOriginal token count: "):n-len(mark)], 10, 64)
			}
			return CodexUnified, int32(n), original
		}
	}
	return CodexPlain, 0, 0
}

// codexHeader measures the truncation header opening an output Codex cut:
// "Warning: truncated output (original token count: T)\n" (from 0.142),
// then "Total output lines: L\n\n", or "... N bytes omitted ...\n\n" where
// unified exec kept only CodexExecCap of it; and T and N.
func codexHeader(output string) (n int, original, omitted int64) {
	if strings.HasPrefix(output, CodexExecWarning) {
		end := strings.Index(output[:min(len(output), 80)], ")\n")
		if end < 0 {
			return 0, 0, 0
		}
		t, err := strconv.ParseInt(output[len(CodexExecWarning):end], 10, 64)
		if err != nil {
			return 0, 0, 0
		}
		n, original = end+2, t
	}
	rest := output[n:]
	// The second line: its opening, and what follows its number through
	// the blank line.
	for _, line := range [][2]string{{"Total output lines: ", "\n\n"}, {codexOmittedOpen, codexOmittedClose + "\n\n"}} {
		if !strings.HasPrefix(rest, line[0]) {
			continue
		}
		end := strings.Index(rest[:min(len(rest), 64)], line[1])
		if end < 0 {
			break
		}
		v, err := strconv.ParseInt(rest[len(line[0]):end], 10, 64)
		if err != nil {
			break
		}
		if line[0] == codexOmittedOpen {
			omitted = v
		}
		return n + end + len(line[1]), original, omitted
	}
	return n, original, 0
}

// codexMarker finds the marker of Codex's middle truncation halving s:
// "…N tokens truncated…" or "…N chars truncated…" where the kept head and
// tail are the halves of one budget, a few bytes apart at most (each is
// cut back to whole characters).
func codexMarker(s string) (at, end int, n int64, tokens, ok bool) {
	const ellipsis = "…"
	mid := len(s) / 2
	for i := max(0, mid-48); i <= min(len(s), mid+8)-len(ellipsis); i++ {
		if s[i] != ellipsis[0] || !strings.HasPrefix(s[i:], ellipsis) {
			continue
		}
		j := i + len(ellipsis)
		k := j
		for k < len(s) && k-j < 19 && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j {
			continue
		}
		count, err := strconv.ParseInt(s[j:k], 10, 64)
		if err != nil {
			continue
		}
		var unitTokens bool
		switch {
		case strings.HasPrefix(s[k:], " tokens truncated"+ellipsis):
			k, unitTokens = k+len(" tokens truncated"+ellipsis), true
		case strings.HasPrefix(s[k:], " chars truncated"+ellipsis):
			k += len(" chars truncated" + ellipsis)
		default:
			continue
		}
		if d := i - (len(s) - k); d >= -4 && d <= 4 {
			return i, k, count, unitTokens, true
		}
	}
	return 0, 0, 0, false, false
}

// codexBudget is the budget a cut that kept head and tail bytes was made
// at. With the original size in tokens and the removed tokens it is
// exact (the budget is four bytes a token, and the marker counts what it
// removed past the budget); else it is twice the larger half, rounded up
// to whole tokens: exact unless a half was cut back to whole characters.
func codexBudget(head, tail int, tokens bool, removed, original int64) int64 {
	if tokens && original > 0 && original >= removed {
		return 4 * (original - removed)
	}
	b := 2 * int64(max(head, tail))
	if tokens {
		b = (b + 3) / 4 * 4
	}
	return b
}

// CodexExecHeader heads command output Codex cut (formatted_truncate_text
// in codex-rs/utils/output-truncation): from 0.142 its size before the
// cut in approximate tokens, then its line count as Rust's str::lines
// counts, or the bytes unified exec left out of it.
func CodexExecHeader(era CodexEra, output string) string {
	return codexExecHeader(era, int64(len(output)), fmt.Sprintf("Total output lines: %d\n\n", rustLines(output)))
}

func codexExecHeader(era CodexEra, size int64, second string) string {
	if !era.ExecWarning {
		return second
	}
	return fmt.Sprintf(CodexExecWarning+"%d)\n", ApproxTokens(size)) + second
}

// CodexExecCap is what unified exec keeps of a command's output: its
// first and last half MiB (CodexRules).
const CodexExecCap = 1 << 20

const codexOmittedOpen, codexOmittedClose = "... ", " bytes omitted ..."

// codexCapped is output as unified exec keeps it, and the bytes it left
// out: its first and last half of CodexExecCap, cut at bytes, joined by
// the note or (before ExecCapNote) as they are, then read as Rust's
// String::from_utf8_lossy reads them, so that the bytes of a character
// cut in two become U+FFFD (observed on 0.142.0 and 0.169.0: the counts
// Codex sent include them).
func codexCapped(era CodexEra, output string) (string, int64) {
	omitted := int64(len(output) - CodexExecCap)
	if omitted <= 0 {
		return output, 0
	}
	head, tail := output[:CodexExecCap/2], output[len(output)-CodexExecCap/2:]
	// The output is whole characters: only the bytes about the cuts can
	// be ill-formed, the head's unfinished last character and the rest
	// of one the tail opens with.
	start := lastRuneStart(head)
	if utf8.FullRuneInString(head[start:]) {
		start = len(head)
	}
	rest := 0
	for rest < len(tail) && rest < utf8.UTFMax && !utf8.RuneStart(tail[rest]) {
		rest++
	}
	note := ""
	if era.ExecCapNote {
		note = "\n" + codexOmittedOpen + strconv.FormatInt(omitted, 10) + codexOmittedClose + "\n"
	}
	var b strings.Builder
	b.Grow(CodexExecCap + len(note) + 16)
	b.WriteString(head[:start])
	b.WriteString(rustLossy(head[start:] + note + tail[:rest]))
	b.WriteString(tail[rest:])
	return b.String(), omitted
}

// lastRuneStart is where the last character of s begins, looking back no
// further than a character's length.
func lastRuneStart(s string) int {
	i := len(s) - 1
	for i > 0 && i > len(s)-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return max(i, 0)
}

// rustLossy is s as Rust's String::from_utf8_lossy reads it: each maximal
// part of an ill-formed sequence (Unicode's "best practice", which Go's
// decoder does not follow: it takes one byte at a time) is one U+FFFD.
func rustLossy(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if r, n := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || n > 1 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		// The lead byte and the continuation bytes that may follow it,
		// as far as they go (Unicode table 3-7).
		lo, hi, need := byte(0x80), byte(0xBF), 0
		switch c := s[i]; {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c == 0xE0:
			lo, need = 0xA0, 2
		case c == 0xED:
			hi, need = 0x9F, 2
		case c >= 0xE1 && c <= 0xEF:
			need = 2
		case c == 0xF0:
			lo, need = 0x90, 3
		case c == 0xF4:
			hi, need = 0x8F, 3
		case c >= 0xF1 && c <= 0xF3:
			need = 3
		}
		i++
		for ; need > 0 && i < len(s) && s[i] >= lo && s[i] <= hi; need-- {
			i++
			lo, hi = 0x80, 0xBF
		}
		b.WriteRune(utf8.RuneError)
	}
	return b.String()
}

// rustLines counts lines as Rust's str::lines does.
func rustLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// rustLinesOf is rustLines of head, marker and tail joined, counted
// without joining them.
func rustLinesOf(head, marker, tail string) int {
	n := strings.Count(head, "\n") + strings.Count(marker, "\n") + strings.Count(tail, "\n")
	last := tail
	if last == "" {
		last = marker
	}
	if last == "" {
		last = head
	}
	if last != "" && !strings.HasSuffix(last, "\n") {
		n++
	}
	return n
}

// CodexExec is Codex's first cut of a command output at budget bytes:
// the output after the status lines, cut in the middle, under the
// header of its era; shell_command's freeform layout instead names the
// line count among its status lines when the cut changed it. Only the
// output counts against the budget.
func CodexExec(era CodexEra, text string, o CodexOutput, budget int64, inTokens bool) string {
	status, output := text[:o.Status], text[o.Status:]
	kept, omitted := output, int64(0)
	if o.Kind == CodexUnified || o.Kind == CodexPlain {
		kept, omitted = codexCapped(era, output)
	}
	if int64(len(kept)) <= budget {
		if omitted == 0 {
			return text
		}
		// Not observed: a budget over a MiB needs a limit over 262,144
		// tokens. What was kept, with no header over it.
		return status + kept
	}
	if !era.ExecCapNote {
		// The kept halves are the output as far as the cut knows.
		output, omitted = kept, 0
	}
	// The cut's pieces are joined with what heads them in one copy: a
	// command's cut output is the largest text a replay makes.
	head, marker, tail := codexCut(kept, budget, inTokens)
	switch {
	case o.Kind == CodexFreeform:
		return codexFreeformStatus(status, rustLines(output), rustLinesOf(head, marker, tail)) + head + marker + tail
	case omitted > 0:
		note := codexOmittedOpen + strconv.FormatInt(omitted, 10) + codexOmittedClose + "\n\n"
		return status + codexExecHeader(era, int64(len(output)), note) + head + marker + tail
	}
	return status + CodexExecHeader(era, output) + head + marker + tail
}

// codexFreeformStatus is shell_command's status lines with the output's
// line count among them where the shown output has another.
func codexFreeformStatus(status string, total, shown int) string {
	const lines, out = "Total output lines: ", "Output:\n"
	if i := strings.Index(status, lines); i >= 0 {
		status = status[:i] + status[i+strings.IndexByte(status[i:], '\n')+1:]
	}
	if total == shown {
		return status
	}
	return strings.TrimSuffix(status, out) + lines + strconv.Itoa(total) + "\n" + out
}

// CodexRecut cuts at budget bytes an output Codex already cut at a
// larger one, as Codex would have cut the uncut output: the new head and
// tail are the first and last bytes of the ones it kept, and the status
// lines and header, which describe the uncut output, stay.
func CodexRecut(text string, o CodexOutput, budget int64) string {
	start := int(o.Status + o.Header)
	if o.History {
		start = 0
	}
	prefix, head, tail := text[:start], text[start:o.HeadEnd], text[o.TailStart:]
	left := budget / 2
	newHead, newTail := headBytes(head, left), tailBytes(tail, budget-left)
	var marker string
	if o.Tokens {
		// The uncut output had 4·Original bytes, to three less, or the old
		// budget and at most four a removed token: whole tokens away from
		// a budget of whole tokens.
		total := o.Budget + 4*o.Removed
		if o.Original > 0 && !o.History && o.Omitted == 0 {
			total = 4 * o.Original
		}
		marker = fmt.Sprintf("…%d tokens truncated…", ApproxTokens(total-budget))
	} else {
		removed := o.Removed + int64(utf8.RuneCountInString(head[len(newHead):])+utf8.RuneCountInString(tail[:len(tail)-len(newTail)]))
		marker = fmt.Sprintf("…%d chars truncated…", removed)
	}
	if o.Kind == CodexFreeform && !o.History {
		// The uncut output's lines: the status line says them where the
		// first cut changed them, else the first cut kept them all.
		total := rustLines(text[o.Status:])
		if n, ok := codexFreeformLines(prefix); ok {
			total = n
		}
		prefix = codexFreeformStatus(prefix, total, rustLinesOf(newHead, marker, newTail))
	}
	return prefix + newHead + marker + newTail
}

// codexFreeformLines reads the line count shell_command's status lines
// name.
func codexFreeformLines(status string) (int, bool) {
	const lines = "\nTotal output lines: "
	i := strings.Index(status, lines)
	if i < 0 {
		return 0, false
	}
	rest := status[i+len(lines):]
	n, err := strconv.Atoi(rest[:max(0, strings.IndexByte(rest, '\n'))])
	return n, err == nil
}

// CodexTruncate is Codex's middle truncation when it records a tool output
// (codex-rs/utils/string/src/truncate.rs): half the byte budget to the
// head, the rest to the tail, whole characters only, and a marker between
// that is not counted against the budget.
func CodexTruncate(text string, ix *tokens.Index, budgetBytes int64, inTokens bool) (string, []tokens.Part) {
	if int64(len(text)) <= budgetBytes {
		return text, nil
	}
	prefix, marker, suffix := codexCut(text, budgetBytes, inTokens)
	parts := []tokens.Part{headPart(ix, text, prefix), tokens.Lit(marker), tailPart(ix, text, suffix)}
	return join(parts), parts
}

// codexCut is CodexTruncate's head, marker and tail of a text over
// budgetBytes, not joined.
func codexCut(text string, budgetBytes int64, inTokens bool) (prefix, marker, suffix string) {
	left := budgetBytes / 2
	prefix = headBytes(text, left)
	suffix = tailBytes(text, budgetBytes-left)
	if !inTokens {
		removed := utf8.RuneCountInString(text[len(prefix) : len(text)-len(suffix)])
		return prefix, fmt.Sprintf("…%d chars truncated…", removed), suffix
	}
	return prefix, fmt.Sprintf("…%d tokens truncated…", ApproxTokens(int64(len(text))-budgetBytes)), suffix
}
