package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/internal/realharness"
)

func fixture(name string) string { return filepath.Join("testdata", "transcripts", name) }

// TestMain lets the test binary be what the real Claude Code runs: the
// hook (as spillway hook install writes it, this binary's path first) and
// the MCP server of the tests that start one. As tests, they run with the
// text tables at their default width, whatever the shell exports; a test
// that wants another sets COLUMNS.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "hook" && os.Args[2] == "claude-code" {
		runHookFast(os.Args[3:], os.Stdin, os.Stdout, os.Stderr)
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == "statusline" {
		os.Exit(runStatuslineForTest(os.Args[1:]))
	}
	realharness.ServeMCPIfAsked()
	os.Unsetenv("COLUMNS")
	// The reports of many sessions keep their figures in the session
	// index: in the tests' own folder, never the user's. A test that runs
	// this binary again (TestInterruptedOut) shares its folder, which only
	// this process removes: the other may end by a signal.
	if shared := os.Getenv(testCacheEnv); shared != "" {
		os.Setenv("SPILLWAY_CACHE_DIR", shared)
		os.Exit(m.Run())
	}
	cache, err := os.MkdirTemp("", "spillway-cache")
	if err != nil {
		panic(err)
	}
	os.Setenv("SPILLWAY_CACHE_DIR", cache)
	os.Setenv(testCacheEnv, cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

// testCacheEnv names the tests' cache folder to the processes they start.
const testCacheEnv = "SPILLWAY_TEST_CACHE_DIR"

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()

	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("hello\nworld\n"), 0o600)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o600)
	emptyDir := filepath.Join(dir, "nothing")
	os.Mkdir(emptyDir, 0o700)
	prices := filepath.Join(dir, "prices.json")
	os.WriteFile(prices, []byte(`{"claude-sonnet-4-5":{"input_cost_per_token":1,"output_cost_per_token":0,"cache_read_input_token_cost":0,"cache_creation_input_token_cost":0}}`), 0o600)
	// LiteLLM's own file opens with a sample_spec row whose number fields
	// hold prose; an odd row is left out with a warning, not a failure.
	litellm := filepath.Join(dir, "litellm.json")
	os.WriteFile(litellm, []byte(`{"sample_spec":{"input_cost_per_token":0.0,"output_cost_per_token":0.0,"max_input_tokens":"max input tokens, if the provider specifies it"},
		"odd":{"input_cost_per_token":"1","output_cost_per_token":0},
		"claude-sonnet-4-5":{"input_cost_per_token":1,"output_cost_per_token":0,"cache_read_input_token_cost":0,"cache_creation_input_token_cost":0,"max_input_tokens":200000.0}}`), 0o600)
	claude, err := os.ReadFile(fixture("claude.jsonl"))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		stdin      string
		args       []string
		code       int
		stdoutHas  string
		stderrHas  string
		stderrLine bool // stderr is exactly one line
	}{
		{name: "text", args: []string{"report", fixture("claude.jsonl")}, stdoutHas: "cost: $0.017910"},
		{name: "flags after the path", args: []string{"report", fixture("codex.jsonl"), "--format", "csv"}, stdoutHas: "sess-codex-1,"},
		{name: "stdin", stdin: string(claude), args: []string{"report", "-"}, stdoutHas: "stdin"},
		{name: "forced format", args: []string{"report", "--input-format", "generic", fixture("generic.jsonl")}, stdoutHas: "Generic demo"},
		// Input 3+5+7 tokens at $1, and 500 one-hour cache writes at twice input
		// since the file gives no one-hour rate; everything else is free.
		{name: "own price file", args: []string{"report", "--prices", prices, fixture("claude.jsonl")}, stdoutHas: "cost: $1015.000000"},
		{name: "LiteLLM's own price file", args: []string{"report", "--prices", litellm, fixture("claude.jsonl")}, stdoutHas: "cost: $1015.000000",
			stderrHas: `left out, unpriced, rows whose fields do not decode or hold a price out of range: "odd": json: cannot unmarshal string`, stderrLine: true},
		{name: "not a transcript", args: []string{"report", notes}, code: 2, stderrHas: notes + " is not an agent transcript", stderrLine: true},
		{name: "empty file", args: []string{"report", empty}, code: 1, stderrHas: "empty transcript", stderrLine: true},
		{name: "empty directory", args: []string{"report", emptyDir}, code: 1, stderrHas: "no sessions found", stderrLine: true},
		{name: "missing file", args: []string{"report", filepath.Join(dir, "gone.jsonl")}, code: 1, stderrHas: "no such file", stderrLine: true},
		{name: "bad format flag", args: []string{"report", "--format", "xml", fixture("claude.jsonl")}, code: 2, stderrHas: `unknown report format "xml"`},
		{name: "bad input format", args: []string{"report", "--input-format", "aider", fixture("claude.jsonl")}, code: 2, stderrHas: "unknown input format"},
		{name: "bad encoding without a policy", args: []string{"report", "--encoding", "foo", fixture("claude.jsonl")}, code: 2, stderrHas: `unknown encoding "foo"`, stderrLine: true},
		{name: "unknown flag", args: []string{"report", "--nope"}, code: 2, stderrHas: "flag provided but not defined"},
		{name: "help", args: []string{"help"}, stdoutHas: "spillway report"},
		{name: "a path after --", args: []string{"report", "--", "-gone.jsonl"}, code: 1, stderrHas: "-gone.jsonl: no such file", stderrLine: true},
		{name: "flags between paths", args: []string{"report", fixture("claude.jsonl"), "--format", "csv", fixture("codex.jsonl")}, stdoutHas: "sess-codex-1,"},
		{name: "one bad input among good ones", args: []string{"report", "--calls", notes, fixture("claude.jsonl")}, code: 2, stdoutHas: "cost: $0.017910", stderrHas: "not an agent transcript"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tt.code, stderr)
			}
			if !strings.Contains(stdout, tt.stdoutHas) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdoutHas, stdout)
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, stderr)
			}
			if tt.stderrLine && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr should be one line:\n%s", stderr)
			}
		})
	}
}

