package harness

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// What Claude Code makes of a tool's output on its way to the model, read
// from the 2.1.328 binary (each tool's mapToolResultToToolResultBlockParam
// and the result processing after it) and checked against what it sent a
// stand-in model: the texts a PostToolUse hook's replacement becomes.

// ReadNumbering is how Claude Code numbered the lines of a Read: each line
// of the file's content (split at "\n", a trailing "\r" dropped) as its
// number, right-aligned to Width (0: not padded), Sep and the line. 2.1.328
// writes "N\t" from the Read's startLine; 2.0 and early 2.1 wrote
// "%6d→"; 1.0 "%6d\t".
type ReadNumbering struct {
	Start int
	Width int
	Sep   string
	// ColonForTabs: Claude Code used ":" for content with a line that
	// opens with a tab (its tab-aware separator, a flag some sessions have
	// on), so a replacement with such a line is numbered so too.
	ColonForTabs bool
	// Suffix is what followed the numbered lines (the system reminder of
	// 2.0 and early 2.1), added after the lines again.
	Suffix string
}

// claudeSearchStopped opens the results of a search Claude Code 2.1.328
// stopped at its time limit.
const claudeSearchStopped = "The search stopped before it finished, most likely at its time limit, so these results are incomplete: more matches may exist. Search a more specific path or pattern.\n\n"

// ClaudeSearchIncomplete tells whether text is the result of a Glob or Grep
// that Claude Code stopped at its time limit, or of a Glob it cut at its
// limit of files, which it ends with a line saying so: spillway's hook
// leaves those as they are (its replacement would lose that line).
func ClaudeSearchIncomplete(tool, text string) bool {
	switch {
	case tool != "Glob" && tool != "Grep":
		return false
	case strings.HasPrefix(text, claudeSearchStopped):
		return true
	case tool != "Glob":
		return false
	}
	last := text[strings.LastIndexByte(text, '\n')+1:]
	return last == "(Results are truncated. Consider using a more specific path or pattern.)" ||
		strings.HasPrefix(last, "(Showing ") && strings.HasSuffix(last, " Narrow the pattern or path to see the rest.)")
}

// readSeps are the separators Claude Code has put after a line number.
var readSeps = []string{"\t", "→", ":"}

// UnnumberRead is the content of a Read as Claude Code sent it numbered,
// and how it numbered it; ok is false when text is not numbered lines in
// one of Claude Code's forms (an empty file's warning, an image, a
// notebook, a repeat stub), which a hook leaves as it is.
func UnnumberRead(text string) (content string, n ReadNumbering, ok bool) {
	return unnumber(text, true)
}

// ReadNumberingOf is how text was numbered, as UnnumberRead tells it,
// without taking the content out.
func ReadNumberingOf(text string) (ReadNumbering, bool) {
	_, n, ok := unnumber(text, false)
	return n, ok
}

func unnumber(text string, build bool) (content string, n ReadNumbering, ok bool) {
	lines := text
	// The reminder of 2.0 and early 2.1 came after a blank line, which
	// numbered lines never hold: an empty line is "N\t". A last line
	// ended, which Claude Code never wrote, is kept as it is too.
	if i := strings.Index(text, "\n\n"); i >= 0 {
		lines, n.Suffix = text[:i], text[i:]
		if !strings.HasPrefix(n.Suffix, "\n\n<system-reminder>") {
			return "", ReadNumbering{}, false
		}
	} else if strings.HasSuffix(text, "\n") {
		lines, n.Suffix = text[:len(text)-1], "\n"
	}
	first, _, _ := strings.Cut(lines, "\n")
	digits := strings.TrimLeft(first, " ")
	pad := len(first) - len(digits)
	end := 0
	for end < len(digits) && digits[end] >= '0' && digits[end] <= '9' {
		end++
	}
	if end == 0 || end > 9 {
		return "", ReadNumbering{}, false
	}
	n.Start, _ = strconv.Atoi(digits[:end])
	if pad > 0 {
		n.Width = pad + end
	}
	for _, sep := range readSeps {
		if strings.HasPrefix(digits[end:], sep) {
			n.Sep = sep
		}
	}
	if n.Sep == "" {
		return "", ReadNumbering{}, false
	}
	var b strings.Builder
	if build {
		b.Grow(len(lines))
	}
	num := n.Start
	tabLine := false // a line of the content opens with a tab
	var prefix []byte
	for rest, more := lines, true; more; num++ {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		prefix = n.appendPrefix(prefix[:0], num, n.Sep)
		if !strings.HasPrefix(line, string(prefix)) {
			return "", ReadNumbering{}, false
		}
		body := line[len(prefix):]
		tabLine = tabLine || strings.HasPrefix(body, "\t")
		if build {
			b.WriteString(body)
			if more {
				b.WriteByte('\n')
			}
		}
	}
	if n.Sep == ":" {
		// Claude Code puts ":" only after the numbers of content with a
		// line that opens with a tab, "\t" after any other's.
		if !tabLine {
			return "", ReadNumbering{}, false
		}
		n.Sep, n.ColonForTabs = "\t", true
	}
	return b.String(), n, true
}

