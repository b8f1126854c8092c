package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// Fleet sizes a corpus of many sessions of both agents, laid out as they
// lie on disk: Claude Code sessions under claude/projects/<project>/, with
// their sub-agents under <session>/subagents/, and Codex rollouts under
// codex/sessions/YYYY/MM/DD/.
type Fleet struct {
	Claude, Codex int
	// MeanCalls is the mean number of API calls of a session; sessions
	// run from a tenth of it to nearly twice it.
	MeanCalls   int
	ResultBytes int // mean size of a tool result
	// SubagentEvery: one Claude Code session in SubagentEvery runs one to
	// three sub-agents. ResumeEvery: one in ResumeEvery resumes the
	// session before it, repeating its first responses in a file of its
	// own (copies that must be counted once).
	SubagentEvery, ResumeEvery int
	Projects                   int
}

// DefaultFleet is the many-sessions benchmark corpus: 2,000 sessions,
// about 2 GB.
var DefaultFleet = Fleet{Claude: 1400, Codex: 600, MeanCalls: 240, ResultBytes: 2048, SubagentEvery: 4, ResumeEvery: 40, Projects: 24}

// FleetTotals are what a correct reader must find: the totals of every
// session (sub-agents included, copies counted once), by its log's path.
type FleetTotals struct {
	All      Totals
	Sessions map[string]Totals
	Files    int
	Bytes    int64
}

// WriteFleet writes the corpus into dir. The same shape always gives the
// same bytes; files are written on every core.
func WriteFleet(dir string, shape Fleet) (FleetTotals, error) {
	out := FleetTotals{Sessions: map[string]Totals{}}
	type job struct {
		i     int
		codex bool
	}
	type result struct {
		files map[string]Totals // session path: its totals
		n     int
		bytes int64
		err   error
	}
	jobs := make(chan job)
	results := make(chan result)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var r result
				if j.codex {
					r.files, r.n, r.bytes, r.err = writeCodexSession(dir, shape, j.i)
				} else {
					r.files, r.n, r.bytes, r.err = writeClaudeSession(dir, shape, j.i)
				}
				results <- r
			}
		}()
	}
	go func() {
		for i := range shape.Claude {
			jobs <- job{i: i}
		}
		for i := range shape.Codex {
			jobs <- job{i: i, codex: true}
		}
		close(jobs)
		wg.Wait()
		close(results)
	}()
	var firstErr error
	for r := range results {
		if r.err != nil && firstErr == nil {
			firstErr = r.err
		}
		for p, t := range r.files {
			out.Sessions[p] = t
			out.All.Add(t)
		}
		out.Files += r.n
		out.Bytes += r.bytes
	}
	return out, firstErr
}

// sessionCalls is how many calls session seed makes: spread from a tenth
// of mean to nearly twice it.
func sessionCalls(rng *rand.Rand, mean int) int {
	return max(1, mean/10+rng.IntN(2*mean-mean/5))
}

// claudeID is the id of Claude Code session i; the file is named after it.
func claudeID(i int) string { return fmt.Sprintf("c0ffee00-0000-4000-8000-%012d", i) }

func claudeProject(shape Fleet, i int) string {
	return fmt.Sprintf("-home-dev-src-project%02d", i%max(shape.Projects, 1))
}

// claudeWriter writes the lines of one Claude Code log.
type claudeWriter struct {
	enc     *json.Encoder
	rng     *rand.Rand
	sid     string
	agentID string // set in a sub-agent's log
	now     time.Time
	parent  string
	n       int
	prompt  int64
	tot     Totals
	cwd     string
}

func (w *claudeWriter) line(v map[string]any) error {
	v["sessionId"], v["version"], v["cwd"] = w.sid, version, w.cwd
	v["timestamp"] = w.now.Format(time.RFC3339Nano)
	if w.agentID != "" {
		v["isSidechain"], v["agentId"] = true, w.agentID
	} else {
		v["isSidechain"] = false
	}
	w.n++
	uuid := fmt.Sprintf("%s-%08d", w.sid, w.n) // a resumed log's copies keep their own
	if w.agentID != "" {
		uuid = w.agentID + fmt.Sprintf("-%08d", w.n)
	}
	v["uuid"], v["parentUuid"] = uuid, w.parent
	w.parent = uuid
	return w.enc.Encode(v)
}

