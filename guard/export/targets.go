package export

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/internal/human"
)

// Where each harness's names come from (repository, path, commit, line).
const (
	harnessRSSource   = "liliang-cn/harness-rs crates/harness-loop/src/lib.rs at v0.0.50 (a11a7f5): ToolResultPolicy, lines 90-148"
	harnessRSBuilder  = "AgentLoop::with_tool_result_policy, lib.rs line 575"
	agentScopeSource  = "agentscope-ai/agentscope-java agentscope-harness/src/main/java/io/agentscope/harness/agent/memory/compaction/ToolResultEvictionConfig.java (c2d43f8): Builder, lines 115-154"
	agentScopeAgent   = "agentscope-harness/src/main/java/io/agentscope/harness/agent/HarnessAgent.java (c2d43f8)"
	claudeEnvDoc      = "https://code.claude.com/docs/en/env-vars"
	claudeSettingsDoc = "https://code.claude.com/docs/en/settings"
	claudeMCPDoc      = "https://code.claude.com/docs/en/mcp"
	codexSource       = "openai/codex codex-rs/config/src/config_toml.rs (7cd4bc1): ConfigToml.tool_output_token_limit"
	codexApplied      = "codex-rs/models-manager/src/model_info.rs (1e020c1): with_config_overrides"
	deepSeekSource    = "deepseek-ai/deepseek-harness packages/spill/spill-policy/src/index.ts (b150a55): Config.maxInlineBytes, lines 63-77"
	deepSeekBundle    = "packages/bundle/base/cordis.patch.yml, line 352"
)

// harnessRS writes a harness-rs-loop 0.0.50 ToolResultPolicy literal.
func harnessRS(d *doc) {
	p := d.p
	d.header("harness-rs-loop 0.0.50's ToolResultPolicy")
	d.note("fields: %s", harnessRSSource)
	maxBytes := "None"
	if c, ok := ceiling(p); ok {
		n, why := convert(c, p.Unit, policy.JSONBytes)
		if why != "" {
			d.note("max_bytes: %s", why)
		}
		maxBytes = fmt.Sprintf("Some(%d)", n)
	}
	dedupe := p.Dedupe.Enabled && p.Dedupe.From == 2
	spill := p.Action == policy.Spill
	d.line("let policy = ToolResultPolicy {")
	d.line("    max_bytes: %s,", maxBytes)
	d.line("    dedupe_repeats: %t,", dedupe)
	d.line("    spill: %t,", spill)
	d.line("};")
	d.note("then: agent.with_tool_result_policy(policy) (%s)", harnessRSBuilder)
	if spill {
		d.note("harness-rs 0.0.40 has no spill field: there, remove the spill line, and results over max_bytes are truncated instead of spilled")
	} else {
		d.note("harness-rs 0.0.40 has no spill field: there, remove the spill line (it truncates, as this policy does)")
	}
	if p.Dedupe.Enabled {
		if p.Dedupe.From > 2 {
			d.cannot("harness-rs suppresses a repeat from the 2nd identical call or not at all; suppressing from the %s identical call (dedupe_repeats is left off: true would suppress from the 2nd)", human.Ordinal(p.Dedupe.From))
		}
		if p.Dedupe.Key != policy.KeyToolArgs || p.Dedupe.Clear != policy.ClearAnyWrite || len(p.Dedupe.Tools) > 0 || p.Dedupe.SameContent {
			d.cannot("harness-rs takes a call as a repeat by its tool name and arguments and forgets every call after any call that is not read-only; this policy's own rule for a repeat (key %s, cleared on %s)", p.Dedupe.Key, p.Dedupe.Clear)
		}
	}
	if spill && (p.PreviewHead != harness.HarnessRSSpillPreviewBytes || previewUnit(p) != policy.UTF8Bytes || p.PreviewTail > 0) {
		d.cannot("harness-rs's spill preview is the first 4096 bytes (SPILL_PREVIEW_BYTES, lib.rs line 178); this policy's preview (%s)", preview(p))
	}
	if !spill && p.Action == policy.TruncateMiddle {
		d.cannot("harness-rs keeps the head of the serialized result; cutting out the middle")
	}
	d.perToolCannot("harness-rs")
	d.excludeCannot("harness-rs")
	d.errorsCannot("harness-rs")
}

