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

	claude := claudeEra(len(harness.ClaudeEras) - 1)
	claude.Name = "claude-code"
	claude.Description = "Claude Code as the version that recorded the session: its own cut of Bash and Grep output (before 2.1.2), the results it persisted and at what sizes, and its Read repeat stubs (2.1.86 to 2.1.316); the latest rules where no version is recorded"
	claude.FollowVersion = true
	// On as the versions had it: ForVersion turns it off for a session of
	// a version that stubbed no Read.
	claude.Dedupe.Enabled = true

	codex := codexEra(len(harness.CodexEras) - 1)
	codex.Name = "codex"
	codex.Description = "Codex CLI as the version that recorded the session: every tool output recorded within 12,000 tokens (bytes/4; 10,000 plus 20%), cut in the middle under a …N tokens truncated… marker; command output cut at 10,000 after its status lines under a header of its era; the latest rules where no version is recorded"
	codex.FollowVersion = true

	none := Policy{
		Name:        "none",
		Description: "no policy: every result inline, as recorded",
		Style:       harness.HarnessRS, Unit: JSONBytes, Action: TruncateHead, Risk: foreignRisk,
	}
	list := []Policy{harnessRS040(), harnessRS050(), deduped, from3, agentscope, agentscopeOld, deepseek, claude}
	for i := range harness.ClaudeEras {
		list = append(list, claudeEra(i))
	}
	list = append(list, codex)
	for i := range harness.CodexEras {
		list = append(list, codexEra(i))
	}
	return append(list, none)
}

// eraName is a preset's name for the era from from to the next: "" is
// before the second era.
func eraName(harnessName, from string, eras []string) string {
	if from == "" {
		return harnessName + "-pre-" + eras[1]
	}
	return harnessName + "-" + from
}

// eraRange says which versions an era spans.
func eraRange(froms []string, i int) string {
	switch {
	case i == 0:
		return "before " + froms[1]
	case i == len(froms)-1:
		return froms[i] + " and later"
	}
	return "from " + froms[i] + " until " + froms[i+1]
}

func claudeFroms() []string {
	return eraFroms(harness.ClaudeEras, func(e harness.ClaudeEra) string { return e.From })
}

// eraFroms are the first versions of eras.
func eraFroms[E any](eras []E, from func(E) string) []string {
	var out []string
	for _, e := range eras {
		out = append(out, from(e))
	}
	return out
}

// claudeEra is Claude Code as it was from era i to the next: the knobs of
// harness.ClaudeEras[i], and a description naming its rules and no other.
func claudeEra(i int) Policy {
	era := harness.ClaudeEras[i]
	froms := claudeFroms()
	p := Policy{
		Name: eraName("claude-code", era.From, froms), Style: harness.ClaudeCode, Unit: UTF16Units, Action: Spill,
		PreviewHead: harness.ClaudePreviewUnits, PreviewUnit: UTF16Units, LineAligned: true,
		Dedupe: Dedupe{Enabled: era.ReadDedupe, From: 2, Key: KeyReadPath, Tools: []string{"Read"}, SameContent: true,
			Clear: ClearSamePath, Stub: era.Stub},
		Risk: foreignRisk, ShapeErrors: true, NonText: NonTextSkip, OnSpillError: FallbackKeep,
		SpillPath: era.SpillPath, HarnessVersion: eraVersion(era.From),
	}
	var what []string
	if !era.Persist {
		p.Action, p.PerTool = TruncateHead, maps.Clone(era.Cut)
		what = append(what, cutText(era.Cut))
	} else {
		p.Ceiling, p.PerTool = era.Ceiling, maps.Clone(era.PerTool)
		what = append(what, persistText(era))
	}
	if era.ReadDedupe {
		stub := "unchanged Read repeats stubbed"
		if era.Stub != harness.ClaudeReadStub {
			stub += " (the earlier stub text)"
		}
		what = append(what, stub)
	} else {
		what = append(what, "Read repeats sent in full")
	}
	p.Description = "Claude Code " + eraRange(froms, i) + ": " + strings.Join(what, "; ")
	return p
}

// cutText says what Claude Code cut itself before 2.1.2.
func cutText(cut map[string]int64) string {
	var parts []string
	for _, tool := range slices.Sorted(maps.Keys(cut)) {
		parts = append(parts, fmt.Sprintf("%s output over %s characters cut to its first %s", tool, human.Count(cut[tool]), human.Count(cut[tool])))
	}
	return andList(parts) + ", ended \"... [N lines truncated] ...\"; nothing persisted"
}

