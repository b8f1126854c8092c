package policy

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustPreset(t *testing.T, name string) Policy {
	t.Helper()
	p, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPresetsValid(t *testing.T) {
	want := []string{"harness-rs-0.0.40", "harness-rs-0.0.50", "harness-rs-0.0.50-dedupe", "harness-rs-dedupe-from-3",
		"agentscope", "agentscope-pre-2026-07", "deepseek", "claude-code", "claude-code-pre-2.1.2", "claude-code-2.1.2",
		"claude-code-2.1.6", "claude-code-2.1.45", "claude-code-2.1.51", "claude-code-2.1.59", "claude-code-2.1.74",
		"claude-code-2.1.79", "claude-code-2.1.86", "claude-code-2.1.128", "claude-code-2.1.309", "claude-code-2.1.317",
		"codex", "codex-pre-0.125.0", "codex-0.125.0", "codex-0.142.0", "codex-0.145.0", "none"}
	var got []string
	for _, p := range Presets() {
		if err := p.Validate(); err != nil {
			t.Error(err)
		}
		got = append(got, p.Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	a, _ := Preset("claude-code")
	a.PerTool["Bash"] = 1
	if b, _ := Preset("claude-code"); b.PerTool["Bash"] != 30_000 {
		t.Error("presets must not share maps")
	}
}

func TestCeilingFor(t *testing.T) {
	p := Policy{Ceiling: 50_000, PerTool: map[string]int64{"Bash": 30_000, "Read": -1, "mcp__*": 25_000}}
	for tool, want := range map[string]int64{"Bash": 30_000, "Read": 0, "mcp__github__x": 25_000, "Grep": 50_000} {
		got, ok := p.CeilingFor(tool)
		if got != want || ok != (want > 0) {
			t.Errorf("CeilingFor(%s) = %d, %v", tool, got, ok)
		}
	}
	codex, _ := Preset("codex")
	if c, _ := codex.CeilingFor("read_file"); c != 12_000 {
		t.Errorf("codex ceiling with its 20%% allowance = %d, want 12,000", c)
	}
	// Command output (exec's script output too) is cut at the ceiling itself.
	for _, tool := range []string{"exec", "shell"} {
		if c, _ := codex.CeilingFor(tool); c != 10_000 {
			t.Errorf("codex ceiling for %s = %d, want 10,000", tool, c)
		}
	}
}

// TestAtCeiling: a copy at another ceiling scales the per-tool ceilings
// as SetCeiling does and leaves the policy it was taken from as it was.
func TestAtCeiling(t *testing.T) {
	p := Policy{Ceiling: 50_000, PerTool: map[string]int64{"Bash": 30_000, "Read": -1}}
	q := p.AtCeiling(25_000)
	if want := map[string]int64{"Bash": 15_000, "Read": -1}; q.Ceiling != 25_000 || !maps.Equal(q.PerTool, want) {
		t.Errorf("AtCeiling(25,000) = %d %v, want 25,000 %v", q.Ceiling, q.PerTool, want)
	}
	if p.Ceiling != 50_000 || p.PerTool["Bash"] != 30_000 {
		t.Errorf("AtCeiling changed the policy it was taken from: %d %v", p.Ceiling, p.PerTool)
	}
	// Raised as far as it goes, a per-tool ceiling rises with it, where
	// 30,000 × 2^53 wrapped negative and the ceiling fell to 1; past the
	// most, the ceiling stops there.
	for c, want := range map[int64]map[string]int64{
		1 << 53:       {"Bash": 30_000 * (1 << 53) / 50_000, "Read": -1},
		1 << 62:       {"Bash": 30_000 * (1 << 53) / 50_000, "Read": -1},
		1_000_000_000: {"Bash": 600_000_000, "Read": -1},
	} {
		q := p.AtCeiling(c)
		if q.Ceiling != min(c, MaxCeiling) || !maps.Equal(q.PerTool, want) {
			t.Errorf("AtCeiling(%d) = %d %v, want %v", c, q.Ceiling, q.PerTool, want)
		}
	}
}

func TestPolicyFile(t *testing.T) {
	p := mustPreset(t, "claude-code")
	p.Ceiling = 12_345
	file := filepath.Join(t.TempDir(), "policy.json")
	if err := Save(file, p, false); err != nil {
		t.Fatal(err)
	}
	back, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("round trip (-saved +loaded):\n%s", diff)
	}
	os.WriteFile(file, []byte(`{"name":"x","unit":"furlongs"}`), 0o600)
	if _, err := Load(file); err == nil || !strings.Contains(err.Error(), "furlongs") {
		t.Errorf("bad unit: %v", err)
	}
	os.WriteFile(file, []byte(`{"name":"x","celing":5}`), 0o600)
	if _, err := Load(file); err == nil || !strings.Contains(err.Error(), "celing") {
		t.Errorf("misspelled knob: %v", err)
	}
	// Only a regular file of a bounded size is read: /dev/zero or a FIFO
	// would never end, in the hook as anywhere.
	os.Truncate(file, maxPolicyFile+1)
	for _, path := range []string{file, os.DevNull, t.TempDir()} {
		if _, err := Load(path); err == nil {
			t.Errorf("%s loaded", path)
		}
	}
}

// TestPolicyFileTypo: a misspelt value of a knob that takes one of a few
// words is refused on load, naming the knob and the words it takes, where
// before it was kept and silently did nothing.
func TestPolicyFileTypo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.json")
	if err := Save(file, mustPreset(t, "claude-code"), false); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ from, to, want string }{
		{`"key": "read_path"`, `"key": "read-path"`, `unknown dedupe.key "read-path" (want tool_args, read_path, or leave it out)`},
		{`"clear": "same_path"`, `"clear": "same_file"`, `unknown dedupe.clear "same_file" (want any_write, same_path, or leave it out)`},
		{`"non_text": "skip"`, `"non_text": "skipped"`, `unknown non_text "skipped" (want keep, drop, skip, or leave it out)`},
		{`"on_spill_error": "keep_original"`, `"on_spill_error": "keep"`, `unknown on_spill_error "keep" (want truncate, keep_original, or leave it out)`},
		// A misspelt risk took 3 suppressed repeats to none, silently.
		{`"Read": "read_only"`, `"Read": "readonly"`, `unknown risk.exact["Read"] "readonly" (want read_only, write, network, neutral, or leave it out)`},
		{`"default": "write"`, `"default": "writes"`, `unknown risk.default "writes" (want read_only, write, network, neutral, or leave it out)`},
		{`"preview_unit": "utf16_units"`, `"preview_unit": "furlongs"`, `unknown preview_unit "furlongs"`},
		{`"harness_version": "2.1.317"`, `"harness_version": "banana"`, `harness_version "banana" is no version (major.minor.patch)`},
		// Past 2^53: times its allowance it wrapped negative, and every
		// result was cut.
		{`"ceiling": 50000`, `"ceiling": 9223372036854775807`, `ceiling and preview sizes must be at most 2^53`},
		{`"ceiling": 50000`, `"ceiling": 50000, "allowance": 1e15`, `allowance 1e+15 must be from 0 (none) to 16`},
		{`"ceiling": 50000`, `"ceiling": 50000, "allowance": -5`, `allowance -5 must be from 0 (none) to 16`},
	}
	for _, tt := range tests {
		typo := strings.Replace(string(saved), tt.from, tt.to, 1)
		if typo == string(saved) {
			t.Fatalf("%s is not in the saved policy:\n%s", tt.from, saved)
		}
		if err := os.WriteFile(file, []byte(typo), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(file)
		if want := "policy claude-code: " + tt.want; err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", tt.to, err, want)
		}
	}
	// A second object after the first was ignored.
	os.WriteFile(file, append(saved, []byte(`{"ceiling": 1}`)...), 0o600)
	if _, err := Load(file); err == nil || !strings.Contains(err.Error(), "more after its JSON object") {
		t.Errorf("trailing object: %v", err)
	}
	// Left out, each takes its default, as the presets without them do.
	if err := (&Policy{Name: "bare", Unit: JSONBytes, Action: TruncateHead, Style: "harness-rs"}).Validate(); err != nil {
		t.Errorf("a policy leaving the enumerated knobs out: %v", err)
	}
}