func (n ReadNumbering) prefixWith(num int, sep string) string {
	return string(n.appendPrefix(nil, num, sep))
}

// appendPrefix appends the number of line num and sep to dst.
func (n ReadNumbering) appendPrefix(dst []byte, num int, sep string) []byte {
	digits := 1
	for v := num; v >= 10 || v <= -10; v /= 10 {
		digits++
	}
	if num < 0 {
		digits++
	}
	for range n.Width - digits {
		dst = append(dst, ' ')
	}
	dst = strconv.AppendInt(dst, int64(num), 10)
	return append(dst, sep...)
}

// NumberRead numbers content as Claude Code numbers a Read's content (its
// RUt): every line, split at "\n", with a trailing "\r" dropped, after its
// number; empty content is no lines.
func NumberRead(content string, n ReadNumbering) string {
	if content == "" {
		return n.Suffix
	}
	sep := n.Sep
	if n.ColonForTabs && (strings.HasPrefix(content, "\t") || strings.Contains(content, "\n\t")) {
		sep = ":"
	}
	var b strings.Builder
	b.Grow(len(content) + len(content)/16 + len(n.Suffix))
	num := n.Start
	var prefix []byte
	for rest, more := content, true; more; num++ {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		prefix = n.appendPrefix(prefix[:0], num, sep)
		b.Write(prefix)
		b.WriteString(strings.TrimSuffix(line, "\r"))
		if more {
			b.WriteByte('\n')
		}
	}
	b.WriteString(n.Suffix)
	return b.String()
}

// ReadContent is content as the numbered lines hold it, for what a hook
// shapes to equal what a replay takes back out of them: every "\r" that
// ends a line dropped, as NumberRead drops it.
func ReadContent(content string) string {
	if !strings.Contains(content, "\r") {
		return content
	}
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return strings.Join(lines, "\n")
}

// BashOutput is a Bash result's stdout as Claude Code sends it: its
// leading blank lines and trailing white space cut (/^(\s*\n)+/ and
// trimEnd, in JavaScript's sense of white space).
func BashOutput(stdout string) string {
	// The last "\n" before the first other character ends the blank lines.
	cut := 0
	for i, r := range stdout {
		if r == '\n' {
			cut = i + 1
		} else if !jsSpace(r) {
			break
		}
	}
	return strings.TrimRightFunc(stdout[cut:], jsSpace)
}

// jsSpace is JavaScript's white space and line terminators: what \s
// matches and trim removes.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// ClaudeNoOutput is what Claude Code sends for a tool whose result is
// empty or only white space (its processToolResultBlock).
func ClaudeNoOutput(tool string) string { return "(" + tool + " completed with no output)" }

// ClaudeBlank says whether Claude Code takes a result text as empty.
func ClaudeBlank(text string) bool { return strings.TrimFunc(text, jsSpace) == "" }

// ClaudePersisted is the message Claude Code sends in place of an output
// it persisted: its size as formatFileSize words it (size is in bytes for
// Bash's own file, in UTF-16 units for other tools'), the file, and the
// first previewUnits of text, cut back to its last newline when that is
// past the half of it (lineAligned), as the latest Claude Code does.
func ClaudePersisted(size int64, path, text string, previewUnits int64, lineAligned bool) string {
	return claudePersisted(size, path, text, previewUnits, lineAligned, ClaudeEras[len(ClaudeEras)-1].WholePairs)
}

