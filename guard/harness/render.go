package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/human"
)

// Subject is one result as a style needs it.
type Subject struct {
	Text     string
	Tool     string
	CallID   string
	Session  string // session id
	Dir      string // folder of the transcript, for paths that live beside it
	Template string // the policy's spill path template
	// Sizes measured once per session: the serialized JSON length, the
	// UTF-16 length of text (0 means measure now).
	JSONLen, UTF16Len int64
	// Token counts remembered across replays of text and of its
	// serialization escaped once more (harness-rs's truncated head), so
	// that a new cut is counted from the bytes around it; nil counts all.
	Raw, Serde *tokens.Index
	Requoted   *Requoted
	Digest     string // SHA256Name(text), remembered per result; "" computes it
	// Repeat is how many earlier results of the session answer a call of
	// the same id (logs repeat ids): names derived from the call id alone,
	// where the harness's are random, differ by it.
	Repeat int
	// Counting: only the replacement is wanted, not a spill file's
	// content, which a style may then leave out where it would have to
	// make it (a counts-only replay).
	Counting bool
}

func (s Subject) serialized() int64 {
	if s.JSONLen == 0 {
		return JSONLen(s.Text)
	}
	return s.JSONLen
}

func (s Subject) units() int64 {
	if s.UTF16Len == 0 {
		return UTF16Len(s.Text)
	}
	return s.UTF16Len
}

// locator expands the spill path template. Placeholders: {call_id},
// {tool}, {ext}, {agent}, {sha256_16} (of the text), {session},
// {session_sha12}, {random12} (a fixed-length stand-in for a random name,
// derived from the call id), {task_id6} and {task_id8} (Claude Code's
// name for a Bash output's file, "b" and 6 or 8 characters, derived from
// the call id; the call id for any other tool) and {transcript_dir}.
func (s Subject) locator(vars map[string]string) string {
	return fill(s.Template, vars)
}

// fill replaces each {name} of template that vars holds, in one pass: a
// value that itself reads "{tool}" stays as it is.
func fill(template string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(template, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(template[i:], '}')
		if j < 0 {
			break
		}
		v, ok := vars[template[i+1:i+j]]
		if !ok {
			b.WriteString(template[:i+1])
			template = template[i+1:]
			continue
		}
		b.WriteString(template[:i])
		b.WriteString(v)
		template = template[i+j+1:]
	}
	b.WriteString(template)
	return b.String()
}

// perResultFields are the template fields that differ between the results
// of one session and policy.
var perResultFields = []string{"{call_id}", "{tool}", "{ext}", "{sha256_16}", "{random12}", "{task_id6}", "{task_id8}"}

// SpillFile is the file the template names when filled with vars: the
// locator exactly as the harness writes it, and where spillway keeps it,
// the template's last two elements (and any earlier one that holds a
// per-result field), each filled in and escaped on its own. So a '/' or
// ".." in a call id or tool name stays inside its element and two results
// never share a file, while ordinary ids keep the harness's own names.
func (s Subject) spillFile(vars map[string]string, content string) SpillFile {
	var elems []string
	for _, e := range strings.Split(s.Template, "/") {
		if e != "" && e != "." {
			elems = append(elems, e)
		}
	}
	from := max(0, len(elems)-2)
	for i := range from {
		if slices.ContainsFunc(perResultFields, func(f string) bool { return strings.Contains(elems[i], f) }) {
			from = i
			break
		}
	}
	var file []string
	for _, e := range elems[from:] {
		file = append(file, EscapeName(fill(e, vars)))
	}
	return SpillFile{Locator: s.locator(vars), File: strings.Join(file, "/"), Content: content}
}

// SpillFile is a file a spill writes: Locator is how the replacement text
// names it (exactly as the emulated harness would), File is where spillway
// stores it, relative to its spill folder.
type SpillFile struct {
	Locator string
	File    string
	Content string
}