// agentScope writes the ToolResultEvictionConfig builder calls.
func agentScope(d *doc) {
	p := d.p
	d.header("AgentScope Java's ToolResultEvictionConfig")
	d.note("builder: %s", agentScopeSource)
	c, ok := ceiling(p)
	if !ok {
		d.note("no ceiling: HarnessAgent.builder().disableToolResultEviction() (%s, line 1827)", agentScopeAgent)
		d.dedupeCannot("AgentScope")
		return
	}
	n, why := convert(c, p.Unit, policy.UTF16Units)
	if why != "" {
		d.note("maxResultChars: %s", why)
	}
	if n > math.MaxInt32 {
		d.note("maxResultChars is a Java int: %s is more than it holds, so its largest value is given", human.Count(n))
		n = math.MaxInt32
	}
	previewChars, pwhy := convert(p.PreviewHead, previewUnit(p), policy.UTF16Units)
	if p.Style == harness.DeepSeek || p.Action != policy.Spill {
		previewChars, pwhy = 2000, ""
	}
	d.line("ToolResultEvictionConfig eviction = ToolResultEvictionConfig.builder()")
	d.line("        .maxResultChars(%d)", n)
	d.line("        .previewChars(%d)", previewChars)
	if p.Style == harness.AgentScope {
		if prefix, ok := agentScopeEvictionPath(p.SpillPath); ok && prefix != "large_tool_results" {
			d.line("        .evictionPath(%s)", javaString(prefix))
		}
	}
	// Set.of refuses a name given twice.
	var names []string
	for i, tool := range p.Exclude {
		if !slices.Contains(p.Exclude[:i], tool) {
			names = append(names, javaString(tool))
		}
	}
	d.line("        .excludedToolNames(Set.of(%s))", strings.Join(names, ", "))
	d.line("        .build();")
	d.note("then: HarnessAgent.builder().toolResultEviction(eviction) (%s, line 1820)", agentScopeAgent)
	if len(p.Exclude) == 0 {
		d.note("Set.of() replaces the nine tools AgentScope leaves alone by default: this policy shapes every tool")
	}
	switch {
	case p.Action != policy.Spill:
		d.cannot("AgentScope only evicts a result to a file, with a preview; truncating it (the ceiling above evicts instead, with the default 2000-character preview)")
	case p.Style == harness.DeepSeek:
		d.cannot("AgentScope previews a fixed number of characters at each end; this policy's preview (%s)", preview(p))
	default:
		if pwhy != "" {
			d.note("previewChars: %s", pwhy)
		}
		if p.PreviewTail != p.PreviewHead {
			d.cannot("AgentScope previews the same number of characters at head and tail (each at most half the result); this policy's preview (%s), so previewChars takes the head", preview(p))
		}
	}
	d.dedupeCannot("AgentScope")
	d.perToolCannot("AgentScope")
	d.errorsCannot("AgentScope")
}

// agentScopeEvictionPath is the eviction path prefix of an AgentScope
// spill path template ("large_tool_results/{agent}/..." gives
// "large_tool_results").
func agentScopeEvictionPath(template string) (string, bool) {
	prefix, _, ok := strings.Cut(template, "/{agent}/")
	return prefix, ok && prefix != ""
}

// javaString quotes s as a Java string literal. Java reads \u escapes
// before anything else, even in comments, so a line break or quote is
// never written as one: control characters are octal escapes, and only
// invisible and unprintable characters other than those are \u escapes.
func javaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		case r == unicode.ReplacementChar || !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r):
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// claudeCode writes the environment variables Claude Code documents for
// tool output, and notes what it has no setting for.
func claudeCode(d *doc) {
	p := d.p
	d.header("the settings Claude Code documents for tool output")
	d.note("environment variables: %s; to set them every time claude runs, put them under \"env\" in settings.json (%s)", claudeEnvDoc, claudeSettingsDoc)
	bash, limited := p.CeilingFor("Bash")
	if limited {
		n, why := convert(bash, p.Unit, policy.UTF16Units)
		if why != "" {
			d.note("BASH_MAX_OUTPUT_LENGTH: %s", why)
		}
		d.note("BASH_MAX_OUTPUT_LENGTH: the most characters of Bash output Claude Code keeps before it cuts them (%s); its default is 30000", claudeEnvDoc)
		d.line("export BASH_MAX_OUTPUT_LENGTH=%d", n)
	} else {
		d.cannot("no documented setting leaves Claude Code's Bash output unlimited; a Bash ceiling of none")
	}
	d.note("MAX_MCP_OUTPUT_TOKENS (%s, %s) caps MCP tool output in tokens, default 25000; this policy has no such token cap, so it stays at its default:", claudeEnvDoc, claudeMCPDoc)
	d.line("# export MAX_MCP_OUTPUT_TOKENS=25000")
	latest := harness.ClaudeEras[len(harness.ClaudeEras)-1]
	other, ok := ceiling(p)
	if p.Style != harness.ClaudeCode || p.Unit != policy.UTF16Units || !ok || other != latest.Ceiling {
		size := "no ceiling"
		if ok {
			size = policy.FormatSize(other, p.Unit)
		}
		d.cannot("Claude Code saves any other tool's result over 50000 characters to a file, a threshold with no documented setting (an MCP server can raise it for its own tools with _meta[\"anthropic/maxResultSizeChars\"], %s); this policy's ceiling for the other tools (%s)", claudeMCPDoc, size)
	}
	skip := []string{"Bash"}
	for tool, v := range p.PerTool {
		if w, ok := latest.PerTool[tool]; ok && w == v && p.Style == harness.ClaudeCode && p.Unit == policy.UTF16Units {
			skip = append(skip, tool) // Claude Code's own, as it is
		}
	}
	d.perToolCannot("Claude Code (a setting for Bash alone)", skip...)
	if p.Action != policy.Spill {
		d.cannot("Claude Code saves a large result to a file with a 2000-character preview (from 2.1.2); truncating it")
	} else if p.Style != harness.ClaudeCode && (p.PreviewHead != harness.ClaudePreviewUnits || previewUnit(p) != policy.UTF16Units || p.PreviewTail > 0) {
		d.cannot("Claude Code's preview is the first 2000 characters, cut at a line; this policy's preview (%s)", preview(p))
	}
	dd := p.Dedupe
	switch {
	case !dd.Enabled:
		d.cannot("Claude Code stubs a Read of a file unchanged since the last Read (from 2.1.86), with no documented setting to stop it; no repeat suppression")
	default:
		what := "repeats"
		if dd.Key != policy.KeyReadPath || len(dd.Tools) != 1 || dd.Tools[0] != "Read" {
			what = "repeats of other tools"
		}
		if dd.From > 2 || what != "repeats" {
			d.cannot("Claude Code stubs a Read of an unchanged file from the 2nd identical Read, and no other tool's; suppressing %s from the %s identical call", what, human.Ordinal(dd.From))
		}
	}
	d.excludeCannot("Claude Code")
}

