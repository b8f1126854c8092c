package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/internal/human"
)

// foreignRisk classifies the tools of Claude Code, Codex CLI and Antigravity the way
// harness-rs classifies its own built-ins (read_file and grep read-only,
// shell and edits destructive, web tools network, MCP destructive unless
// listed). Unknown tools clear, as harness-rs's unregistered tools do.
var foreignRisk = RiskTable{
	Exact: map[string]Risk{
		// Claude Code
		"Read": ReadOnly, "NotebookRead": ReadOnly, "Grep": ReadOnly, "Glob": ReadOnly, "LS": ReadOnly,
		"Bash": Write, "Edit": Write, "MultiEdit": Write, "Write": Write, "NotebookEdit": Write,
		"Task": Write, "Agent": Write, "TodoWrite": Write,
		"WebFetch": Network, "WebSearch": Network, "BashOutput": Network, "TaskOutput": Network,
		"ExitPlanMode": Neutral, "AskUserQuestion": Neutral,
		// Codex CLI
		"read_file": ReadOnly, "list_dir": ReadOnly, "grep_files": ReadOnly, "view_image": ReadOnly,
		"shell": Write, "shell_command": Write, "local_shell": Write, "exec_command": Write, "exec": Write,
		"write_stdin": Write, "apply_patch": Write, "update_plan": Write, "wait": Write,
		"web_search": Network,
		// Google Antigravity
		"view_file": ReadOnly, "grep_search": ReadOnly, "find_by_name": ReadOnly, "codebase_search": ReadOnly,
		"list_permissions": ReadOnly,
		"run_command":      Write, "write_to_file": Write, "replace_file_content": Write, "multi_replace_file_content": Write,
		"manage_task": Write, "invoke_subagent": Write, "manage_subagents": Write,
		"search_web": Network, "read_url_content": Network, "command_status": Network, "schedule": Neutral,
		"ask_question": Neutral,
		// harness-rs's own
		"grep": ReadOnly, "glob": ReadOnly, "shell_read": ReadOnly,
		"write_file": Write, "edit_file": Write, "shell_exec": Write,
	},
	Patterns: []RiskPattern{{Glob: "mcp__*", Risk: Write}},
	Default:  Write,
}

func harnessRS040() Policy {
	return Policy{
		Name:        "harness-rs-0.0.40",
		Description: "harness-rs-loop 0.0.40 ToolResultPolicy: 24 KiB of serialized JSON, truncation marker, repeats of read-only calls suppressed",
		Style:       harness.HarnessRS, Unit: JSONBytes, Ceiling: 24 * 1024, Action: TruncateHead,
		Dedupe: Dedupe{Enabled: true, From: 2, Key: KeyToolArgs, Clear: ClearAnyWrite},
		Risk:   foreignRisk, ShapeErrors: true, NonText: NonTextKeep, OnSpillError: FallbackTruncate,
	}
}

func harnessRS050() Policy {
	p := harnessRS040()
	p.Name = "harness-rs-0.0.50"
	p.Description = "harness-rs-loop 0.0.50: spills over 24 KiB to .harness/spill/ with a 4 KiB preview; falls back to truncation; no repeat suppression"
	p.Action = Spill
	p.PreviewHead, p.PreviewUnit = harness.HarnessRSSpillPreviewBytes, UTF8Bytes
	p.Dedupe.Enabled = false
	p.SpillPath = ".harness/spill/{call_id}-{tool}.{ext}"
	return p
}

