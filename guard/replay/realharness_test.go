package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/realharness"
	"github.com/spillway-dev/spillway/transcript"
)

var record = flag.Bool("record", false, "write the logs the real harnesses wrote in the TestReal…Versions tests into testdata/real")

// probe is one tool call a scripted session makes, and the output the
// tool produced before the harness shaped it, where the test made it (a
// file it wrote, printed whole); "" where only the harness's own copy
// tells (a Read, which Claude Code numbers by line).
type probe struct {
	ID, Tool string
	Input    any
	Raw      string
	// Compact makes the answer that asks for this call say it used most of
	// the context window: the harness compacts before its next request.
	Compact bool
	// Together asks for this call in the same answer as the one before:
	// calls whose order does not matter take fewer requests.
	Together bool
}

// turns plays the probes, one answer each or as many together as say so.
func turns(probes []probe) []realharness.Turn {
	var out []realharness.Turn
	for _, p := range probes {
		c := realharness.Call{ID: p.ID, Name: p.Tool, Input: p.Input}
		if p.Together && len(out) > 0 {
			out[len(out)-1].Calls = append(out[len(out)-1].Calls, c)
		} else {
			out = append(out, realharness.Turn{Calls: []realharness.Call{c}})
		}
		if p.Compact {
			out[len(out)-1].Usage = &realharness.Usage{Input: 990_000, Output: 10}
		}
	}
	return out
}

// writeFiles writes the files of a scripted session into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lines is n lines of width characters (newline included), the last
// without its newline when trimmed.
func lines(n, width int, fill string, trimmed bool) string {
	s := strings.Repeat(strings.Repeat(fill, width-1)+"\n", n)
	if trimmed {
		s = s[:len(s)-1] + fill
	}
	return s
}

// grepFile is a file whose every line matches "match", laid out so that
// Claude Code's content-mode Grep of it ("N:line" rows, one a line) is
// exactly size characters: the file and that output.
func grepFile(size int) (file, output string) {
	const n = 100
	prefix := 0
	for i := 1; i <= n; i++ {
		prefix += len(fmt.Sprintf("%d:", i))
	}
	chars := size - prefix - (n - 1)
	var f, o strings.Builder
	for i := range n {
		width := chars / n
		if i < chars%n {
			width++
		}
		line := ("match" + strings.Repeat("y", 500))[:width]
		f.WriteString(line + "\n")
		if i > 0 {
			o.WriteByte('\n')
		}
		fmt.Fprintf(&o, "%d:%s", i+1, line)
	}
	return f.String(), o.String()
}

// unnumbered is Grep output without the line numbers heading its rows.
func unnumbered(rows string) string {
	lines := strings.Split(rows, "\n")
	for i, l := range lines {
		lines[i] = l[strings.IndexByte(l, ':')+1:]
	}
	return strings.Join(lines, "\n")
}

