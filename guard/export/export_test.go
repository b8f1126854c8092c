package export

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
)

func mustPreset(t *testing.T, name string) policy.Policy {
	t.Helper()
	p, err := policy.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tuned is harness-rs-0.0.50 as a user leaves it after tuning: a 12 KiB
// ceiling, repeats suppressed from the 3rd call, Read spared.
func tuned(t *testing.T) policy.Policy {
	p := mustPreset(t, "harness-rs-0.0.50")
	p.SetCeiling(12 * 1024)
	if err := p.SetDedupe(3); err != nil {
		t.Fatal(err)
	}
	p.Exclude = []string{"Read"}
	p.Name += "+custom"
	return p
}

// ownTuned is each target's own preset with its ceiling tuned, so that the
// text shows what the harness can say of itself. OpenCode and Gemini CLI
// have no preset: theirs is a policy made to do what each does.
func ownTuned(t *testing.T, target Target) policy.Policy {
	switch target {
	case OpenCode:
		// Spills over 20,000 bytes with the head that fits as its preview.
		p := mustPreset(t, "harness-rs-0.0.50")
		p.Name, p.Unit, p.PreviewUnit, p.PreviewHead = "opencode-like", policy.UTF8Bytes, policy.UTF8Bytes, 20000
		p.SetCeiling(20000)
		return p
	case Gemini:
		// Only the shell is cut, over 30,000 characters, previewing the
		// first 6,000 and the last 24,000.
		p := mustPreset(t, "harness-rs-0.0.50")
		p.Name, p.Unit, p.PreviewUnit, p.PreviewHead, p.PreviewTail = "gemini-like", policy.UTF16Units, policy.UTF16Units, 6000, 24000
		p.SetCeiling(0)
		p.PerTool = map[string]int64{"run_shell_command": 30000}
		return p
	}
	name, c := map[Target]string{HarnessRS: "harness-rs-0.0.50-dedupe", AgentScope: "agentscope", ClaudeCode: "claude-code",
		Codex: "codex", DeepSeek: "deepseek"}[target], map[Target]int64{HarnessRS: 16384, AgentScope: 40000,
		ClaudeCode: 25000, Codex: 8000, DeepSeek: 20000}[target]
	p := mustPreset(t, name)
	p.SetCeiling(c)
	p.Name += "+custom"
	return p
}

// TestRender pins each target's text for a tuned policy and for its own
// preset tuned (go test ./guard/export -update rewrites the files).
func TestRender(t *testing.T) {
	for _, target := range Targets {
		t.Run(string(target), func(t *testing.T) {
			for _, c := range []struct {
				name string
				p    policy.Policy
			}{{"tuned", tuned(t)}, {"own", ownTuned(t, target)}} {
				t.Run(c.name, func(t *testing.T) {
					got, err := Render(c.p, target)
					if err != nil {
						t.Fatal(err)
					}
					golden.RequireEqual(t, []byte(got))
				})
			}
		})
	}
}

// value is the number a target's text sets its ceiling to.
var value = map[Target]*regexp.Regexp{
	HarnessRS:  regexp.MustCompile(`(?m)^    max_bytes: Some\((\d+)\),$`),
	AgentScope: regexp.MustCompile(`(?m)^        \.maxResultChars\((\d+)\)$`),
	ClaudeCode: regexp.MustCompile(`(?m)^export BASH_MAX_OUTPUT_LENGTH=(\d+)$`),
	Codex:      regexp.MustCompile(`(?m)^tool_output_token_limit = (\d+)$`),
	DeepSeek:   regexp.MustCompile(`(?m)^    maxInlineBytes: (\d+)$`),
	OpenCode:   regexp.MustCompile(`(?m)^    "max_bytes": (\d+)$`),
	Gemini:     regexp.MustCompile(`(?m)^    "truncateToolOutputThreshold": (\d+)$`),
}

// TestCeilingConverted pins the number each target gets, worked out by
// hand from the policy's ceiling and unit.
func TestCeilingConverted(t *testing.T) {
	tests := []struct {
		preset string
		target Target
		want   string
	}{
		// 24,576 JSON bytes taken one for one as characters and bytes.
		{"harness-rs-0.0.50", AgentScope, "24576"},
		{"harness-rs-0.0.50", DeepSeek, "24576"},
		{"harness-rs-0.0.50", ClaudeCode, "24576"},
		// 24,576 bytes are 6,144 tokens at 4 bytes each; Codex records up
		// to 1.2 times its limit, so the limit is 6,144 / 1.2 = 5,120.
		{"harness-rs-0.0.50", Codex, "5120"},
		// Codex's own 10,000 tokens: its 1.2 allowance makes 12,000, and
		// back through 1.2 is its own 10,000.
		{"codex", Codex, "10000"},
		// 12,000 tokens (with the allowance) are 48,000 bytes.
		{"codex", HarnessRS, "48000"},
		{"codex", DeepSeek, "48000"},
		// Claude Code's Bash ceiling is its own 30,000 characters.
		{"claude-code", ClaudeCode, "30000"},
		// 50,000 characters are 12,500 tokens, / 1.2 rounded down 10,416.
		{"claude-code", Codex, "10416"},
		{"deepseek", HarnessRS, "50000"},
		{"agentscope", Codex, "16666"},
		// JSON bytes taken one for one as bytes and as characters.
		{"harness-rs-0.0.50", OpenCode, "24576"},
		{"harness-rs-0.0.50", Gemini, "24576"},
		// Codex's 10,000 tokens with its 1.2 allowance, at 4 bytes each.
		{"codex", OpenCode, "48000"},
		{"codex", Gemini, "48000"},
		// Claude Code's Bash ceiling is not the shell's of Gemini CLI: its
		// 50,000 characters for every other tool are.
		{"claude-code", Gemini, "50000"},
		{"claude-code", OpenCode, "50000"},
	}
	for _, tt := range tests {
		got, err := Render(mustPreset(t, tt.preset), tt.target)
		if err != nil {
			t.Fatal(err)
		}
		m := value[tt.target].FindStringSubmatch(got)
		if m == nil || m[1] != tt.want {
			t.Errorf("%s to %s: ceiling %v, want %s\n%s", tt.preset, tt.target, m, tt.want, got)
		}
	}
}

// TestCannotBeSaid: every knob a harness has no words for leaves a comment
// line saying so, in every target.
func TestCannotBeSaid(t *testing.T) {
	p := tuned(t)
	p.PerTool = map[string]int64{"Grep": 4096}
	p.ShapeErrors = false
	for _, target := range Targets {
		got, err := Render(p, target)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"3rd identical call", `"Grep" 4,096 JSON bytes`, `"Read"`, "error results"} {
			if (target == ClaudeCode || target == OpenCode || target == Gemini) && want == "error results" {
				continue // whether these cut error results is not known
			}
			if target == Gemini && want == `"Read"` {
				continue // Gemini CLI never cuts a read
			}
			if target == AgentScope && want == `"Read"` {
				want = `.excludedToolNames(Set.of("Read"))` // said in code
				if !strings.Contains(got, want) {
					t.Errorf("agentscope: no %s in\n%s", want, got)
				}
				continue
			}
			if !hasComment(got, want) {
				t.Errorf("%s: no comment line says %q:\n%s", target, want, got)
			}
		}
	}
}

