package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/transcript"
)

// claudeSession is msgs as a Claude Code session at path.
func claudeSession(t *testing.T, path string, msgs ...map[string]any) *transcript.Session {
	t.Helper()
	s := generic(t, msgs...)
	s.Format, s.Version, s.Path, s.ID = transcript.FormatClaude, "2.1.328", path, "sess"
	return s
}

// calls is an assistant message calling several tools at once.
func calls(ids ...string) map[string]any {
	var tc []any
	for _, id := range ids {
		tool, input, _ := strings.Cut(id, ":")
		// Ids differ by trailing spaces; the inputs are without them.
		tc = append(tc, map[string]any{"id": id, "name": tool, "arguments": map[string]any{"file_path": strings.TrimSpace(input)}})
	}
	return map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "tool_calls": tc}
}

func withCeiling(t *testing.T, preset string, ceiling int64) policy.Policy {
	p := mustPreset(t, preset)
	p.SetCeiling(ceiling)
	return p
}

// A Claude Code session under another style's policy is replayed as the
// hook enforces it: a Read's content shaped and numbered again, a Bash
// output Claude Code persisted shaped whole from its file and cut as Claude
// Code cuts it, what the hook never sees left alone.
func TestHookMode(t *testing.T) {
	dir := t.TempDir()
	transcriptPath := filepath.Join(dir, "sess.jsonl")
	var whole strings.Builder
	for i := 1; i <= 9000; i++ {
		fmt.Fprintf(&whole, "%d\n", i)
	}
	results := filepath.Join(dir, "sess", "tool-results")
	os.MkdirAll(results, 0o700)
	persistedFile := filepath.Join(results, "task1.txt")
	os.WriteFile(persistedFile, []byte("\n"+whole.String()+"\n\n"), 0o600)
	persisted := harness.ClaudePersisted(int64(whole.Len()), persistedFile, harness.BashOutput(whole.String()[:30000]), 2000, true)

	stopped := "The search stopped before it finished, most likely at its time limit, so these results are incomplete: more matches may exist. Search a more specific path or pattern.\n\n" +
		strings.Repeat("a.go:1:needle\n", 3000)
	grepFile := filepath.Join(results, "grep1.txt")
	os.WriteFile(grepFile, []byte(stopped), 0o600)
	content := strings.Repeat("abcdefghij\n", 40) + "end" // 443 bytes
	numbered := harness.NumberRead(content, harness.ReadNumbering{Start: 1, Sep: "\t"})
	s := claudeSession(t, transcriptPath,
		call("r1", "Read", map[string]any{"file_path": "/a"}), result("r1", numbered, false),
		call("b1", "Bash", nil), result("b1", persisted, false),
		call("b2", "Bash", nil), result("b2", strings.Repeat("y", 500), true),
		call("t1", "Task", nil), result("t1", strings.Repeat("z", 500), false),
		call("r2", "Read", map[string]any{"file_path": "/img"}), result("r2", strings.Repeat("not numbered ", 40), false),
		// Claude Code noted the file as not UTF-8 text after its lines:
		// the hook, which does not see the note, leaves it.
		call("r3", "Read", map[string]any{"file_path": "/bin"}),
		result("r3", harness.NumberRead(strings.Repeat("ab\ufffd\n", 200), harness.ReadNumbering{Start: 1, Sep: "\t"})+
			"\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary.]", false),
		// Cut by Claude Code, which says so in a line the hook would lose.
		call("g1", "Glob", nil), result("g1", strings.Repeat("/a/file.go\n", 100)+
			"(Showing 100 of 120 matching files; 20 more are not listed. Narrow the pattern or path to see the rest.)", false),
		// Saved cut by Claude Code: the whole output is nowhere.
		call("b3", "Bash", nil), result("b3", "<persisted-output>\nOutput exceeded the 64MB persist limit; only the first 64MB were saved to: "+
			persistedFile+"\n\nPreview (first 2KB):\n"+strings.Repeat("1\n", 1000)+"...\n</persisted-output>", false),
		// Persisted, and stopped at the time limit, as its file says.
		call("g2", "Grep", nil), result("g2", harness.ClaudePersisted(int64(len(stopped)), grepFile, stopped, 2000, true), false),
	)
	pol := withCeiling(t, "harness-rs-0.0.40", 300) // truncation at 300 JSON bytes
	rp, err := prepared(t, s).Replay(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"truncate", "truncate", "keep", "keep", "keep", "keep", "keep", "keep", "keep"}
	if diff := cmp.Diff(want, outcomes(rp)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	read, bash := rp.Results[0], rp.Results[1]
	// The Read is measured as the model would receive it, numbered (557
	// bytes, 640 as JSON), and its content (443 bytes) is what is cut.
	if read.Size != 640 || read.Bytes != 557 || len(content) != 443 {
		t.Errorf("Read measured %d JSON bytes (%d bytes logged)", read.Size, read.Bytes)
	}
	wantRep, _ := harness.HarnessRSTruncate(harness.Subject{Text: content, Tool: "Read"}, 300)
	if read.Replacement != wantRep || read.Text != "1\t"+wantRep {
		t.Errorf("Read replaced with %q, sent %q", read.Replacement, read.Text)
	}
	// The persisted Bash output is measured and cut whole: 48,894 bytes
	// once its blank lines are cut, not the 2 KB preview logged.
	if bash.Size != harness.JSONLen(whole.String()[:whole.Len()-1]) {
		t.Errorf("Bash measured %d", bash.Size)
	}
	wantRep, _ = harness.HarnessRSTruncate(harness.Subject{Text: whole.String()[:whole.Len()-1], Tool: "Bash"}, 300)
	if bash.Replacement != wantRep || bash.Text != wantRep || !strings.HasPrefix(wantRep, `{"bytes_kept":300,"bytes_total":52893,`) {
		t.Errorf("Bash replaced with %.80q", bash.Replacement)
	}
	for i, why := range []string{2: "the call failed", 3: "leaves this tool's output", 4: "not a Read's numbered lines", 5: "not a Read's numbered lines", 6: "a search Claude Code cut", 7: "only the first 64 MiB", 8: "a search Claude Code cut"} {
		if i >= 2 && (!strings.Contains(rp.Results[i].Reason, why) || rp.Results[i].Text != s.Calls[i].Results[0].Text) {
			t.Errorf("result %d: %q", i, rp.Results[i].Reason)
		}
	}

	// Claude Code's own style is Claude Code itself: no hook.
	own, err := prepared(t, s).Replay(mustPreset(t, "claude-code"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if own.Results[0].Replacement != "" || own.Results[1].Outcome != Kept {
		t.Error("the claude-code preset replayed through the hook")
	}

	// What the hook would make over Claude Code's own limit for Bash
	// (30,000 characters) stays as logged: Claude Code would persist it.
	big := strings.Repeat("w", 45_000)
	s = claudeSession(t, transcriptPath, call("b", "Bash", nil), result("b", big, false))
	rp, err = prepared(t, s).Replay(withCeiling(t, "harness-rs-0.0.40", 40_000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rp.Results[0]; r.Outcome != Kept || r.Text != big || !strings.Contains(r.Reason, "over Claude Code's own limit of 30,000 UTF-16 units") {
		t.Errorf("%s: %s", r.Outcome, r.Reason)
	}
	// A persisted output whose file is not in the session's tool-results
	// folder is never read.
	outside := filepath.Join(t.TempDir(), "tool-results", "x.txt")
	os.MkdirAll(filepath.Dir(outside), 0o700)
	os.WriteFile(outside, []byte(whole.String()), 0o600)
	s = claudeSession(t, transcriptPath, call("b", "Bash", nil),
		result("b", harness.ClaudePersisted(1, outside, strings.Repeat("x\n", 400), 2000, true), false))
	rp, err = prepared(t, s).Replay(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rp.Results[0]; r.Outcome != Kept || !strings.Contains(r.Reason, "not in the session's tool-results folder") {
		t.Errorf("%s: %s", r.Outcome, r.Reason)
	}
}

// The results of one model response are judged against what the
// responses before it left, whatever order they came back in: a Read run
// at once with a Bash that clears is not a repeat at the next response,
// and two identical Reads of one response are both sent.
func TestHookRepeatsByResponse(t *testing.T) {
	dedupe := mustPreset(t, "harness-rs-0.0.50-dedupe")
	for _, order := range [][]string{{"Read:/a", "Bash:x"}, {"Bash:x", "Read:/a"}} {
		msgs := []map[string]any{calls(order...)}
		for _, id := range order {
			msgs = append(msgs, result(id, "1\tout", false))
		}
		msgs = append(msgs, calls("Read:/a "), result("Read:/a ", "1\tout", false))
		s := claudeSession(t, filepath.Join(t.TempDir(), "s.jsonl"), msgs...)
		rp, err := prepared(t, s).Replay(dedupe, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := outcomes(rp); got[2] != "keep" {
			t.Errorf("order %v: %v", order, got)
		}
	}
	s := claudeSession(t, filepath.Join(t.TempDir(), "s.jsonl"),
		calls("Read:/a", "Read:/a "), result("Read:/a", "1\tA", false), result("Read:/a ", "1\tA", false),
		calls("Read:/a  "), result("Read:/a  ", "1\tA", false))
	rp, err := prepared(t, s).Replay(dedupe, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"keep", "keep", "suppress"}, outcomes(rp)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Replaying a session one result at a time, as the hook does, with the
// repeat state carried from one to the next (and through its text form),
// gives every result what replaying the whole session gives it.
func TestHookOneAtATime(t *testing.T) {
	msgs := []map[string]any{
		calls("Read:/a", "Grep:/x"), result("Read:/a", "1\ta", false), result("Grep:/x", "x", false),
		calls("Read:/a "), result("Read:/a ", "1\ta", false),
		calls("Edit:/a"), result("Edit:/a", "ok", false),
		calls("Read:/a  "), result("Read:/a  ", "1\ta", false),
		calls("Read:/a   ", "Bash:y"), result("Bash:y", "y", false), result("Read:/a   ", "1\ta", false),
		calls("Read:/a    "), result("Read:/a    ", "1\tb", false),
		calls("Read:/a     "), result("Read:/a     ", "1\tb", false),
	}
	for _, preset := range []string{"harness-rs-0.0.50-dedupe", "harness-rs-dedupe-from-3"} {
		for _, clear := range []policy.ClearRule{policy.ClearAnyWrite, policy.ClearSamePath} {
			pol := mustPreset(t, preset)
			pol.Dedupe.Clear = clear
			pol.Dedupe.Key, pol.Dedupe.SameContent = policy.KeyReadPath, clear == policy.ClearSamePath
			whole, err := prepared(t, claudeSession(t, "/w/s.jsonl", msgs...)).Replay(pol, Options{})
			if err != nil {
				t.Fatal(err)
			}
			state := &Repeats{}
			var got []string
			for i := 0; i < len(msgs); {
				j := i + 1
				for j < len(msgs) && msgs[j]["role"] == "tool" {
					j++
				}
				for _, res := range msgs[i+1 : j] {
					one := claudeSession(t, "/w/s.jsonl", calls(res["tool_call_id"].(string)), res)
					rp, err := prepared(t, one).Replay(pol, Options{Repeats: state, Batch: fmt.Sprint("batch", i)})
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(rp.Results[0].Outcome))
					text, _ := state.MarshalText()
					state = &Repeats{}
					if err := state.UnmarshalText(text); err != nil {
						t.Fatal(err)
					}
				}
				i = j
			}
			// The whole replay orders results as the log does; so did this.
			if diff := cmp.Diff(outcomes(whole), got); diff != "" {
				t.Errorf("%s, %s: one at a time (-whole +one):\n%s", preset, clear, diff)
			}
		}
	}
}

// A spill planned for an output Claude Code persisted does not hold the
// output: the file is read again when the spill file is written, and a
// file gone by then writes no spill file rather than an empty one.
func TestPersistedSpillReadWhenWritten(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "sess", "tool-results")
	os.MkdirAll(results, 0o700)
	whole := strings.Repeat("0123456789abcdef\n", 4000) // 68,000 bytes
	persistedFile := filepath.Join(results, "b1.txt")
	os.WriteFile(persistedFile, []byte(whole), 0o600)
	s := claudeSession(t, filepath.Join(dir, "sess.jsonl"), call("b1", "Bash", nil),
		result("b1", harness.ClaudePersisted(int64(len(whole)), persistedFile, whole[:2000], 2000, true), false))
	pol := withCeiling(t, "harness-rs-0.0.50", 4096)
	planned := &spill.Planned{Dir: spill.Dir{Root: t.TempDir(), Session: s.ID, Policy: pol.Name}}
	rp, err := prepared(t, s).Replay(pol, Options{Store: planned})
	if err != nil {
		t.Fatal(err)
	}
	r := rp.Results[0]
	if r.Outcome != Spilled || r.SpillPath == "" {
		t.Fatalf("%s: %s", r.Outcome, r.Reason)
	}
	os.Remove(persistedFile)
	if n, err := planned.WriteAll(); n != 0 || err == nil {
		t.Fatalf("with the output gone: %d written, %v", n, err)
	}
	// Put back changed, which only a read at writing can show.
	again := strings.ToUpper(whole)
	os.WriteFile(persistedFile, []byte(again), 0o600)
	if n, err := planned.WriteAll(); n != 1 || err != nil {
		t.Fatalf("%d written: %v", n, err)
	}
	got, err := os.ReadFile(r.SpillPath)
	if err != nil || string(got) != harness.BashOutput(again) {
		t.Errorf("spill file holds %.40q (%v), want the output as read when written", got, err)
	}
}

// A persisted output over the bound is left as logged, unread.
func TestPersistedOverBound(t *testing.T) {
	defer func(n int64) { maxPersisted = n }(maxPersisted)
	maxPersisted = 1000
	dir := t.TempDir()
	results := filepath.Join(dir, "sess", "tool-results")
	os.MkdirAll(results, 0o700)
	file := filepath.Join(results, "b1.txt")
	os.WriteFile(file, []byte(strings.Repeat("x", 1001)), 0o600)
	s := claudeSession(t, filepath.Join(dir, "sess.jsonl"), call("b1", "Bash", nil),
		result("b1", harness.ClaudePersisted(1001, file, strings.Repeat("x", 500), 2000, true), false))
	rp, err := prepared(t, s).Replay(withCeiling(t, "harness-rs-0.0.40", 300), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rp.Results[0]; r.Outcome != Kept || !strings.Contains(r.Reason, "b1.txt is over 1000 B") {
		t.Errorf("%s: %s", r.Outcome, r.Reason)
	}
}
