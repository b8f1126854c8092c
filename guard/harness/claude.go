package harness

import (
	"strconv"
	"strings"
)

// Claude Code's Read repeat stubs: the earlier text, and the one that
// replaced it.
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

// ClaudeRules are the version rules, each with its evidence. Changelog
// entries are from anthropics/claude-code's CHANGELOG.md; "log" rows are
// what recorded transcripts of that version show. Bounds not seen in a
// changelog are the nearest versions seen either way.
var ClaudeRules = []ClaudeRule{
	{"", "2.1.2", "no result persisted; Claude Code cut Bash output itself at 30,000 characters, keeping the head and ending it \"... [N lines truncated] ...\"",
		"changelog 2.1.2 (large outputs persisted instead of truncated); a 1.0.17 log whose 30,031-character Bash result ends in that marker"},
	{"2.1.2", "2.1.51", "results over 100,000 characters persisted (Bash 30,000; Read never), the preview and message as later",
		"changelog 2.1.2 and 2.1.51 (threshold lowered from 100K to 50K); the per-tool ceilings are inferred from the later ones; 2.1.14 and 2.1.22 logs have no result that large"},
	{"2.1.51", "", "results over 50,000 characters persisted (Bash 30,000, Grep 20,000, Read never) with a 2,000-character line-aligned preview",
		"changelog 2.1.51; thresholds read from the 2.1.251 binary (sudocode PR 509); issues 17944 and 23948"},
	{"", "2.1.86", "no Read repeat stubbed",
		"changelog (Read dedupe from 2.1.86); a 2.1.22 log re-reads 19 files in full after writing them"},
	{"2.1.86", "2.1.156", "an unchanged Read repeat stubbed \"" + ClaudeReadStubOld + "\"",
		"a 2.1.112 log shows this text"},
	{"2.1.156", "", "an unchanged Read repeat stubbed \"" + ClaudeReadStub + "\"",
		"issues 64882 (2.1.156) and 63935 (2.1.158) quote this text"},
	{"2.1.86", "2.1.147", "a file the model wrote or edited counts as read: its first Read after that is stubbed",
		"a 2.1.112 log stubs the first Read after the model's own Write and Edit of the file"},
	{"2.1.147", "", "only a Read counts: the first Read after the model's own Edit comes back in full",
		"a 2.1.146/2.1.147 log re-reads a README in full after editing it, with nothing else touching it"},
}

// ClaudeEra is what Claude Code did in one range of versions: the rules
// of ClaudeRules that hold there, as knobs.
type ClaudeEra struct {
	From string // first version, "" for the earliest
	// Persist: results over Ceiling (PerTool by tool, -1 never) were
	// persisted; false: none was.
	Persist bool
	Ceiling int64
	PerTool map[string]int64
	// ReadDedupe: unchanged Read repeats were stubbed with Stub;
	// WritesCount: the model's own writes counted as reads.
	ReadDedupe  bool
	Stub        string
	WritesCount bool
}

// ClaudeEras are the ranges between the bounds of ClaudeRules, oldest first.
var ClaudeEras = []ClaudeEra{
	{From: ""},
	{From: "2.1.2", Persist: true, Ceiling: 100_000, PerTool: map[string]int64{"Bash": 30_000, "Read": -1}},
	{From: "2.1.51", Persist: true, Ceiling: 50_000, PerTool: map[string]int64{"Bash": 30_000, "Grep": 20_000, "Read": -1}},
	{From: "2.1.86", Persist: true, Ceiling: 50_000, PerTool: map[string]int64{"Bash": 30_000, "Grep": 20_000, "Read": -1},
		ReadDedupe: true, Stub: ClaudeReadStubOld, WritesCount: true},
	{From: "2.1.147", Persist: true, Ceiling: 50_000, PerTool: map[string]int64{"Bash": 30_000, "Grep": 20_000, "Read": -1},
		ReadDedupe: true, Stub: ClaudeReadStubOld},
	{From: "2.1.156", Persist: true, Ceiling: 50_000, PerTool: map[string]int64{"Bash": 30_000, "Grep": 20_000, "Read": -1},
		ReadDedupe: true, Stub: ClaudeReadStub},
}

// ClaudeEraOf is the era of a Claude Code version; a version that does not
// parse (none recorded) gets the latest.
func ClaudeEraOf(version string) ClaudeEra {
	v, ok := parseVersion(version)
	if !ok {
		return ClaudeEras[len(ClaudeEras)-1]
	}
	era := ClaudeEras[0]
	for _, e := range ClaudeEras[1:] {
		if from, _ := parseVersion(e.From); compareVersions(v, from) >= 0 {
			era = e
		}
	}
	return era
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
