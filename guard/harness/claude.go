package harness

import (
	"crypto/sha256"
	"maps"
	"strconv"
	"strings"
)

// Claude Code's Read repeat stubs: the earlier text (2.1.86 to 2.1.126),
// and the one that replaced it (2.1.128 to 2.1.316).
const (
	ClaudeReadStubOld = "File unchanged since last read. The content from the earlier Read tool_result in this conversation is still current — refer to that instead of re-reading."
	ClaudeReadStub    = "Wasted call — file unchanged since your last Read. Refer to that earlier tool_result instead."
)

// ClaudeRule is one row of what Claude Code did with tool results, for the
// versions From (inclusive) to Until (exclusive; "" is open), with the
// evidence for it.
type ClaudeRule struct {
	From, Until string
	What        string
	Source      string
}

// ClaudeRules are the version rules, each with the versions it was
// observed on: the real Claude Code of each version, installed from npm
// and run headless against a stand-in of the model API, its requests
// recorded (internal/realharness). A bound is the first version that
// behaved otherwise; Claude Code skipped some version numbers (2.1.127),
// so a bound is the first published version after the change.
var ClaudeRules = []ClaudeRule{
	{"", "2.1.2", "Bash output over 30,000 characters (UTF-16 units) cut to its first 30,000 and Grep output over 20,000 to its first 20,000, ended \"\\n\\n... [N lines truncated] ...\"; nothing persisted",
		"observed on 2.0.76, 2.0.77 and 2.1.1 (30,000 and 20,000 sent whole, 30,001 and 20,001 cut, 29,999 é sent whole); a 1.0.17 log"},
	{"2.1.2", "", "Bash output over 30,000 characters and Grep output over 20,000 persisted: a <persisted-output> message naming the file in the session's tool-results folder that holds the output, with a 2,000-character preview cut back to its last line break when that is past its half",
		"observed on 2.1.2, 2.1.5, 2.1.45, 2.1.86, 2.1.200, 2.1.316 and 2.1.328 (30,000 and 20,000 sent whole, 30,001 and 20,001 persisted)"},
	{"2.1.2", "2.1.6", "no other tool's result persisted, however large (Read's neither)",
		"observed on 2.1.2 and 2.1.5: an MCP result of 200,001 characters and a Read of 177,849 sent whole"},
	{"2.1.6", "2.1.51", "any other tool's result over 100,000 characters persisted, a Read's too; an MCP result measured as its content blocks in compact JSON (27 characters more than one plain text block), and persisted as them in indented JSON, to a .json file",
		"observed on 2.1.6, 2.1.44 and 2.1.50: MCP text of 99,973 characters (100,000 in JSON) sent whole, 99,974 persisted; a 177,849-character Read persisted"},
	{"2.1.51", "2.1.74", "any other tool's result over 50,000 characters persisted (an MCP result still measured in JSON)",
		"observed on 2.1.51, 2.1.58, 2.1.59 and 2.1.73: MCP text of 49,973 characters sent whole, 49,999 persisted"},
	{"2.1.74", "", "an MCP result measured by its text: over 50,000 characters persisted",
		"observed on 2.1.74, 2.1.85, 2.1.86, 2.1.200 and 2.1.328: 50,000 sent whole, 50,001 persisted"},
	{"2.1.79", "", "a Read never persisted",
		"observed on 2.1.79, 2.1.85, 2.1.86 and 2.1.328: a 166,398-character Read sent whole; 2.1.74 to 2.1.78 persisted it"},
	{"2.1.45", "", "a Bash output measured and sized in bytes (Claude Code reads it from the file the command wrote)",
		"observed on 2.1.45, 2.1.50, 2.1.86 and 2.1.328: 29,999 é (59,998 bytes) persisted, \"Output too large (58.6KB)\"; 2.1.2 to 2.1.44 sent it whole"},
	{"2.1.2", "2.1.45", "a persisted Bash output's file named after the call id",
		"observed on 2.1.2, 2.1.25 and 2.1.44"},
	{"2.1.45", "2.1.59", "a persisted Bash output's file named after its task: b and 6 random characters",
		"observed on 2.1.45, 2.1.47, 2.1.50 and 2.1.58"},
	{"2.1.59", "", "a persisted Bash output's file named b and 8 random characters",
		"observed on 2.1.59, 2.1.63, 2.1.86, 2.1.200 and 2.1.328"},
	{"2.1.2", "2.1.309", "a preview that ends inside a surrogate pair ends with its first half (sent as U+FFFD)",
		"observed on 2.1.2, 2.1.86, 2.1.128 and 2.1.308"},
	{"2.1.309", "", "a preview that ends inside a surrogate pair ends before it",
		"observed on 2.1.309, 2.1.316 and 2.1.328"},
	{"", "2.1.86", "no Read repeat stubbed",
		"observed on 2.1.1, 2.1.50 and 2.1.85: an unchanged file read twice came back in full both times"},
	{"2.1.86", "2.1.128", "an unchanged Read repeat (same path, offset and limit) stubbed \"" + ClaudeReadStubOld + "\"",
		"observed on 2.1.86, 2.1.100, 2.1.112 and 2.1.126"},
	{"2.1.128", "2.1.317", "an unchanged Read repeat stubbed \"" + ClaudeReadStub + "\"",
		"observed on 2.1.128, 2.1.138, 2.1.146, 2.1.200, 2.1.266 and 2.1.316"},
	{"2.1.86", "2.1.317", "a compaction forgets no Read: a small file read before it and read again after it is stubbed",
		"observed on 2.1.86, 2.1.126, 2.1.128, 2.1.309 and 2.1.316 (a whole Read, a range and a file the model wrote, each read before); a 100,750-character file read again after it came back stubbed in some runs and in full in others (2.1.128 both ways), so no rule for large files"},
	{"2.1.86", "2.1.317", "a stubbed Read shows the model no content: the next Read of the file repeats the last one it saw in full",
		"observed on 2.1.86 to 2.1.316: a second stub after a compaction"},
	{"2.1.317", "", "no Read repeat stubbed: a file read again is sent again in full",
		"observed on 2.1.317, 2.1.319 and 2.1.328 (its code keeps the stub texts only to recognise them in older sessions)"},
	{"2.1.86", "", "the model's own Write or Edit of a file does not count as reading it: the next Read comes back in full",
		"observed on 2.1.86, 2.1.112, 2.1.146 and 2.1.316 on Linux; a 2.1.112 log written elsewhere stubbed such Reads, which file times coarser than the model's turns may explain"},
}