// claudeScript is the scripted Claude Code session: outputs below, at and
// over each threshold Claude Code has had (Bash 30,000 characters, Grep
// 20,000, any other tool 50,000 or 100,000, counted in UTF-16 units),
// multi-byte text and a preview cut through a surrogate pair, a file of
// 100,750 characters read twice, a range read twice, reads after the
// model's own Write and Edit, and results after a compaction.
func claudeScript(work string) (files map[string]string, probes []probe) {
	x := func(n int) string { return strings.Repeat("x", n) }
	var big strings.Builder // 100,750 characters: over 100,000 numbered too
	for i := 1; i <= 1550; i++ {
		fmt.Fprintf(&big, "line %05d %s\n", i, x(54))
	}
	g20000, out20000 := grepFile(20_000)
	g20001, out20001 := grepFile(20_001)
	var ge, outE strings.Builder // 20,891 units of Grep output, 40,891 bytes
	for i := 1; i <= 100; i++ {
		line := "match" + strings.Repeat("é", 200)
		ge.WriteString(line + "\n")
		if i > 1 {
			outE.WriteByte('\n')
		}
		fmt.Fprintf(&outE, "%d:%s", i, line)
	}
	files = map[string]string{
		"big.txt":   big.String(),
		"small.txt": "alpha\nsecond line\nthird\n",
		"b30000":    lines(300, 100, "b", true),
		"b30001":    lines(300, 100, "b", true) + "c",
		"e29999":    strings.Repeat("é", 29_999),                  // 29,999 units, 59,998 bytes
		"pair":      x(29_999) + "😀",                              // 30,001 units, 30,000 code points
		"pairhead":  x(1_999) + "😀" + strings.Repeat("y", 30_000), // the preview cut through the pair
		"l100k":     lines(9_091, 11, "0", false)[:100_000],       // 100,000 characters of short lines
		"g20000":    g20000,
		"g20001":    g20001,
		"ge":        ge.String(),
		"me49999":   strings.Repeat("é", 49_999), // 49,999 units, 99,998 bytes
		"me50001":   strings.Repeat("é", 50_001),
		"mpair":     x(1_960) + "😀" + strings.Repeat("y", 60_000), // its JSON's preview cut through the pair
	}
	for _, n := range []int{49_999, 50_000, 50_001, 99_999, 100_000} {
		files[fmt.Sprintf("m%d", n)] = x(n)
	}
	path := func(name string) string { return filepath.Join(work, name) }
	read := func(name string, more ...any) map[string]any {
		in := map[string]any{"file_path": path(name)}
		for i := 0; i+1 < len(more); i += 2 {
			in[more[i].(string)] = more[i+1]
		}
		return in
	}
	bash := func(name string) (map[string]any, string) {
		return map[string]any{"command": "cat " + name, "description": "print " + name}, files[name]
	}
	n := 0
	add := func(p probe) {
		n++
		p.ID = fmt.Sprintf("toolu_%02d", n)
		probes = append(probes, p)
	}
	addBash := func(name string, compact, together bool) {
		in, raw := bash(name)
		add(probe{Tool: "Bash", Input: in, Raw: raw, Compact: compact, Together: together})
	}
	add(probe{Tool: "Read", Input: read("big.txt")})
	add(probe{Tool: "Read", Input: read("big.txt")})
	add(probe{Tool: "Read", Input: read("small.txt", "offset", 2, "limit", 1)})
	add(probe{Tool: "Read", Input: read("small.txt", "offset", 2, "limit", 1)})
	add(probe{Tool: "Write", Input: map[string]any{"file_path": path("w.txt"), "content": "hello\nworld\n"}})
	add(probe{Tool: "Read", Input: read("w.txt")})
	add(probe{Tool: "Edit", Input: map[string]any{"file_path": path("small.txt"), "old_string": "alpha", "new_string": "beta"}})
	add(probe{Tool: "Read", Input: read("small.txt")})
	for i, name := range []string{"b30000", "b30001", "e29999", "pair", "pairhead", "l100k"} {
		addBash(name, false, i > 0)
	}
	for i, name := range []string{"g20000", "g20001", "ge"} {
		add(probe{Tool: "Grep", Input: map[string]any{"pattern": "match", "path": path(name), "output_mode": "content"},
			Raw: map[string]string{"g20000": out20000, "g20001": out20001, "ge": outE.String()}[name], Together: i > 0})
	}
	for i, name := range mcpTools {
		add(probe{Tool: "mcp__" + standinServer + "__" + name, Input: map[string]any{}, Raw: files[name], Together: i > 0})
	}
	// The answer asking for the next call says the context is nearly
	// full: the harness compacts once it has run it.
	addBash("b30001", true, false)
	add(probe{Tool: "Read", Input: read("small.txt")})
	addBash("b30001", false, false)
	// Small files read before the compaction: Claude Code still knows
	// them. (A Read of big.txt here came back in full in some runs of
	// 2.1.128 and 2.1.316 and stubbed in others of 2.1.86 to 2.1.128: no
	// rule to pin.)
	add(probe{Tool: "Read", Input: read("small.txt", "offset", 2, "limit", 1)})
	add(probe{Tool: "Read", Input: read("w.txt")})
	return files, probes
}

// The MCP tools of the Claude Code session, each answering one file of
// it as one text block, served by this test binary (TestMain).
const standinServer = "standin"

var mcpTools = []string{"m49999", "m50000", "m50001", "m99999", "m100000", "me49999", "me50001", "mpair"}

// TestMain serves the MCP tools when a harness started this binary as
// their server.
func TestMain(m *testing.M) {
	realharness.ServeMCPIfAsked()
	os.Exit(m.Run())
}