func hasComment(text, want string) bool {
	for _, line := range strings.Split(text, "\n") {
		if (strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#")) && strings.Contains(line, want) {
			return true
		}
	}
	return false
}

// TestNoCeiling: a policy without a ceiling says so in each harness's way.
func TestNoCeiling(t *testing.T) {
	p := mustPreset(t, "harness-rs-0.0.50")
	p.SetCeiling(0)
	want := map[Target]string{
		HarnessRS:  "    max_bytes: None,",
		AgentScope: "// no ceiling: HarnessAgent.builder().disableToolResultEviction()",
		ClaudeCode: "# cannot be said here: no documented setting leaves Claude Code's Bash output unlimited",
		Codex:      "# tool_output_token_limit = 10000",
		DeepSeek:   "# no ceiling: without maxInlineBytes the plugin registers nothing",
		OpenCode:   `// {"tool_output": {"max_lines": 2000, "max_bytes": 51200}}`,
		Gemini:     `    "truncateToolOutputThreshold": 0` + "\n",
	}
	for _, target := range Targets {
		got, err := Render(p, target)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, want[target]) {
			t.Errorf("%s: want a line %q in\n%s", target, want[target], got)
		}
		if m := value[target].FindStringSubmatch(got); m != nil && m[1] != "0" {
			t.Errorf("%s sets a ceiling without one: %q", target, m[0])
		}
	}
}