// ClaudeEra is what Claude Code did in one range of versions: the rules
// of ClaudeRules that hold there, as knobs.
type ClaudeEra struct {
	From string // first version, "" for the earliest
	// Cut is the size by tool over which Claude Code cut a result itself
	// (before 2.1.2), under its own marker.
	Cut map[string]int64
	// Persist: results over Ceiling (PerTool by tool, -1 never; a Ceiling
	// of 0 persists no other tool's) were persisted; false: none was.
	Persist bool
	Ceiling int64
	PerTool map[string]int64
	// SpillPath is where a persisted result's file is (a template of
	// guard/policy's SpillPath).
	SpillPath string
	// BashBytes: a Bash output is measured, and its size written, in
	// bytes; else in UTF-16 units, as everything else.
	BashBytes bool
	// BlocksAsJSON: a result of content blocks (an MCP tool's) is measured
	// as the blocks in compact JSON.
	BlocksAsJSON bool
	// WholePairs: a preview ends before a surrogate pair it would cut.
	WholePairs bool
	// ReadDedupe: unchanged Read repeats were stubbed with Stub.
	ReadDedupe bool
	Stub       string
}

// The files Claude Code persisted results to, by era: the call id, then
// for a Bash output its task's id (see Subject.locator's task_id6 and
// task_id8).
const (
	claudeFileByCall  = "{transcript_dir}/{session}/tool-results/{call_id}.{ext}"
	claudeFileByTask6 = "{transcript_dir}/{session}/tool-results/{task_id6}.{ext}"
	claudeFileByTask8 = "{transcript_dir}/{session}/tool-results/{task_id8}.{ext}"
)

// ClaudeEras are the ranges between the bounds of ClaudeRules, oldest
// first: each era is the one before with the rules that changed at its
// version.
var ClaudeEras = claudeEras()

func claudeEras() []ClaudeEra {
	eras := []ClaudeEra{{From: "", Cut: map[string]int64{"Bash": 30_000, "Grep": 20_000}}}
	next := func(from string, change func(*ClaudeEra)) {
		e := eras[len(eras)-1]
		e.From, e.Cut, e.PerTool = from, nil, maps.Clone(e.PerTool)
		change(&e)
		eras = append(eras, e)
	}
	next("2.1.2", func(e *ClaudeEra) {
		e.Persist, e.PerTool, e.SpillPath = true, map[string]int64{"Bash": 30_000, "Grep": 20_000}, claudeFileByCall
	})
	next("2.1.6", func(e *ClaudeEra) { e.Ceiling, e.BlocksAsJSON = 100_000, true })
	next("2.1.45", func(e *ClaudeEra) { e.BashBytes, e.SpillPath = true, claudeFileByTask6 })
	next("2.1.51", func(e *ClaudeEra) { e.Ceiling = 50_000 })
	next("2.1.59", func(e *ClaudeEra) { e.SpillPath = claudeFileByTask8 })
	next("2.1.74", func(e *ClaudeEra) { e.BlocksAsJSON = false })
	next("2.1.79", func(e *ClaudeEra) { e.PerTool["Read"] = -1 })
	next("2.1.86", func(e *ClaudeEra) { e.ReadDedupe, e.Stub = true, ClaudeReadStubOld })
	next("2.1.128", func(e *ClaudeEra) { e.Stub = ClaudeReadStub })
	next("2.1.309", func(e *ClaudeEra) { e.WholePairs = true })
	next("2.1.317", func(e *ClaudeEra) { e.ReadDedupe, e.Stub = false, "" })
	return eras
}

