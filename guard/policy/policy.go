// Package policy is the model of a tool-result policy (a size ceiling with
// truncation or spilling, repeat suppression, which tools it spares), the
// presets that reproduce real harnesses, and the checks a policy file
// passes when it is loaded.
package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/safefile"
)

// Unit is how a policy measures a result.
type Unit string

// Units, named after what each harness counts.
const (
	JSONBytes    Unit = "json_bytes"    // compact JSON of the result value, keys sorted (harness-rs)
	UTF8Bytes    Unit = "utf8_bytes"    // DeepSeek, Codex bytes mode
	UTF16Units   Unit = "utf16_units"   // Java and JavaScript string length (AgentScope, Claude Code)
	Codepoints   Unit = "codepoints"    // Python len (deepagents)
	ApproxTokens Unit = "approx_tokens" // ceil(bytes/4) (Codex tokens mode)
	Tokens       Unit = "tokens"        // the tokenizer's count
)

// Units lists every unit.
var Units = []Unit{JSONBytes, UTF8Bytes, UTF16Units, Codepoints, ApproxTokens, Tokens}

// unitNames label sizes.
var unitNames = map[Unit]string{
	JSONBytes: "JSON bytes", UTF8Bytes: "bytes", UTF16Units: "UTF-16 units", Codepoints: "code points",
	ApproxTokens: "tokens (bytes/4)", Tokens: "tokens",
}

// unitNamesOne label a size of one.
var unitNamesOne = map[Unit]string{
	JSONBytes: "JSON byte", UTF8Bytes: "byte", UTF16Units: "UTF-16 unit", Codepoints: "code point",
	ApproxTokens: "token (bytes/4)", Tokens: "token",
}

// FormatSize writes a size with its unit: "24,576 JSON bytes", "1 JSON byte".
func FormatSize(n int64, u Unit) string {
	return string(AppendSize(nil, n, u))
}

// AppendSize appends FormatSize(n, u) to dst, for a replay that says a
// size of every result without building each part apart.
func AppendSize(dst []byte, n int64, u Unit) []byte {
	names := unitNames
	if n == 1 {
		names = unitNamesOne
	}
	name, ok := names[u]
	if !ok {
		name = string(u)
	}
	dst = human.AppendCount(dst, n)
	dst = append(dst, ' ')
	return append(dst, name...)
}

// Action is what a policy does with a result over its ceiling.
type Action string

// Actions over the ceiling.
const (
	TruncateHead   Action = "truncate_head"
	TruncateMiddle Action = "truncate_middle"
	Spill          Action = "spill"
)

// Risk classifies a tool for repeat suppression.
type Risk string

// Risk classes.
const (
	ReadOnly Risk = "read_only" // may be suppressed when repeated
	Write    Risk = "write"     // changes the workspace: clears what was seen
	Network  Risk = "network"   // answers may differ: never suppressed, and clears
	// Neutral tools (questions, plans) are never suppressed; they clear
	// under any_write, as harness-rs has no such class, and change no path
	// under same_path.
	Neutral Risk = "neutral"
)

// NonText says what happens to results with image or other non-text blocks.
type NonText string

// Non-text handling.
const (
	NonTextKeep NonText = "keep" // measure the text, keep the blocks
	NonTextDrop NonText = "drop" // measure the text, drop the blocks when replacing
	NonTextSkip NonText = "skip" // leave such results alone
)

// DedupeKey is what makes two calls the same call for repeat suppression.
type DedupeKey string

// Dedupe keys.
const (
	KeyToolArgs DedupeKey = "tool_args" // tool name and canonical arguments
	KeyReadPath DedupeKey = "read_path" // path, offset and limit of a Read
)

// ClearRule is what makes repeat suppression forget the calls it has seen.
type ClearRule string

// Clearing rules.
const (
	ClearAnyWrite ClearRule = "any_write" // every key, when any call that is not read-only succeeds
	ClearSamePath ClearRule = "same_path" // a key, when a write touches its path
)

// Fallback is what happens when a spill file cannot be written.
type Fallback string