func presetList() []Policy {
	deduped := harnessRS050()
	deduped.Name = "harness-rs-0.0.50-dedupe"
	deduped.Description = "harness-rs-loop 0.0.50 with repeat suppression on (the measured +dedupe ablation)"
	deduped.Dedupe.Enabled = true

	from3 := deduped
	from3.Name = "harness-rs-dedupe-from-3"
	from3.Description = "harness-rs-loop 0.0.50 suppressing from the third identical call (suggested, not measured)"
	from3.Dedupe.From = 3

	agentscope := Policy{
		Name:        "agentscope",
		Description: "AgentScope Java ToolResultEvictionMiddleware: over 80,000 UTF-16 units evicted to large_tool_results/ with a 2,000 + 2,000 preview",
		Style:       harness.AgentScope, Unit: UTF16Units, Ceiling: 80_000, Action: Spill,
		PreviewHead: 2000, PreviewTail: 2000, PreviewUnit: UTF16Units,
		Exclude: []string{"read_file", "write_file", "edit_file", "grep_files", "glob_files", "list_files",
			"memory_search", "memory_get", "session_search"},
		Risk: foreignRisk, ShapeErrors: true, NonText: NonTextDrop, OnSpillError: FallbackKeep,
		SpillPath: "large_tool_results/{agent}/{call_id}-{sha256_16}", Agent: "agent",
	}
	agentscopeOld := agentscope
	agentscopeOld.Name = "agentscope-pre-2026-07"
	agentscopeOld.Description = "AgentScope before 2026-07: absolute /large_tool_results/ and no content hash in the file name"
	agentscopeOld.SpillPath = "/large_tool_results/{agent}/{call_id}"

	deepseek := Policy{
		Name:        "deepseek",
		Description: "DeepSeek Harness spill policy as shipped (maxInlineBytes 50,000): head and tail from the budget the notice leaves",
		Style:       harness.DeepSeek, Unit: UTF8Bytes, Ceiling: 50_000, Action: Spill, PreviewUnit: UTF8Bytes,
		Exclude: []string{"read"}, Risk: foreignRisk, ShapeErrors: true, NonText: NonTextSkip,
		OnSpillError: FallbackKeep,
		// The private mkdtemp root (dsh-spill- and six random characters) and
		// the random name are stood in for at their real lengths.
		SpillPath: "/tmp/dsh-spill-000000/session-{session_sha12}/{random12}-{tool}.txt",
	}

	claude := claudeEra(harness.ClaudeEras[len(harness.ClaudeEras)-1])
	claude.Name = "claude-code"
	claude.Description = "Claude Code as the version that recorded the session: persisted results, Read repeat stubs and what counts as read, by version (latest rules when none is recorded)"
	claude.FollowVersion = true

	codex := Policy{
		Name:        "codex",
		Description: "Codex CLI when it records a tool output: 10,000 tokens (bytes/4) plus 20%, middle truncation with a …N tokens truncated… marker; shell output cut at 10,000 under a truncation header",
		Style:       harness.Codex, Unit: ApproxTokens, Ceiling: 10_000, Allowance: 1.2, Action: TruncateMiddle,
		// Codex's own shell tools (exec: the script output of its code
		// mode, cut after the status lines), and the shell tools of other
		// agents' logs replayed as if Codex had run them.
		ExecTools: []string{"shell", "local_shell", "container.exec", "shell_command", "exec", "Bash", "run_command"},
		Risk:      foreignRisk, ShapeErrors: true, NonText: NonTextKeep,
	}

	none := Policy{
		Name:        "none",
		Description: "no policy: every result inline, as recorded",
		Style:       harness.HarnessRS, Unit: JSONBytes, Action: TruncateHead, Risk: foreignRisk,
	}
	list := []Policy{harnessRS040(), harnessRS050(), deduped, from3, agentscope, agentscopeOld, deepseek, claude}
	for _, era := range harness.ClaudeEras {
		list = append(list, claudeEra(era))
	}
	return append(list, codex, none)
}