// ClaudeEraOf is the era of a Claude Code version; a version that does not
// parse (none recorded) gets the latest.
func ClaudeEraOf(version string) ClaudeEra {
	return eraOf(ClaudeEras, func(e ClaudeEra) string { return e.From }, version)
}

// eraOf is the era of eras (oldest first, each from the version from
// names) that version falls in; the latest where it does not parse.
func eraOf[E any](eras []E, from func(E) string, version string) E {
	v, ok := parseVersion(version)
	if !ok {
		return eras[len(eras)-1]
	}
	era := eras[0]
	for _, e := range eras[1:] {
		if f, _ := parseVersion(from(e)); compareVersions(v, f) >= 0 {
			era = e
		}
	}
	return era
}

// ValidVersion tells whether s is a version the eras can place:
// "major.minor.patch", anything after a '-' or '+' aside.
func ValidVersion(s string) bool {
	_, ok := parseVersion(s)
	return ok
}

// parseVersion reads "major.minor.patch", ignoring anything after a '-'
// or '+'.
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	s, _, _ = strings.Cut(s, "-")
	s, _, _ = strings.Cut(s, "+")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func compareVersions(a, b [3]int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ClaudeShaped tells whether a recorded result is one Claude Code already
// shaped: cut under its own marker, or persisted.
func ClaudeShaped(text string) bool {
	return claudeCut(text) || strings.HasPrefix(text, "<persisted-output>\n")
}

// claudeCut tells whether text ends with the marker under which Claude
// Code cut output itself (before 2.1.2): "\n\n... [N lines truncated] ...".
// It reads the end only: every replay asks it of every result, and a
// regular expression anchored at the end still scans the whole text.
func claudeCut(text string) bool {
	const tail = " lines truncated] ..."
	if !strings.HasSuffix(text, tail) {
		return false
	}
	rest := text[:len(text)-len(tail)]
	i := len(rest)
	for i > 0 && rest[i-1] >= '0' && rest[i-1] <= '9' {
		i--
	}
	return i < len(rest) && strings.HasSuffix(rest[:i], "\n\n... [")
}

// ClaudeCut is Claude Code's own cut of a tool's output before 2.1.2: the
// first n UTF-16 code units, then a blank line and how many lines of the
// rest were left out, "... [N lines truncated] ...", counting as
// splitting the rest at its newlines does.
func ClaudeCut(text string, n int64) string {
	var used int64
	for i, r := range text {
		w := int64(1)
		if r >= 0x10000 {
			w = 2
		}
		if used+w <= n {
			used += w
			continue
		}
		head := text[:i]
		if used < n {
			head += "\uFFFD" // the first half of a surrogate pair, as it is sent
		}
		// The rest's lines: half a pair is no newline.
		return head + "\n\n... [" + strconv.Itoa(strings.Count(text[i:], "\n")+1) + " lines truncated] ..."
	}
	return text
}

// ClaudeBlocks tells whether Claude Code holds a tool's result as content
// blocks rather than one string: an MCP tool's. A persisted result of
// blocks is written as their indented JSON, to a .json file.
func ClaudeBlocks(tool string) bool { return strings.HasPrefix(tool, "mcp__") }

// ClaudeBlocksSize is the size Claude Code measured a result of content
// blocks by from 2.1.6 to 2.1.73: the blocks in compact JSON, in UTF-16
// units, here one text block, from its text's units, its JSON length
// (JSONLen, with the quotes: JSON.stringify escapes the same characters,
// all as ASCII) and its bytes.
func ClaudeBlocksSize(units, jsonLen, bytes int64) int64 {
	return int64(len(`[{"type":"text","text":}]`)) + units + jsonLen - bytes
}

// claudeBlocksJSON is one text block as Claude Code persisted an MCP
// result: JSON.stringify(content, null, 2).
func claudeBlocksJSON(text string) string {
	return "[\n  {\n    \"type\": \"text\",\n    \"text\": " + jsString(text) + "\n  }\n]"
}

// jsString quotes s as JavaScript's JSON.stringify does: '"', '\\' and
// control characters escaped (\b \f \n \r \t, else \u00xx in lower-case
// hex), everything else as it is.
func jsString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c >= 0x20:
			b.WriteByte(c)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
	}
	b.WriteByte('"')
	return b.String()
}

// claudeTaskID stands in for the id Claude Code gives a Bash command's
// task, which names its persisted output's file: "b" and n random
// lower-case letters and digits, here derived from the call id (and its
// repeat) so that the name has the real one's length and two results
// never share it. Another tool's file is named after the call id.
func claudeTaskID(s Subject, n int) string {
	if s.Tool != "Bash" {
		return s.CallID
	}
	id := s.CallID
	if s.Repeat > 0 {
		id += "\x00" + strconv.Itoa(s.Repeat)
	}
	sum := sha256.Sum256([]byte(id))
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := []byte{'b'}
	for i := range n {
		b = append(b, digits[int(sum[i])%len(digits)])
	}
	return string(b)
}