// claudeVersions are the Claude Code versions whose rules differ, the
// first and last seen of each era of harness.ClaudeEras, and the pinned
// one. TestRealClaudePresetVersions runs those installed under
// realharness.VersionsEnv.
var claudeVersions = []string{"1.0.128", "2.0.76", "2.1.1", "2.1.2", "2.1.5", "2.1.6", "2.1.44", "2.1.45", "2.1.50",
	"2.1.51", "2.1.58", "2.1.59", "2.1.73", "2.1.74", "2.1.78", "2.1.79", "2.1.85", "2.1.86", "2.1.126", "2.1.128",
	"2.1.308", "2.1.309", "2.1.316", "2.1.317"}

// TestRealClaudePreset: the pinned Claude Code, sent outputs around each of
// its thresholds, sent the model what the claude-code preset says it
// would, result by result and byte for byte; and the preset replayed on
// the log it wrote changes nothing.
func TestRealClaudePreset(t *testing.T) {
	checkClaude(t, realharness.ClaudeBin(t), realharness.ClaudeVersion)
}

// TestRealClaudePresetVersions runs the same session on every other
// version of claudeVersions installed (realharness.VersionsEnv); with
// -record it writes the log of the first version of each era to
// testdata/real, for TestOwnPresetChangesNothing.
func TestRealClaudePresetVersions(t *testing.T) {
	for _, version := range claudeVersions {
		t.Run(version, func(t *testing.T) {
			checkClaude(t, realharness.ClaudeBinAt(t, version), version)
		})
	}
}

func checkClaude(t *testing.T, bin, version string) {
	work := t.TempDir()
	files, probes := claudeScript(work)
	writeFiles(t, work, files)
	tools := []string{"Read", "Bash", "Grep", "Glob", "Write", "Edit"}
	var served []realharness.MCPTool
	for _, name := range mcpTools {
		served = append(served, realharness.MCPTool{Name: name, Text: files[name]})
		tools = append(tools, "mcp__"+standinServer+"__"+name)
	}
	run := realharness.RunClaude(t, bin, turns(probes), realharness.ClaudeOptions{Work: work, AllowedTools: tools,
		Args: []string{"--mcp-config", realharness.MCPConfig(t, standinServer, served)}})
	sent := run.Standin.Results()
	log := readLog(t, run.Transcript)
	if log.Version != version {
		t.Fatalf("the log says version %q, want %s", log.Version, version)
	}
	raw := map[string]string{} // by call id
	reminders := 0
	byKey := map[string]string{}
	for _, p := range probes {
		s, ok := sent[p.ID]
		if !ok {
			t.Fatalf("%s (%s): the harness sent no result", p.ID, p.Tool)
		}
		text, appended := withoutReminders(s.Text, recordedText(log, p.ID))
		if appended {
			reminders++
		}
		switch {
		case strings.HasPrefix(text, "<persisted-output>\n"):
			raw[p.ID] = persistedOutput(t, run, p, text)
		case strings.HasPrefix(text, harness.ClaudeReadStubOld), strings.HasPrefix(text, harness.ClaudeReadStub):
			raw[p.ID] = byKey[readKey(p)]
		case harness.ClaudeShaped(text):
			raw[p.ID] = p.Raw
			if p.Tool == "Grep" && !strings.HasPrefix(text, p.Raw[:100]) {
				// Before 2.0 Grep wrote its rows without line numbers.
				raw[p.ID] = unnumbered(p.Raw)
			}
			if p.Raw == "" {
				t.Fatalf("%s (%s): cut by the harness, and the test does not know its output", p.ID, p.Tool)
			}
		default:
			raw[p.ID] = text
		}
		if p.Tool == "Read" && byKey[readKey(p)] == "" {
			byKey[readKey(p)] = raw[p.ID]
		}
	}
	compacted(t, log)
	compareResults(t, "claude-code", version, log, probes, sent, raw, maskClaude)
	if reminders > 0 {
		t.Logf("claude-code %s: %d results had reminders of other log lines appended as they were sent (not compared)", version, reminders)
	}
	ownPresetChangesNothing(t, log)
	if *record && recordVersion(version, harness.ClaudeEraOf(version).From) {
		recordLog(t, run, "claude-code-"+version)
	}
}

