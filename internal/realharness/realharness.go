// Package realharness runs the real Claude Code and Codex CLI binaries, at
// the versions .ci/run installs, against a stand-in of their model APIs
// served by the test on a loopback port. What a harness sends the stand-in
// is exactly what a model would have received, so tests compare it with
// what spillway predicts. It is test support: nothing in the spillway
// binary imports it.
package realharness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The pinned versions; .ci/run installs exactly these.
const (
	ClaudeVersion = "2.1.328"
	CodexVersion  = "0.169.0"
)

// Tests that run a real harness are named TestReal…, so that CI runs them
// in a step of their own: `go test -run '^TestReal' ./...` with DirEnv set.
// Without it they skip, saying why.
//
// DirEnv names the folder .ci/run installs the harnesses into:
// $SPILLWAY_HARNESS_DIR/claude-code and $SPILLWAY_HARNESS_DIR/codex, each
// an npm prefix. SPILLWAY_CLAUDE_BIN and SPILLWAY_CODEX_BIN name a binary
// directly instead.
const DirEnv = "SPILLWAY_HARNESS_DIR"

// VersionsEnv names a folder of other versions of the harnesses, one npm
// prefix per version named after it ($SPILLWAY_HARNESS_VERSIONS/2.1.86
// holds `npm install --prefix … @anthropic-ai/claude-code@2.1.86`), for
// the tests that compare the versions whose rules differ. CI installs
// none: those tests skip, saying so.
const VersionsEnv = "SPILLWAY_HARNESS_VERSIONS"

// ClaudeBin is the pinned Claude Code binary, or the test is skipped
// saying why.
func ClaudeBin(t testing.TB) string {
	t.Helper()
	return find(t, "SPILLWAY_CLAUDE_BIN", "claude-code", "claude", ClaudeVersion, "(Claude Code)")
}

// CodexBin is the pinned Codex CLI binary, or the test is skipped saying
// why.
func CodexBin(t testing.TB) string {
	t.Helper()
	return find(t, "SPILLWAY_CODEX_BIN", "codex", "codex", CodexVersion, "codex-cli")
}

// ClaudeBinAt is the Claude Code binary of version: the pinned one, or
// one under VersionsEnv; the test is skipped, saying why, where it is not
// installed.
func ClaudeBinAt(t testing.TB, version string) string {
	t.Helper()
	if version == ClaudeVersion {
		return ClaudeBin(t)
	}
	return findVersion(t, "claude", version, "(Claude Code)")
}

// CodexBinAt is the Codex CLI binary of version, as ClaudeBinAt.
func CodexBinAt(t testing.TB, version string) string {
	t.Helper()
	if version == CodexVersion {
		return CodexBin(t)
	}
	return findVersion(t, "codex", version, "codex-cli")
}

func findVersion(t testing.TB, name, version, banner string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: not running the real %s", name)
	}
	dir := os.Getenv(VersionsEnv)
	if dir == "" {
		t.Skipf("%s %s is not installed: set %s to a folder of npm prefixes named by version", name, version, VersionsEnv)
	}
	return check(t, filepath.Join(dir, version, "node_modules", ".bin", name), name, version, banner)
}

func find(t testing.TB, binEnv, prefix, name, version, banner string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: not running the real %s", name)
	}
	bin := os.Getenv(binEnv)
	if bin == "" {
		dir := os.Getenv(DirEnv)
		if dir == "" {
			t.Skipf("the real %s %s is not installed: set %s (as .ci/run does) or %s", name, version, DirEnv, binEnv)
		}
		bin = filepath.Join(dir, prefix, "node_modules", ".bin", name)
	}
	return check(t, bin, name, version, banner)
}

// check runs bin --version: it must be the version asked for.
func check(t testing.TB, bin, name, version, banner string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Skipf("the real %s is not runnable at %s: %v", name, bin, err)
	}
	got := strings.TrimSpace(string(out))
	if !strings.Contains(got, version) || !strings.Contains(got, banner) {
		t.Fatalf("%s --version says %q, want %s %s: install that version", bin, got, banner, version)
	}
	return bin
}

// Call is one tool call the stand-in model makes.
type Call struct {
	ID    string
	Name  string
	Input any // marshalled as the call's arguments; a string is a freeform tool's input (Codex's apply_patch)
}

// Turn is one answer of the stand-in model: the tool calls it makes, or,
// when there are none, Text as its final message.
type Turn struct {
	Calls []Call
	Text  string
	// Usage, when set, is what the answer says it used instead of the
	// stand-in's small default: a large input count makes the harness
	// compact its context before the next request.
	Usage *Usage
}