// call writes one response (two lines, a text block and a tool call,
// each with the response's usage) and its tool result; ids are made from
// tag, so that a resumed session can repeat them.
func (w *claudeWriter) call(tag string, model string, resultBytes int) error {
	w.now = w.now.Add(time.Duration(2+w.rng.IntN(20)) * time.Second)
	if w.prompt > compactAt {
		err := w.line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
			"compactMetadata": map[string]any{"trigger": "auto", "preTokens": w.prompt}})
		if err != nil {
			return err
		}
		w.prompt = int64(15_000 + w.rng.IntN(5000))
	}
	write := int64(300 + w.rng.IntN(resultBytes/2))
	output := int64(40 + w.rng.IntN(400))
	usage := map[string]any{"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": w.prompt, "output_tokens": output}
	w.tot.Add(Totals{Calls: 1, Input: 3, CacheCreation: write, CacheRead: w.prompt, Output: output})
	w.prompt += write + 3
	toolID := "toolu_" + tag
	tool := tools[w.rng.IntN(len(tools))]
	blocks := []map[string]any{
		{"type": "text", "text": sentence(w.rng, 3+w.rng.IntN(6))},
		{"type": "tool_use", "id": toolID, "name": tool, "input": map[string]any{"file_path": fmt.Sprintf("/p/file%03d.go", w.rng.IntN(300))}},
	}
	for _, b := range blocks {
		err := w.line(map[string]any{"type": "assistant", "requestId": "req_" + tag, "message": map[string]any{
			"id": "msg_" + tag, "role": "assistant", "model": model, "content": []any{b}, "stop_reason": "tool_use", "usage": usage,
		}})
		if err != nil {
			return err
		}
	}
	size := resultBytes/4 + w.rng.IntN(resultBytes*3/2)
	if w.rng.IntN(50) == 0 {
		size = 20 * resultBytes // now and then a large read
	}
	return w.line(map[string]any{"type": "user",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": toolID, "content": body(w.rng, size)}}},
	})
}

var claudeModels = []string{"claude-sonnet-4-6", "claude-sonnet-4-6", "claude-opus-4-6", "claude-haiku-4-5"}

// writeFile creates path and its folder and writes it with fn.
func writeFile(path string, fn func(io.Writer) error) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = fn(w)
	if err == nil {
		err = w.Flush()
	}
	var size int64
	if info, serr := f.Stat(); serr == nil {
		size = info.Size()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return size, nil
}

// writeClaudeSession writes Claude Code session i and its sub-agents.
func writeClaudeSession(dir string, shape Fleet, i int) (map[string]Totals, int, int64, error) {
	rng := rand.New(rand.NewPCG(uint64(i), 0xc1a0de))
	sid := claudeID(i)
	project := filepath.Join(dir, "claude", "projects", claudeProject(shape, i))
	path := filepath.Join(project, sid+".jsonl")
	model := claudeModels[rng.IntN(len(claudeModels))]
	calls := sessionCalls(rng, shape.MeanCalls)
	start := epoch.Add(time.Duration(i) * 37 * time.Minute)
	cwd := "/home/dev/src/project" + claudeProject(shape, i)[len(claudeProject(shape, i))-2:]
	var tot Totals
	size, err := writeFile(path, func(out io.Writer) error {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		if resumes := shape.ResumeEvery > 0 && i > 0 && i%shape.ResumeEvery == 0; resumes {
			// The responses of the session before, repeated under its id,
			// as a resumed session's log opens: counted there, not here.
			prev := rand.New(rand.NewPCG(uint64(i-1), 0xc1a0de))
			prevModel := claudeModels[prev.IntN(len(claudeModels))]
			prevCalls := sessionCalls(prev, shape.MeanCalls)
			w := &claudeWriter{enc: enc, rng: prev, sid: claudeID(i - 1), now: epoch.Add(time.Duration(i-1) * 37 * time.Minute),
				prompt: int64(12_000 + prev.IntN(4000)), cwd: cwd}
			for k := range min(prevCalls, 20) {
				if err := w.call(fmt.Sprintf("%s%05d", claudeID(i - 1)[24:], k), prevModel, shape.ResultBytes); err != nil {
					return err
				}
			}
		}
		w := &claudeWriter{enc: enc, rng: rng, sid: sid, now: start, prompt: int64(12_000 + rng.IntN(4000)), cwd: cwd}
		if err := w.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Find where the token budget is enforced and tighten it."}}); err != nil {
			return err
		}
		for k := range calls {
			if err := w.call(fmt.Sprintf("%s%05d", sid[24:], k), model, shape.ResultBytes); err != nil {
				return err
			}
		}
		tot = w.tot
		return nil
	})
	if err != nil {
		return nil, 0, 0, err
	}
	files := 1
	if shape.SubagentEvery > 0 && i%shape.SubagentEvery == 1 {
		for a := range 1 + rng.IntN(3) {
			agent := fmt.Sprintf("a%04x%04x", i, a)
			sub := filepath.Join(project, sid, "subagents", "agent-"+agent+".jsonl")
			n, err := writeFile(sub, func(out io.Writer) error {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				w := &claudeWriter{enc: enc, rng: rng, sid: sid, agentID: agent, now: start.Add(time.Minute),
					prompt: int64(8_000 + rng.IntN(4000)), cwd: cwd}
				if err := w.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Search the tests for the budget."}}); err != nil {
					return err
				}
				for k := range 10 + rng.IntN(50) {
					if err := w.call(fmt.Sprintf("%s%02d%04d", agent, a, k), "claude-haiku-4-5", shape.ResultBytes); err != nil {
						return err
					}
				}
				tot.Add(w.tot)
				return nil
			})
			if err != nil {
				return nil, 0, 0, err
			}
			size += n
			files++
		}
	}
	return map[string]Totals{path: tot}, files, size, nil
}