// recorded are the eras whose log -record wrote in this run, by harness.
var recorded = map[string]bool{}

// recordVersion tells whether to record the log of version, the first run
// of its era (or the pinned version's).
func recordVersion(version, era string) bool {
	if version == realharness.ClaudeVersion || version == realharness.CodexVersion {
		return true
	}
	if recorded[era] {
		return false
	}
	recorded[era] = true
	return true
}

// compacted checks that the harness compacted its context where the
// script made it, so that the results after it were compared.
func compacted(t *testing.T, s *transcript.Session) {
	t.Helper()
	for _, e := range s.Events {
		if e.Kind == transcript.EventCompaction {
			return
		}
	}
	t.Error("the harness did not compact its context where the script made it")
}

// readLog reads a harness's log: it must read without a warning.
func readLog(t *testing.T, path string) *transcript.Session {
	t.Helper()
	s, err := transcript.ReadFile(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Warnings {
		t.Errorf("the log the harness wrote reads with a warning: line %d: %s", w.Line, w.Message)
	}
	return s
}

func recordedText(s *transcript.Session, id string) string {
	for _, r := range s.Results() {
		if r.CallID == id {
			return r.Text
		}
	}
	return ""
}

// withoutReminders is a result's text as sent less what Claude Code
// appended to it as it sent it, from other lines of its log (reminders of
// unused tools, "<system-reminder>" blocks after a blank line): the log
// holds the result without them, and the reminders are no tool's output.
func withoutReminders(sent, recorded string) (string, bool) {
	const open, end = "\n\n<system-reminder>", "</system-reminder>"
	text := sent
	for text != recorded && strings.HasSuffix(text, end) && !strings.HasSuffix(recorded, end) {
		i := strings.LastIndex(text, open)
		if i < 0 {
			break
		}
		text = text[:i]
	}
	return text, text != sent
}

// readKey is the path and range a Read asked for.
func readKey(p probe) string {
	raw, _ := json.Marshal(p.Input)
	return harness.ReadKey(raw)
}

var persistedPath = regexp.MustCompile(`Full output saved to: (\S+)`)

// persistedOutput is the output Claude Code persisted: the file its
// message names, under the run's config folder; an MCP result's file
// holds its content blocks as JSON, whose text is the output. Where the
// test made the output, the file must hold it.
func persistedOutput(t *testing.T, run *realharness.Run, p probe, text string) string {
	t.Helper()
	m := persistedPath.FindStringSubmatch(text)
	if m == nil || !strings.HasPrefix(m[1], run.Home+string(filepath.Separator)) {
		t.Fatalf("%s: the persisted output names no file of the run: %.300q", p.ID, text)
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	out := string(data)
	if strings.HasSuffix(m[1], ".json") {
		var blocks []struct{ Text string }
		if err := json.Unmarshal(data, &blocks); err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		out = ""
		for _, b := range blocks {
			out += b.Text
		}
	}
	if p.Raw != "" && out != p.Raw {
		t.Errorf("%s (%s): the persisted file holds %d bytes, not the %d the tool printed", p.ID, p.Tool, len(out), len(p.Raw))
	}
	return out
}

// maskClaude masks what Claude Code fills in per run: the random name of
// a persisted Bash output's file (b and 6 or 8 characters), kept at its
// length.
var claudeTaskFile = regexp.MustCompile(`tool-results/b[0-9a-z]{6,8}\.txt`)

func maskClaude(s string) string {
	return claudeTaskFile.ReplaceAllStringFunc(s, func(m string) string {
		return "tool-results/b" + strings.Repeat("#", len(m)-len("tool-results/b.txt")) + ".txt"
	})
}

// compareResults replays the log with each probe's result replaced by its
// raw output, through the harness's own preset (which follows the
// version), and compares each result with what the harness sent, after
// mask; it logs the count compared and different.
func compareResults(t *testing.T, preset, version string, log *transcript.Session, probes []probe, sent map[string]realharness.Sent,
	raw map[string]string, mask func(string) string) {
	t.Helper()
	compared, differ := replayRaw(t, preset, log, probes, sent, raw, mask, nil)
	t.Logf("%s %s: %d results compared, %d differ", preset, version, compared, differ)
}

// replayRaw replays a copy of log whose probe results hold raw, through
// preset (tuned by tune when it is not nil), and compares each with
// want's text.
func replayRaw(t *testing.T, preset string, log *transcript.Session, probes []probe, want map[string]realharness.Sent,
	raw map[string]string, mask func(string) string, tune func(*policy.Policy)) (compared, differ int) {
	t.Helper()
	s := *log
	s.Calls = make([]transcript.Call, len(log.Calls))
	for i, c := range log.Calls {
		c.Results = append([]transcript.ToolResult(nil), c.Results...)
		for j := range c.Results {
			if text, ok := raw[c.Results[j].CallID]; ok {
				c.Results[j].Text = text
			}
		}
		s.Calls[i] = c
	}
	p, err := Prepare(context.Background(), &s, words{}, pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pol := mustPreset(t, preset)
	if tune != nil {
		tune(&pol)
	}
	rp, err := p.Replay(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Result{}
	for i := range rp.Results {
		got[rp.Results[i].Source.CallID] = &rp.Results[i]
	}
	for _, pr := range probes {
		r, w := got[pr.ID], want[pr.ID]
		if r == nil {
			t.Errorf("%s (%s): not in the log", pr.ID, pr.Tool)
			differ++
			continue
		}
		compared++
		text, _ := withoutReminders(w.Text, recordedText(log, pr.ID))
		if mask(r.Text) != mask(text) {
			differ++
			t.Errorf("%s (%s): %s sent %d bytes, %s says %s (%s) with %d:\n%s", pr.ID, pr.Tool, rp.Policy.Name, len(text), preset, r.Outcome, r.Reason, len(r.Text), firstDifference(mask(text), mask(r.Text)))
		}
	}
	return compared, differ
}

// firstDifference shows where two texts part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("  at byte %d: sent %q\n  replayed %q", i, a[max(0, i-40):min(len(a), i+80)], b[max(0, i-40):min(len(b), i+80)])
}

// The names of this machine a log holds: the test's other temporary
// folders, and the kernel's version.
var (
	testTemp = regexp.MustCompile(`/tmp/TestReal[A-Za-z0-9_]*/[0-9]+`)
	kernel   = regexp.MustCompile(`Linux [0-9]+\.[0-9]+\.[0-9A-Za-z.+-]+`)
)

// recordLog writes the log a run wrote into testdata/real, gzipped, with
// the run's folders and the machine's names alike whatever machine wrote
// it.
func recordLog(t *testing.T, run *realharness.Run, name string) {
	t.Helper()
	data, err := os.ReadFile(run.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]string{
		{run.Home, "/home/user/.harness"},
		{run.Work, "/home/user/project"},
		{strings.ReplaceAll(run.Work, string(filepath.Separator), "-"), "-home-user-project"},
	} {
		data = bytes.ReplaceAll(data, []byte(r[0]), []byte(r[1]))
	}
	data = testTemp.ReplaceAll(data, []byte("/home/user/tmp"))
	data = kernel.ReplaceAll(data, []byte("Linux 6.0.0"))
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "..", "testdata", "real", name+".jsonl.gz")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", out, z.Len())
}

// codexSession is the scripted Codex session: command outputs below, at
// and over its limit (10,000 tokens: 40,000 bytes) and its 20% allowance,
// many lines, multi-byte text cut between characters, and a result after
// a compaction. tool is the command tool the version offers: exec_command
// (its input "cmd"), or shell_command ("command") with unified exec off.
func codexSession(tool string, era harness.CodexEra) (files map[string]string, probes []probe) {
	x := func(n int) string { return strings.Repeat("x", n) }
	var seq strings.Builder
	for i := 1; i <= 12_000; i++ {
		fmt.Fprintf(&seq, "%d\n", i)
	}
	files = map[string]string{
		"small":  "hello\nworld",
		"x39999": x(39_999), "x40000": x(40_000), "x40001": x(40_001), "x48001": x(48_001),
		"seq":   seq.String(),                                  // 68,893 bytes, 12,000 lines
		"mixed": strings.Repeat("é€😀 mixed ü", 3_000)[:49_997], // cut between characters both sides
	}
	arg := map[string]string{"exec_command": "cmd", "shell_command": "command"}[tool]
	// Three answers: the context said to be nearly full after the second,
	// so that the third's results come after a compaction.
	for i, name := range []string{"small", "x39999", "x40000", "x40001", "x48001", "seq", "mixed", "x40001", "seq"} {
		probes = append(probes, probe{ID: fmt.Sprintf("call_%02d", i+1), Tool: tool, Input: map[string]any{arg: "cat " + name},
			Raw: files[name], Compact: i == 6, Together: i != 0 && i != 4 && i != 7})
	}
	if tool == "exec_command" {
		// A budget of none: Codex keeps only its header and marker.
		probes = append(probes, probe{ID: "call_10", Tool: tool, Input: map[string]any{arg: "cat x48001", "max_output_tokens": 0}, Raw: files["x48001"]})
	}
	if tool == "exec_command" && era.ExecCapNote {
		// Over a MiB: unified exec keeps its first and last half MiB, the
		// cut counts from those. The second splits a character at both.
		// Before 0.145 what it kept varied from run to run (1,048,576
		// and 1,122,560 bytes of the first on 0.144.1): not probed.
		var big strings.Builder
		for i := 1; i <= 800_000; i++ {
			fmt.Fprintf(&big, "%d\n", i)
		}
		files["big"] = big.String() // 5,488,895 bytes
		files["bigmixed"] = "a" + strings.Repeat("é€😀 mixed ü", 70_000)[:1_199_993]
		// Codex waits for the whole output (a busy machine could return
		// part of it, with the command still running, at the default).
		probes = append(probes,
			probe{ID: "call_12", Tool: tool, Input: map[string]any{arg: "cat big", "yield_time_ms": 30_000}, Raw: files["big"]},
			probe{ID: "call_13", Tool: tool, Input: map[string]any{arg: "cat bigmixed", "yield_time_ms": 30_000}, Raw: files["bigmixed"]})
	}
	if tool == "exec_command" && era.ExecWarning {
		// A patch that adds 3,000 files: its output is laid out and cut
		// as a command's. Before 0.142 it was laid out otherwise (0.128:
		// shell_command's status lines; 0.114 passed the patch as an
		// argument, too long for this one), which the preset does not know.
		var patch, out strings.Builder
		patch.WriteString("*** Begin Patch\n")
		out.WriteString("Success. Updated the following files:\n")
		for i := range 3000 {
			fmt.Fprintf(&patch, "*** Add File: patched/file_number_%05d.txt\n+a\n", i)
			fmt.Fprintf(&out, "A patched/file_number_%05d.txt\n", i)
		}
		patch.WriteString("*** End Patch")
		probes = append(probes, probe{ID: "call_11", Tool: "apply_patch", Input: patch.String(), Raw: out.String()})
	}
	return files, probes
}

// codexVersions are the Codex CLI versions whose rules differ, and those
// of the shared real logs; the model is one each sizes in tokens, as the
// real logs of the version used.
var codexVersions = []struct{ version, model string }{
	{"0.114.0", "gpt-5.4"}, {"0.118.0", "gpt-5.4"}, {"0.128.0", "gpt-5.5"}, {"0.129.0", "gpt-5.5"},
	{"0.141.0", "gpt-5.5"}, {"0.142.0", "gpt-5.5"}, {"0.144.1", "gpt-5.5"}, {"0.145.0", "gpt-5.5"},
}

// TestRealCodexPreset: the pinned Codex, sent command outputs around its limit,
// sent the model what the codex preset says it would, result by result
// and byte for byte; so it did with tool_output_token_limit = 2000, which
// the preset at a ceiling of 2,000 says both from the raw outputs and
// from the log Codex wrote at its default (a sweep of that log); and the
// preset replayed on each log Codex wrote changes nothing.
func TestRealCodexPreset(t *testing.T) {
	checkCodex(t, realharness.CodexBin(t), realharness.CodexVersion, "gpt-5.5", "exec_command")
}

// TestRealCodexPresetVersions runs the same sessions on every other version of
// codexVersions installed (realharness.VersionsEnv), and shell_command on
// 0.128.0 with unified exec off; -record writes their logs to
// testdata/real.
func TestRealCodexPresetVersions(t *testing.T) {
	for _, v := range codexVersions {
		t.Run(v.version, func(t *testing.T) {
			checkCodex(t, realharness.CodexBinAt(t, v.version), v.version, v.model, "exec_command")
		})
	}
	t.Run("0.128.0-shell_command", func(t *testing.T) {
		checkCodex(t, realharness.CodexBinAt(t, "0.128.0"), "0.128.0", "gpt-5.5", "shell_command")
	})
}

func checkCodex(t *testing.T, bin, version, model, tool string) {
	const limit = 2000
	files, probes := codexSession(tool, harness.CodexEraOf(version))
	config := "model_auto_compact_token_limit = 500000\n"
	if tool == "shell_command" {
		config += "[features]\nunified_exec = false\n"
	}
	runAt := func(extra string) (*realharness.Run, *transcript.Session, map[string]string) {
		work := t.TempDir()
		writeFiles(t, work, files)
		run := realharness.RunCodex(t, bin, turns(probes), realharness.CodexOptions{Work: work, Model: model, Config: extra + config})
		log := readLog(t, run.Transcript)
		if !strings.HasPrefix(log.Version, version) {
			t.Fatalf("the log says version %q, want %s", log.Version, version)
		}
		sent := run.Standin.Results()
		raw := map[string]string{}
		for _, p := range probes {
			s, ok := sent[p.ID]
			if !ok {
				t.Fatalf("%s: Codex sent no result (%s)", p.ID, run.Output)
			}
			raw[p.ID] = codexRaw(t, p, s.Text)
		}
		compacted(t, log)
		ownPresetChangesNothing(t, log)
		return run, log, raw
	}
	name := "codex"
	if tool != "exec_command" {
		name += " (" + tool + ")"
	}
	run, log, raw := runAt("")
	compareResults(t, "codex", version, log, probes, run.Standin.Results(), raw, func(s string) string { return s })
	if *record && (tool != "exec_command" || recordVersion(version, "codex-"+harness.CodexEraOf(version).From)) {
		recordLog(t, run, "codex-"+version+map[bool]string{true: "-" + tool}[tool != "exec_command"])
	}
	tune := func(p *policy.Policy) { p.SetCeiling(limit) }
	low, lowLog, lowRaw := runAt(fmt.Sprintf("tool_output_token_limit = %d\n", limit))
	sentLow := low.Standin.Results()
	if *record && (version == realharness.CodexVersion || tool != "exec_command") {
		// For TestCodexSweep: the same session at the lower limit.
		recordLog(t, low, fmt.Sprintf("codex-%s%s-limit%d", version, map[bool]string{true: "-" + tool}[tool != "exec_command"], limit))
	}
	compared, differ := replayRaw(t, "codex", lowLog, probes, sentLow, lowRaw, maskCodex, tune)
	t.Logf("%s %s at %d tokens, from the raw outputs: %d results compared, %d differ", name, version, limit, compared, differ)
	// The log written at the default, replayed at the lower limit.
	compared, differ = replayRaw(t, "codex", log, probes, sentLow, nil, maskCodex, tune)
	t.Logf("%s %s at %d tokens, from the log written at 10,000: %d results compared, %d differ", name, version, limit, compared, differ)
}

// codexRaw is a command's output as Codex shaped it before cutting it:
// the status lines it sent (less the line count shell_command adds where
// the cut changed it), then the whole output; the status's original
// token count must be the output's.
func codexRaw(t *testing.T, p probe, sent string) string {
	t.Helper()
	o := harness.ParseCodexOutput(sent)
	if o.Status == 0 {
		t.Fatalf("%s: no status lines in %.200q", p.ID, sent)
	}
	status := sent[:o.Status]
	if o.Kind == harness.CodexFreeform {
		if i := strings.Index(status, "Total output lines: "); i >= 0 {
			status = status[:i] + status[i+strings.IndexByte(status[i:], '\n')+1:]
		}
	}
	if o.Kind == harness.CodexUnified && !strings.Contains(status, fmt.Sprintf("\nOriginal token count: %d\n", harness.ApproxTokens(int64(len(p.Raw))))) {
		t.Errorf("%s: the status lines count other tokens than the output's: %q", p.ID, status)
	}
	return status + p.Raw
}

// maskCodex masks what Codex fills in per run, to compare two runs: the
// chunk id and the wall time.
var codexRunFields = regexp.MustCompile(`(Chunk ID: |Wall time: )[^\n]*`)

func maskCodex(s string) string { return codexRunFields.ReplaceAllString(s, "$1#") }