// The harness-rs texts (crates/harness-loop/src/lib.rs), rendered from
// their Rust string continuations.
const (
	harnessTruncateNote = "This result was %d bytes and was cut to %d to protect the context window. " +
		"Do not ask for it again unchanged — narrow it: request a smaller range, a filter, or a specific field."
	harnessSpillNote = "This result was %d bytes — too large to inline, so the FULL content was saved to '%s' " +
		"(workspace-relative). Nothing was lost. Retrieve exactly the part you need: grep(path=\"%s\", pattern=...) " +
		"or read_file(path=\"%s\", offset=..., limit=...). Do not repeat the original call — it will spill again."
	harnessRepeatNote = "You already made this exact call in this run and nothing has changed the workspace since. " +
		"The earlier result above still stands — use it rather than asking again."
	HarnessRSSpillPreviewBytes = 4096
)

// HarnessRSTruncate is harness-rs's truncation marker: a byte prefix of the
// result's serialized JSON, re-escaped inside a JSON object.
func HarnessRSTruncate(s Subject, keep int64) (string, []tokens.Part) {
	total := s.serialized()
	q := s.Requoted
	if q == nil {
		q = &Requoted{}
	}
	kept, quoted := q.head(s.Text, int(keep))
	var b strings.Builder
	b.Grow(len(quoted) + len(harnessTruncateNote) + 128)
	fmt.Fprintf(&b, `{"bytes_kept":%d,"bytes_total":%d,"head":"`, kept, total)
	open := b.Len()
	b.WriteString(quoted)
	end := b.Len()
	fmt.Fprintf(&b, `","note":%s,"tool":%s,"truncated":true}`,
		serdeString(fmt.Sprintf(harnessTruncateNote, total, kept)), serdeString(s.Tool))
	text := b.String()
	// Quoting a prefix of the serialization gives a prefix of the quoted
	// serialization: the bytes between the quotes are one text's prefix.
	return text, []tokens.Part{tokens.Lit(text[:open]), tokens.Slice(s.Serde, 0, text[open:end]), tokens.Lit(text[end:])}
}

// HarnessRSSpill is harness-rs 0.0.50's spill marker and file. A text result
// is its own dominant string unless escaping makes it under 80% of its
// serialized size; then the file holds the pretty JSON (for a string, the
// quoted string itself).
func HarnessRSSpill(s Subject, previewBytes int64) (string, SpillFile) {
	total := s.serialized()
	vars := map[string]string{"call_id": harnessCallID(s.CallID), "tool": s.Tool, "ext": "txt"}
	var f SpillFile
	// The preview: head quoted, or already quoted (requoted) when the
	// file holds the serialization.
	var meta, head string
	requoted := false
	if int64(len(s.Text))*5 >= total*4 {
		f = s.spillFile(vars, s.Text)
		head = headBytes(s.Text, previewBytes)
		meta = serdeString(fmt.Sprintf("[%d bytes spilled to %s]", len(s.Text), f.Locator))
	} else {
		vars["ext"] = "json"
		if s.Counting {
			// The preview is all that is wanted of the file: a
			// counts-only replay quoting every such text whole was a
			// twentieth of what re-tuning the 2 GB fleet allocated.
			f = s.spillFile(vars, "")
		} else {
			f = s.spillFile(vars, serdeString(s.Text))
		}
		// The serialization's head quoted again, in one pass.
		q := s.Requoted
		if q == nil {
			q = &Requoted{}
		}
		_, head = q.head(s.Text, int(previewBytes))
		requoted = true
	}
	rel := f.Locator
	note := fmt.Sprintf(harnessSpillNote, total, rel, rel, rel)
	var b strings.Builder
	// Written in place, the notice in one allocation: built by parts it
	// was a seventh of what a chart of spills allocated.
	b.Grow(len(meta) + len(note) + 2*len(rel) + len(head) + len(head)/8 + len(s.Tool) + 128)
	b.WriteString(`{"bytes_total":`)
	b.WriteString(strconv.FormatInt(total, 10))
	b.WriteByte(',')
	if meta != "" && len(meta) <= HarnessRSSpillPreviewBytes {
		b.WriteString(`"meta":`)
		b.WriteString(meta)
		b.WriteByte(',')
	}
	b.WriteString(`"note":`)
	writeSerde(&b, note)
	b.WriteString(`,"path":`)
	writeSerde(&b, rel)
	b.WriteString(`,"preview":`)
	if requoted {
		b.WriteByte('"')
		b.WriteString(head)
		b.WriteByte('"')
	} else {
		writeSerde(&b, head)
	}
	b.WriteString(`,"spilled":true,"tool":`)
	writeSerde(&b, s.Tool)
	b.WriteByte('}')
	return b.String(), f
}

