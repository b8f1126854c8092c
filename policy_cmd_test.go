package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/export"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// TestPolicyExport: the policy flags and a policy file written by the
// inspector give the text guard/export pins for the same tuned policy.
func TestPolicyExport(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("guard", "export", "testdata", "TestRender", "harness-rs", "tuned.golden"))
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"policy", "export", "--to", "harness-rs", "--max-bytes", "12KiB", "--dedupe-from", "3", "--exclude", "Read"}
	var out, errb bytes.Buffer
	if code := run(flags, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("from flags (-want +got):\n%s", diff)
	}

	p, err := policy.Preset("harness-rs-0.0.50")
	if err != nil {
		t.Fatal(err)
	}
	p.SetCeiling(12 * 1024)
	if err := p.SetDedupe(3); err != nil {
		t.Fatal(err)
	}
	p.Exclude, p.Name = []string{"Read"}, p.Name+"+custom"
	file := filepath.Join(t.TempDir(), "spillway-policy.json")
	if err := policy.Save(file, p, false); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"policy", "export", "--to", "harness-rs", "--policy", file}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("from a policy file (-want +got):\n%s", diff)
	}
}

func TestPolicyExportErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"policy", "export"}, "spillway: policy export needs --to: harness-rs, agentscope, claude-code, codex, deepseek, opencode, gemini-cli\n"},
		{[]string{"policy", "export", "--to", "openclaw\x1b]0;x\x07"}, `spillway: unknown export target "openclaw\x1b]0;x\a" (have harness-rs, agentscope, claude-code, codex, deepseek, opencode, gemini-cli)` + "\n"},
		{[]string{"policy", "export", "--to", "codex", "--preset", "codex", "--spill"}, "spillway: codex: Codex truncates and never spills\n"},
		{[]string{"policy", "export", "--to", "codex", "--preset", "codex", "--policy", "x.json"}, "spillway: --preset and --policy both choose the policy: give one\n"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := run(tt.args, strings.NewReader(""), &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", tt.args, code, exitUsage)
		}
		if out.Len() > 0 {
			t.Errorf("%q: wrote %q to stdout", tt.args, out.String())
		}
		if diff := cmp.Diff(tt.want, errb.String()); diff != "" {
			t.Errorf("%q: stderr (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestDocsExport runs each spillway policy export docs/policies.md shows
// and checks that it prints what the page says, line for line.
func TestDocsExport(t *testing.T) {
	policies, err := os.ReadFile(filepath.Join("docs", "policies.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(policies), "\n## Taking the policy to the harness\n")
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)```\n\\$ spillway (policy export [^\n]*)\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) != len(export.Targets) {
		t.Fatalf("docs/policies.md shows %d export examples, want one per target", len(blocks))
	}
	for _, b := range blocks {
		var out, errb bytes.Buffer
		if code := run(strings.Fields(b[1]), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", b[1], code, errb.String())
		}
		if diff := cmp.Diff(b[2], out.String()); diff != "" {
			t.Errorf("docs/policies.md's %s (-docs +printed):\n%s", b[1], diff)
		}
	}
}

// TestDocsSweepDedupe runs the spillway sweep --dedupe docs/policies.md
// shows over the shared logs and checks its table, line for line.
func TestDocsSweepDedupe(t *testing.T) {
	cmd, block, printed := docCommand(t, "policies.md", "sweep --dedupe [^\n]*?", filepath.Join(sharedtest.Dir(t), "transcripts"))
	if lines := strings.SplitAfter(printed, "\n"); len(lines) < 7 {
		t.Fatalf("printed %q", printed)
	} else if diff := cmp.Diff(block, strings.Join(lines[:7], "")); diff != "" {
		t.Errorf("docs/policies.md's %s (-docs +printed):\n%s", cmd, diff)
	}
}