// claudeEra is Claude Code as it was from era.From to the next era.
func claudeEra(era harness.ClaudeEra) Policy {
	p := Policy{
		Name: "claude-code-" + era.From, Style: harness.ClaudeCode, Unit: UTF16Units, Action: Spill,
		PreviewHead: harness.ClaudePreviewUnits, PreviewUnit: UTF16Units, LineAligned: true,
		Dedupe: Dedupe{Enabled: era.ReadDedupe, From: 2, Key: KeyReadPath, Tools: []string{"Read"}, SameContent: true,
			Clear: ClearSamePath, Stub: era.Stub, WritesCount: era.WritesCount},
		Risk: foreignRisk, ShapeErrors: true, NonText: NonTextSkip, OnSpillError: FallbackKeep,
		SpillPath: "{transcript_dir}/{session}/tool-results/{call_id}.txt",
	}
	var what []string
	if era.From == "" {
		p.Name = "claude-code-pre-2.1.2"
		what = append(what, "Claude Code before 2.1.2: nothing persisted (it cut Bash output itself)")
	} else {
		p.Ceiling, p.PerTool = era.Ceiling, maps.Clone(era.PerTool)
		what = append(what, fmt.Sprintf("Claude Code from %s: persisted over %s chars (%s)", era.From, human.Count(era.Ceiling), perToolText(era.PerTool)))
	}
	switch {
	case !era.ReadDedupe:
		what = append(what, "no Read repeat stubbed")
	case era.WritesCount:
		what = append(what, "unchanged Read repeats stubbed, the model's own writes counting as reads")
	default:
		what = append(what, "unchanged Read repeats stubbed")
	}
	if era.ReadDedupe && era.Stub != harness.ClaudeReadStub {
		what[len(what)-1] += " (the earlier stub text)"
	}
	p.Description = strings.Join(what, "; ")
	return p
}

func perToolText(m map[string]int64) string {
	var parts []string
	for _, tool := range slices.Sorted(maps.Keys(m)) {
		if v := m[tool]; v < 0 {
			parts = append(parts, tool+" never")
		} else {
			parts = append(parts, tool+" "+human.Count(v))
		}
	}
	return strings.Join(parts, ", ")
}

// ForVersion is p as the Claude Code version that recorded a session
// applied it, when p follows the version: the era's persisting (none
// before 2.1.2, a 100,000-character threshold before 2.1.51; a ceiling
// tuned away from the preset's is kept), Read repeat stub and what counts
// as read. Repeat suppression stays off where it was turned off.
func ForVersion(p Policy, version string) Policy {
	if !p.FollowVersion || p.Style != harness.ClaudeCode {
		return p
	}
	p = p.Clone()
	era := harness.ClaudeEraOf(version)
	latest := harness.ClaudeEras[len(harness.ClaudeEras)-1]
	switch {
	case p.Ceiling != latest.Ceiling:
		// A ceiling set by hand is a question about that ceiling.
	case !era.Persist:
		p.Ceiling, p.PerTool = 0, nil
	default:
		p.Ceiling, p.PerTool = era.Ceiling, maps.Clone(era.PerTool)
	}
	p.Dedupe.Enabled = p.Dedupe.Enabled && era.ReadDedupe
	p.Dedupe.Stub, p.Dedupe.WritesCount = era.Stub, era.WritesCount
	recorded := "no version recorded"
	if version != "" {
		recorded = "recorded by " + version
	}
	p.Description += fmt.Sprintf(" (this session: %s, replayed with the rules of %s)", recorded, claudeEra(era).Name)
	return p
}

// Presets returns every preset, in the order spillway presets lists them.
func Presets() []Policy {
	list := presetList()
	for i := range list {
		list[i] = list[i].Clone()
	}
	return list
}

// DefaultPreset is the policy used when none is named.
const DefaultPreset = "harness-rs-0.0.50"

// Preset returns the named preset.
func Preset(name string) (Policy, error) {
	var names []string
	for _, p := range Presets() {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Policy{}, fmt.Errorf("unknown preset %q (have %s)", name, strings.Join(names, ", "))
}

// Clone copies a policy deeply, so that changing the copy (SetCeiling
// scales the per-tool map in place) leaves the original as it was.
func (p Policy) Clone() Policy {
	p.PerTool = maps.Clone(p.PerTool)
	p.Exclude = slices.Clone(p.Exclude)
	p.ExecTools = slices.Clone(p.ExecTools)
	p.Dedupe.Tools = slices.Clone(p.Dedupe.Tools)
	p.Risk.Exact = maps.Clone(p.Risk.Exact)
	p.Risk.Patterns = slices.Clone(p.Risk.Patterns)
	return p
}
