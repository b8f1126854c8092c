package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/ledger"
)

// words counts words: a token counter for tests.
type words struct{}

func (words) Count(s string) int { return len(strings.Fields(s)) }

func config(t *testing.T, preset string, ceiling int64) Config {
	t.Helper()
	p, err := policy.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	p.Unit = policy.UTF8Bytes
	p.SetCeiling(ceiling)
	return Config{Policy: p, Cache: t.TempDir(), Encoding: "words", Counter: func() (replay.TokenCounter, error) { return words{}, nil },
		Now: func() time.Time { return time.Date(2026, 12, 3, 16, 0, 0, 0, time.UTC) }}
}

func input(t *testing.T, tool, id string, toolInput, response any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"session_id": "sess", "transcript_path": filepath.Join(t.TempDir(), "sess.jsonl"),
		"cwd": t.TempDir(), "hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": toolInput,
		"tool_response": response, "tool_use_id": id})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// call runs the hook and returns what it printed and logged.
func call(t *testing.T, cfg Config, stdin string) (answer, log, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	Run(cfg, strings.NewReader(stdin), &out, &errw)
	data, _ := os.ReadFile(LogFile(cfg.Cache))
	return out.String(), string(data), errw.String()
}

// updated is the updatedToolOutput of an answer.
func updated(t *testing.T, answer string) json.RawMessage {
	t.Helper()
	var a struct {
		HookSpecificOutput struct {
			HookEventName     string          `json:"hookEventName"`
			UpdatedToolOutput json.RawMessage `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(answer), &a); err != nil || a.HookSpecificOutput.HookEventName != "PostToolUse" {
		t.Fatalf("answer %q: %v", answer, err)
	}
	return a.HookSpecificOutput.UpdatedToolOutput
}

var long = strings.Repeat("a fairly long line of output\n", 40) // 1,160 bytes

// Each tool's output is replaced in the shape Claude Code reads back as
// the text the policy made: what 2.1.328 accepted in place of its output.
func TestShapes(t *testing.T) {
	cfg := config(t, "harness-rs-0.0.40", 500)
	trunc := func(text, tool string) string {
		out, _ := harness.HarnessRSTruncate(harness.Subject{Text: text, Tool: tool}, 500)
		return out
	}
	content := strings.TrimSuffix(long, "\n")
	for _, c := range []struct {
		tool     string
		response any
		want     string
	}{
		{"Read", map[string]any{"type": "text", "file": map[string]any{"filePath": "/f", "content": content, "numLines": 40, "startLine": 1, "totalLines": 40}},
			`{"file":{"content":` + quote(trunc(content, "Read")) + `,"filePath":"/f","numLines":40,"startLine":1,"totalLines":40},"type":"text"}`},
		{"Bash", map[string]any{"stdout": long, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
			`{"interrupted":false,"isImage":false,"noOutputExpected":false,"stderr":"","stdout":` + quote(trunc(content, "Bash")) + `}`},
		{"Grep", map[string]any{"mode": "content", "numFiles": 0, "filenames": []string{}, "content": content, "numLines": 40, "appliedLimit": 250},
			`{"content":` + quote(trunc(content+"\n\n[Showing results with pagination = limit: 250]", "Grep")) + `,"filenames":[],"mode":"content","numFiles":0}`},
		{"Glob", map[string]any{"filenames": strings.Split(content, "\n"), "durationMs": 3, "numFiles": 40, "truncated": false},
			`{"durationMs":3,"filenames":[` + quote(trunc(content, "Glob")) + `],"numFiles":40,"truncated":false}`},
		{"WebFetch", map[string]any{"bytes": 9, "code": 200, "codeText": "OK", "result": content, "durationMs": 1, "url": "https://x"},
			`{"bytes":9,"code":200,"codeText":"OK","durationMs":1,"result":` + quote(trunc(content, "WebFetch")) + `,"url":"https://x"}`},
		{"mcp__s__t", []any{map[string]any{"type": "text", "text": long}}, `[{"text":` + quote(trunc(long, "mcp__s__t")) + `,"type":"text"}]`},
		{"mcp__s__u", long, quote(trunc(long, "mcp__s__u"))},
	} {
		answer, log, _ := call(t, cfg, input(t, c.tool, "toolu_"+c.tool, map[string]any{"x": c.tool}, c.response))
		if got := string(updated(t, answer)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s\nlog %s", c.tool, got, c.want, log)
		}
	}
	// A small output is left: no answer.
	if answer, log, _ := call(t, cfg, input(t, "Bash", "toolu_small", nil, map[string]any{"stdout": "ok", "stderr": ""})); answer != "" || log != "" {
		t.Errorf("kept output answered %q, logged %q", answer, log)
	}
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// The ledger holds what each shaped result was, and became; an MCP image
// is kept where the policy keeps non-text blocks.
func TestLedgerAndBlocks(t *testing.T) {
	cfg := config(t, "harness-rs-0.0.50", 500)
	image := map[string]any{"type": "image", "data": "AAAA", "mimeType": "image/png"}
	answer, _, _ := call(t, cfg, input(t, "mcp__s__t", "toolu_1", nil, []any{map[string]any{"type": "text", "text": long}, image}))
	var blocks []map[string]any
	json.Unmarshal(updated(t, answer), &blocks)
	if len(blocks) != 2 || blocks[1]["type"] != "image" || !strings.Contains(blocks[0]["text"].(string), `"spilled":true`) {
		t.Errorf("blocks %v", blocks)
	}
	entries, _, err := ledger.Read(filepath.Join(cfg.Cache, "ledger"), "sess")
	if err != nil || len(entries) != 1 {
		t.Fatal(entries, err)
	}
	e := entries[0]
	text := blocks[0]["text"].(string)
	want := ledger.Entry{Time: cfg.Now(), Session: "sess", ToolUseID: "toolu_1", Tool: "mcp__s__t", Action: "spill",
		Bytes: 1_160, BytesAfter: int64(len(text)), Tokens: 240, TokensAfter: int64(len(strings.Fields(text))),
		Encoding: "words", SpillPath: e.SpillPath, Policy: "harness-rs-0.0.50"}
	if diff := cmp.Diff(want, e); diff != "" || !strings.HasSuffix(e.SpillPath, filepath.Join(".harness", "spill", "toolu_1-mcp__s__t.txt")) {
		t.Errorf("ledger (-want +got):\n%s%s", diff, e.SpillPath)
	}
	if data, _ := os.ReadFile(e.SpillPath); string(data) != long {
		t.Error("the spill file does not hold the output")
	}
}

// Whatever goes wrong, nothing is printed (the output goes through as it
// came), and the log says why.
func TestFailOpen(t *testing.T) {
	read := func(t *testing.T) string {
		return input(t, "Read", "toolu_r", map[string]any{"file_path": "/f"},
			map[string]any{"type": "text", "file": map[string]any{"content": long, "startLine": 1}})
	}
	unwritable := func(t *testing.T, cfg Config) Config {
		os.WriteFile(filepath.Join(cfg.Cache, "ledger"), nil, 0o600) // a file where its folder should be
		return cfg
	}
	for _, c := range []struct {
		name  string
		cfg   func(*testing.T) Config
		stdin func(*testing.T) string
		why   string
	}{
		{"not JSON", func(t *testing.T) Config { return config(t, "harness-rs-0.0.50", 500) },
			func(*testing.T) string { return "{garbage" }, "input is not Claude Code's hook JSON"},
		{"another event", func(t *testing.T) Config { return config(t, "harness-rs-0.0.50", 500) },
			func(*testing.T) string { return `{"hook_event_name":"PreToolUse"}` }, `a "PreToolUse" event, not PostToolUse`},
		{"no session", func(t *testing.T) Config { return config(t, "harness-rs-0.0.50", 500) },
			func(*testing.T) string { return `{"hook_event_name":"PostToolUse","tool_name":"Read"}` }, "input without a session"},
		{"no policy", func(t *testing.T) Config {
			cfg := config(t, "harness-rs-0.0.50", 500)
			cfg.PolicyErr = fmt.Errorf("read policy: open /p.json: no such file or directory")
			return cfg
		}, read, "read policy: open /p.json"},
		{"a shape it does not know", func(t *testing.T) Config { return config(t, "harness-rs-0.0.50", 500) },
			func(t *testing.T) string {
				return input(t, "Bash", "toolu_r", nil, map[string]any{"stdout": long, "stderr": "", "interrupted": true})
			}, "an interrupted, backgrounded, image or structured Bash output: left as it is"},
		{"input too long", func(t *testing.T) Config {
			MaxInput = 100
			t.Cleanup(func() { MaxInput = 64 << 20 })
			return config(t, "harness-rs-0.0.50", 500)
		}, read, "input over 0 MiB"},
		{"cache not writable", func(t *testing.T) Config { return unwritable(t, config(t, "harness-rs-0.0.50", 500)) },
			read, "ledger not written: mkdir "},
		// harness-rs truncates what it cannot spill; the hook keeps it,
		// since what it cut would then be nowhere.
		{"spill file not writable", func(t *testing.T) Config { return config(t, "harness-rs-0.0.50", 500) },
			func(t *testing.T) string {
				stdin := read(t)
				var in Input
				json.Unmarshal([]byte(stdin), &in)
				os.WriteFile(filepath.Join(in.Cwd, ".harness"), nil, 0o600) // a file where its folder should be
				return stdin
			}, "spill file not written (mkdir "},
		{"spill file not writable by harness-rs", func(t *testing.T) Config { return config(t, "harness-rs-0.0.50", 500) },
			func(t *testing.T) string {
				return input(t, "mcp__s/t", "toolu_r", nil, long)
			}, "spill file not written (the tool name has a '/', so harness-rs cannot write its spill file); the original stays inline"},
		{"repeat state not writable", func(t *testing.T) Config {
			cfg := config(t, "harness-rs-0.0.50-dedupe", 500)
			os.WriteFile(filepath.Join(cfg.Cache, "hook"), nil, 0o600)
			return cfg
		}, read, "repeat state: mkdir "},
		{"panic", func(t *testing.T) Config {
			cfg := config(t, "harness-rs-0.0.50", 500)
			cfg.Policy.Unit = policy.Tokens
			cfg.Counter = func() (replay.TokenCounter, error) { panic("the counter broke") }
			return cfg
		}, read, "panic: the counter broke"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg(t)
			stdin := c.stdin(t)
			answer, log, stderr := call(t, cfg, stdin)
			if answer != "" || stderr != "" || !strings.Contains(log, c.why) || !strings.HasPrefix(log, "2026-12-03T16:00:00Z session=") {
				t.Errorf("answer %q, stderr %q, log %q, want it to say %q", answer, stderr, log, c.why)
			}
			// The output went through as it came: no spill file made for
			// it is left (the ledger's folder a file, it was made first).
			var in Input
			json.Unmarshal([]byte(stdin), &in)
			if files, _ := filepath.Glob(filepath.Join(in.Cwd, ".harness", "spill", "*")); in.Cwd != "" && len(files) > 0 {
				t.Errorf("spill files left: %v", files)
			}
		})
	}
	// An output that goes through because the ledger cannot be written is
	// not remembered by repeat suppression as the shaped one it was not.
	cfg := unwritable(t, config(t, "harness-rs-0.0.50-dedupe", 500))
	if answer, log, _ := call(t, cfg, read(t)); answer != "" || !strings.Contains(log, "ledger not written") {
		t.Fatalf("answer %q, log %q", answer, log)
	}
	if saved, _ := filepath.Glob(filepath.Join(cfg.Cache, "hook", "*.repeats")); len(saved) != 0 {
		t.Errorf("repeat state saved for an output that went through unchanged: %v", saved)
	}
	// With the log itself not writable, stderr says why.
	cfg = config(t, "harness-rs-0.0.50", 500)
	cfg.PolicyErr = fmt.Errorf("no policy")
	os.Mkdir(LogFile(cfg.Cache), 0o700) // a folder where the log should be
	if answer, _, stderr := call(t, cfg, read(t)); answer != "" || !strings.Contains(stderr, "spillway hook: ") || !strings.Contains(stderr, "no policy") {
		t.Errorf("answer %q, stderr %q", answer, stderr)
	}
	// Without a cache folder nothing is written, least of all in the
	// agent's working folder or the hook's own.
	cfg = config(t, "harness-rs-0.0.50-dedupe", 500)
	cfg.Cache = ""
	stdin := read(t)
	var in Input
	json.Unmarshal([]byte(stdin), &in)
	t.Chdir(in.Cwd)
	if answer, _, stderr := call(t, cfg, stdin); answer != "" || !strings.Contains(stderr, "no user cache folder") {
		t.Errorf("answer %q, stderr %q", answer, stderr)
	}
	if names, _ := os.ReadDir(in.Cwd); len(names) != 0 {
		t.Errorf("wrote %v in the working folder", names)
	}
	// What the log says of the input is escaped onto its line.
	cfg = config(t, "harness-rs-0.0.50", 500)
	stdin = read(t)
	json.Unmarshal([]byte(stdin), &in)
	hostile := filepath.Join(in.Cwd, "\x1b]0;title\x07\x1b[2J")
	os.WriteFile(hostile, nil, 0o600)
	stdin = strings.Replace(stdin, `"cwd":"`, `"cwd":"`+strings.TrimSuffix(quote(hostile)[1:], `"`)+`/x","_":"`, 1)
	if _, log, _ := call(t, cfg, stdin); !strings.Contains(log, `\x1b]0;title\x07\x1b[2J`) || strings.ContainsRune(log, 0x1b) {
		t.Errorf("log %q", log)
	}
}

// The hook's command run as Claude Code runs it: this test binary, told
// by the environment to be the hook.
func TestMain(m *testing.M) {
	// The tests' transcripts are written before their hooks run, or never.
	responseWait = 0
	if dir := os.Getenv("SPILLWAY_TEST_HOOK_CACHE"); dir != "" {
		p, _ := policy.Preset("harness-rs-0.0.50-dedupe")
		p.Unit = policy.UTF8Bytes
		p.SetCeiling(500)
		Run(Config{Policy: p, Cache: dir, Encoding: "words", Counter: func() (replay.TokenCounter, error) { return words{}, nil }},
			os.Stdin, os.Stdout, os.Stderr)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Twenty hooks at once, as Claude Code runs them for twenty calls of one
// response, each leave their Read in the session's repeat state and their
// line in the ledger; the next response's Read of any of them is a repeat.
func TestConcurrent(t *testing.T) {
	if underRace {
		t.Skip("the hooks are processes that share no memory, which the race detector cannot see; each start of its build takes half a second (go test without -race runs this)")
	}
	cache := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "sess.jsonl")
	var tail strings.Builder
	var ids []any
	for i := range 20 {
		ids = append(ids, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", i), "name": "Read"})
	}
	line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_1", "content": ids}})
	tail.Write(line)
	tail.WriteString("\n")
	os.WriteFile(transcript, []byte(tail.String()), 0o600)
	read := func(id, file string) []byte {
		data, _ := json.Marshal(map[string]any{"session_id": "sess", "transcript_path": transcript, "cwd": t.TempDir(),
			"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": id, "tool_input": map[string]any{"file_path": file},
			"tool_response": map[string]any{"type": "text", "file": map[string]any{"content": long + file, "startLine": 1}}})
		return data
	}
	run := func(stdin []byte) (string, error) {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "SPILLWAY_TEST_HOOK_CACHE="+cache)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		return string(out), err
	}
	var wg sync.WaitGroup
	answers := make([]string, 20)
	for i := range 20 {
		wg.Go(func() {
			var err error
			if answers[i], err = run(read(fmt.Sprintf("toolu_%02d", i), fmt.Sprintf("/f%02d", i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, a := range answers {
		if !strings.Contains(a, `\"spilled\":true`) {
			t.Errorf("call %d answered %.80q", i, a)
		}
	}
	entries, skipped, _ := ledger.Read(filepath.Join(cache, "ledger"), "sess")
	if len(ledger.ByID(entries)) != 20 || skipped != 0 {
		t.Errorf("%d ledger entries, %d lines skipped", len(entries), skipped)
	}
	// The next response reads each file again: repeats, every one.
	line, _ = json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_2", "content": []any{
		map[string]any{"type": "tool_use", "id": "toolu_again", "name": "Read"}}}})
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(append(line, '\n'))
	f.Close()
	for i := range 20 {
		a, _ := run(read("toolu_again", fmt.Sprintf("/f%02d", i)))
		if !strings.Contains(a, "You already made this exact call") {
			t.Errorf("file %d read again: %.120q", i, a)
		}
	}
	// The state and lock are the session's own files, 0600.
	for _, name := range []string{"sess.repeats", "sess.lock"} {
		if info, err := os.Stat(filepath.Join(cache, "hook", name)); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A Read Claude Code follows with a note on the file's encoding (NUL
// bytes, bytes not UTF-8, UTF-16 big-endian) is left as it is: the hook
// does not see the note, and a replacement would lose it.
func TestReadEncodingNoted(t *testing.T) {
	dir := t.TempDir()
	file := func(name, data string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(data), 0o600)
		return path
	}
	clean := strings.Repeat("abcdef ghi\n", 200)
	for _, c := range []struct {
		name, path, content string
		kept                bool
	}{
		// Claude Code decides from the whole file, whatever range was read.
		{"UTF-16 big-endian", file("be.txt", "\xfe\xff\x00a"), clean, true},
		{"a NUL in the first 8,000 bytes", file("nul.txt", "a\x00"+clean), clean, true},
		{"a NUL further on", file("nul8k.txt", strings.Repeat("a", 8000)+"\x00"+clean), clean, false},
		{"a byte not UTF-8 before the lines read", file("latin1.txt", "caf\xe9\n"+clean), clean, true},
		{"a rune cut by the end of the file", file("cut.txt", clean+"\xe4\xb8"), clean, true},
		{"UTF-16 little-endian", file("le.txt", "\xff\xfea\x00"), clean, false},
		{"U+FFFD written as such", file("fffd.txt", clean+"\ufffd\n"), clean + "\ufffd\n", false},
		{"UTF-8 across the reads", file("cjk.txt", strings.Repeat("世界", 40_000)), clean, false},
		// A file gone since: the content tells as far as it can.
		{"gone, a NUL read", filepath.Join(dir, "gone"), strings.Repeat("abc\x00def\n", 200), true},
		{"gone, a U+FFFD read", filepath.Join(dir, "gone"), strings.Repeat("abc\ufffd def\n", 200), true},
	} {
		cfg := config(t, "harness-rs-0.0.50", 500)
		stdin := input(t, "Read", "toolu_r", map[string]any{"file_path": c.path},
			map[string]any{"type": "text", "file": map[string]any{"filePath": c.path, "content": c.content, "startLine": 1}})
		answer, log, _ := call(t, cfg, stdin)
		if kept := answer == "" && strings.Contains(log, "not plain UTF-8 text"); kept != c.kept {
			t.Errorf("%s: kept %v, want %v (answer %.60q, log %q)", c.name, kept, c.kept, answer, log)
		}
	}
}

// A Bash output Claude Code saved only the first 64 MiB of is left as it
// is: a spill of its file would say it holds the whole output.
func TestBashPersistCut(t *testing.T) {
	cfg := config(t, "harness-rs-0.0.50", 500)
	stdin := input(t, "Bash", "toolu_b", map[string]any{"command": "seq 1 9000000"}, map[string]any{"stdout": "1\n2\n",
		"stderr": "", "interrupted": false, "isImage": false, "persistedOutputPath": "/tmp/x.txt", "persistedOutputSize": 70_888_896})
	if answer, log, _ := call(t, cfg, stdin); answer != "" || !strings.Contains(log, "only the first 64 MiB") {
		t.Errorf("answer %.80q, log %q", answer, log)
	}
}

// A spill file named relative to the workspace is written in the project's
// folder, though the agent's shell has moved into another (the input's
// cwd follows it).
func TestSpillInProject(t *testing.T) {
	cfg := config(t, "harness-rs-0.0.50", 500)
	cfg.ProjectDir = t.TempDir()
	stdin := input(t, "Read", "toolu_r", map[string]any{"file_path": "/f"},
		map[string]any{"type": "text", "file": map[string]any{"content": long, "startLine": 1}})
	var in Input
	json.Unmarshal([]byte(stdin), &in)
	if answer, log, _ := call(t, cfg, stdin); answer == "" {
		t.Fatalf("not spilled: %s", log)
	}
	if _, err := os.Stat(filepath.Join(cfg.ProjectDir, ".harness", "spill", "toolu_r-Read.txt")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(in.Cwd, ".harness")); err == nil {
		t.Error("written in the shell's folder too")
	}
}

// A response is found in the transcript's last lines by its call's id.
func TestResponseOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(`{"type":"user"}
{"type":"assistant","requestId":"req_1","message":{"id":"msg_a","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}]}}
{"type":"assistant","requestId":"req_2","message":{"content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{}}]}}
`), 0o600)
	for id, want := range map[string]string{"toolu_1": "msg_a", "toolu_2": "req_2", "toolu_3": ""} {
		if got := responseOf(path, id); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if got := responseOf(filepath.Join(t.TempDir(), "none"), "toolu_1"); got != "" {
		t.Error(got)
	}
}

// A response whose line Claude Code has not written yet when the hook
// runs (it drains its writes every 100 ms) is waited for, for a while.
func TestResponseOfLate(t *testing.T) {
	defer func(w time.Duration) { responseWait = w }(responseWait)
	responseWait = 2 * time.Second
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte("{\"type\":\"user\"}\n"), 0o600)
	go func() {
		time.Sleep(150 * time.Millisecond)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"type":"assistant","message":{"id":"msg_late","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}]}}` + "\n")
		f.Close()
	}()
	if got := responseOf(path, "toolu_1"); got != "msg_late" {
		t.Errorf("%q, want msg_late", got)
	}
	// One never written is given up on.
	responseWait = 50 * time.Millisecond
	start := time.Now()
	if got := responseOf(path, "toolu_2"); got != "" || time.Since(start) > time.Second {
		t.Errorf("%q after %v", got, time.Since(start))
	}
}

// BenchmarkRun is one call of the hook in the process, on a 100 KB Read a
// ceiling above it keeps: what the hook does beyond starting (BenchmarkHook
// in the command's package times the whole process).
func BenchmarkRun(b *testing.B) {
	var content strings.Builder
	for i := 1; content.Len() < 100_000; i++ {
		fmt.Fprintf(&content, "line %d: func handler(w http.ResponseWriter, r *http.Request) { serve(w, r, %d) }\n", i, i*7)
	}
	data, _ := json.Marshal(map[string]any{"session_id": "bench", "transcript_path": filepath.Join(b.TempDir(), "t.jsonl"), "cwd": b.TempDir(),
		"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": "toolu_1", "tool_input": map[string]any{"file_path": "/big.go"},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "/big.go", "content": content.String(), "startLine": 1}}})
	p, _ := policy.Preset("harness-rs-0.0.50")
	p.Unit = policy.UTF8Bytes
	p.SetCeiling(256 << 10)
	cfg := Config{Policy: p, Cache: b.TempDir(), Counter: func() (replay.TokenCounter, error) { return words{}, nil }}
	b.ReportAllocs()
	for b.Loop() {
		var out bytes.Buffer
		Run(cfg, bytes.NewReader(data), &out, &out)
		if out.Len() != 0 {
			b.Fatal(out.String())
		}
	}
}

// A Grep over Claude Code's own limit of 20,000 characters is, without the
// hook, Claude Code's preview of the file it persists: the ledger's
// "before". The policy shapes the whole output; a policy that keeps it
// leaves it to Claude Code.
func TestOwnPersisted(t *testing.T) {
	content := strings.Repeat("pkg/m00/a.go:1:// TODO: handle it\n", 700) // 700 lines of 34
	content = strings.TrimSuffix(content, "\n")                           // 23,799 characters
	grep := map[string]any{"mode": "content", "numFiles": 0, "filenames": []string{}, "content": content}
	transcript := filepath.Join(t.TempDir(), "sess.jsonl")
	in, _ := json.Marshal(map[string]any{"session_id": "sess", "transcript_path": transcript, "cwd": t.TempDir(),
		"hook_event_name": "PostToolUse", "tool_name": "Grep", "tool_use_id": "toolu_g", "tool_input": map[string]any{}, "tool_response": grep})
	cfg := config(t, "harness-rs-0.0.50", 8192)
	answer, log, _ := call(t, cfg, string(in))
	if !strings.Contains(string(updated(t, answer)), `bytes_total`) {
		t.Fatalf("answer %.200q, log %s", answer, log)
	}
	entries, _, _ := ledger.Read(filepath.Join(cfg.Cache, "ledger"), "sess")
	// "<persisted-output>\nOutput too large (23.2KB). Full output saved to: "
	// (68), the path, "\n\nPreview (first 2KB):\n" (23), the first 58
	// lines less the last "\n" (1,971), "\n...\n</persisted-output>" (24).
	path := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "tool-results", "toolu_g.txt")
	if want := int64(68 + len(path) + 23 + 1_971 + 24); len(entries) != 1 || entries[0].Bytes != want {
		t.Errorf("ledger %+v, want %d bytes before", entries, want)
	}
	if answer, _, _ := call(t, config(t, "harness-rs-0.0.50", 64<<10), string(in)); answer != "" {
		t.Errorf("a policy over the output answered %.100q", answer)
	}
}

// A cache folder that takes no writes (not for root, whom permissions do
// not stop): the output goes through, and stderr says why, the log being
// in that folder too.
func TestReadOnlyCache(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only folder")
	}
	cfg := config(t, "harness-rs-0.0.50", 500)
	if err := os.Chmod(cfg.Cache, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(cfg.Cache, 0o700) })
	answer, _, stderr := call(t, cfg, input(t, "Read", "toolu_r", nil, map[string]any{"type": "text", "file": map[string]any{"content": long}}))
	if answer != "" || !strings.Contains(stderr, "ledger not written") || !strings.Contains(stderr, "permission denied") {
		t.Errorf("answer %q, stderr %q", answer, stderr)
	}
}