func TestReportJSON(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "report", "--format", "json", fixture("claude.jsonl"), fixture("antigravity.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Schema   string
		Sessions []struct{ Format string }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if doc.Schema != "spillway.report/v1" || len(doc.Sessions) != 2 || doc.Sessions[1].Format != "antigravity" {
		t.Errorf("%+v", doc)
	}
}

// TestNoNetwork checks that nothing linked into the binary can open a
// network connection: spillway works offline, always. The flag parser
// imports net to parse IP-valued flags, which spillway never registers, so
// the linked binary must hold no code that dials or listens.
func TestNoNetwork(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	netImporters := map[string]bool{"github.com/spf13/pflag": true}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if pkg == "net/http" || strings.HasPrefix(pkg, "net/http/") || pkg == "crypto/tls" {
			t.Errorf("the binary links %s", pkg)
		}
		if slices.Contains(strings.Fields(imports), "net") && !netImporters[pkg] {
			t.Errorf("%s imports net", pkg)
		}
	}
	bin := filepath.Join(t.TempDir(), "spillway")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	syms, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	dial := regexp.MustCompile(`\bnet\.(\(\*Dialer\)|Dial|Listen|socket|\(\*netFD\)\.connect)`)
	if m := dial.FindAll(syms, 5); m != nil {
		t.Errorf("the binary holds network code: %s", bytes.Join(m, []byte(", ")))
	}
}