// TestFormatSize: a size of one takes the unit's singular.
func TestFormatSize(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		u    Unit
		want string
	}{{24_576, JSONBytes, "24,576 JSON bytes"}, {1, JSONBytes, "1 JSON byte"}, {1, UTF16Units, "1 UTF-16 unit"},
		{0, Tokens, "0 tokens"}, {1, ApproxTokens, "1 token (bytes/4)"}, {1, Codepoints, "1 code point"}} {
		if got := FormatSize(tt.n, tt.u); got != tt.want {
			t.Errorf("FormatSize(%d, %s) = %q, want %q", tt.n, tt.u, got, tt.want)
		}
	}
}

// A policy that follows the harness's version says which era it was
// applied as, for Claude Code as for Codex.
func TestForVersionSays(t *testing.T) {
	for _, c := range []struct{ preset, version, want string }{
		{"claude-code", "2.1.121", "(this session: recorded by 2.1.121, replayed as claude-code-2.1.86)"},
		{"claude-code", "", "(this session: no version recorded, replayed as claude-code-2.1.317)"},
		{"codex", "0.114.0", "(this session: recorded by 0.114.0, replayed as codex-pre-0.125.0)"},
	} {
		p := ForVersion(mustPreset(t, c.preset), c.version)
		if !strings.HasSuffix(p.Description, c.want) || strings.HasPrefix(p.Description, " ") {
			t.Errorf("%s for %q: %q, want it to end %q", c.preset, c.version, p.Description, c.want)
		}
	}
}