// A sub-agent is a conversation of its own: the main thread's Read is no
// repeat for a sub-agent that reads the same file, nor one sub-agent's for
// another, while a sub-agent reading it twice is suppressed.
func TestRepeatsPerAgent(t *testing.T) {
	cfg := config(t, "harness-rs-0.0.50-dedupe", 1<<20)
	cwd := t.TempDir()
	read := func(id, agent string) string {
		in := map[string]any{"session_id": "sess", "transcript_path": filepath.Join(cwd, "sess.jsonl"), "cwd": cwd,
			"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": id, "tool_input": map[string]any{"file_path": "/f"},
			"tool_response": map[string]any{"type": "text", "file": map[string]any{"content": "# facts", "startLine": 1}}}
		if agent != "" {
			in["agent_id"] = agent
		}
		data, _ := json.Marshal(in)
		answer, _, _ := call(t, cfg, string(data))
		return answer
	}
	for _, c := range []struct {
		id, agent string
		repeat    bool
	}{{"toolu_1", "", false}, {"toolu_2", "a1", false}, {"toolu_3", "a2", false}, {"toolu_4", "a1", true}, {"toolu_5", "", true}} {
		answer := read(c.id, c.agent)
		if got := strings.Contains(answer, "You already made this exact call"); got != c.repeat {
			t.Errorf("%s (agent %q): suppressed %v, want %v: %.100q", c.id, c.agent, got, c.repeat, answer)
		}
	}
}

