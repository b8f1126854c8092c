// Package hook is spillway's PostToolUse hook for Claude Code: it reads
// what Claude Code gives a hook after a tool ran, replays that one result
// through a policy with the replay's own code (guard/replay, as it replays
// a Claude Code log through the hook), and answers with the replacement in
// the shape Claude Code expects for the tool, or with nothing when the
// policy keeps the result.
//
// It fails open: bad input, an output it does not know, a missing policy,
// a full disk, a read-only cache folder or a panic, and it answers nothing
// (the tool's output goes through unchanged) and says why in a log. It
// never blocks a call: whatever happens, the process exits 0.
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript"
)

// Input is what Claude Code gives a PostToolUse hook on its standard input.
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	ToolUseID      string          `json:"tool_use_id"`
	// AgentID names the sub-agent whose call this is; "" on the main
	// thread. Each agent is a conversation of its own, as the replay reads
	// a sub-agent's log apart: a result one of them received is no repeat
	// for another.
	AgentID string `json:"agent_id"`
}

// stateName is whose repeat state a call is judged by: its session's
// main thread, or one sub-agent of it.
func (in *Input) stateName() string {
	if in.AgentID == "" {
		return in.SessionID
	}
	return in.SessionID + "-agent-" + in.AgentID
}

// callsLog is the log Claude Code writes the call's response to: the
// session's transcript, or a sub-agent's own log beside it
// (<session>/subagents/agent-<id>.jsonl, in a folder of its own there for
// some agents), where its calls are and the session's are not.
func (in *Input) callsLog() string {
	if in.AgentID == "" || !plainID().MatchString(in.AgentID) || !strings.HasSuffix(in.TranscriptPath, ".jsonl") {
		return in.TranscriptPath
	}
	dir := transcript.SubagentsDir(in.TranscriptPath)
	name := "agent-" + in.AgentID + ".jsonl"
	if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
		if found, _ := filepath.Glob(filepath.Join(dir, "*", name)); len(found) == 1 {
			return found[0]
		}
	}
	return filepath.Join(dir, name)
}

// Config is what the hook runs with.
type Config struct {
	Policy policy.Policy
	// PolicyErr is why the policy could not be had: the hook then answers
	// nothing and logs it.
	PolicyErr error
	// Cache is spillway's folder in the user cache folder: the hook's log,
	// its repeat states and the ledger are kept there.
	Cache string
	// Counter counts tokens for the ledger (and measures a policy in
	// tokens); Encoding names it.
	Counter  func() (replay.TokenCounter, error)
	Encoding string
	Now      func() time.Time
	// ProjectDir is the project's folder ($CLAUDE_PROJECT_DIR, which Claude
	// Code sets for its hooks): a spill file the policy's text names
	// relative to the workspace is written there, not in the folder the
	// agent's shell has moved to (the input's cwd). "" for the cwd.
	ProjectDir string
}

// MaxInput bounds what is read of the standard input (a variable for
// tests).
var MaxInput = 64 << 20

// Run is one call of the hook: it writes the answer, if any, to stdout.
// It never fails; what went wrong is logged (to stderr when the log
// cannot be written) and the answer is then nothing.
func Run(cfg Config, stdin io.Reader, stdout, stderr io.Writer) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	lg := &logger{dir: cfg.Cache, now: cfg.Now, stderr: stderr}
	var in Input
	defer func() {
		if v := recover(); v != nil {
			lg.log(&in, "panic: %v; the output went through unchanged", v)
		}
	}()
	answer, err := handle(&cfg, stdin, &in, lg)
	if err != nil {
		lg.log(&in, "%v; the output went through unchanged", err)
		return
	}
	if answer != nil {
		if _, err := stdout.Write(answer); err != nil {
			lg.log(&in, "answer not written: %v", err)
		}
	}
}