// codex writes the config.toml key for Codex's tool-output limit.
func codex(d *doc) {
	p := d.p
	d.header("Codex CLI's config.toml (~/.codex/config.toml)")
	d.note("key: %s; applied per model in %s", codexSource, codexApplied)
	c, ok := ceiling(p)
	if !ok {
		d.cannot("Codex always limits tool output (10000 by default); no ceiling")
		d.line("# tool_output_token_limit = 10000")
	} else {
		n, why := convert(c, p.Unit, policy.ApproxTokens)
		if why != "" {
			d.note("tool_output_token_limit: %s", why)
		}
		limit := n * 5 / 6 // Codex records up to 1.2 times the limit
		d.note("Codex records an output up to 1.2 times the limit (codex-rs/core/src/context_manager/history.rs, process_item, a20bf05), so %s tokens act past %s; models counted in bytes get 4 bytes a token", human.Count(limit), human.Count(n))
		d.line("tool_output_token_limit = %d", limit)
	}
	if p.Action == policy.Spill {
		d.cannot("Codex never spills: an output over the limit loses its middle; spilling to a file, and its preview (%s)", preview(p))
	} else if p.Action == policy.TruncateHead {
		d.cannot("Codex keeps the head and tail of an output over the limit; keeping the head alone")
	}
	d.dedupeCannot("Codex")
	d.perToolCannot("Codex")
	d.excludeCannot("Codex")
	d.errorsCannot("Codex")
}

// deepSeek writes the spill-policy plugin entry of a cordis.patch.yml.
func deepSeek(d *doc) {
	p := d.p
	d.header("DeepSeek Harness's spill-policy plugin (a cordis.patch.yml plugin entry)")
	d.note("setting: %s; the shipped bundle sets it in %s", deepSeekSource, deepSeekBundle)
	c, ok := ceiling(p)
	var n int64
	if ok {
		var why string
		if n, why = convert(c, p.Unit, policy.UTF8Bytes); why != "" {
			d.note("maxInlineBytes: %s", why)
		}
	} else {
		d.note("no ceiling: without maxInlineBytes the plugin registers nothing (index.ts line 113)")
	}
	d.line("- id: spill-policy")
	d.line("  name: '@deepseek-ai/dsh-spill-policy'")
	if ok {
		d.line("  config:")
		d.line("    maxInlineBytes: %d", n)
	}
	if p.Action != policy.Spill {
		d.cannot("DeepSeek Harness only spills a result to a file; truncating it")
	} else if p.Style != harness.DeepSeek {
		d.cannot("DeepSeek Harness takes its preview's head and tail from what the notice leaves of maxInlineBytes; this policy's preview (%s)", preview(p))
	}
	if len(p.Exclude) != 1 || p.Exclude[0] != "read" {
		d.cannot("DeepSeek Harness leaves exactly one tool alone, read (index.ts line 197); this policy's excluded tools (%s)", orNone(quoteAll(p.Exclude)))
	}
	if p.Dedupe.Enabled {
		d.cannot("DeepSeek Harness has no repeat suppression (its repeat reminder only advises); suppressing repeats from the %s identical call", human.Ordinal(p.Dedupe.From))
	}
	d.perToolCannot("DeepSeek Harness")
	d.errorsCannot("DeepSeek Harness")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
