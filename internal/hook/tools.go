package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/internal/safefile"
)

// output is a tool's output as the hook is given it (tool_response), read
// as Claude Code 2.1.328 reads it: text is what Claude Code alone would
// send the model for it, as its log would record it; replace makes the
// tool_response that Claude Code turns into a given text.
type output struct {
	text          string
	images, other int
	plain         bool // an MCP output that is a string, not content blocks
	replace       func(text string, keepBlocks bool) (any, error)
}

// errShape is a tool_response the hook does not read: the output goes
// through unchanged.
type errShape struct{ why string }

func (e errShape) Error() string { return e.why }

// readOutput reads the tool_response of tool; nil, nil for a tool whose
// output spillway's hook never replaces (harness.ClaudeHookTools), which
// the policy still sees for repeat suppression.
func readOutput(tool string, resp json.RawMessage) (*output, error) {
	if !harness.ClaudeHookTools(tool) {
		return nil, nil
	}
	if strings.HasPrefix(tool, "mcp__") {
		return readMCP(resp)
	}
	if len(resp) == 0 || resp[0] != '{' {
		return nil, errShape{fmt.Sprintf("%s's output is not a JSON object", tool)}
	}
	switch tool {
	case "Read":
		return readRead(resp)
	case "Bash":
		return readBash(resp)
	case "Grep":
		return readGrep(resp)
	case "Glob":
		return readGlob(resp)
	case "WebFetch":
		return readWebFetch(resp)
	}
	return nil, nil
}

// decode reads a tool_response into v, the fields the hook reads: one
// pass over a text that can be large. Its other fields are kept by the
// replacement, which reads them only when it is made (fieldsOf).
func decode(resp json.RawMessage, tool string, v any) error {
	if err := json.Unmarshal(resp, v); err != nil {
		return errShape{fmt.Sprintf("a %s output Claude Code did not write (%v)", tool, err)}
	}
	return nil
}

// fieldsOf is a JSON object's fields, as they are.
func fieldsOf(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	return fields, nil
}