// handle is Run's work: the answer, nil when the policy keeps the result.
func handle(cfg *Config, stdin io.Reader, in *Input, lg *logger) (answer []byte, err error) {
	data, err := io.ReadAll(io.LimitReader(stdin, int64(MaxInput)+1))
	if err != nil {
		return nil, fmt.Errorf("reading the input: %w", err)
	}
	if len(data) > MaxInput {
		return nil, fmt.Errorf("input over %d MiB", MaxInput>>20)
	}
	if err := json.Unmarshal(data, in); err != nil {
		return nil, fmt.Errorf("input is not Claude Code's hook JSON: %w", err)
	}
	switch {
	case in.HookEventName != "PostToolUse":
		return nil, fmt.Errorf("a %q event, not PostToolUse", in.HookEventName)
	case in.SessionID == "" || in.ToolUseID == "" || in.ToolName == "":
		return nil, errors.New("input without a session, tool or tool_use_id")
	case cfg.PolicyErr != nil:
		return nil, cfg.PolicyErr
	case cfg.Cache == "":
		// Relative to nothing, the ledger and the repeat state would be
		// written in the agent's working folder.
		return nil, errors.New("no user cache folder (neither $XDG_CACHE_HOME nor $HOME is set) for the ledger")
	}
	pol := cfg.Policy
	out, err := readOutput(in.ToolName, in.ToolResponse)
	var shape errShape
	if errors.As(err, &shape) {
		// Left as it is, but seen by repeat suppression as the replay of
		// the log sees it.
		lg.log(in, "%s: left as it is", shape.why)
		out, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	result := transcript.ToolResult{CallID: in.ToolUseID, Tool: in.ToolName, Input: in.ToolInput, Time: cfg.Now()}
	var persisted map[string]string
	if out != nil {
		result.Text, result.Images, result.Other = out.text, out.images, out.other
		if path, ok := ownPersisted(in, out); ok {
			// What the log of the session without the hook shows: Claude
			// Code's preview of the file it would write, the output whole.
			result.Text = harness.ClaudePersisted(harness.UTF16Len(out.text), path, out.text, harness.ClaudePreviewUnits, true)
			persisted = map[string]string{path: out.text}
		}
	}
	s := &transcript.Session{Path: in.TranscriptPath, Format: transcript.FormatClaude, ID: in.SessionID,
		Calls: []transcript.Call{{ToolCalls: []transcript.ToolCall{{ID: in.ToolUseID, Name: in.ToolName, Input: in.ToolInput}},
			Results: []transcript.ToolResult{result}}}}

	// Repeat suppression's state, kept between calls, the session's lock
	// held while it is read, used and written back.
	var state *replay.Repeats
	var st *stateFile
	store := &locatorStore{base: in.Cwd}
	if filepath.IsAbs(cfg.ProjectDir) {
		store.base = cfg.ProjectDir
	}
	defer func() {
		if answer == nil {
			// The output goes through as it came: a spill file made for a
			// replacement the model never gets is not left behind.
			for _, path := range store.created {
				os.Remove(path)
			}
		}
	}()
	opt := replay.Options{Store: store, NoHazards: true}
	if pol.Dedupe.Enabled {
		// Looked for before the lock is taken: the hooks of the other
		// calls of the response may be waiting for the same lines.
		opt.Batch = responseOf(in.callsLog(), in.ToolUseID)
		st, err = openState(filepath.Join(cfg.Cache, "hook"), in.stateName(), cfg.Now())
		if err != nil {
			return nil, fmt.Errorf("repeat state: %w", err)
		}
		defer st.close()
		if state, err = st.read(); err != nil {
			lg.log(in, "repeat state unreadable, started afresh: %v", err)
			state = &replay.Repeats{}
		}
		opt.Repeats = state
	}
	counter, err := measureCounter(cfg, &pol)
	if err != nil {
		return nil, err
	}
	prep, err := replay.Prepare(context.Background(), s, counter, nil, nil)
	if err != nil {
		return nil, err
	}
	prep.Persisted = persisted
	rp, err := prep.Replay(pol, opt)
	if err != nil {
		return nil, err
	}
	// The state is saved once the answer is certain, so that it holds what
	// the model received: an output that goes through unchanged because
	// the ledger cannot be written is not remembered as shaped.
	saveState := func() {
		if st == nil {
			return
		}
		if err := st.write(state); err != nil {
			// Not remembered, a later repeat of this result is not
			// suppressed: the agent sees more, never less.
			lg.log(in, "repeat state not saved: %v", err)
		}
	}
	r := &rp.Results[0]
	if w := r.Warning; w != "" {
		lg.log(in, "%s", w)
	} else if ceiling, limited := pol.CeilingFor(in.ToolName); r.Outcome == replay.Kept && out != nil && limited && r.Size > ceiling {
		// Over the ceiling and left as it came (a persisted output that
		// cannot be read, a Read that is not numbered lines, a replacement
		// Claude Code would persist again): nothing else would say so.
		lg.log(in, "left as it is: %s", r.Reason)
	}
	if r.Outcome == replay.Kept || r.Outcome == replay.Excluded || out == nil {
		saveState()
		return nil, nil
	}
	replacement, err := out.replace(r.Replacement, pol.NonText == policy.NonTextKeep)
	if err != nil {
		return nil, err
	}
	reply, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PostToolUse", "updatedToolOutput": replacement}})
	if err != nil {
		return nil, err
	}
	entry := ledger.Entry{Time: cfg.Now().UTC(), Session: in.SessionID, ToolUseID: in.ToolUseID, Tool: in.ToolName,
		Action: string(r.Outcome), Bytes: r.Bytes, BytesAfter: int64(len(r.Text)), Tokens: -1, TokensAfter: -1,
		Encoding: cfg.Encoding, SpillPath: r.SpillPath, Policy: pol.Name}
	if c, err := cfg.Counter(); err == nil {
		entry.Tokens, entry.TokensAfter = int64(c.Count(result.Text)), int64(c.Count(r.Text))
	} else {
		lg.log(in, "tokens not counted for the ledger: %v", err)
	}
	switch err := ledger.Append(filepath.Join(cfg.Cache, "ledger"), entry); {
	case errors.Is(err, ledger.ErrFull):
		lg.log(in, "the session's ledger is full: this result is shaped but not recorded")
	case err != nil:
		// What is cut and not recorded is lost to every figure: not cut.
		return nil, fmt.Errorf("ledger not written: %w", err)
	}
	saveState()
	return reply, nil
}

// measureCounter is the counter the replay measures with: the real one
// where the policy measures tokens, else one that counts nothing, so that
// a result the policy keeps costs no tokenizer (the ledger counts the
// shaped ones with the real one).
func measureCounter(cfg *Config, pol *policy.Policy) (replay.TokenCounter, error) {
	if pol.Unit == policy.Tokens {
		c, err := cfg.Counter()
		if err != nil {
			return nil, fmt.Errorf("token counter: %w", err)
		}
		return c, nil
	}
	return uncounted{}, nil
}

// uncounted stands in for a tokenizer where no decision rests on tokens.
type uncounted struct{}

func (uncounted) Count(string) int { return 0 }

// locatorStore writes a spill file where the replacement says it is, for
// the agent to read back: relative to the agent's working folder. created
// are the files it made where none was.
type locatorStore struct {
	base    string
	created []string
}

func (s *locatorStore) Write(f replay.SpillFile) (string, error) {
	if s.base == "" {
		return "", errors.New("no working folder to write the spill file in")
	}
	path, created, err := spill.WriteAt(s.base, f)
	if created {
		s.created = append(s.created, path)
	}
	return path, err
}

// ownPersisted is the file Claude Code would persist a text output to
// itself, being over its own limit for the tool (processToolResultBlock:
// <session>/tool-results/<call id>.txt beside the transcript): Bash
// persists its own output before the hook sees it, and Read never is;
// content blocks are persisted as JSON, which the hook does not model.
func ownPersisted(in *Input, out *output) (string, bool) {
	limit, ok := harness.ClaudeOwnLimit(in.ToolName)
	if !ok || in.ToolName == "Bash" || out.images+out.other > 0 || !harness.UTF16Over(out.text, limit) ||
		!strings.HasSuffix(in.TranscriptPath, ".jsonl") || !plainID().MatchString(in.ToolUseID) {
		return "", false
	}
	if strings.HasPrefix(in.ToolName, "mcp__") && !out.plain {
		return "", false
	}
	return filepath.Join(strings.TrimSuffix(in.TranscriptPath, ".jsonl"), "tool-results", in.ToolUseID+".txt"), true
}

// plainID is a call id Claude Code names a file after as it is, compiled
// when a result is long enough to ask.
var plainID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// maxTail bounds what is read of the transcript to find a call's response.
const maxTail = 1 << 20

// Claude Code writes its transcript from a queue it drains every 100 ms
// (FLUSH_INTERVAL_MS in 2.1.328), so a fast tool's hook can run before the
// line of the response that made the call is written: without it, the
// calls of one response were judged as responses of their own (a parallel
// repeat taken for a repeat, a Read after an Edit of the same response
// suppressed). The line is looked for again for up to responseWait, a
// variable for tests.
var responseWait = 500 * time.Millisecond

// responseOf is the model response that made call id, as the transcript's
// last lines tell (its message id): the calls of one response are judged
// together. "" when it is not found there in responseWait, and the call
// is its own.
func responseOf(transcriptPath, id string) string {
	deadline := time.Now().Add(responseWait)
	looked := int64(-1) // the size the transcript had when last read
	for {
		if info, err := os.Lstat(transcriptPath); err == nil && info.Size() != looked {
			looked = info.Size()
			if r := responseIn(transcriptPath, info, id); r != "" {
				return r
			}
		}
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// responseIn is responseOf as the transcript, info, is now.
func responseIn(transcriptPath string, info os.FileInfo, id string) string {
	f, _, err := safefile.OpenRegular(transcriptPath, info)
	if err != nil {
		return ""
	}
	defer f.Close()
	size := info.Size()
	from := max(0, size-maxTail)
	buf := make([]byte, size-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	key, _ := json.Marshal(id)
	at := bytes.LastIndex(buf, append([]byte(`"id":`), key...))
	if at < 0 {
		return ""
	}
	start := bytes.LastIndexByte(buf[:at], '\n') + 1
	end := bytes.IndexByte(buf[at:], '\n')
	if end < 0 {
		return ""
	}
	var line struct {
		Message struct {
			ID string `json:"id"`
		} `json:"message"`
		RequestID string `json:"requestId"`
	}
	if json.Unmarshal(buf[start:at+end], &line) != nil {
		return ""
	}
	if line.Message.ID != "" {
		return line.Message.ID
	}
	return line.RequestID
}
