package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/internal/validutf8"
	"github.com/spillway-dev/spillway/transcript"
)

// A Claude Code session replayed through a policy of another style is
// replayed as spillway's PostToolUse hook enforces that policy in Claude
// Code, so that what the replay says the model would have received is, to
// the byte, what the hook makes it receive. The rule, checked against
// Claude Code 2.1.328:
//
//  1. The policy measures a result as the model would receive it without
//     the policy, and shapes its subject: the output as the hook is given
//     it. A Read is measured with the line numbers Claude Code puts before
//     each line, and its subject is the file's content without them (and
//     without a "\r" that ends a line, which the numbering drops). An
//     output Claude Code persisted itself is measured and shaped whole, as
//     its tool-results file holds it (a Bash output with its leading blank
//     lines and trailing white space cut, as Claude Code sends it). Any
//     other result is its text as logged.
//  2. What the hook never sees or cannot replace stays as logged: a failed
//     call (Claude Code runs no PostToolUse hook for it), a tool whose
//     output shape the hook does not know (harness.ClaudeHookTools), a
//     Read that is not numbered lines (an empty file, an image), a
//     persisted output whose file is gone.
//  3. What the policy makes of the subject (Result.Replacement) is handed
//     to Claude Code in place of the output, and the model receives what
//     Claude Code makes of it (Result.Text): a Read's lines numbered again
//     from the same first line, in the same form; a Bash output's leading
//     blank lines and trailing white space cut; a blank text as "(Tool
//     completed with no output)".
//  4. Where that would be over Claude Code's own limit for the tool,
//     Claude Code would persist it again under a name of its own; the hook
//     leaves the output as it was instead, and so does the replay.
//  5. Repeats are judged a model response at a time (see deduper), as the
//     hook sees the calls of one response run at once.
//  6. A spill file that cannot be written leaves the output as it was,
//     where a harness-rs policy would truncate instead (see shape).
//
// A policy in Claude Code's own style is Claude Code itself, replayed by
// its own rules, never through the hook.

// hookMode tells whether a replay of p through pol is the hook's.
func hookMode(p *Prepared, pol *policy.Policy) bool {
	return p.Session.Format == transcript.FormatClaude && pol.Style != harness.ClaudeCode && !pol.Inert()
}

// hookItem is one result as the hook sees it.
// Every result of a Claude Code session has one while the session is
// held, so what only some need is held apart.
type hookItem struct {
	keep string // why the hook leaves it as logged; "" when it may replace it
	// own: the subject is the logged text itself.
	own bool
	sum atomic.Uint64 // textSum of the subject, 0 until asked
	// numbering is how Claude Code numbered a Read's lines: the subject
	// is their content. nil for other tools.
	numbering *harness.ReadNumbering
	// persisted is the output Claude Code persisted to a file: the
	// subject is its whole. nil for the others.
	persisted *hookPersisted
}

// hookPersisted is an output Claude Code persisted: the file, what
// followed its message, and the whole's sizes, which the hook measures
// (the others' are the logged text's).
type hookPersisted struct {
	path, after string
	size        [len(unitOrder)]int64
}

// hookSize is the size in unit k of what the hook measures of item i.
func (p *Prepared) hookSize(i, k int) int64 {
	if h := &p.hookView()[i]; h.persisted != nil && h.keep == "" {
		return h.persisted.size[k]
	}
	return p.items[i].size[k]
}

// hookView makes sure every item's hookItem is known.
func (p *Prepared) hookView() []hookItem {
	p.hookOnce.Do(func() {
		p.hookItems = make([]hookItem, len(p.items))
		for i := range p.items {
			it := &p.items[i]
			if h := &p.hookItems[i]; !p.hookKeeps(it, h) {
				p.hookOf(it, h, p.Text(it.r))
			}
		}
	})
	return p.hookItems
}

// hookKeeps tells whether the hook leaves it as logged whatever its text,
// and why.
func (p *Prepared) hookKeeps(it *item, h *hookItem) bool {
	switch {
	case it.r.IsError:
		h.keep = "the call failed: Claude Code runs no PostToolUse hook for it"
	case !harness.ClaudeHookTools(it.r.Tool):
		h.keep = "spillway's hook leaves this tool's output as it is"
	}
	return h.keep != ""
}

// searchCut is why a search Claude Code cut or stopped is left as it is.
const searchCut = "a search Claude Code cut or stopped, which it says in the text: spillway's hook leaves it as it is"