// TestHostileNames: tool and policy names from a policy file reach no
// terminal as control characters and cannot break out of a string or a
// comment, in any target.
func TestHostileNames(t *testing.T) {
	p := mustPreset(t, "agentscope")
	p.Name = "x\n\x1b]0;pwned\x07"
	p.Exclude = []string{"a\"b\\c", "a\"b\\c", "line\nbreak", "\x1b[2J", "uni\\u000a", "zw\u200bsp", "é"}
	for _, target := range Targets {
		got, err := Render(p, target)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if strings.ContainsAny(line, "\x1b\x07\r\u200b") {
				t.Errorf("%s line %d holds a control or invisible character: %q", target, i+1, line)
			}
			if target != AgentScope && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "//") && strings.Contains(line, "break") {
				t.Errorf("%s line %d: a name escaped its comment: %q", target, i+1, line)
			}
		}
	}
	got, _ := Render(p, AgentScope)
	want := `        .excludedToolNames(Set.of("a\"b\\c", "line\012break", "\033[2J", "uni\\u000a", "zw\u200bsp", "é"))`
	if !strings.Contains(got, want+"\n") {
		t.Errorf("Java names: want\n%s\nin\n%s", want, got)
	}
}

func TestParseTarget(t *testing.T) {
	for _, name := range TargetNames() {
		if got, err := ParseTarget(name); err != nil || string(got) != name {
			t.Errorf("ParseTarget(%q) = %q, %v", name, got, err)
		}
	}
	_, err := ParseTarget("openclaw")
	if diff := cmp.Diff(`unknown export target "openclaw" (have harness-rs, agentscope, claude-code, codex, deepseek, opencode, gemini-cli)`, err.Error()); diff != "" {
		t.Error(diff)
	}
}

// TestLostKnobs: the line under the header names every knob a target
// cannot say, by the names the policy file gives them, and says so when
// there is none.
func TestLostKnobs(t *testing.T) {
	tests := []struct {
		target Target
		p      policy.Policy
		want   string
	}{
		{HarnessRS, mustPreset(t, "harness-rs-0.0.50"), "// expressed whole: no knob of this policy is lost here"},
		{Codex, mustPreset(t, "codex"), "# expressed whole: no knob of this policy is lost here"},
		{Codex, tuned(t), `# cannot express: action (what happens over the ceiling), dedupe (repeat suppression), exclude (tools left alone); each has a "cannot be said here" line below`},
		{DeepSeek, tuned(t), `# cannot express: preview (the spill preview), exclude (tools left alone), dedupe (repeat suppression); each has a "cannot be said here" line below`},
		{OpenCode, ownTuned(t, OpenCode), "// expressed whole: no knob of this policy is lost here"},
		{Gemini, ownTuned(t, Gemini), "// expressed whole: no knob of this policy is lost here"},
		// Read is left alone by Gemini CLI anyway.
		{Gemini, tuned(t), `// cannot express: ceiling (the size ceiling), preview (the spill preview), dedupe (repeat suppression); each has a "cannot be said here" line below`},
		{Gemini, func() policy.Policy {
			p := ownTuned(t, Gemini)
			p.Exclude = []string{"run_shell_command"}
			return p
		}(), `// cannot express: exclude (tools left alone); each has a "cannot be said here" line below`},
		{OpenCode, mustPreset(t, "harness-rs-0.0.40"), `// cannot express: action (what happens over the ceiling), dedupe (repeat suppression); each has a "cannot be said here" line below`},
	}
	for _, tt := range tests {
		got, err := Render(tt.p, tt.target)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(got, "\n")
		if lines[1] != tt.want {
			t.Errorf("%s, %s: line 2 is\n%s\nwant\n%s", tt.target, tt.p.Name, lines[1], tt.want)
		}
	}
	// Every target has the line, and as many knobs as it has lines saying
	// what it cannot say, at most.
	for _, target := range Targets {
		got, _ := Render(tuned(t), target)
		lines := strings.Split(got, "\n")
		if !strings.Contains(lines[1], "cannot express: ") && !strings.Contains(lines[1], "expressed whole") {
			t.Errorf("%s: no list of lost knobs under the header:\n%s", target, got)
		}
		if n := strings.Count(got, "cannot be said here: "); n < strings.Count(lines[1], " (") {
			t.Errorf("%s lists more knobs than it has lines for:\n%s", target, got)
		}
	}
}
