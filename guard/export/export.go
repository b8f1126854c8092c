// Package export says a tuned policy in a harness's own configuration
// language: harness-rs's ToolResultPolicy struct, AgentScope's eviction
// builder, the environment variables Claude Code documents, Codex's
// config.toml key and DeepSeek Harness's spill-policy plugin settings.
// Every name written is the one the harness's own source (or, for Claude
// Code, its documentation) uses, cited in a comment line. A knob the
// harness cannot say is written as a comment line saying so, never
// dropped.
package export

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// Target is a harness a policy can be exported to.
type Target string

// Targets, by the names the command line takes.
const (
	HarnessRS  Target = "harness-rs"
	AgentScope Target = "agentscope"
	ClaudeCode Target = "claude-code"
	Codex      Target = "codex"
	DeepSeek   Target = "deepseek"
)

// Targets lists every target.
var Targets = []Target{HarnessRS, AgentScope, ClaudeCode, Codex, DeepSeek}

// TargetNames lists the targets' names, for help and completion.
func TargetNames() []string {
	names := make([]string, len(Targets))
	for i, t := range Targets {
		names[i] = string(t)
	}
	return names
}

// ParseTarget reads a target's name.
func ParseTarget(s string) (Target, error) {
	if t := Target(s); slices.Contains(Targets, t) {
		return t, nil
	}
	return "", fmt.Errorf("unknown export target %q (have %s)", s, strings.Join(TargetNames(), ", "))
}

// Ext is the file name extension of the target's configuration language.
func (t Target) Ext() string {
	switch t {
	case HarnessRS:
		return "rs"
	case AgentScope:
		return "java"
	case ClaudeCode:
		return "sh"
	case Codex:
		return "toml"
	case DeepSeek:
		return "yml"
	}
	return "txt"
}

// Render says p in t's configuration language, ending in a newline.
func Render(p policy.Policy, t Target) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	d := &doc{p: &p}
	switch t {
	case HarnessRS:
		d.comment = "//"
		harnessRS(d)
	case AgentScope:
		d.comment = "//"
		agentScope(d)
	case ClaudeCode:
		d.comment = "#"
		claudeCode(d)
	case Codex:
		d.comment = "#"
		codex(d)
	case DeepSeek:
		d.comment = "#"
		deepSeek(d)
	default:
		return "", fmt.Errorf("unknown export target %q (have %s)", t, strings.Join(TargetNames(), ", "))
	}
	return d.b.String(), nil
}

// doc is the text being written: code lines, and comment lines in the
// language's own comment marker.
type doc struct {
	b       strings.Builder
	comment string
	p       *policy.Policy
}

func (d *doc) line(format string, args ...any) {
	fmt.Fprintf(&d.b, format, args...)
	d.b.WriteByte('\n')
}

// note writes a comment line. Its text (which can hold tool and policy
// names from a policy file) is escaped onto one line, so it can neither
// end the comment nor reach a terminal as a control sequence.
func (d *doc) note(format string, args ...any) {
	d.b.WriteString(d.comment + " " + termtext.Escape(fmt.Sprintf(format, args...)) + "\n")
}

// cannot writes a comment line for a knob the harness cannot say.
func (d *doc) cannot(format string, args ...any) {
	d.note("cannot be said here: "+format, args...)
}

// header names the policy and what the lines below configure.
func (d *doc) header(what string) {
	d.note("spillway policy %s as %s", quote(d.p.Name), what)
}

// quote shows a name from a policy in a comment.
func quote(s string) string { return fmt.Sprintf("%q", s) }

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

// ceiling is the ceiling every tool without one of its own gets, with the
// allowance applied, in the policy's unit; ok is false without one.
func ceiling(p *policy.Policy) (int64, bool) {
	if p.Ceiling <= 0 {
		return 0, false
	}
	c := p.Ceiling
	if p.Allowance > 0 && p.Allowance != 1 {
		// Rounded up as policy.CeilingFor rounds it.
		v := float64(c) * p.Allowance
		if c = int64(v); float64(c) < v {
			c++
		}
	}
	return c, true
}