// hookOf works out what the hook sees of it, whose text is text.
func (p *Prepared) hookOf(it *item, h *hookItem, text string) {
	r := it.r
	if harness.ClaudePersistCut(text) {
		h.keep = "Claude Code saved only the first 64 MiB of it: spillway's hook leaves it as it is"
		return
	}
	if path, after, ok := harness.ClaudePersistedPath(text); ok {
		h.persisted = &hookPersisted{path: path, after: after}
		whole, err := p.persistedText(it, h.persisted)
		if err != nil {
			h.keep = fmt.Sprintf("Claude Code persisted it and its whole output cannot be read (%v)", err)
			return
		}
		if harness.ClaudeSearchIncomplete(r.Tool, whole) {
			h.keep = searchCut
			return
		}
		h.persisted.size = unitSizes(whole)
		return
	}
	if r.Tool == "Read" {
		// A note Claude Code put after the lines (the file's encoding)
		// makes them no Read's numbered lines: the hook leaves those too.
		n, ok := harness.ReadNumberingOf(text)
		if !ok {
			h.keep = "not a Read's numbered lines: spillway's hook leaves it as it is"
			return
		}
		h.numbering = &n
		if p.sumsEarly(r.Tool) {
			content, _, _ := harness.UnnumberRead(text)
			h.sum.Store(textSum(content))
		}
		return
	}
	if harness.ClaudeSearchIncomplete(r.Tool, text) {
		h.keep = searchCut
		return
	}
	h.own = true
	if p.sumsEarly(r.Tool) {
		h.sum.Store(textSum(text))
	}
}

// sumsEarly tells whether the hook view takes hookSum of a result of tool
// as it looks at its text: where texts are read on demand, for the tools
// repeat suppression looks at by default, so that turning it on does not
// read them all again.
func (p *Prepared) sumsEarly(tool string) bool {
	return p.texts != nil && defaultRisk().Classify(tool) == policy.ReadOnly
}

var defaultRisk = sync.OnceValue(func() policy.RiskTable {
	pol, _ := policy.Preset(policy.DefaultPreset)
	return pol.Risk
})

// hookSubject is the text the hook shapes for item i.
func (p *Prepared) hookSubject(i int) string {
	it, h := &p.items[i], &p.hookView()[i]
	switch {
	case h.numbering != nil:
		content, _, _ := harness.UnnumberRead(p.Text(it.r))
		return content
	case h.persisted != nil:
		whole, _ := p.persistedText(it, h.persisted)
		return whole
	}
	return p.Text(it.r)
}

// hookSum is textSum of item i's subject, worked out once.
func (p *Prepared) hookSum(i int) uint64 {
	h := &p.hookView()[i]
	if s := h.sum.Load(); s != 0 {
		return s
	}
	s := textSum(p.hookSubject(i))
	h.sum.Store(s)
	return s
}

// measureHook makes sure the sizes hookSize gives in unit u are known:
// the logged text's, but a persisted output's whole, whose tokens alone
// are counted when asked for.
func (p *Prepared) measureHook(u policy.Unit) {
	k := unitIndex(u)
	items := p.hookView()
	p.hookSized[k].Do(func() {
		for i := range items {
			if h := &items[i]; u == policy.Tokens && h.persisted != nil && h.keep == "" {
				h.persisted.size[k] = int64(p.Counter.Count(p.hookSubject(i)))
			}
		}
	})
}

// maxPersisted bounds what is read of a persisted output (a variable for
// tests).
var maxPersisted int64 = 64 << 20

// persistedText is the whole output of item it, which Claude Code
// persisted to h.path: the file read, a Bash output cut as Claude Code
// sends it, text blocks joined, and what followed the message.
func (p *Prepared) persistedText(it *item, h *hookPersisted) (string, error) {
	if text, ok := p.Persisted[h.path]; ok {
		return text + h.after, nil
	}
	text, err := p.readPersisted(h.path)
	if err != nil {
		return "", err
	}
	switch {
	case it.r.Tool == "Bash":
		text = harness.BashOutput(text)
	case strings.HasSuffix(h.path, ".json"):
		// Content blocks, persisted as JSON.
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.NewDecoder(strings.NewReader(text)).Decode(&blocks); err != nil {
			return "", fmt.Errorf("%s: %w", h.path, err)
		}
		var b strings.Builder
		for _, bl := range blocks {
			if bl.Type != "text" {
				return "", fmt.Errorf("%s holds a %s block", h.path, bl.Type)
			}
			b.WriteString(bl.Text)
		}
		text = b.String()
	}
	if !validutf8.String(text) {
		return "", fmt.Errorf("%s is not UTF-8 text", h.path)
	}
	return text + h.after, nil
}