func TestPolicyCommands(t *testing.T) {
	spill := t.TempDir()
	policyFile := filepath.Join(t.TempDir(), "tuned.json")
	os.WriteFile(policyFile, []byte(`{"name":"tuned","style":"harness-rs","unit":"utf8_bytes","ceiling":10000,"action":"truncate_head","dedupe":{"enabled":false}}`), 0o600)
	demo := filepath.Join("testdata", "demo.jsonl")
	tests := []struct {
		name      string
		args      []string
		code      int
		stdoutHas []string
		stderrHas string
	}{
		{name: "presets", args: []string{"presets"}, stdoutHas: []string{"harness-rs-0.0.40", "agentscope-pre-2026-07", "claude-code", "Bash 30,000", "Read never", "dedupe-from-3", "from the 3rd identical call, key tool_args"}},
		{name: "presets as JSON", args: []string{"presets", "--format", "json"}, stdoutHas: []string{`"name": "codex"`, `"allowance": 1.2`}},
		{name: "report under a preset", args: []string{"report", "--preset", "harness-rs-0.0.40", "--spill-dir", spill, demo},
			stdoutHas: []string{"policy harness-rs-0.0.40", "suppress (stale)", "truncate", "under harness-rs-0.0.40"}},
		{name: "flags override the preset", args: []string{"report", "--preset", "harness-rs-0.0.50", "--max-bytes", "8KiB", "--no-spill", "--dedupe-from", "3", "--spill-dir", spill, demo},
			stdoutHas: []string{"policy harness-rs-0.0.50+custom", "8,192 JSON bytes", "repeat 3 of result 3"}},
		{name: "a policy file", args: []string{"report", "--policy", policyFile, demo}, stdoutHas: []string{"policy tuned\n", "10,000 bytes"}},
		{name: "sweep", args: []string{"sweep", "--preset", "claude-code", demo}, stdoutHas: []string{"claude-code over 1 session", "← the policy's own", "2,048", "262,144"}},
		{name: "sweep as JSON", args: []string{"sweep", "--format", "json", demo}, stdoutHas: []string{`"schema":"spillway.sweep/v1"`}},
		{name: "unknown preset", args: []string{"report", "--preset", "nope", demo}, code: 2, stderrHas: `unknown preset "nope"`},
		{name: "contradictory flags", args: []string{"report", "--spill", "--no-spill", demo}, code: 2, stderrHas: "contradicts"},
		{name: "Codex cannot spill", args: []string{"report", "--preset", "codex", "--spill", demo}, code: 2, stderrHas: "never spills"},
		{name: "bad size", args: []string{"report", "--max-bytes", "lots", demo}, code: 2, stderrHas: "invalid size"},
		{name: "both preset and policy", args: []string{"report", "--preset", "codex", "--policy", policyFile, demo}, code: 2, stderrHas: "give one"},
		// The figures README's sweep example and inspector example show.
		{name: "sweep as CSV", args: []string{"sweep", "--preset", "harness-rs-0.0.40", "--format", "csv", demo},
			stdoutHas: []string{"policy,ceiling,unit,own,shaped,suppressed,saved_tokens,cost_usd,cost_usd_after,used_hidden,used_hidden_retrievable,suppressed_unseen,stale\n",
				"harness-rs-0.0.40,24576,json_bytes,true,1,3,227248,0.398305500,0.260020200,0,0,0,1\n"}},
		// harness-rs-0.0.40 suppresses from the 2nd call: harness-rs's rule
		// from the 2nd is the ceiling sweep's own point above.
		{name: "sweep --dedupe", args: []string{"sweep", "--dedupe", "--preset", "harness-rs-0.0.40", "--format", "csv", demo},
			stdoutHas: []string{"policy,rule,dedupe_from,suppressed,saved_tokens,cost_usd,cost_usd_after,used_hidden,used_hidden_retrievable,suppressed_unseen,stale,across_compaction,after_own_write\n",
				"harness-rs-0.0.40,harness-rs,2,3,227248,0.398305500,0.260020200,0,0,0,1,0,0\n", "harness-rs-0.0.40,,0,0,194016,"}},
		// Without a ceiling only the repeats are taken out: their stubs,
		// numbered by Claude Code as the Reads they stand for, cost 64
		// tokens more than before they were.
		{name: "a ceiling of 0 turns it off", args: []string{"report", "--preset", "harness-rs-0.0.40", "--max-bytes", "0", demo},
			stdoutHas: []string{"prompt tokens 619,430 → 586,198", "suppress"}},
		{name: "presets takes no arguments", args: []string{"presets", "extra"}, code: 2, stderrHas: "presets takes no arguments"},
		{name: "negative preview", args: []string{"report", "--preview-head", "-5", demo}, code: 2, stderrHas: "--preview-head -5: a preview size is 0 or more"},
		{name: "dedupe from the 1st call", args: []string{"report", "--dedupe-from", "1", demo}, code: 2, stderrHas: "--dedupe-from 1: the first call of a kind is never a repeat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tt.code, stderr)
			}
			for _, want := range tt.stdoutHas {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, stderr)
			}
		})
	}
}