// A result the hook leaves as it came, its replacement being over Claude
// Code's own limit for the tool, leaves no spill file either, where one
// was written before the hook let the result go.
func TestNoSpillLeft(t *testing.T) {
	cfg := config(t, "harness-rs-0.0.50", 35_000)
	cfg.Policy.PreviewHead = 40_000 // a preview longer than Bash's 30,000
	stdin := input(t, "Bash", "toolu_b", map[string]any{"command": "seq"},
		map[string]any{"stdout": strings.Repeat("0123456789\n", 8_000), "stderr": "", "interrupted": false, "isImage": false})
	var in Input
	json.Unmarshal([]byte(stdin), &in)
	answer, log, _ := call(t, cfg, stdin)
	if names, _ := os.ReadDir(in.Cwd); answer != "" || len(names) != 0 {
		t.Errorf("answer %.80q, wrote %v; log %q", answer, names, log)
	}
	// The log says why a result over the ceiling went through.
	if !strings.Contains(log, "left as it is: 87,999 bytes > 35,000 bytes; what the model would receive is over Claude Code's own limit") {
		t.Errorf("log %q", log)
	}
}

// A sub-agent's calls are in its own log beside the session's, which the
// hook's input does not name: its response is looked for there.
func TestCallsLog(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "s1.jsonl")
	nested := filepath.Join(dir, "s1", "subagents", "team", "agent-b2.jsonl")
	os.MkdirAll(filepath.Dir(nested), 0o700)
	os.WriteFile(nested, nil, 0o600)
	for _, c := range []struct{ agent, want string }{
		{"", session},
		{"a1", filepath.Join(dir, "s1", "subagents", "agent-a1.jsonl")},
		{"b2", nested},
		{"../x", session},
	} {
		in := Input{TranscriptPath: session, AgentID: c.agent}
		if got := in.callsLog(); got != c.want {
			t.Errorf("agent %q: %s, want %s", c.agent, got, c.want)
		}
	}
}