// Fallbacks.
const (
	FallbackTruncate Fallback = "truncate"      // harness-rs: the truncation marker instead
	FallbackKeep     Fallback = "keep_original" // everyone else: the result stays inline
)

// Policy holds every knob of a tool-result policy.
type Policy struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Style       harness.Style `json:"style"`

	Unit Unit `json:"unit"`
	// Ceiling in Unit; a result acts when its size is strictly greater.
	// 0 means no ceiling.
	Ceiling int64 `json:"ceiling"`
	// PerTool overrides Ceiling by tool name (exact names, then patterns
	// such as "mcp__*"); a negative value means never.
	PerTool map[string]int64 `json:"per_tool,omitempty"`
	// Allowance multiplies the ceiling (Codex adds 20% when recording).
	Allowance float64 `json:"allowance,omitempty"`
	// ExecTools are the tools whose output Codex formats as command output
	// before recording it: cut at the ceiling itself, without the
	// allowance, under a header with the original token and line counts.
	ExecTools []string `json:"exec_tools,omitempty"`
	Action    Action   `json:"action"`

	// Preview sizes for spill and truncation, in PreviewUnit.
	PreviewHead int64 `json:"preview_head"`
	PreviewTail int64 `json:"preview_tail"`
	PreviewUnit Unit  `json:"preview_unit"`
	// LineAligned moves a head cut back to the last newline when it is in
	// the second half of the preview (Claude Code).
	LineAligned bool `json:"line_aligned,omitempty"`

	Dedupe Dedupe `json:"dedupe"`
	// Risk classifies tools: exact names, then patterns, then Default.
	Risk RiskTable `json:"risk"`

	Exclude      []string `json:"exclude,omitempty"` // tool names never shaped
	ShapeErrors  bool     `json:"shape_errors"`      // apply the ceiling to error results
	NonText      NonText  `json:"non_text,omitempty"`
	SpillPath    string   `json:"spill_path,omitempty"` // template, see SpillLocator
	OnSpillError Fallback `json:"on_spill_error,omitempty"`
	// Agent names the agent in AgentScope paths.
	Agent string `json:"agent,omitempty"`
	// FollowVersion (Claude Code, Codex) replays each session as the
	// version of the harness that recorded it did: see ForVersion.
	FollowVersion bool `json:"follow_version,omitempty"`
	// HarnessVersion is the version of the harness (Claude Code, Codex)
	// whose ways of measuring and writing what the other knobs decide the
	// policy follows where they changed between versions (harness.ClaudeEra,
	// harness.CodexEra); "" is the latest.
	HarnessVersion string `json:"harness_version,omitempty"`
}

// Dedupe configures repeat suppression.
type Dedupe struct {
	Enabled bool `json:"enabled"`
	// From is the occurrence from which repeats are suppressed: 2 means
	// the second identical call already is.
	From int `json:"from"`
	// Key is what makes two calls the same call.
	Key DedupeKey `json:"key"`
	// Tools limits suppression to these names (empty: any read-only tool).
	Tools []string `json:"tools,omitempty"`
	// SameContent suppresses only when the result is byte-identical to the
	// earlier one, standing in for Claude Code's unchanged-mtime check.
	SameContent bool `json:"same_content,omitempty"`
	// Clear is what makes the calls seen so far forgotten.
	Clear ClearRule `json:"clear"`
	// Stub is the text a suppressed Claude Code Read gets ("" for the
	// last one Claude Code used, harness.ClaudeReadStub).
	Stub string `json:"stub,omitempty"`
	// WritesCount makes the agent's own write or edit of a file count as
	// a read of all of it, so that the next Read of it is a repeat. No
	// Claude Code version run here did so (a 2.1.112 log written
	// elsewhere did); no preset sets it.
	WritesCount bool `json:"writes_count,omitempty"`
}

// RiskTable maps tool names to risk classes.
type RiskTable struct {
	Exact    map[string]Risk `json:"exact,omitempty"`
	Patterns []RiskPattern   `json:"patterns,omitempty"`
	Default  Risk            `json:"default"`
}