// claudePersisted is ClaudePersisted as an era did it: wholePairs ends the
// preview before a surrogate pair it would cut, else with its first half.
func claudePersisted(size int64, path, text string, previewUnits int64, lineAligned, wholePairs bool) string {
	// The cut scans the preview's units, not the whole text's: a text is
	// cut where its units pass previewUnits, and only there (a cut through
	// a surrogate pair ends with U+FFFD, so its length is never the text's).
	preview := headUnitsPairs(text, previewUnits, wholePairs)
	more := len(preview) != len(text)
	if more {
		if nl := strings.LastIndexByte(preview, '\n'); lineAligned && nl >= 0 && UTF16Over(preview[:nl], previewUnits/2) {
			preview = preview[:nl]
		}
	}
	var b strings.Builder
	b.Grow(len(preview) + len(path) + 128)
	b.WriteString("<persisted-output>\nOutput too large (")
	b.WriteString(fileSize(size))
	b.WriteString("). Full output saved to: ")
	b.WriteString(path)
	b.WriteString("\n\nPreview (first ")
	b.WriteString(fileSize(previewUnits))
	b.WriteString("):\n")
	b.WriteString(preview)
	if more {
		b.WriteString("\n...\n")
	} else {
		b.WriteString("\n")
	}
	b.WriteString("</persisted-output>")
	return b.String()
}

// ClaudePersistedPath is the file a persisted-output message names, and
// what followed the message (Claude Code joins a Bash result's notes
// after it with "\n"); ok is false when text is no such message.
func ClaudePersistedPath(text string) (path, after string, ok bool) {
	const open, close, saved = "<persisted-output>\nOutput too large (", "</persisted-output>", "). Full output saved to: "
	if !strings.HasPrefix(text, open) {
		return "", "", false
	}
	end := strings.Index(text, close)
	i := strings.Index(text[:max(end, 0)], saved)
	if end < 0 || i < 0 {
		return "", "", false
	}
	path, _, _ = strings.Cut(text[i+len(saved):end], "\n")
	return path, text[end+len(close):], path != "" && utf8.ValidString(path)
}

// ClaudePersistLimit is the most of an output Claude Code 2.1.328 saves to
// its tool-results file; an output of this size or more is saved cut, and
// its message says "Output exceeded the 64MB persist limit" instead. The
// whole output is then nowhere: spillway's hook leaves it as it is.
const ClaudePersistLimit = 64 << 20

// ClaudePersistCut tells whether text is the message of an output Claude
// Code saved cut at ClaudePersistLimit.
func ClaudePersistCut(text string) bool {
	return strings.HasPrefix(text, "<persisted-output>\nOutput exceeded the ")
}

// ClaudeHookTools says whether spillway's hook can replace the output of
// a Claude Code tool: the tools whose output shape it knows (Read, Bash,
// Grep, Glob, WebFetch) and MCP tools, whose output is content blocks.
func ClaudeHookTools(tool string) bool {
	switch tool {
	case "Read", "Bash", "Grep", "Glob", "WebFetch":
		return true
	}
	return strings.HasPrefix(tool, "mcp__")
}

// ClaudeOwnLimit is the size over which Claude Code persists a tool's
// output itself, in UTF-16 units, as the latest era does; ok is false
// for a tool it never persists (Read).
func ClaudeOwnLimit(tool string) (int64, bool) {
	era := ClaudeEras[len(ClaudeEras)-1]
	n, set := era.PerTool[tool]
	if !set {
		n = era.Ceiling
	}
	return n, n > 0
}

// ReadOffset is where the byte at content offset off is in
// NumberRead(content, n): after the numbers of every line that starts
// before it, and of its own line when it starts it, unless end asks for
// the end of content[:off] (whose last line's number is then not counted
// when off starts a line).
func ReadOffset(content string, n ReadNumbering, off int, end bool) int {
	sep := n.Sep
	if n.ColonForTabs && (strings.HasPrefix(content, "\t") || strings.Contains(content, "\n\t")) {
		sep = ":"
	}
	out, start, num := off, 0, n.Start
	for start < off || (!end && start == off && start <= len(content)) {
		out += len(n.prefixWith(num, sep))
		nl := strings.IndexByte(content[start:], '\n')
		if nl < 0 {
			break
		}
		start += nl + 1
		num++
	}
	return out
}