// byteLike units count something close to a byte or a character of text.
func byteLike(u policy.Unit) bool {
	return u != policy.ApproxTokens && u != policy.Tokens
}

// convert is n of unit from in unit to, and a note on how it was
// converted ("" when the units are the same). Character-like units are
// taken one for one (they agree on ASCII text without escapes); a token
// is taken as 4 bytes, as Codex estimates it. Going from bytes to tokens
// rounds down, so the exported ceiling never lets through more than the
// tuned one.
func convert(n int64, from, to policy.Unit) (int64, string) {
	size := policy.FormatSize(n, from)
	switch {
	case from == to:
		return n, ""
	case byteLike(from) && byteLike(to):
		return n, fmt.Sprintf("the policy measures %s; this harness counts %s, so the same number (they agree on ASCII text without escapes)", size, unitName(to))
	case !byteLike(from) && byteLike(to):
		return n * 4, fmt.Sprintf("the policy measures %s; this harness counts %s: 4 to a token, %s", size, unitName(to), human.Count(n*4))
	case byteLike(from) && to == policy.ApproxTokens:
		return n / 4, fmt.Sprintf("the policy measures %s; this harness counts tokens as bytes/4: %s, rounded down", size, human.Count(n/4))
	default: // tokenizer tokens to bytes/4 tokens
		return n, fmt.Sprintf("the policy measures %s; this harness estimates tokens as bytes/4, so the same number", size)
	}
}

func unitName(u policy.Unit) string {
	return strings.TrimPrefix(policy.FormatSize(0, u), "0 ")
}

// perTool lists the per-tool ceilings other than those in skip, in the
// policy's unit.
func perTool(p *policy.Policy, skip ...string) string {
	var parts []string
	for _, tool := range slices.Sorted(maps.Keys(p.PerTool)) {
		if slices.Contains(skip, tool) {
			continue
		}
		if v := p.PerTool[tool]; v < 0 {
			parts = append(parts, quote(tool)+" never")
		} else {
			parts = append(parts, quote(tool)+" "+policy.FormatSize(v, p.Unit))
		}
	}
	return strings.Join(parts, ", ")
}

// perToolCannot, excludeCannot and errorsCannot note the knobs a harness
// with one ceiling for every tool has no words for.
func (d *doc) perToolCannot(harnessName string, skip ...string) {
	if s := perTool(d.p, skip...); s != "" {
		d.cannot("%s has one ceiling for every tool; the per-tool ceilings (%s)", harnessName, s)
	}
}

func (d *doc) excludeCannot(harnessName string) {
	if len(d.p.Exclude) > 0 {
		d.cannot("%s shapes every tool; the excluded tools (%s)", harnessName, quoteAll(d.p.Exclude))
	}
}

func (d *doc) errorsCannot(harnessName string) {
	if !d.p.ShapeErrors && !d.p.Inert() {
		d.cannot("%s shapes error results too; leaving them alone", harnessName)
	}
}

// dedupeCannot notes repeat suppression in a harness that has none.
func (d *doc) dedupeCannot(harnessName string) {
	if d.p.Dedupe.Enabled {
		d.cannot("%s has no repeat suppression; suppressing repeats from the %s identical call", harnessName, human.Ordinal(d.p.Dedupe.From))
	}
}

// preview describes the policy's spill preview.
func preview(p *policy.Policy) string {
	unit := p.PreviewUnit
	if unit == "" {
		unit = p.Unit
	}
	s := "head " + policy.FormatSize(p.PreviewHead, unit)
	if p.PreviewTail > 0 {
		s += ", tail " + policy.FormatSize(p.PreviewTail, unit)
	}
	if p.Style == harness.DeepSeek {
		s = "head and tail from what the notice leaves of the ceiling"
	}
	return s
}

// previewUnit is the unit the policy's previews are counted in.
func previewUnit(p *policy.Policy) policy.Unit {
	if p.PreviewUnit != "" {
		return p.PreviewUnit
	}
	return p.Unit
}