// HarnessRSUnwritable says why harness-rs 0.0.50 could not write the spill
// file of a result of tool, or "" when it could. It writes
// .harness/spill/<call id>-<tool>.<ext> with the tool name joined as is
// (spill_oversized in crates/harness-loop/src/lib.rs), so a '/' names a
// folder that does not exist, a NUL is no path at all, and a name over 255
// bytes is too long; on any such failure it truncates instead.
func HarnessRSUnwritable(tool, callID string) string {
	switch {
	case strings.ContainsRune(tool, '/'):
		return "the tool name has a '/', so harness-rs cannot write its spill file"
	case strings.ContainsRune(tool, 0):
		return "the tool name has a NUL byte, so harness-rs cannot write its spill file"
	case len(tool) > 255-len("-.json")-maxCallIDBytes && len(harnessCallID(callID))+len("-")+len(tool)+len(".json") > 255:
		// (most names fit whatever the id: it is cut to maxCallIDBytes)
		return "the spill file's name would be over 255 bytes, so harness-rs cannot write it"
	}
	return ""
}

// maxCallIDBytes is the most of a call id harness-rs names a file with.
const maxCallIDBytes = 48

// harnessCallID keeps ASCII letters, digits, '-' and '_' of a call id, at
// most maxCallIDBytes of them, or "call" when none is left.
func harnessCallID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() == maxCallIDBytes {
			break
		}
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "call"
	}
	return b.String()
}

func HarnessRSRepeat(tool string) string {
	return fmt.Sprintf(`{"note":%s,"repeat_of_earlier_call":true,"tool":%s}`, serdeString(harnessRepeatNote), serdeString(tool))
}

// AgentScopeSpill is AgentScope's eviction placeholder
// (ToolResultEvictionMiddleware.buildPlaceholder): %,d in an English
// locale and %n as "\n".
func AgentScopeSpill(s Subject, agent string, head, tail int64) (string, []tokens.Part, SpillFile) {
	n := s.units()
	digest := s.Digest
	if digest == "" {
		digest = SHA256Name(s.Text)
	}
	f := s.spillFile(map[string]string{"agent": javaSafe(agent), "call_id": javaSafe(s.CallID), "sha256_16": digest}, s.Text)
	locator := f.Locator
	notice := fmt.Sprintf("Tool output was too large (%s chars) and has been saved to `%s`.\nTo read the full output, use `read_file` with path `%s`.\n\n",
		human.Count(n), locator, locator)
	pHead, pTail := min(head, n/2), min(tail, n/2)
	if pHead <= 0 && pTail <= 0 {
		return notice, nil, f
	}
	parts := []tokens.Part{
		tokens.Lit(notice + fmt.Sprintf("Preview (first %s chars):\n", human.Count(pHead))),
		headPart(s.Raw, s.Text, headUnits(s.Text, pHead)),
		tokens.Lit(fmt.Sprintf("\n\n... and last %s chars:\n", human.Count(pTail))),
		tailPart(s.Raw, s.Text, tailUnits(s.Text, pTail)),
	}
	return join(parts), parts, f
}

// headPart is head as a part of text: a slice of it when it is its
// prefix, else (a cut surrogate pair) a literal.
func headPart(ix *tokens.Index, text, head string) tokens.Part {
	if strings.HasPrefix(text, head) {
		return tokens.Slice(ix, 0, head)
	}
	return tokens.Lit(head)
}