// Request is one request a harness sent the stand-in, as it came.
type Request struct {
	Path string
	Body json.RawMessage
}

// Standin is a stand-in model API on a loopback port. It answers each
// request of the harness's main loop (one that offers tools) with the next
// turn of its script, and any other request (titles, summaries) with a
// short text; once the script is spent it ends the turn.
type Standin struct {
	URL string

	srv     *http.Server
	mu      sync.Mutex
	script  []Turn
	next    int
	reqs    []Request
	openai  bool
	usage   Usage
	answers int // answers given, to number their message and request ids
	errored []string
}

// Usage is what the stand-in reports each answer used.
type Usage struct{ Input, Output int64 }

// ServeAnthropic starts a stand-in of the Anthropic Messages API.
func ServeAnthropic(t testing.TB, script []Turn) *Standin {
	return serve(t, script, false)
}

// ServeOpenAI starts a stand-in of the OpenAI Responses API.
func ServeOpenAI(t testing.TB, script []Turn) *Standin {
	return serve(t, script, true)
}

func serve(t testing.TB, script []Turn, openai bool) *Standin {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Standin{script: script, openai: openai, usage: Usage{Input: 100, Output: 10}}
	s.URL = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	t.Cleanup(func() {
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, e := range s.errored {
			t.Errorf("stand-in: %s", e)
		}
	})
	return s
}

// Requests are the requests received so far, in order.
func (s *Standin) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Standin) handle(w http.ResponseWriter, r *http.Request) {
	body, err := readAll(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.Method != http.MethodPost {
		// Older Claude Code versions check that the API answers at all
		// (HEAD or GET /) before they start.
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, s.usage.Input)
		return
	}
	var req struct {
		Model    string            `json:"model"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []message         `json:"messages"`
		Input    []message         `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail("a request that is not JSON at %s: %v", r.URL.Path, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	last := lastUserText(append(req.Messages, req.Input...))
	turn := Turn{Text: "ok"}
	// Claude Code 2.0 and 2.1 warm their sub-agents up with a request of
	// their own that offers tools too, and a harness compacting its
	// context asks for a summary (offering the tools, to keep its cache):
	// only the main loop plays the script.
	warmup := len(req.Messages) == 1 && last == "Warmup"
	compaction := isCompaction(last)
	if compaction {
		turn = Turn{Text: "<analysis>stand-in</analysis>\n<summary>" + Summary + "</summary>"}
	}
	s.mu.Lock()
	if len(req.Tools) > 0 && !warmup && !compaction {
		if s.next < len(s.script) {
			turn = s.script[s.next]
			s.next++
		} else {
			turn = Turn{Text: "done"}
		}
	}
	s.answers++
	// Each answer has ids of its own, as the real APIs give: a log groups
	// its lines into calls by them.
	id := fmt.Sprintf("standin_%03d", s.answers)
	s.mu.Unlock()
	if turn.Usage == nil {
		// About what a model would count of the request: a quarter of its
		// bytes, so that a log's usage grows with its context as a real
		// one's does and what a policy saves is a share of what it cost.
		turn.Usage = &Usage{Input: max(s.usage.Input, int64(len(body))/4), Output: s.usage.Output}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Request-Id", "req_"+id)
	var sse bytes.Buffer
	if s.openai {
		s.openaiEvents(&sse, id, turn)
	} else {
		s.anthropicEvents(&sse, id, req.Model, turn)
	}
	w.Write(sse.Bytes())
}

// message is a message of a request, of either API.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// lastUserText is the text of the last user message (harnesses add
// system messages after it).
func lastUserText(msgs []message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return contentText(msgs[i].Content)
		}
	}
	return ""
}

// Summary is the summary the stand-in gives a harness compacting its
// context.
const Summary = "The stand-in's summary of the conversation so far."

// isCompaction tells whether the last message of a request is a harness
// asking for a summary of the conversation to compact it: Claude Code's
// prompt, and Codex's.
func isCompaction(text string) bool {
	return strings.Contains(text, "create a detailed summary of the conversation") ||
		strings.Contains(text, "CONTEXT CHECKPOINT COMPACTION")
}

func (s *Standin) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errored = append(s.errored, fmt.Sprintf(format, args...))
}

func event(b *bytes.Buffer, name string, data any) {
	raw, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(b, "event: %s\ndata: %s\n\n", name, raw)
}

type obj = map[string]any