// TestNoSessions runs report and sweep with no path where discovery finds
// nothing: a failure to find input (1), not a usage error (2).
func TestNoSessions(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex"))
	for _, cmd := range []string{"report", "sweep"} {
		code, _, stderr := runCLI(t, "", cmd)
		if code != 1 || !strings.Contains(stderr, "no sessions found") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and no sessions found", cmd, code, stderr)
		}
	}
}

// TestREADMESweep runs the sweep README shows and checks that each line it
// quotes is a line of the output.
func TestREADMESweep(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "$ go run . sweep --preset harness-rs-0.0.40 testdata/demo.jsonl\n"
	i := strings.Index(string(readme), prompt)
	if i < 0 {
		t.Fatal("README no longer shows the sweep example")
	}
	block := string(readme[i+len(prompt):])
	block = block[:strings.Index(block, "```")]
	code, stdout, stderr := runCLI(t, "", "sweep", "--preset", "harness-rs-0.0.40", filepath.Join("testdata", "demo.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(stdout, "\n") {
		lines[l] = true
	}
	for _, want := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if strings.TrimSpace(want) != "…" && !lines[want] {
			t.Errorf("README shows a line the sweep does not print:\n%q\noutput:\n%s", want, stdout)
		}
	}
}

// TestDocsHelp checks that each line of the help docs/usage.md quotes is a
// line of the help (fang pads lines with spaces to the block's width).
func TestDocsHelp(t *testing.T) {
	usage, err := os.ReadFile(filepath.Join("docs", "usage.md"))
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "$ go run . report --help\n"
	i := strings.Index(string(usage), prompt)
	if i < 0 {
		t.Fatal("docs/usage.md no longer shows report's help")
	}
	block := string(usage[i+len(prompt):])
	block = block[:strings.Index(block, "```")]
	code, stdout, stderr := runCLI(t, "", "report", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(stdout, "\n") {
		lines[strings.TrimRight(l, " ")] = true
	}
	for _, want := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if want != "…" && !lines[want] {
			t.Errorf("docs/usage.md shows a line the help does not print:\n%q\noutput:\n%s", want, stdout)
		}
	}
}