// andList joins "a", "b" and "c" as "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// persistText says what an era persisted, how it measured it, and where.
func persistText(era harness.ClaudeEra) string {
	var parts []string
	for _, tool := range slices.Sorted(maps.Keys(era.PerTool)) {
		if v := era.PerTool[tool]; v > 0 {
			unit := "characters"
			if tool == "Bash" && era.BashBytes {
				unit = "bytes"
			}
			parts = append(parts, fmt.Sprintf("%s output over %s %s", tool, human.Count(v), unit))
		}
	}
	if era.Ceiling > 0 {
		other := fmt.Sprintf("any other tool's result over %s", human.Count(era.Ceiling))
		if era.BlocksAsJSON {
			other += " (an MCP result's blocks in JSON)"
		}
		parts = append(parts, other)
	}
	text := andList(parts) + " persisted with a 2,000-character preview"
	var never []string
	for _, tool := range slices.Sorted(maps.Keys(era.PerTool)) {
		if era.PerTool[tool] < 0 {
			never = append(never, tool)
		}
	}
	if era.Ceiling <= 0 {
		never = append(never, "no other tool's")
		text += " (" + andList(never) + ")"
	} else if len(never) > 0 {
		text += " (" + andList(never) + " never)"
	}
	if era.WholePairs {
		text += ", a preview ending before a surrogate pair it would cut"
	}
	switch {
	case strings.Contains(era.SpillPath, "{task_id8}"):
		text += ", a Bash output's file named b and 8 characters"
	case strings.Contains(era.SpillPath, "{task_id6}"):
		text += ", a Bash output's file named b and 6 characters"
	}
	return text
}

func codexFroms() []string {
	return eraFroms(harness.CodexEras, func(e harness.CodexEra) string { return e.From })
}

// codexEra is Codex CLI as it was from era i to the next.
func codexEra(i int) Policy {
	era := harness.CodexEras[i]
	froms := codexFroms()
	p := Policy{
		Name: eraName("codex", era.From, froms), Style: harness.Codex, Unit: ApproxTokens, Ceiling: 10_000, Allowance: 1.2,
		Action: TruncateMiddle,
		// Codex's own command tools (exec: the script output of its code
		// mode, cut after the status lines), and the shell tools of other
		// agents' logs replayed as if Codex had run them.
		ExecTools: []string{"exec_command", "write_stdin", "shell", "local_shell", "container.exec", "shell_command", "exec", "apply_patch",
			"Bash", "run_command"},
		HarnessVersion: eraVersion(era.From),
		Risk:           foreignRisk, ShapeErrors: true, NonText: NonTextKeep,
	}
	header := "its line count"
	if era.ExecWarning {
		header = "its original token count and line count"
	}
	command := "at 10,000 (a lower ceiling cuts only what is recorded)"
	if era.ExecFollowsLimit {
		command = "at 10,000 or the ceiling if lower"
	}
	capped := "joined as they are"
	if era.ExecCapNote {
		capped = "joined by a note of the bytes left out"
	}
	p.Description = fmt.Sprintf("Codex CLI %s: every tool output recorded within 12,000 tokens (bytes/4; the ceiling plus 20%%), cut in the middle under a …N tokens truncated… marker; command output cut %s after its status lines, headed by %s, its first and last half MiB alone kept over 1 MiB, %s; nothing persisted, no repeat suppressed",
		eraRange(froms, i), command, header, capped)
	return p
}

// ForVersion is p as the version of its harness that recorded a session
// applied it, when p follows the version (version is "" where the log
// names none, or names another harness's: the latest rules). Claude
// Code: the era's own cut or persisting (a ceiling tuned away from the
// preset's is kept, and so is an action), its spill file names, and its
// Read repeat stubs, on where the policy has them on from the 2nd Read as
// the preset does. Both harnesses: HarnessVersion, which the measures and
// texts that changed between versions follow (for Codex, whether a
// command's own cut follows a lower ceiling, and its header). The
// description then names the era's rules and none it lacked, and the
// policy returned follows that version alone (FollowVersion is false).
func ForVersion(p Policy, version string) Policy {
	if !p.FollowVersion {
		return p
	}
	var era Policy
	recorded := "no version recorded"
	if version != "" {
		recorded = "recorded by " + version
	}
	switch p.Style {
	case harness.ClaudeCode:
		p = p.Clone()
		i := claudeEraIndex(version)
		latest := claudeEra(len(harness.ClaudeEras) - 1)
		era = claudeEra(i)
		if p.Ceiling == latest.Ceiling && maps.Equal(p.PerTool, latest.PerTool) {
			p.Ceiling, p.PerTool = era.Ceiling, maps.Clone(era.PerTool)
			if p.Action == latest.Action {
				p.Action = era.Action
			}
		}
		// An era that persisted nothing names no file: a spill tuned by
		// hand on its log is named as the latest Claude Code names it.
		if p.SpillPath == latest.SpillPath && era.SpillPath != "" {
			p.SpillPath = era.SpillPath
		}
		if p.Dedupe.Enabled && p.Dedupe.From == 2 {
			p.Dedupe.Enabled, p.Dedupe.Stub = era.Dedupe.Enabled, era.Dedupe.Stub
		}
	case harness.Codex:
		p = p.Clone()
		era = codexEra(codexEraIndex(version))
	default:
		return p
	}
	// Applied: the policy now follows this version, and no other.
	p.HarnessVersion, p.FollowVersion = version, false
	p.Description = fmt.Sprintf("%s (this session: %s, replayed as %s)", era.Description, recorded, era.Name)
	return p
}

// eraVersion is the version an era's preset follows: the first of the
// era, or one before every bound for the first.
func eraVersion(from string) string {
	if from == "" {
		return "0.0.0"
	}
	return from
}

func claudeEraIndex(version string) int {
	from := harness.ClaudeEraOf(version).From
	return slices.Index(claudeFroms(), from)
}

func codexEraIndex(version string) int {
	from := harness.CodexEraOf(version).From
	return slices.Index(codexFroms(), from)
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
	for _, p := range presetList() {
		if p.Name == name {
			return p.Clone(), nil
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