// readPersisted reads a file Claude Code persisted an output to: only a
// regular file in a tool-results folder of the transcript's project
// folder, however the log names it. It is read into one string of the
// file's size: read whole into a growing buffer and copied, three 60 MB
// outputs took a report to 687 MB.
func (p *Prepared) readPersisted(path string) (string, error) {
	root := p.dir
	if filepath.Base(root) == "subagents" {
		root = filepath.Dir(filepath.Dir(root))
	}
	clean := filepath.Clean(path)
	if !filepath.IsAbs(clean) || filepath.Base(filepath.Dir(clean)) != "tool-results" ||
		!strings.HasPrefix(clean, root+string(filepath.Separator)) {
		return "", errors.New("the file it names is not in the session's tool-results folder")
	}
	info, err := os.Lstat(clean)
	if err != nil {
		return "", err
	}
	f, info, err := safefile.OpenRegular(clean, info)
	if err != nil {
		return "", err
	}
	defer f.Close()
	tooLarge := fmt.Errorf("%s is over %s", clean, human.Bytes(maxPersisted))
	if info.Size() > maxPersisted {
		return "", tooLarge
	}
	var b strings.Builder
	b.Grow(int(info.Size()))
	if _, err := io.Copy(&b, io.LimitReader(f, maxPersisted+1)); err != nil {
		return "", err
	}
	if int64(b.Len()) > maxPersisted {
		return "", tooLarge
	}
	return b.String(), nil
}

// hookAfter turns what the policy made of a result's subject into what
// the model receives through the hook (rules 3 and 4); a result the hook
// cannot replace stays as logged.
func (rp *Run) hookAfter(it *item, r *Result) {
	text, leaves := rp.hookReceives(it, r.Index, r.Text)
	if leaves != "" {
		rp.unshape(it, r, r.Reason+"; "+leaves)
		return
	}
	if text != r.Text {
		r.parts = nil
	}
	r.Replacement, r.Text = r.Text, text
}

// hookReceives is what the model receives through the hook where the
// policy makes replacement of result i's subject (rules 3 and 4), or why
// the hook leaves the result as logged. It is asked before a spill file
// is written too, so that none is written for a result the hook leaves.
func (rp *Run) hookReceives(it *item, i int, replacement string) (text, leaves string) {
	h := &rp.Prepared.hookView()[i]
	if h.keep != "" {
		return "", h.keep
	}
	text = replacement
	switch {
	case h.numbering != nil:
		text = harness.NumberRead(replacement, *h.numbering)
	case it.r.Tool == "Bash":
		text = harness.BashOutput(replacement)
	}
	if harness.ClaudeBlank(text) {
		text = harness.ClaudeNoOutput(it.r.Tool)
	}
	if limit, ok := harness.ClaudeOwnLimit(it.r.Tool); ok && harness.UTF16Over(text, limit) {
		return "", fmt.Sprintf("what the model would receive is over Claude Code's own limit of %s, which would persist it again, so the hook leaves it",
			policy.FormatSize(limit, policy.UTF16Units))
	}
	return text, ""
}

// unshape leaves r as logged.
func (rp *Run) unshape(it *item, r *Result, why string) {
	r.Outcome, r.Reason = Kept, why
	r.Text, r.parts, r.Locator, r.SpillPath, r.RepeatOf, r.Stale = it.r.Text, nil, "", "", -1, false
}

// hookSeen is Seen for a result whose subject is not its logged text: a
// Read's content seen in what the hook handed Claude Code, where it lies
// in the numbered lines logged; nothing known of a persisted output's. ok
// is false for the others.
func (rp *Run) hookSeen(r *Result) ([]harness.Range, bool) {
	if !rp.hook {
		return nil, false
	}
	h := &rp.Prepared.hookView()[r.Index]
	switch {
	case h.own || h.keep != "":
		return nil, false
	case h.numbering == nil:
		return []harness.Range{}, true
	}
	subject := rp.Prepared.hookSubject(r.Index)
	rs := harness.SeenRanges(rp.Policy.Style, subject, r.Replacement)
	for i, x := range rs {
		rs[i] = harness.Range{From: int64(harness.ReadOffset(subject, *h.numbering, int(x.From), false)),
			To: int64(harness.ReadOffset(subject, *h.numbering, int(x.To), true))}
	}
	return rs, true
}

// hookHead is, for a harness-rs result whose subject is not its logged
// text, how far into the logged text its shown head reaches (-1 when
// that is not known): hazardPass.visible's head, worked out on the
// subject.
func (rp *Run) hookHead(r *Result) (head int, ok bool) {
	if !rp.hook {
		return 0, false
	}
	h := &rp.Prepared.hookView()[r.Index]
	switch {
	case h.own || h.keep != "":
		return 0, false
	case h.numbering == nil:
		return -1, true
	}
	subject := rp.Prepared.hookSubject(r.Index)
	head = -1
	switch {
	case r.Outcome == Truncated:
		if kept, ok := bytesKept(r.Replacement); ok {
			head = (&itemMore{}).serdeHead(subject, kept-1)
		}
	case strings.HasSuffix(r.Locator, ".txt"):
		head = len(headBytes(subject, int(rp.Policy.PreviewHead)))
	}
	if head >= 0 {
		head = harness.ReadOffset(subject, *h.numbering, head, true)
	}
	return head, true
}