// TestReportSpillsPlanned: report under a spilling policy plans its spill
// files in the cache folder and writes none, saying where they would go;
// --spill-dir, asked for, writes them there and says so.
func TestReportSpillsPlanned(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	demo := filepath.Join("testdata", "demo.jsonl")
	code, stdout, stderr := runCLI(t, "", "report", "--preset", "harness-rs-0.0.50", "--max-bytes", "2KiB", demo)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	root, err := spill.DefaultRoot()
	if err != nil {
		t.Fatal(err)
	}
	if want := " spill files planned under " + root + ", not written (--spill-dir writes them)\n"; !strings.Contains(stdout, want) {
		t.Errorf("report does not say %q:\n%s", want, stdout)
	}
	countFiles := func(dir string) int {
		n := 0
		filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	if n := countFiles(cache); n != 0 {
		t.Errorf("report wrote %d files under the cache folder", n)
	}
	dir := filepath.Join(t.TempDir(), "spills")
	code, stdout, stderr = runCLI(t, "", "report", "--preset", "harness-rs-0.0.50", "--max-bytes", "2KiB", "--spill-dir", dir, demo)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	n := countFiles(dir)
	if want := fmt.Sprintf("  %d spill files written under %s\n", n, dir); n == 0 || !strings.Contains(stdout, want) {
		t.Errorf("%d files written; report does not say %q:\n%s", n, want, stdout)
	}
}

// TestInspectorReportIsReport: without a terminal the inspector prints
// what spillway report prints under the inspector's policy, in the same
// zone, and says on stderr which policy that is.
func TestInspectorReportIsReport(t *testing.T) {
	t.Setenv("TZ", "Asia/Tokyo")
	for _, args := range [][]string{
		{fixture("claude.jsonl")},
		{filepath.Join("report", "testdata", "by")},
		{"--max-bytes", "4KiB", filepath.Join("testdata", "demo.jsonl")},
	} {
		code, inspector, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		preset := "harness-rs-0.0.50"
		name := preset
		if args[0] == "--max-bytes" {
			name += "+custom"
		}
		if want := "spillway: standard output is not a terminal: printing the report under " + name + ", as spillway report --preset " + preset + " would\n"; stderr != want {
			t.Errorf("%q: stderr %q, want %q", args, stderr, want)
		}
		code, report, stderr := runCLI(t, "", append([]string{"report", "--preset", preset}, args...)...)
		if code != 0 {
			t.Fatalf("%q: report exit %d: %s", args, code, stderr)
		}
		if diff := cmp.Diff(report, inspector); diff != "" {
			t.Errorf("%q: (-report +inspector)\n%s", args, diff)
		}
		if !strings.Contains(inspector, "Asia/Tokyo") {
			t.Errorf("%q: times not in the machine's zone:\n%s", args, inspector)
		}
	}
}

// TestReportCacheFlag: report over many sessions keeps its figures in the
// session index named by SPILLWAY_CACHE_DIR, and prints the same report
// from it; --no-cache, of report and of sweep, neither reads nor writes
// the index.
func TestReportCacheFlag(t *testing.T) {
	by := filepath.Join("report", "testdata", "by")
	cache := t.TempDir()
	t.Setenv("SPILLWAY_CACHE_DIR", cache)
	index := filepath.Join(cache, "index-v4.bin")
	_, want, _ := runCLI(t, "", "report", "--no-cache", "--by", "day", "-z", "UTC", by)
	if _, err := os.Stat(index); err == nil {
		t.Fatal("--no-cache wrote the session index")
	}
	if code, _, stderr := runCLI(t, "", "sweep", "--no-cache", by); code != 0 {
		t.Fatalf("sweep --no-cache: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(index); err == nil {
		t.Fatal("sweep --no-cache wrote the session index")
	}
	for i := range 2 {
		code, got, stderr := runCLI(t, "", "report", "--by", "day", "-z", "UTC", by)
		if code != 0 || got != want || stderr != "" {
			t.Errorf("run %d: exit %d, stderr %q, report\n%s\nwant\n%s", i, code, stderr, got, want)
		}
		if _, err := os.Stat(index); err != nil {
			t.Fatalf("run %d: no session index written: %v", i, err)
		}
	}
	if err := os.WriteFile(index, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, got, stderr := runCLI(t, "", "report", "--by", "day", "-z", "UTC", by)
	if code != 0 || got != want || strings.Count(stderr, "ignored and rebuilt") != 1 {
		t.Errorf("a garbled index: exit %d, stderr %q, report\n%s\nwant\n%s", code, stderr, got, want)
	}
}
