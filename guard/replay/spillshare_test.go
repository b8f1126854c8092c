package replay

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/spill"
)

// TestSpillShared: harness-rs keeps only letters, digits, '-' and '_' of a
// call id, so "c.1", "c1" and "c:1" all spill to .harness/spill/c1-Bash.txt
// and each write replaces the one before (spill_oversized, lib.rs 268-342
// at v0.0.50; its real code, run on these three results, leaves one file
// holding the third's text). The replay does the same, and says of each
// earlier result that its file was written over.
func TestSpillShared(t *testing.T) {
	ids := []string{"c.1", "c1", "c:1", "c2"}
	var msgs []map[string]any
	var texts []string
	for i, id := range ids {
		text := strings.Repeat(string(rune('a'+i))+" line of output\n", 6000) // 102,000 bytes
		texts = append(texts, text)
		msgs = append(msgs, call(id, "Bash", map[string]any{"n": i}), result(id, text, false))
	}
	s := generic(t, msgs...)
	root := t.TempDir()
	rp, err := prepared(t, s).Replay(mustPreset(t, "harness-rs-0.0.50"), Options{Store: spill.Dir{Root: root, Session: s.ID, Policy: "harness-rs-0.0.50"}})
	if err != nil {
		t.Fatal(err)
	}
	var locators, warnings []string
	for i, r := range rp.Results {
		if r.Outcome != Spilled {
			t.Fatalf("result %d: %s (%s)", i, r.Outcome, r.Reason)
		}
		locators = append(locators, r.Locator)
		warnings = append(warnings, r.Warning)
	}
	wantLocators := []string{".harness/spill/c1-Bash.txt", ".harness/spill/c1-Bash.txt", ".harness/spill/c1-Bash.txt", ".harness/spill/c2-Bash.txt"}
	if diff := cmp.Diff(wantLocators, locators); diff != "" {
		t.Errorf("locators (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		"its spill file .harness/spill/c1-Bash.txt was written over by result 1's, which the harness names alike",
		"its spill file .harness/spill/c1-Bash.txt was written over by result 2's, which the harness names alike",
		"", "",
	}
	if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"result 0 (Bash): " + wantWarnings[0], "result 1 (Bash): " + wantWarnings[1]}, rp.Warnings); diff != "" {
		t.Errorf("run warnings (-want +got):\n%s", diff)
	}
	for i, r := range rp.Results {
		if i < 3 && r.SpillPath != rp.Results[2].SpillPath {
			t.Errorf("result %d stored at %s, not with result 2 at %s", i, r.SpillPath, rp.Results[2].SpillPath)
		}
		want := texts[i]
		if i < 3 {
			want = texts[2] // the last write to the shared file
		}
		if data, err := os.ReadFile(r.SpillPath); err != nil || string(data) != want {
			t.Errorf("result %d's file holds %.20q (%v), want %.20q", i, data, err, want)
		}
	}
}

// TestSpillRepeatedID: two results of one repeated call id, with different
// texts. DeepSeek's plugin names each file at random, so the two never meet
// there, and each keeps its own file here too. AgentScope before 2026-07
// names the file after the call id alone, so the later write replaces the
// earlier, as with harness-rs, and the earlier result says so. The same
// text spilled twice under one name is no overwrite and no warning.
func TestSpillRepeatedID(t *testing.T) {
	tests := []struct {
		preset   string
		texts    []string
		shared   bool
		warnings []string
	}{
		{preset: "deepseek", texts: []string{"a", "b"}, warnings: []string{"", ""}},
		{preset: "agentscope-pre-2026-07", texts: []string{"a", "b"}, shared: true, warnings: []string{
			"its spill file /large_tool_results/agent/dup was written over by result 1's, which the harness names alike", ""}},
		{preset: "agentscope-pre-2026-07", texts: []string{"a", "a"}, shared: true, warnings: []string{"", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.preset+"/"+strings.Join(tt.texts, ""), func(t *testing.T) {
			var msgs []map[string]any
			var texts []string
			for i, c := range tt.texts {
				text := strings.Repeat(c+" line of output\n", 6000) // 102,000 bytes
				texts = append(texts, text)
				msgs = append(msgs, call("dup", "Bash", map[string]any{"n": i}), result("dup", text, false))
			}
			s := generic(t, msgs...)
			rp, err := prepared(t, s).Replay(mustPreset(t, tt.preset), Options{Store: spill.Dir{Root: t.TempDir(), Session: s.ID, Policy: tt.preset}})
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			for i, r := range rp.Results {
				if r.Outcome != Spilled {
					t.Fatalf("result %d: %s (%s)", i, r.Outcome, r.Reason)
				}
				warnings = append(warnings, r.Warning)
			}
			if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			a, b := rp.Results[0], rp.Results[1]
			if shared := a.SpillPath == b.SpillPath; shared != tt.shared {
				t.Errorf("results stored at %s and %s: shared %v, want %v", a.SpillPath, b.SpillPath, shared, tt.shared)
			}
			if shared := a.Locator == b.Locator; shared != tt.shared {
				t.Errorf("locators %s and %s: shared %v, want %v", a.Locator, b.Locator, shared, tt.shared)
			}
			for i, r := range rp.Results {
				want := texts[i]
				if tt.shared {
					want = texts[1] // the last write to the shared file
				}
				if data, err := os.ReadFile(r.SpillPath); err != nil || string(data) != want {
					t.Errorf("result %d's file holds %.20q (%v), want %.20q", i, data, err, want)
				}
			}
		})
	}
}