// RiskPattern classifies tool names matching a glob.
type RiskPattern struct {
	Glob string `json:"glob"`
	Risk Risk   `json:"risk"`
}

// Classify returns the risk of a tool name.
func (t RiskTable) Classify(tool string) Risk {
	if r, ok := t.Exact[tool]; ok {
		return r
	}
	for _, p := range t.Patterns {
		if ok, _ := path.Match(p.Glob, tool); ok {
			return p.Risk
		}
	}
	if t.Default == "" {
		return Write
	}
	return t.Default
}

// CeilingFor returns the ceiling that applies to tool, in Unit, with the
// allowance applied; ok is false when the tool is never limited.
func (p *Policy) CeilingFor(tool string) (int64, bool) {
	c := p.Ceiling
	if v, ok := p.PerTool[tool]; ok {
		c = v
	} else {
		for _, glob := range sortedGlobs(p.PerTool) {
			if ok, _ := path.Match(glob, tool); ok {
				c = p.PerTool[glob]
				break
			}
		}
	}
	if c <= 0 {
		return 0, false
	}
	if !p.IsExec(tool) {
		c = p.WithAllowance(c)
	}
	return c, true
}

// WithAllowance is a ceiling with the policy's allowance applied: the
// budget Codex records any tool output within, command output too.
func (p *Policy) WithAllowance(c int64) int64 {
	if p.Allowance > 0 && p.Allowance != 1 {
		return ceilMul(c, p.Allowance)
	}
	return c
}

// IsExec tells whether tool's output is command output Codex formats.
func (p *Policy) IsExec(tool string) bool {
	return p.Style == harness.Codex && slices.Contains(p.ExecTools, tool)
}

func ceilMul(n int64, f float64) int64 {
	v := float64(n) * f
	c := int64(v)
	if float64(c) < v {
		c++
	}
	return c
}