func (s *Standin) anthropicEvents(b *bytes.Buffer, id, model string, turn Turn) {
	usage := s.usage
	if turn.Usage != nil {
		usage = *turn.Usage
	}
	event(b, "message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_" + id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "usage": obj{"input_tokens": usage.Input, "output_tokens": 1}}})
	stop := "end_turn"
	if len(turn.Calls) == 0 {
		event(b, "content_block_start", obj{"type": "content_block_start", "index": 0, "content_block": obj{"type": "text", "text": ""}})
		event(b, "content_block_delta", obj{"type": "content_block_delta", "index": 0, "delta": obj{"type": "text_delta", "text": turn.Text}})
		event(b, "content_block_stop", obj{"type": "content_block_stop", "index": 0})
	}
	for i, c := range turn.Calls {
		stop = "tool_use"
		input, err := json.Marshal(c.Input)
		if err != nil {
			panic(err)
		}
		event(b, "content_block_start", obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "tool_use", "id": c.ID, "name": c.Name, "input": obj{}}})
		event(b, "content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": obj{"type": "input_json_delta", "partial_json": string(input)}})
		event(b, "content_block_stop", obj{"type": "content_block_stop", "index": i})
	}
	event(b, "message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop}, "usage": obj{"output_tokens": usage.Output}})
	event(b, "message_stop", obj{"type": "message_stop"})
}

func (s *Standin) openaiEvents(b *bytes.Buffer, id string, turn Turn) {
	usage := s.usage
	if turn.Usage != nil {
		usage = *turn.Usage
	}
	event(b, "response.created", obj{"type": "response.created", "response": obj{"id": "resp_" + id}})
	if len(turn.Calls) == 0 {
		event(b, "response.output_item.done", obj{"type": "response.output_item.done", "output_index": 0, "item": obj{
			"type": "message", "role": "assistant", "id": "msg_" + id,
			"content": []any{obj{"type": "output_text", "text": turn.Text}}}})
	}
	for i, c := range turn.Calls {
		if text, ok := c.Input.(string); ok {
			event(b, "response.output_item.done", obj{"type": "response.output_item.done", "output_index": i, "item": obj{
				"type": "custom_tool_call", "id": "ctc_" + c.ID, "call_id": c.ID, "name": c.Name, "input": text}})
			continue
		}
		args, err := json.Marshal(c.Input)
		if err != nil {
			panic(err)
		}
		event(b, "response.output_item.done", obj{"type": "response.output_item.done", "output_index": i, "item": obj{
			"type": "function_call", "id": "fc_" + c.ID, "call_id": c.ID, "name": c.Name, "arguments": string(args)}})
	}
	event(b, "response.completed", obj{"type": "response.completed", "response": obj{"id": "resp_" + id, "usage": obj{
		"input_tokens": usage.Input, "input_tokens_details": obj{"cached_tokens": 0},
		"output_tokens": usage.Output, "output_tokens_details": obj{"reasoning_tokens": 0},
		"total_tokens": usage.Input + usage.Output}}})
}

func readAll(r *http.Request) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(bufio.NewReader(r.Body))
	return b.Bytes(), err
}

// Sent is what a harness sent the model for one tool call: the result as
// it stood in the first request that carried it.
type Sent struct {
	ID string
	// Raw is the result's content as sent: a JSON string, or an array of
	// content blocks.
	Raw json.RawMessage
	// Text is the content's text: the string, or its text blocks joined
	// (each block's text, in order, with nothing between).
	Text    string
	IsError bool
}

// Results are the tool results the harness sent, by call id, each as the
// first request carrying it had it.
func (s *Standin) Results() map[string]Sent {
	out := map[string]Sent{}
	for _, r := range s.Requests() {
		var sent []Sent
		if s.openai {
			sent = openaiResults(r.Body)
		} else {
			sent = anthropicResults(r.Body)
		}
		for _, x := range sent {
			if _, ok := out[x.ID]; !ok {
				out[x.ID] = x
			}
		}
	}
	return out
}

func anthropicResults(body []byte) []Sent {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []Sent
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				out = append(out, Sent{ID: b.ToolUseID, Raw: b.Content, Text: contentText(b.Content), IsError: b.IsError})
			}
		}
	}
	return out
}

func openaiResults(body []byte) []Sent {
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []Sent
	for _, it := range req.Input {
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			out = append(out, Sent{ID: it.CallID, Raw: it.Output, Text: contentText(it.Output)})
		}
	}
	return out
}

// contentText is a result content's text: a string as it is, or the text
// of each block of an array, joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}