// tailPart is tail as a part of text, as headPart.
func tailPart(ix *tokens.Index, text, tail string) tokens.Part {
	if strings.HasSuffix(text, tail) {
		return tokens.Slice(ix, len(text)-len(tail), tail)
	}
	return tokens.Lit(tail)
}

// join is the text of parts.
func join(parts []tokens.Part) string {
	n := 0
	for _, p := range parts {
		n += len(p.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// SHA256Name is the first 16 hex digits of the SHA-256 of text.
func SHA256Name(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// javaSafe replaces every character outside [A-Za-z0-9_-] with '_', one per
// code point: Java's regex matches a surrogate pair as one character.
func javaSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// DeepSeek Harness's spill notice (packages/spill/spill-policy) and the
// local store's retrieval hint.
const (
	deepseekHint = "Use read with offset/limit, or grep this path to search within it."
)

// DeepSeekSpill is DeepSeek Harness's spill of a result over cap bytes.
// ok is false when even the notice does not fit: the original then stays.
func DeepSeekSpill(s Subject, cap int64) (text string, parts []tokens.Part, f SpillFile, ok bool) {
	sessionSum := sha256.Sum256([]byte(s.Session))
	// The plugin's names are random; the stand-in is derived from the call
	// id, and from its repeat, so that two results never share a file.
	id := s.CallID
	if s.Repeat > 0 {
		id += "\x00" + strconv.Itoa(s.Repeat)
	}
	callSum := sha256.Sum256([]byte(id))
	f = s.spillFile(map[string]string{
		"session_sha12": hex.EncodeToString(sessionSum[:])[:12],
		"random12":      hex.EncodeToString(callSum[:6]),
		"tool":          deepseekToolName(s.Tool),
	}, s.Text)
	text, parts, ok = deepseekReplace(s.Text, s.Raw, cap, f.Locator, deepseekHint)
	return text, parts, f, ok
}

// deepseekReplace is the replacement text (spill-policy's spillReplacement):
// the notice is first priced with the whole size omitted, plus 2 bytes for
// the blank line; the rest of the cap is the preview budget, half (rounded
// up) to the head and half to the tail, both trimmed to whole characters,
// with nothing between them.
func deepseekReplace(text string, ix *tokens.Index, cap int64, locator, hint string) (string, []tokens.Part, bool) {
	total := int64(len(text))
	notice := func(omitted int64) string {
		return fmt.Sprintf("(Omitted %d bytes. Full formatted result stored at: %s. %s)", omitted, locator, hint)
	}
	budget := max(0, cap-int64(len(notice(total)))-2)
	head := headBytes(text, (budget+1)/2)
	tail := tailBytes(text, budget/2)
	out := notice(total - int64(len(head)+len(tail)))
	var parts []tokens.Part
	if head != "" || tail != "" {
		parts = []tokens.Part{headPart(ix, text, head), tailPart(ix, text, tail), tokens.Lit("\n\n" + out)}
		out = join(parts)
	}
	return out, parts, int64(len(out)) <= cap && int64(len(out)) < total
}

// deepseekToolName is the tool's part of the file name the DeepSeek local
// store gives a spill: the plugin suggests "<tool>.txt" (spill-policy's
// spillReplacement) and the store encodes that whole name as one segment,
// so an empty tool leaves "-.txt" and "." leaves "-..txt". Encoding keeps
// the ".txt", which the template spells out.
func deepseekToolName(tool string) string {
	return strings.TrimSuffix(encodeSegment(tool+".txt"), ".txt")
}

// encodeSegment is the DeepSeek local store's file-name encoding: UTF-16
// code units outside [A-Za-z0-9._-] (and '~') become ~XXXX.
func encodeSegment(s string) string {
	switch s {
	case "":
		return "~"
	case ".":
		return "~002E"
	case "..":
		return "~002E~002E"
	}
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		if u < 0x80 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9' || u == '.' || u == '_' || u == '-') {
			b.WriteByte(byte(u))
		} else {
			fmt.Fprintf(&b, "~%04X", u)
		}
	}
	return b.String()
}

// ClaudePreviewUnits is the preview Claude Code's persisted-output message
// (buildLargeToolResultMessage) inlines.
const ClaudePreviewUnits = 2000

// ClaudeSpill persists the result and inlines a head preview cut back to
// the last newline when that is past half of it, as Claude Code of era
// did: a surrogate pair the preview's end cuts through is left out, or
// ends it with its first half. An MCP tool's result is persisted as its
// content blocks in indented JSON, which the preview and the size then
// show. The size is in UTF-16 units, or a Bash output's in bytes.
func ClaudeSpill(s Subject, era ClaudeEra, previewUnits int64, lineAligned bool) (string, SpillFile) {
	content, ext := s.Text, "txt"
	n := s.units()
	switch {
	case ClaudeBlocks(s.Tool):
		content, ext = claudeBlocksJSON(s.Text), "json"
		n = UTF16Len(content)
	case s.Tool == "Bash" && era.BashBytes:
		n = int64(len(s.Text))
	}
	f := s.spillFile(map[string]string{"transcript_dir": s.Dir, "session": s.Session, "call_id": s.CallID,
		"task_id6": claudeTaskID(s, 6), "task_id8": claudeTaskID(s, 8), "ext": ext}, content)
	return claudePersisted(n, f.Locator, content, previewUnits, lineAligned, era.WholePairs), f
}

// headUnits is the first n UTF-16 code units of s; a cut through a
// surrogate pair keeps its first half, which is sent as U+FFFD.
func headUnits(s string, n int64) string { return headUnitsPairs(s, n, false) }

// headUnitsPairs is headUnits, or with wholePairs without the half of a
// surrogate pair the cut goes through.
func headUnitsPairs(s string, n int64, wholePairs bool) string {
	var used int64
	for i, r := range s {
		w := int64(1)
		if r >= 0x10000 {
			w = 2
		}
		if used+w > n {
			if used < n && !wholePairs { // half a pair
				return s[:i] + "\uFFFD"
			}
			return s[:i]
		}
		used += w
	}
	return s
}

// tailUnits is the last n UTF-16 code units of s.
func tailUnits(s string, n int64) string {
	var used int64
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		w := int64(1)
		if r >= 0x10000 {
			w = 2
		}
		if used+w > n {
			if used < n {
				return "\uFFFD" + s[i:]
			}
			return s[i:]
		}
		used += w
		i -= size
	}
	return s
}

// fileSize is Claude Code's formatFileSize: binary units, one decimal
// rounded half up as JavaScript's toFixed does, a trailing ".0" dropped.
func fileSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	unit, div := "KB", int64(1024)
	for _, u := range []string{"MB", "GB"} {
		if n < div*1024 {
			break
		}
		unit, div = u, div*1024
	}
	tenths := (n*10 + div/2) / div
	if tenths%10 == 0 {
		return fmt.Sprintf("%d%s", tenths/10, unit)
	}
	return fmt.Sprintf("%d.%d%s", tenths/10, tenths%10, unit)
}

// agentSpillPaths read the file a recorded agent spilled a result to out of
// its own notice, one pattern per text above that names one: ClaudeSpill,
// AgentScopeSpill, HarnessRSSpill and DeepSeekSpill. They are compiled on
// first use, not at every start of the program.
var agentSpillPaths = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`Full output saved to: (\S+)`),                          // Claude Code <persisted-output>
		regexp.MustCompile(`has been saved to ` + "`" + `([^` + "`" + `]+)` + "`"), // AgentScope
		regexp.MustCompile(`"path":"(\.harness/spill/[^"]+)"`),                     // harness-rs
		regexp.MustCompile(`stored at: (\S+)\. `),                                  // DeepSeek Harness
	}
})

// AgentSpillPath is the file a recorded result says the agent spilled its
// full text to, found in the first 64 KiB; "" when it names none.
func AgentSpillPath(text string) string {
	if len(text) > 64<<10 {
		text = text[:64<<10]
	}
	for _, re := range agentSpillPaths() {
		if m := re.FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	return ""
}
