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