// writeCodexSession writes Codex rollout i: a session_meta, a turn
// context, and per call a tool call, its token_count and its output; a
// compaction when the prompt nears the window.
func writeCodexSession(dir string, shape Fleet, i int) (map[string]Totals, int, int64, error) {
	rng := rand.New(rand.NewPCG(uint64(i), 0xc0dec5))
	start := epoch.Add(time.Duration(i)*53*time.Minute + 11*time.Second)
	id := fmt.Sprintf("0199c0de-0000-7000-8000-%012d", i)
	path := filepath.Join(dir, "codex", "sessions", start.Format("2006/01/02"), "rollout-"+start.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	calls := sessionCalls(rng, shape.MeanCalls)
	var tot Totals
	size, err := writeFile(path, func(out io.Writer) error {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		now := start
		line := func(typ string, payload map[string]any) error {
			return enc.Encode(map[string]any{"timestamp": now.Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
		}
		cwd := fmt.Sprintf("/home/dev/src/project%02d", i%max(shape.Projects, 1))
		if err := line("session_meta", map[string]any{"id": id, "timestamp": now.Format(time.RFC3339), "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.46.0"}); err != nil {
			return err
		}
		if err := line("turn_context", map[string]any{"model": "gpt-5", "cwd": cwd}); err != nil {
			return err
		}
		if err := line("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "Make the build pass."}}}); err != nil {
			return err
		}
		prompt := int64(9_000 + rng.IntN(3000))
		var sum struct{ input, cached, output, reasoning, total int64 }
		for k := range calls {
			now = now.Add(time.Duration(2+rng.IntN(20)) * time.Second)
			if prompt > compactAt {
				if err := line("compacted", map[string]any{"message": "", "replacement_history": []any{}}); err != nil {
					return err
				}
				if err := line("event_msg", map[string]any{"type": "context_compacted"}); err != nil {
					return err
				}
				prompt = int64(12_000 + rng.IntN(4000))
			}
			callID := fmt.Sprintf("call_%06d_%05d", i, k)
			args, _ := json.Marshal(map[string]any{"cmd": fmt.Sprintf("go test ./pkg%02d/...", rng.IntN(40))})
			if err := line("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": callID}); err != nil {
				return err
			}
			fresh := int64(200 + rng.IntN(shape.ResultBytes/2))
			input := prompt + fresh
			output := int64(40 + rng.IntN(400))
			reasoning := output / 3
			last := map[string]any{"input_tokens": input, "cached_input_tokens": prompt, "output_tokens": output,
				"reasoning_output_tokens": reasoning, "total_tokens": input + output}
			sum.input += input
			sum.cached += prompt
			sum.output += output
			sum.reasoning += reasoning
			sum.total += input + output
			total := map[string]any{"input_tokens": sum.input, "cached_input_tokens": sum.cached, "output_tokens": sum.output,
				"reasoning_output_tokens": sum.reasoning, "total_tokens": sum.total}
			if err := line("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"last_token_usage": last, "total_token_usage": total}}); err != nil {
				return err
			}
			tot.Add(Totals{Calls: 1, Input: fresh, CacheRead: prompt, Output: output})
			prompt += fresh
			now = now.Add(time.Second)
			size := shape.ResultBytes/4 + rng.IntN(shape.ResultBytes*3/2)
			if err := line("response_item", map[string]any{"type": "function_call_output", "call_id": callID, "output": "Process exited with code 0\nOutput:\n" + body(rng, size)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, 0, err
	}
	return map[string]Totals{path: tot}, 1, size, nil
}