// with is fields with name set to v (and the names in drop left out).
func with(fields map[string]json.RawMessage, set map[string]any, drop ...string) map[string]any {
	out := make(map[string]any, len(fields)+len(set))
	for k, v := range fields {
		out[k] = v
	}
	for _, k := range drop {
		delete(out, k)
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}

// A Read is numbered from its start line (mapToolResultToToolResultBlockParam
// of its "text" output); a Read of an image, a PDF or a notebook is left.
func readRead(resp json.RawMessage) (*output, error) {
	var r struct {
		Type string
		File struct {
			FilePath  string
			Content   string
			StartLine *int
		}
	}
	if err := decode(resp, "Read", &r); err != nil {
		return nil, err
	}
	if r.Type != "text" {
		return nil, errShape{fmt.Sprintf("a Read of type %q", r.Type)}
	}
	if notedEncoding(r.File.FilePath, r.File.Content) {
		// Claude Code adds a note after the lines of such a file (NUL
		// bytes, bytes not UTF-8, UTF-16 big-endian: Edit and Write will
		// refuse it), which the hook does not see and which a replacement
		// would lose.
		return nil, errShape{"a Read of a file that is not plain UTF-8 text: Claude Code notes it after the lines, which a replacement would lose; left as it is"}
	}
	start := 1
	if r.File.StartLine != nil {
		start = *r.File.StartLine
	}
	text := "" // an empty file's warning: not numbered lines, left as it is
	if r.File.Content != "" {
		text = harness.NumberRead(harness.ReadContent(r.File.Content), harness.ReadNumbering{Start: start, Sep: "\t"})
	}
	return &output{text: text, replace: func(t string, _ bool) (any, error) {
		fields, err := fieldsOf(resp)
		if err != nil {
			return nil, err
		}
		file, err := fieldsOf(fields["file"])
		if err != nil {
			return nil, err
		}
		return with(fields, map[string]any{"file": with(file, map[string]any{"content": t})}), nil
	}}, nil
}

// bashOutput is what Claude Code reads of a Bash output.
type bashOutput struct {
	Stdout, Stderr                 string
	Interrupted, IsImage           bool
	BackgroundTaskID               string `json:"backgroundTaskId"`
	StructuredContent              []json.RawMessage
	PersistedOutputPath            string
	PersistedOutputSize            int64
	StdoutHoldsOutputEnd           bool
	MemoryLimitNote, TriggeredNote string
	StaleReadFileStateHint         string
	GhRateLimitHint                string
}

// A Bash output is its stdout cut as Claude Code cuts it, or the message
// for an output Claude Code persisted, then its stderr and notes, a line
// each; an interrupted, backgrounded, image or structured output is left.
func readBash(resp json.RawMessage) (*output, error) {
	var b bashOutput
	if err := decode(resp, "Bash", &b); err != nil {
		return nil, err
	}
	switch {
	case b.Interrupted, b.IsImage, b.BackgroundTaskID != "", len(b.StructuredContent) > 0, b.StdoutHoldsOutputEnd:
		return nil, errShape{"an interrupted, backgrounded, image or structured Bash output"}
	case b.PersistedOutputPath != "" && b.PersistedOutputSize >= harness.ClaudePersistLimit:
		// Its file holds only the first 64 MiB: a spill of it would say
		// it holds the whole.
		return nil, errShape{"a Bash output Claude Code saved only the first 64 MiB of"}
	}
	out := harness.BashOutput(b.Stdout)
	if b.PersistedOutputPath != "" {
		out = harness.ClaudePersisted(b.PersistedOutputSize, b.PersistedOutputPath, out, harness.ClaudePreviewUnits, true)
	}
	parts := []string{out, strings.TrimFunc(b.Stderr, isSpace)}
	if (b.MemoryLimitNote != "" || b.TriggeredNote != "") && parts[0] == "" && parts[1] == "" {
		parts = append(parts, harness.ClaudeNoOutput("Bash"))
	}
	parts = append(parts, b.MemoryLimitNote, b.TriggeredNote, b.StaleReadFileStateHint, b.GhRateLimitHint)
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	text := strings.Join(kept, "\n")
	if harness.ClaudeBlank(text) {
		text = harness.ClaudeNoOutput("Bash")
	}
	return &output{text: text, replace: func(t string, _ bool) (any, error) {
		fields, err := fieldsOf(resp)
		if err != nil {
			return nil, err
		}
		// The persisted copy and the notes are left out: what they held is
		// in the text.
		return with(fields, map[string]any{"stdout": t, "stderr": ""}, "persistedOutputPath", "persistedOutputSize",
			"memoryLimitNote", "triggeredNote", "staleReadFileStateHint", "ghRateLimitHint", "returnCodeInterpretation"), nil
	}}, nil
}

func isSpace(r rune) bool { return harness.ClaudeBlank(string(r)) }

// grepOutput is what Claude Code reads of a Grep output.
type grepOutput struct {
	Mode                                    string
	NumFiles, NumMatches, TotalFiles        *int
	Filenames                               []string
	Content                                 string
	AppliedLimit, AppliedOffset, TotalLines *int
	TimedOut                                bool
}

// A Grep output reads as its mapper writes it, in each mode.
func readGrep(resp json.RawMessage) (*output, error) {
	var g grepOutput
	if err := decode(resp, "Grep", &g); err != nil {
		return nil, err
	}
	if g.TimedOut {
		return nil, errShape{"a Grep that timed out"}
	}
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	page := ""
	switch {
	case g.AppliedLimit != nil && g.AppliedOffset != nil && *g.AppliedOffset > 0:
		page = fmt.Sprintf("limit: %d, offset: %d", *g.AppliedLimit, *g.AppliedOffset)
	case g.AppliedLimit != nil:
		page = fmt.Sprintf("limit: %d", *g.AppliedLimit)
	case g.AppliedOffset != nil && *g.AppliedOffset > 0:
		page = fmt.Sprintf("offset: %d", *g.AppliedOffset)
	}
	var text string
	switch g.Mode {
	case "content":
		text = g.Content
		if text == "" {
			if n(g.AppliedOffset) > 0 && n(g.TotalLines) > 0 {
				text = "No entries at this offset"
			} else {
				text = "No matches found"
			}
		}
		if page != "" {
			text += "\n\n[Showing results with pagination = " + page + "]"
		}
	case "count":
		matches, files := n(g.NumMatches), n(g.NumFiles)
		text = g.Content
		if text == "" {
			text = "No matches found"
			if matches > 0 {
				text = "No entries at this offset"
			}
		}
		text += fmt.Sprintf("\n\nFound %d total %s across %d %s.", matches, plural(matches, "occurrence"), files, plural(files, "file"))
		if page != "" {
			text += " with pagination = " + page
		}
	case "files_with_matches", "":
		if n(g.NumFiles) == 0 {
			text = "No files found"
			if n(g.AppliedOffset) > 0 && n(g.TotalFiles) > 0 {
				text = "No entries at this offset. [Showing results with pagination = " + page + "]"
			}
			break
		}
		head := fmt.Sprintf("Found %d %s", n(g.NumFiles), plural(n(g.NumFiles), "file"))
		if page != "" {
			head += " " + page
		}
		text = head + "\n" + strings.Join(g.Filenames, "\n")
	default:
		return nil, errShape{fmt.Sprintf("a Grep output of mode %q", g.Mode)}
	}
	return &output{text: text, replace: func(t string, _ bool) (any, error) {
		return map[string]any{"mode": "content", "numFiles": 0, "filenames": []string{}, "content": t}, nil
	}}, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// A Glob output is its file names a line each; a truncated or timed-out
// one, whose note the hook does not know, is left.
func readGlob(resp json.RawMessage) (*output, error) {
	var g struct {
		Filenames           []string
		Truncated, TimedOut bool
	}
	if err := decode(resp, "Glob", &g); err != nil {
		return nil, err
	}
	if g.Truncated || g.TimedOut {
		return nil, errShape{"a truncated or timed-out Glob"}
	}
	text := strings.Join(g.Filenames, "\n")
	if len(g.Filenames) == 0 {
		text = "No files found"
	}
	return &output{text: text, replace: func(t string, _ bool) (any, error) {
		fields, err := fieldsOf(resp)
		if err != nil {
			return nil, err
		}
		return with(fields, map[string]any{"filenames": []string{t}, "truncated": false}), nil
	}}, nil
}

// A WebFetch output is its result; one the model may cite, which Claude
// Code sends as a search result, is left.
func readWebFetch(resp json.RawMessage) (*output, error) {
	var w struct {
		Result  string
		Citable bool
	}
	if err := decode(resp, "WebFetch", &w); err != nil {
		return nil, err
	}
	if w.Citable {
		return nil, errShape{"a WebFetch result the model may cite"}
	}
	return &output{text: w.Result, replace: func(t string, _ bool) (any, error) {
		fields, err := fieldsOf(resp)
		if err != nil {
			return nil, err
		}
		return with(fields, map[string]any{"result": t}, "citable"), nil
	}}, nil
}

// An MCP tool's output is its content blocks (or a string), sent as they
// are: its text is the text blocks joined.
func readMCP(resp json.RawMessage) (*output, error) {
	var s string
	if json.Unmarshal(resp, &s) == nil {
		return &output{text: s, plain: true, replace: func(t string, _ bool) (any, error) { return t, nil }}, nil
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(resp, &blocks); err != nil {
		return nil, errShape{"an MCP output that is neither content blocks nor a string"}
	}
	out := &output{}
	var b strings.Builder
	var nonText []json.RawMessage
	for _, raw := range blocks {
		var bl struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(raw, &bl); err != nil {
			return nil, errShape{"an MCP content block that is not an object"}
		}
		switch {
		case bl.Type == "text" && bl.Text != nil:
			b.WriteString(*bl.Text)
		case bl.Type == "image":
			out.images++
			nonText = append(nonText, raw)
		default:
			out.other++
			nonText = append(nonText, raw)
		}
	}
	out.text = b.String()
	out.replace = func(t string, keepBlocks bool) (any, error) {
		content := []any{map[string]any{"type": "text", "text": t}}
		if keepBlocks {
			for _, raw := range nonText {
				content = append(content, raw)
			}
		}
		return content, nil
	}
	return out, nil
}

// notedEncoding tells whether Claude Code 2.1.328 follows a Read of the
// file at path with a note on its encoding, as it decides it from the
// whole file (its readFile's check, whatever range was read): not behind
// UTF-16's little-endian mark, and starting with the big-endian one, or
// with a NUL in its first 8,000 bytes, or not valid UTF-8 (its first 64
// MiB looked at). Where the file cannot be read, the content read tells
// as far as it can: a NUL, or a U+FFFD for bytes not UTF-8.
func notedEncoding(path, content string) bool {
	f, _, err := safefile.OpenRegular(path, nil)
	if err != nil {
		return strings.ContainsAny(content, "\x00\uFFFD")
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	held, read := 0, 0
	for read < 64<<20 {
		n, err := f.Read(buf[held:])
		data := buf[:held+n]
		if read == 0 && n > 0 {
			switch {
			case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
				return false // UTF-16, little-endian: read as such, no note
			case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0:
				return true
			}
		}
		read += n
		// A rune cut at the end of what was read waits for its next bytes.
		held = 0
		for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax+1; i-- {
			if utf8.RuneStart(data[i]) {
				if !utf8.FullRune(data[i:]) {
					held = len(data) - i
				}
				break
			}
		}
		if !utf8.Valid(data[:len(data)-held]) {
			return true
		}
		copy(buf, data[len(data)-held:])
		if err != nil {
			return held > 0 // a rune cut by the end of the file
		}
	}
	return false
}