func sortedGlobs(m map[string]int64) []string {
	var out []string
	for k := range m {
		if strings.ContainsAny(k, "*?[") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Inert tells whether the policy can never change a result.
func (p *Policy) Inert() bool {
	if p.Dedupe.Enabled || p.Ceiling > 0 {
		return false
	}
	for _, v := range p.PerTool {
		if v > 0 {
			return false
		}
	}
	return true
}

// Excluded tells whether tool is never shaped.
func (p *Policy) Excluded(tool string) bool { return slices.Contains(p.Exclude, tool) }

// Validate reports the first knob that makes no sense.
func (p *Policy) Validate() error {
	if !slices.Contains(Units, p.Unit) {
		return fmt.Errorf("policy %s: unknown unit %q", p.Name, p.Unit)
	}
	switch p.Action {
	case TruncateHead, TruncateMiddle, Spill:
	default:
		return fmt.Errorf("policy %s: unknown action %q", p.Name, p.Action)
	}
	switch p.Style {
	case harness.HarnessRS, harness.AgentScope, harness.DeepSeek, harness.ClaudeCode, harness.Codex:
	default:
		return fmt.Errorf("policy %s: unknown style %q", p.Name, p.Style)
	}
	if p.Ceiling < 0 || p.PreviewHead < 0 || p.PreviewTail < 0 {
		return fmt.Errorf("policy %s: ceiling and preview sizes must not be negative", p.Name)
	}
	// Past 2^53 a size means nothing and overflows on the way (a ceiling
	// of 2^63-1 times its allowance wrapped to a negative one, so that
	// every result was cut); the command line refuses as much.
	if p.Ceiling > MaxCeiling || p.PreviewHead > MaxCeiling || p.PreviewTail > MaxCeiling {
		return fmt.Errorf("policy %s: ceiling and preview sizes must be at most 2^53", p.Name)
	}
	for tool, c := range p.PerTool {
		if c > MaxCeiling {
			return fmt.Errorf("policy %s: per_tool %q must be at most 2^53", p.Name, tool)
		}
		if _, err := path.Match(tool, ""); err != nil {
			return fmt.Errorf("policy %s: per_tool %q is no pattern: %w", p.Name, tool, err)
		}
	}
	if p.Allowance < 0 || p.Allowance > 16 || math.IsNaN(p.Allowance) {
		return fmt.Errorf("policy %s: allowance %g must be from 0 (none) to 16", p.Name, p.Allowance)
	}
	if p.HarnessVersion != "" && !harness.ValidVersion(p.HarnessVersion) {
		return fmt.Errorf("policy %s: harness_version %q is no version (major.minor.patch)", p.Name, p.HarnessVersion)
	}
	if p.PreviewUnit != "" && !slices.Contains(Units, p.PreviewUnit) {
		return fmt.Errorf("policy %s: unknown preview_unit %q", p.Name, p.PreviewUnit)
	}
	risks := []Risk{ReadOnly, Write, Network, Neutral}
	if err := oneOf("risk.default", p.Risk.Default, risks...); err != nil {
		return fmt.Errorf("policy %s: %w", p.Name, err)
	}
	for tool, r := range p.Risk.Exact {
		if err := oneOf(fmt.Sprintf("risk.exact[%q]", tool), r, risks...); err != nil {
			return fmt.Errorf("policy %s: %w", p.Name, err)
		}
	}
	for _, pat := range p.Risk.Patterns {
		if err := oneOf(fmt.Sprintf("risk.patterns[%q]", pat.Glob), pat.Risk, risks...); err != nil {
			return fmt.Errorf("policy %s: %w", p.Name, err)
		}
		if _, err := path.Match(pat.Glob, ""); err != nil {
			return fmt.Errorf("policy %s: risk pattern %q: %w", p.Name, pat.Glob, err)
		}
	}
	if err := oneOf("dedupe.key", p.Dedupe.Key, KeyToolArgs, KeyReadPath); err != nil {
		return fmt.Errorf("policy %s: %w", p.Name, err)
	}
	if err := oneOf("dedupe.clear", p.Dedupe.Clear, ClearAnyWrite, ClearSamePath); err != nil {
		return fmt.Errorf("policy %s: %w", p.Name, err)
	}
	if err := oneOf("non_text", p.NonText, NonTextKeep, NonTextDrop, NonTextSkip); err != nil {
		return fmt.Errorf("policy %s: %w", p.Name, err)
	}
	if err := oneOf("on_spill_error", p.OnSpillError, FallbackTruncate, FallbackKeep); err != nil {
		return fmt.Errorf("policy %s: %w", p.Name, err)
	}
	if p.Dedupe.Enabled && p.Dedupe.From < 2 {
		return fmt.Errorf("policy %s: dedupe.from must be 2 or more", p.Name)
	}
	return nil
}

// oneOf checks a knob left out (empty) or set to one of the values allowed,
// so that a misspelt value is refused instead of silently doing nothing.
func oneOf[T ~string](field string, v T, allowed ...T) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return fmt.Errorf("unknown %s %q (want %s, or leave it out)", field, v, strings.Join(names, ", "))
}

// maxPolicyFile bounds a policy file, whose fields are a few names and
// numbers.
const maxPolicyFile = 1 << 20

// Load reads a policy written by Save (or by hand): a regular file of at
// most maxPolicyFile bytes (a device or a FIFO would never end).
func Load(file string) (Policy, error) {
	data, err := safefile.ReadFile(file, maxPolicyFile)
	if err != nil {
		return Policy{}, fmt.Errorf("read policy: %w", err)
	}
	var p Policy
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("policy %s: %w", file, err)
	}
	if dec.More() {
		return Policy{}, fmt.Errorf("policy %s: more after its JSON object", file)
	}
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	return p, nil
}

// Save writes p as indented JSON that Load reads back, whole or not at
// all and never through a link (safefile.WriteFile): unless replace is
// set, a file already there is left alone (fs.ErrExist).
func Save(file string, p Policy, replace bool) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.WriteFile(file, append(data, '\n'), 0o644, replace); err != nil {
		return fmt.Errorf("write policy: %w", err)
	}
	return nil
}