// Run is one finished run of a harness.
type Run struct {
	Work       string // the working folder it ran in
	Home       string // its config folder (CLAUDE_CONFIG_DIR or CODEX_HOME)
	Transcript string // the log it wrote
	Output     []byte // what it printed
	Standin    *Standin
}

// ClaudeOptions shape a Claude Code run.
type ClaudeOptions struct {
	// Work is the working folder; a new one when empty.
	Work string
	// Settings, when set, are written to the config folder's
	// settings.json.
	Settings json.RawMessage
	// AllowedTools for --allowedTools; Read, Bash, Grep, Glob when empty.
	AllowedTools []string
	// Args are more command-line arguments.
	Args []string
	// Env is more of the environment.
	Env []string
	// Timeout bounds the run; two minutes when zero.
	Timeout time.Duration
}

// RunClaude runs Claude Code headless against a stand-in playing script,
// and returns what it did. Nothing leaves the machine: the API is the
// stand-in, and telemetry, updates and other traffic are off.
func RunClaude(t testing.TB, bin string, script []Turn, opt ClaudeOptions) *Run {
	t.Helper()
	st := ServeAnthropic(t, script)
	run := &Run{Work: opt.Work, Home: t.TempDir(), Standin: st}
	if run.Work == "" {
		run.Work = t.TempDir()
	}
	if opt.Settings != nil {
		if err := os.WriteFile(filepath.Join(run.Home, "settings.json"), opt.Settings, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tools := opt.AllowedTools
	if len(tools) == 0 {
		tools = []string{"Read", "Bash", "Grep", "Glob"}
	}
	args := append([]string{"-p", "go", "--allowedTools", strings.Join(tools, ","), "--output-format", "json"}, opt.Args...)
	env := append(baseEnv(t),
		"CLAUDE_CONFIG_DIR="+run.Home,
		"ANTHROPIC_BASE_URL="+st.URL,
		"ANTHROPIC_API_KEY=standin",
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
	)
	run.Output = execute(t, bin, args, run.Work, append(env, opt.Env...), opt.Timeout)
	run.Transcript = newest(t, filepath.Join(run.Home, "projects"))
	return run
}

// CodexOptions shape a Codex run.
type CodexOptions struct {
	Work string
	// Model is the model Codex is told to use, gpt-5.5 when empty: a
	// version sizes its truncation by what its catalogue says of it.
	Model string
	// Config is more of config.toml: top-level keys and tables, written
	// between the model's keys and the stand-in's provider table.
	Config  string
	Env     []string
	Timeout time.Duration
}

// RunCodex runs `codex exec` against a stand-in playing script.
func RunCodex(t testing.TB, bin string, script []Turn, opt CodexOptions) *Run {
	t.Helper()
	st := ServeOpenAI(t, script)
	run := &Run{Work: opt.Work, Home: t.TempDir(), Standin: st}
	if run.Work == "" {
		run.Work = t.TempDir()
	}
	model := opt.Model
	if model == "" {
		model = "gpt-5.5"
	}
	config := fmt.Sprintf(`model = %q
model_provider = "standin"
%s
[model_providers.standin]
name = "standin"
base_url = "%s/v1"
wire_api = "responses"
env_key = "STANDIN_KEY"
`, model, opt.Config, st.URL)
	if err := os.WriteFile(filepath.Join(run.Home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "go"}
	env := append(baseEnv(t), "CODEX_HOME="+run.Home, "STANDIN_KEY=standin")
	run.Output = execute(t, bin, args, run.Work, append(env, opt.Env...), opt.Timeout)
	run.Transcript = newest(t, filepath.Join(run.Home, "sessions"))
	return run
}

// baseEnv is the environment a harness runs in: enough to find programs,
// a home of its own (so that nothing of the user's is read or written),
// and none of the caller's API keys or proxies.
func baseEnv(t testing.TB) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "HOME=" + t.TempDir()}
}

func execute(t testing.TB, bin string, args []string, dir string, env []string, timeout time.Duration) []byte {
	t.Helper()
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out.Bytes())
	}
	return out.Bytes()
}

// newest is the most recently written *.jsonl under dir.
func newest(t testing.TB, dir string) string {
	t.Helper()
	type found struct {
		path string
		mod  time.Time
	}
	var logs []found
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") && !strings.Contains(path, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
			if info, err := d.Info(); err == nil {
				logs = append(logs, found{path, info.ModTime()})
			}
		}
		return nil
	})
	if len(logs) == 0 {
		t.Fatalf("no transcript written under %s", dir)
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].mod.After(logs[j].mod) })
	return logs[0].path
}
