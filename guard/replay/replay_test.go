package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/transcript"
)

// words counts one token per whitespace-separated word, so expected token
// figures can be worked out by hand.
type words struct{}

func (words) Count(s string) int { return len(strings.Fields(s)) }

// generic builds a session in spillway's generic format from messages.
func generic(t *testing.T, msgs ...map[string]any) *transcript.Session {
	t.Helper()
	var b strings.Builder
	for _, m := range msgs {
		line, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	s, err := transcript.Read(strings.NewReader(b.String()), "test.jsonl", transcript.Options{Format: transcript.FormatGeneric})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func prepared(t *testing.T, s *transcript.Session) *Prepared {
	t.Helper()
	p, err := Prepare(context.Background(), s, words{}, pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// call is an assistant message calling one tool; result answers it.
func call(id, tool string, input map[string]any) map[string]any {
	return map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "",
		"tool_calls": []any{map[string]any{"id": id, "name": tool, "arguments": input}}}
}

func result(id, text string, isError bool) map[string]any {
	return map[string]any{"role": "tool", "tool_call_id": id, "content": text, "is_error": isError}
}

func outcomes(rp *Run) []string {
	var out []string
	for _, r := range rp.Results {
		s := string(r.Outcome)
		if r.Stale {
			s += " stale"
		}
		out = append(out, s)
	}
	return out
}

func mustPreset(t *testing.T, name string) policy.Policy {
	t.Helper()
	p, err := policy.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDedupe(t *testing.T) {
	readA := map[string]any{"file_path": "/a.go"}
	tests := []struct {
		name   string
		preset string
		msgs   []map[string]any
		want   []string
	}{
		{"second identical read-only call", "harness-rs-0.0.40", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", readA), result("2", "A", false),
		}, []string{"keep", "suppress"}},
		{"arguments are compared canonically", "harness-rs-0.0.40", []map[string]any{
			call("1", "Grep", map[string]any{"pattern": "x", "path": "/"}), result("1", "A", false),
			call("2", "Grep", map[string]any{"path": "/", "pattern": "x"}), result("2", "A", false),
		}, []string{"keep", "suppress"}},
		{"a write between clears", "harness-rs-0.0.40", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Bash", map[string]any{"command": "make"}), result("2", "ok", false),
			call("3", "Read", readA), result("3", "A", false),
		}, []string{"keep", "keep", "keep"}},
		{"a failed write neither suppresses nor clears", "harness-rs-0.0.40", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Bash", map[string]any{"command": "make"}), result("2", "boom", true),
			call("3", "Read", readA), result("3", "A", false),
		}, []string{"keep", "keep", "suppress"}},
		{"an error result is never a repeat", "harness-rs-0.0.40", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", readA), result("2", "gone", true),
		}, []string{"keep", "keep"}},
		{"a network tool clears and is never suppressed", "harness-rs-0.0.40", []map[string]any{
			call("1", "WebFetch", map[string]any{"url": "u"}), result("1", "page", false),
			call("2", "Read", readA), result("2", "A", false),
			call("3", "WebFetch", map[string]any{"url": "u"}), result("3", "page", false),
			call("4", "Read", readA), result("4", "A", false),
		}, []string{"keep", "keep", "keep", "keep"}},
		{"an unknown tool clears", "harness-rs-0.0.40", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "frobnicate", nil), result("2", "ok", false),
			call("3", "Read", readA), result("3", "A", false),
		}, []string{"keep", "keep", "keep"}},
		// harness-rs has no risk for a question or plan tool: not read-only, so it clears.
		{"a question tool clears", "harness-rs-0.0.40", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "AskUserQuestion", nil), result("2", "yes", false),
			call("3", "Read", readA), result("3", "A", false),
		}, []string{"keep", "keep", "keep"}},
		{"a plan tool clears", "harness-rs-0.0.50-dedupe", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "ExitPlanMode", nil), result("2", "ok", false),
			call("3", "Read", readA), result("3", "A", false),
			call("4", "Read", readA), result("4", "A", false),
		}, []string{"keep", "keep", "keep", "suppress"}},
		{"Claude Code: a plan tool changes no file", "claude-code-2.1.128", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "ExitPlanMode", nil), result("2", "ok", false),
			call("3", "Read", readA), result("3", "A", false),
		}, []string{"keep", "keep", "suppress"}},
		{"a repeat whose content changed is stale", "harness-rs-0.0.40", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			map[string]any{"role": "user", "content": "I edited a.go myself"},
			call("2", "Read", readA), result("2", "A, edited", false),
		}, []string{"keep", "suppress stale"}},
		{"off by default in 0.0.50", "harness-rs-0.0.50", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", readA), result("2", "A", false),
		}, []string{"keep", "keep"}},
		{"from the third call", "harness-rs-dedupe-from-3", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", readA), result("2", "A", false),
			call("3", "Read", readA), result("3", "A", false),
			call("4", "Read", readA), result("4", "A", false),
		}, []string{"keep", "keep", "suppress", "suppress"}},
		{"Claude Code: an unchanged Read", "claude-code-2.1.128", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", map[string]any{"file_path": "/a.go", "offset": 1}), result("2", "A", false),
		}, []string{"keep", "suppress"}},
		{"Claude Code: a changed file is read again", "claude-code-2.1.128", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", readA), result("2", "B", false),
			call("3", "Read", readA), result("3", "B", false),
		}, []string{"keep", "keep", "suppress"}},
		{"Claude Code: a different range is another read", "claude-code-2.1.128", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", map[string]any{"file_path": "/a.go", "offset": 50, "limit": 10}), result("2", "A", false),
		}, []string{"keep", "keep"}},
		{"Claude Code: an edit of the file clears it, of another does not", "claude-code-2.1.128", []map[string]any{
			call("1", "Read", readA), result("1", "A", false),
			call("2", "Read", map[string]any{"file_path": "/b.go"}), result("2", "B", false),
			call("3", "Edit", map[string]any{"file_path": "/a.go"}), result("3", "updated", false),
			call("4", "Read", readA), result("4", "A", false),
			call("5", "Read", map[string]any{"file_path": "/b.go"}), result("5", "B", false),
		}, []string{"keep", "keep", "keep", "keep", "suppress"}},
		{"Claude Code: only Read is deduplicated", "claude-code-2.1.128", []map[string]any{
			call("1", "Grep", map[string]any{"pattern": "x"}), result("1", "A", false),
			call("2", "Grep", map[string]any{"pattern": "x"}), result("2", "A", false),
		}, []string{"keep", "keep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp, err := prepared(t, generic(t, tt.msgs...)).Replay(mustPreset(t, tt.preset), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, outcomes(rp)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSuppressedText(t *testing.T) {
	msgs := []map[string]any{
		call("1", "Read", map[string]any{"file_path": "/a.go"}), result("1", "package a", false),
		call("2", "Read", map[string]any{"file_path": "/a.go"}), result("2", "package a", false),
	}
	p := prepared(t, generic(t, msgs...))
	for preset, want := range map[string]string{"harness-rs-0.0.40": harness.HarnessRSRepeat("Read"), "claude-code-2.1.128": harness.ClaudeReadStub} {
		rp, _ := p.Replay(mustPreset(t, preset), Options{})
		r := rp.Results[1]
		if r.Text != want || r.RepeatOf != 0 || r.Stale {
			t.Errorf("%s: %+v", preset, r)
		}
	}
}

func TestGates(t *testing.T) {
	big := strings.Repeat("word ", 20_000) // 100,000 bytes
	tests := []struct {
		name   string
		preset string
		msg    map[string]any
		want   Outcome
		reason string
	}{
		{"AgentScope excludes read_file", "agentscope", result("1", big, false), Excluded, "excluded tool"},
		{"DeepSeek leaves results with images alone", "deepseek",
			map[string]any{"role": "tool", "tool_call_id": "1", "content": []any{map[string]any{"type": "text", "text": big}, map[string]any{"type": "image"}}},
			Kept, "has non-text blocks"},
		{"errors are shaped where the harness shapes them", "harness-rs-0.0.40", result("1", big, true), Truncated, ""},
		{"Claude Code never persists Read", "claude-code", result("1", big, false), Kept, "no ceiling"},
		{"no policy", "none", result("1", big, false), Kept, "no ceiling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := map[string]string{"agentscope": "read_file", "claude-code": "Read"}[tt.preset]
			if tool == "" {
				tool = "fetch"
			}
			s := generic(t, call("1", tool, nil), tt.msg)
			rp, err := prepared(t, s).Replay(mustPreset(t, tt.preset), Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := rp.Results[0]
			if r.Outcome != tt.want || (tt.reason != "" && r.Reason != tt.reason) {
				t.Errorf("got %s (%s), want %s (%s)", r.Outcome, r.Reason, tt.want, tt.reason)
			}
		})
	}
	p := mustPreset(t, "harness-rs-0.0.40")
	p.ShapeErrors = false
	rp, _ := prepared(t, generic(t, call("1", "fetch", nil), result("1", big, true))).Replay(p, Options{})
	if r := rp.Results[0]; r.Outcome != Kept || r.Reason != "errors are not shaped" {
		t.Errorf("errors off: %s %s", r.Outcome, r.Reason)
	}
}

func TestSpillFiles(t *testing.T) {
	big := strings.Repeat("line of output\n", 4000) // 60,000 bytes
	s := generic(t, call("c/../1", "..", nil), result("c/../1", big, false))
	p := prepared(t, s)
	root := t.TempDir()
	store := spill.Dir{Root: root, Session: s.ID, Policy: "harness-rs-0.0.50"}
	rp, err := p.Replay(mustPreset(t, "harness-rs-0.0.50"), Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	r := rp.Results[0]
	if r.Outcome != Spilled || !strings.HasPrefix(r.SpillPath, root) {
		t.Fatalf("outcome %s, path %q", r.Outcome, r.SpillPath)
	}
	data, err := os.ReadFile(r.SpillPath)
	if err != nil || string(data) != big {
		t.Fatalf("spill file holds %d bytes, %v", len(data), err)
	}
	for dir := r.SpillPath; dir != root; dir = filepath.Dir(dir) {
		info, _ := os.Stat(dir)
		want := os.FileMode(0o700)
		if dir == r.SpillPath {
			want = 0o600
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", dir, info.Mode().Perm(), want)
		}
	}
	// The locator keeps the harness's own (unsanitized) form.
	if r.Locator != ".harness/spill/c1-...txt" {
		t.Errorf("locator %q", r.Locator)
	}
	// A call id that climbs out: Claude Code names the file after it as
	// is; the stored file stays inside the store.
	evil := generic(t, call("../../evil", "fetch", nil), result("../../evil", big, false))
	rc, err := prepared(t, evil).Replay(mustPreset(t, "claude-code"), Options{Store: spill.Dir{Root: root, Session: evil.ID, Policy: "claude-code"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := rc.Results[0]; r.Outcome != Spilled || !strings.HasSuffix(r.Locator, "/tool-results/../../evil.txt") ||
		!strings.HasPrefix(r.SpillPath, root+string(filepath.Separator)) || filepath.Clean(r.SpillPath) != r.SpillPath {
		t.Errorf("climbing call id: %s, locator %q, stored at %q", r.Outcome, r.Locator, r.SpillPath)
	}

	// A store that cannot write: a file where its folder should be.
	blocker := filepath.Join(t.TempDir(), "not-a-folder")
	os.WriteFile(blocker, nil, 0o600)
	bad := spill.Dir{Root: blocker, Session: s.ID, Policy: "x"}
	rp, _ = p.Replay(mustPreset(t, "harness-rs-0.0.50"), Options{Store: bad})
	if r := rp.Results[0]; r.Outcome != Truncated || !strings.Contains(r.Warning, "truncated instead") || rp.Totals.SpillFailures != 1 || len(rp.Warnings) != 1 {
		t.Errorf("harness-rs falls back to truncation: %s %q", r.Outcome, r.Warning)
	}
	as := mustPreset(t, "agentscope")
	as.Exclude = nil
	as.Ceiling = 1000
	rp, _ = p.Replay(as, Options{Store: bad})
	if r := rp.Results[0]; r.Outcome != Kept || r.Text != big || !strings.Contains(r.Warning, "original stays inline") {
		t.Errorf("AgentScope keeps the original: %s %q", r.Outcome, r.Warning)
	}
}

// TestHarnessRSUnwritable: harness-rs joins the tool name into its spill
// path as is, so a '/' in it makes the write fail and the harness
// truncates; spillway does the same whatever its own store could write.
func TestHarnessRSUnwritable(t *testing.T) {
	text := strings.Repeat("0123456789", 20) // 200 bytes, 202 serialized
	s := generic(t, call("c0", "a/b", nil), result("c0", text, false), call("c1", "a_b", nil), result("c1", text, false))
	pol := mustPreset(t, "harness-rs-0.0.50")
	pol.Ceiling = 100
	rp, err := prepared(t, s).Replay(pol, Options{Store: spill.Dir{Root: t.TempDir(), Session: s.ID, Policy: pol.Name}})
	if err != nil {
		t.Fatal(err)
	}
	r := rp.Results[0]
	// The first 100 bytes of the serialization (its quote and 99 digits), quoted again.
	want := `{"bytes_kept":100,"bytes_total":202,"head":"\"` + text[:99] + `","note":"This result was 202 bytes and was cut to 100 ` +
		`to protect the context window. Do not ask for it again unchanged — narrow it: request a smaller range, a filter, ` +
		`or a specific field.","tool":"a/b","truncated":true}`
	if r.Outcome != Truncated || r.Text != want || len(r.Text) != 367 || r.SpillPath != "" || r.Locator != "" {
		t.Errorf("%s (%d bytes), spill %q:\n%s", r.Outcome, len(r.Text), r.SpillPath, r.Text)
	}
	if r.Reason != "202 JSON bytes > 100 JSON bytes; the tool name has a '/', so harness-rs cannot write its spill file: truncated instead" {
		t.Errorf("reason %q", r.Reason)
	}
	if r := rp.Results[1]; r.Outcome != Spilled || r.Locator != ".harness/spill/c1-a_b.txt" {
		t.Errorf("a writable name spills: %s %q", r.Outcome, r.Locator)
	}
	if rp.Totals.SpillFailures != 0 {
		t.Errorf("the harness's own failure is no spill failure: %d", rp.Totals.SpillFailures)
	}
}

// TestCostAfter works through the cost model on three calls by hand. One
// token is one word here. The 500-word result after call 0 is cut to 52
// words by a 100-byte middle truncation (25 words, the marker glued to the
// next word as 3, 24 more), saving 448 tokens: at call 1 they come out of
// the cache write, at call 2 out of the cache read.
func TestCostAfter(t *testing.T) {
	rp, err := prepared(t, costAfterSession(t)).Replay(cut448Policy(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rp.Results[0]
	if r.Outcome != Truncated || r.Tokens != 500 || r.TokensAfter != 52 || r.Saved != 448 || r.SentAt != 1 {
		t.Fatalf("result: %s, tokens %d → %d, saved %d, sent at %d", r.Outcome, r.Tokens, r.TokensAfter, r.Saved, r.SentAt)
	}
	want := []transcript.Usage{
		{Input: 10, CacheCreation: 2000, Output: 100},
		{Input: 10, CacheCreation: 600 - 448, CacheRead: 2010, Output: 20},
		{Input: 10, CacheCreation: 50, CacheRead: 2610 - 448, Output: 30},
	}
	for i, c := range rp.Calls {
		if diff := cmp.Diff(want[i], *c.UsageAfter); diff != "" {
			t.Errorf("call %d usage after (-want +got):\n%s", i, diff)
		}
	}
	// claude-sonnet-4-5: input 3e-6, cache write 3.75e-6, cache read 3e-7, output 1.5e-5.
	before := []float64{
		10*3e-6 + 2000*3.75e-6 + 100*1.5e-5,           // 0.009030
		10*3e-6 + 600*3.75e-6 + 2010*3e-7 + 20*1.5e-5, // 0.003183
		10*3e-6 + 50*3.75e-6 + 2610*3e-7 + 30*1.5e-5,  // 0.0014505
	}
	after := []float64{
		before[0],
		10*3e-6 + 152*3.75e-6 + 2010*3e-7 + 20*1.5e-5, // 0.001503
		10*3e-6 + 50*3.75e-6 + 2162*3e-7 + 30*1.5e-5,  // 0.0013161
	}
	for i, c := range rp.Calls {
		if math.Abs(*c.Cost-before[i]) > 1e-12 || math.Abs(*c.CostAfter-after[i]) > 1e-12 {
			t.Errorf("call %d: cost %.7f → %.7f, want %.7f → %.7f", i, *c.Cost, *c.CostAfter, before[i], after[i])
		}
	}
	tot := rp.Totals
	if math.Abs(*tot.Cost-0.0136635) > 1e-12 || math.Abs(*tot.CostAfter-0.0118491) > 1e-12 {
		t.Errorf("totals %.7f → %.7f, want 0.0136635 → 0.0118491", *tot.Cost, *tot.CostAfter)
	}
	// 448 tokens saved at two calls, worth 448 × (3.75e-6 + 3e-7).
	if tot.Prompt != 7300 || tot.PromptAfter != 7300-2*448 || math.Abs(*tot.Cost-*tot.CostAfter-448*4.05e-6) > 1e-12 {
		t.Errorf("prompt %d → %d", tot.Prompt, tot.PromptAfter)
	}
	// Carry cost: all 500 tokens written to the cache at call 1, read at call 2.
	if r.CarryCalls != 2 || math.Abs(r.CarryCost-(500*3.75e-6+500*3e-7)) > 1e-12 {
		t.Errorf("carry %d calls, $%.7f; want 2, $0.002025", r.CarryCalls, r.CarryCost)
	}
}

// TestLongerPlaceholderCostsMore: a marker longer than the result it
// cuts adds its growth to every call that carries it, as a saving is
// taken out: written to the cache at the first call, read from it after.
func TestLongerPlaceholderCostsMore(t *testing.T) {
	c0 := call("1", "fetch", nil)
	c0["usage"] = map[string]any{"input_tokens": 10, "cache_creation_input_tokens": 2000, "output_tokens": 100}
	reply := func(write, read int) map[string]any {
		return map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "",
			"usage": map[string]any{"input_tokens": 10, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 20}}
	}
	// The third call found the cache expired: it wrote its whole prefix
	// again, and the growth with it.
	s := generic(t, c0, result("1", strings.Repeat("w", 12), false), reply(600, 2010), reply(50, 2620), reply(2700, 0))
	pol := mustPreset(t, "codex")
	pol.Unit, pol.Ceiling, pol.Allowance = policy.UTF8Bytes, 4, 0
	rp, err := prepared(t, s).Replay(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 2 bytes each side of "…8 chars truncated…": 1 word becomes 3.
	r := rp.Results[0]
	if r.Outcome != Truncated || r.Text != "ww…8 chars truncated…ww" || r.Tokens != 1 || r.TokensAfter != 3 || r.Saved != -2 {
		t.Fatalf("result: %s %q, tokens %d → %d, saved %d", r.Outcome, r.Text, r.Tokens, r.TokensAfter, r.Saved)
	}
	if u := rp.Calls[1].UsageAfter; u.CacheCreation != 602 || u.CacheRead != 2010 {
		t.Errorf("first call after: %+v; want 2 more tokens written to the cache", *u)
	}
	if u := rp.Calls[2].UsageAfter; u.CacheCreation != 50 || u.CacheRead != 2622 {
		t.Errorf("second call after: %+v; want 2 more tokens read from the cache", *u)
	}
	if u := rp.Calls[3].UsageAfter; u.CacheCreation != 2702 || u.CacheRead != 0 {
		t.Errorf("third call after: %+v; want 2 more tokens written to the cache, none read", *u)
	}
	// Sonnet 4.5: $3.75 a million tokens written to the cache, $0.30 read.
	tot := rp.Totals
	if tot.PromptAfter != tot.Prompt+6 || tot.SavedPerCall != -6 || math.Abs(*tot.CostAfter-*tot.Cost-2*(3.75e-6+3e-7+3.75e-6)) > 1e-12 {
		t.Errorf("prompt %d → %d, saved %d, cost %v → %v; want 6 tokens and $0.0000156 more", tot.Prompt, tot.PromptAfter, tot.SavedPerCall, *tot.Cost, *tot.CostAfter)
	}
}

// usageOf is a generic-format usage with one output token.
func usageOf(in, write, read int) map[string]any {
	return map[string]any{"input_tokens": in, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 1}
}

// laterCall is a gpt-5.5 call with usage and nothing else.
func laterCall(usage map[string]any) map[string]any {
	return map[string]any{"role": "assistant", "model": "gpt-5.5", "content": "", "usage": usage}
}

// replayCut448 replays a session whose first call (with first's usage)
// gets a 500-token result, then later, through Codex's cut at 100 bytes:
// the result keeps 52 tokens, so 448 are saved wherever it is carried.
func replayCut448(t *testing.T, first map[string]any, later ...map[string]any) *Run {
	t.Helper()
	c0 := call("1", "fetch", nil)
	c0["usage"] = first
	s := generic(t, append([]map[string]any{c0, result("1", strings.Repeat("w ", 500), false)}, later...)...)
	rp, err := prepared(t, s).Replay(cut448Policy(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rp
}

// TestCostAfterBounds: savings never push a bucket below zero, nothing is
// carried past a compaction, and without cache writes the fresh tokens come
// out of uncached input.
func TestCostAfterBounds(t *testing.T) {
	rp := replayCut448(t, usageOf(5, 0, 0),
		laterCall(usageOf(100, 0, 1000)),
		laterCall(usageOf(7, 0, 200)),
		map[string]any{"role": "system", "compaction": true, "content": "summary"},
		laterCall(usageOf(9, 0, 900)),
	)
	got := []transcript.Usage{*rp.Calls[1].UsageAfter, *rp.Calls[2].UsageAfter, *rp.Calls[3].UsageAfter}
	want := []transcript.Usage{
		{Input: 0, CacheRead: 1000, Output: 1}, // 448 fresh tokens floor 100 of uncached input at 0
		{Input: 0, CacheRead: 0, Output: 1},    // 448 carried: the 200 of cache read, then the 7 of new input, floored at 0
		{Input: 9, CacheRead: 900, Output: 1},  // after the compaction: untouched
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage after (-want +got):\n%s", diff)
	}
	// What each call reports saved is what its prompt lost, floors and all:
	// 100 of uncached input, then 200 + 7, then nothing; 307 in all.
	var saved []int64
	for _, c := range rp.Calls[1:] {
		saved = append(saved, c.Saved())
	}
	if diff := cmp.Diff([]int64{100, 207, 0}, saved); diff != "" || rp.Totals.SavedPerCall != 307 {
		t.Errorf("saved per call (-want +got):\n%s; total %d, want 307", diff, rp.Totals.SavedPerCall)
	}
}

// TestCarriedThroughCacheMiss: a call whose cache reads cannot hold the
// result it carries missed the cache and wrote its prefix again, so the
// rest of the saving comes out of its cache writes.
func TestCarriedThroughCacheMiss(t *testing.T) {
	rp := replayCut448(t, usageOf(5, 2000, 0), laterCall(usageOf(10, 600, 2000)), laterCall(usageOf(3, 3000, 100)))
	got := []transcript.Usage{*rp.Calls[1].UsageAfter, *rp.Calls[2].UsageAfter}
	want := []transcript.Usage{
		{Input: 10, CacheCreation: 600 - 448, CacheRead: 2000, Output: 1}, // fresh: out of the writes
		{Input: 3, CacheCreation: 3000 - (448 - 100), Output: 1},          // carried: the 100 read, then 348 of the writes
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage after (-want +got):\n%s", diff)
	}
	for i, c := range rp.Calls[1:] {
		if saved := c.Usage.Prompt() - c.UsageAfter.Prompt(); saved != 448 || c.Saved() != 448 {
			t.Errorf("call %d: prompt %d → %d, %d saved (reported %d); want the result's 448", i+1, c.Usage.Prompt(), c.UsageAfter.Prompt(), saved, c.Saved())
		}
	}
}

// TestCodexExec: Codex formats shell output before recording it, cutting
// it at the budget itself (no 20% allowance) under a header; other tools
// get the allowance and no header; output Codex cut already stays.
func TestCodexExec(t *testing.T) {
	// 1,500 lines of 39 bytes: 58,500 bytes, ceil(58,500/4) = 14,625 tokens.
	shellOut := strings.Repeat("drwxr-xr-x  2 dev dev 4096 Jan  1 x.go\n", 1500)
	// 10,998 tokens: within 12,000 for a Read, over 10,000 for a shell.
	mid := strings.Repeat("abcd", 10_998)
	cut := harness.CodexExecWarning + "12500)\nTotal output lines: 9\n\n" + strings.Repeat("y", 40_000)
	s := generic(t,
		call("1", "shell", nil), result("1", shellOut, false),
		call("2", "Read", nil), result("2", mid, false),
		call("3", "shell", nil), result("3", mid, false),
		call("4", "shell", nil), result("4", cut, false),
	)
	rp, err := prepared(t, s).Replay(mustPreset(t, "codex"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"truncate", "keep", "truncate", "keep"}, outcomes(rp)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	// 40,000 bytes kept of 58,500: 18,500 removed, 4,625 tokens.
	want := "Warning: truncated output (original token count: 14625)\nTotal output lines: 1500\n\n" +
		shellOut[:20_000] + "…4625 tokens truncated…" + shellOut[len(shellOut)-20_000:]
	if got := rp.Results[0].Text; got != want {
		t.Errorf("shell output cut to %d bytes, want %d:\n%.200q", len(got), len(want), got)
	}
	if r := rp.Results[1]; r.Reason != "10,998 tokens (bytes/4) ≤ 12,000 tokens (bytes/4)" {
		t.Errorf("Read: %s", r.Reason)
	}
	if r := rp.Results[2]; !strings.HasPrefix(r.Text, harness.CodexExecWarning+"10998)\nTotal output lines: 1\n\n") || r.Reason != "10,998 tokens (bytes/4) > 10,000 tokens (bytes/4)" {
		t.Errorf("shell: %s, %.100q", r.Reason, r.Text)
	}
	if r := rp.Results[3]; !strings.Contains(r.Reason, "Codex cut it already") {
		t.Errorf("output Codex cut: %s", r.Reason)
	}
}

// TestCodexExecScript: Codex 0.144's exec tool heads a script's output with
// status lines; Codex cuts the output after them at 10,000 tokens (40,000
// bytes, 20,000 each side) under its header, as its own logs show.
func TestCodexExecScript(t *testing.T) {
	status := "Script completed\nWall time 0.1 seconds\nOutput:\n" // 47 bytes
	// 1,200 lines of 39 bytes: 46,800 bytes, 11,700 tokens; with the status
	// lines 46,847 bytes, 11,712 tokens: within 12,000, yet cut.
	out := strings.Repeat("drwxr-xr-x  2 dev dev 4096 Jan  1 x.go\n", 1200)
	// 40,000 bytes of output, 10,000 tokens: not over.
	edge := strings.Repeat("abcd", 10_000)
	cut := status + harness.CodexExecWarning + "12307)\nTotal output lines: 889\n\n" + strings.Repeat("y", 40_023)
	s := generic(t,
		call("1", "exec", nil), result("1", status+out, false),
		call("2", "exec", nil), result("2", status+edge, false),
		call("3", "exec", nil), result("3", cut, false),
	)
	rp, err := prepared(t, s).Replay(mustPreset(t, "codex"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"truncate", "keep", "keep"}, outcomes(rp)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	// 6,800 bytes removed: 1,700 tokens; 47 + 82 header + 40,000 + 27 marker bytes.
	want := status + "Warning: truncated output (original token count: 11700)\nTotal output lines: 1200\n\n" +
		out[:20_000] + "…1700 tokens truncated…" + out[len(out)-20_000:]
	if r := rp.Results[0]; r.Text != want || len(r.Text) != 47+82+40_000+27 || r.Reason != "11,700 tokens (bytes/4) > 10,000 tokens (bytes/4)" {
		t.Errorf("script output cut to %d bytes (%s), want %d:\n%.200q", len(r.Text), r.Reason, len(want), r.Text)
	}
	if r := rp.Results[1]; r.Reason != "10,000 tokens (bytes/4) ≤ 10,000 tokens (bytes/4)" {
		t.Errorf("40,000 bytes of output: %s", r.Reason)
	}
	if r := rp.Results[2]; r.Reason != "Codex cut it already (its truncation header)" {
		t.Errorf("output Codex cut: %s", r.Reason)
	}
}

// TestExecSplitOnce: Prepare parts every text into a Codex exec script's
// status lines and output once, for every replay to reuse.
func TestExecSplitOnce(t *testing.T) {
	tests := []struct {
		text string
		head int32 // bytes of status lines
		cut  bool  // the output opens with Codex's truncation header
	}{
		{"Script completed\nWall time 0.1 seconds\nOutput:\nls\n", 47, false},
		{"Script failed\nWall time 2 seconds\nOutput:\n" + harness.CodexExecWarning + "12)\n", 42, true},
		{harness.CodexExecWarning + "12)\nTotal output lines: 1\n\nx", 0, true},
		{"Script completed\nOutput:\nno wall time\n", 0, false},
		{"plain output", 0, false},
		{"", 0, false},
	}
	var msgs []map[string]any
	for i, tt := range tests {
		id := fmt.Sprint(i)
		msgs = append(msgs, call(id, "exec", nil), result(id, tt.text, false))
	}
	p := prepared(t, generic(t, msgs...))
	for i, tt := range tests {
		if it := &p.items[i]; it.codexOf().out.Status != tt.head || it.codexOf().out.Cut != tt.cut {
			t.Errorf("%.40q: status lines %d bytes, cut %v; want %d, %v", tt.text, it.codexOf().out.Status, it.codexOf().out.Cut, tt.head, tt.cut)
		}
	}
}

// TestSizesOnlySession: a session read without its texts replays through
// an inert policy with every size intact, and refuses a policy that would
// need the texts.
func TestSizesOnlySession(t *testing.T) {
	const log = `{"role":"assistant","model":"claude-sonnet-4-5","content":"","tool_calls":[{"id":"a","name":"Read","arguments":{}}]}
{"role":"tool","tool_call_id":"a","content":"caf\u00e9 \u2192 12345"}
`
	s, err := transcript.Read(strings.NewReader(log), "sizes.jsonl", transcript.Options{Format: transcript.FormatGeneric, SizesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	p := prepared(t, s)
	rp, err := p.Replay(mustPreset(t, "none"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// "café → 12345": c a f (3) + é (2) + space (1) + → (3) + space and five digits (6).
	if r := rp.Results[0]; r.Bytes != 15 || r.BytesAfter != 15 || r.Outcome != Kept {
		t.Fatalf("got %d bytes, %d after, %s; want 15, 15, keep", r.Bytes, r.BytesAfter, r.Outcome)
	}
	if _, err := p.Replay(mustPreset(t, "codex"), Options{}); err == nil || !strings.Contains(err.Error(), "without their texts") {
		t.Fatalf("replaying a sizes-only session through codex: %v", err)
	}
}

// cut448Policy is Codex's middle cut at 100 bytes, with no allowance: a
// 500-word result keeps 52 tokens, so 448 are saved.
func cut448Policy(t *testing.T) policy.Policy {
	t.Helper()
	pol := mustPreset(t, "codex")
	pol.Unit, pol.Ceiling, pol.Allowance = policy.UTF8Bytes, 100, 0
	return pol
}

// costAfterSession is the worked example of docs/policies.md on claude-sonnet-4-5: three
// calls recording (input, cache write, cache read, output) 10, 2,000, 0,
// 100; 10, 600, 2,010, 20; and 10, 50, 2,610, 30, the first followed by a
// 500-word result.
func costAfterSession(t *testing.T) *transcript.Session {
	t.Helper()
	usage := func(in, write, read, out int) map[string]any {
		return map[string]any{"input_tokens": in, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": out}
	}
	c0 := call("1", "fetch", nil)
	c0["usage"] = usage(10, 2000, 0, 100)
	return generic(t,
		map[string]any{"role": "user", "content": "go"},
		c0, result("1", strings.Repeat("w ", 500), false),
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(10, 600, 2010, 20)},
		map[string]any{"role": "user", "content": "more"},
		map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": "", "usage": usage(10, 50, 2610, 30)},
	)
}
