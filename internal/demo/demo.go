// Package demo writes the session spillway opens when it finds no logs: a
// realistic Claude Code session whose tool results show every guard action:
// a 60 KB lock-file read, a 30 KB grep, the same file read three times in a
// row and again after an edit, a file the user changed between two
// identical reads, an MCP dump, a failing build and a compaction.
package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

const (
	sessionID = "5f0c9a7e-demo-4c1b-9e55-7d2a61b0c0de"
	cwd       = "/home/dev/shop"
	model     = "claude-sonnet-4-5"
	version   = "2.1.126"
	// basePrompt is the system prompt and tool definitions, in tokens.
	basePrompt = 14_200
)

// step is one API call of the demo and what came back from its tool.
type step struct {
	text   string
	tool   string
	input  map[string]any
	result string
	isErr  bool
	output int64 // output tokens of the call
}

// writer emits Claude Code 2.1 records with consistent usage.
type writer struct {
	enc    *json.Encoder
	now    time.Time
	parent string
	n      int
	prompt int64 // tokens the next call will send
	cached int64 // prefix of it still in the provider's cache
}

func (w *writer) line(v map[string]any) error {
	w.n++
	uuid := fmt.Sprintf("00000000-0000-4000-a000-%012d", w.n)
	v["parentUuid"], v["uuid"], v["sessionId"], v["version"], v["cwd"] = nilIfEmpty(w.parent), uuid, sessionID, version, cwd
	v["isSidechain"], v["userType"], v["timestamp"] = false, "external", w.now.Format("2006-01-02T15:04:05.000Z")
	w.parent = uuid
	return w.enc.Encode(v)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// estimate approximates Claude's token count of text, so the recorded
// usage grows as the real prompt would.
func estimate(text string) int64 { return int64(len(text)+3) / 4 }

// call writes one assistant response (a text line and a tool_use line
// sharing usage) and the tool result that answers it.
func (w *writer) call(i int, s step) error {
	w.now = w.now.Add(time.Duration(4+i%7) * time.Second)
	prompt := w.prompt
	write := prompt - w.cached - 3
	usage := map[string]any{
		"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": w.cached,
		"output_tokens": s.output, "service_tier": "standard",
		"cache_creation": map[string]any{"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0},
	}
	id := fmt.Sprintf("%02d", i)
	blocks := []map[string]any{{"type": "text", "text": s.text}}
	if s.tool != "" {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": "toolu_demo" + id, "name": s.tool, "input": s.input})
	}
	stop := "end_turn"
	if s.tool != "" {
		stop = "tool_use"
	}
	for _, b := range blocks {
		err := w.line(map[string]any{"type": "assistant", "requestId": "req_demo" + id, "message": map[string]any{
			"id": "msg_demo" + id, "type": "message", "role": "assistant", "model": model,
			"content": []any{b}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		}})
		if err != nil {
			return err
		}
	}
	w.cached = prompt
	w.prompt = prompt + s.output
	if s.tool == "" {
		return nil
	}
	w.now = w.now.Add(time.Duration(1+i%3) * time.Second)
	result := map[string]any{"type": "tool_result", "tool_use_id": "toolu_demo" + id, "content": s.result}
	if s.isErr {
		result["is_error"] = true
	}
	w.prompt += estimate(s.result) + 20
	return w.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{result}},
		"toolUseResult": map[string]any{"type": "text", "summary": fmt.Sprintf("%d bytes", len(s.result))}})
}

// Write writes the demo session.
func Write(out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	w := &writer{enc: enc, now: time.Date(2026, 11, 28, 14, 2, 0, 0, time.UTC), prompt: basePrompt}
	rng := rand.New(rand.NewPCG(7, 11))
	if err := w.line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": "Why does our bundle ship two copies of lodash? Fix it and make sure the build passes."}}); err != nil {
		return err
	}
	merge := mergeJS(false)
	readMerge := map[string]any{"file_path": cwd + "/src/utils/merge.js"}
	readPackage := map[string]any{"file_path": cwd + "/package.json"}
	steps := []step{
		{text: "I'll start with the lock file to see which packages pull in lodash.", tool: "Read",
			input: map[string]any{"file_path": cwd + "/package-lock.json"}, result: numbered(lockFile(rng)), output: 96},
		{text: "Now every place that imports it.", tool: "Grep",
			input:  map[string]any{"pattern": "lodash", "path": cwd, "output_mode": "content", "-n": true},
			result: grepHits(rng), output: 88},
		{text: "Let me look at the helper that wraps merge.", tool: "Read", input: readMerge, result: numbered(merge), output: 71},
		{text: "Let me check the exact lines of deepMerge again.", tool: "Read", input: readMerge, result: numbered(merge), output: 38},
		{text: "Which other utils exist?", tool: "Glob", input: map[string]any{"pattern": "src/utils/*.js"},
			result: cwd + "/src/utils/merge.js\n" + cwd + "/src/utils/format.js\n" + cwd + "/src/utils/debounce.js", output: 29},
		{text: "Back to merge.js once more before deciding.", tool: "Read", input: readMerge, result: numbered(merge), output: 44},
		{text: "Checking the open issues about bundle size.", tool: "mcp__github__search_issues",
			input: map[string]any{"repo": "acme/shop", "query": "lodash bundle size"}, result: issuesJSON(rng), output: 64},
		{text: "Which versions does npm resolve?", tool: "Bash",
			input: map[string]any{"command": "npm ls lodash", "description": "List installed lodash versions"}, result: npmLs(false), output: 58},
		{text: "Switching merge.js to lodash-es so there is one copy.", tool: "Edit",
			input: map[string]any{"file_path": cwd + "/src/utils/merge.js", "old_string": "const _ = require('lodash');",
				"new_string": "import merge from 'lodash-es/merge';"},
			result: "The file " + cwd + "/src/utils/merge.js has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     1→import merge from 'lodash-es/merge';\n     2→\n     3→export function deepMerge(target, ...sources) {", output: 143},
		{text: "Reading it back to check the edit.", tool: "Read", input: readMerge, result: numbered(mergeJS(true)), output: 47},
		{text: "And the package manifest.", tool: "Read", input: readPackage, result: numbered(packageJSON("2.3.0")), output: 33},
		{text: "Now the build.", tool: "Bash",
			input: map[string]any{"command": "npm run build", "description": "Build the bundle"}, result: buildLog(rng, true), isErr: true, output: 61},
	}
	for i, s := range steps {
		if err := w.call(i, s); err != nil {
			return err
		}
	}
	// The user changes package.json outside the agent; the next Read asks
	// for the same file again, and a harness that suppresses repeats by
	// arguments alone would answer with the outdated content.
	w.now = w.now.Add(90 * time.Second)
	if err := w.line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": "I bumped date-utils to ^3.1.0 in package.json myself; have a look and carry on."}}); err != nil {
		return err
	}
	w.prompt += 24
	steps = append(steps, step{text: "Reading the updated manifest.", tool: "Read", input: readPackage,
		result: numbered(packageJSON("3.1.0")), output: 36})
	if err := w.call(len(steps)-1, steps[len(steps)-1]); err != nil {
		return err
	}
	pre := w.prompt
	w.now = w.now.Add(40 * time.Second)
	if err := w.line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"isMeta": false, "level": "info", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": pre}}); err != nil {
		return err
	}
	summary := "This session is being continued from a previous conversation that ran out of context. Summary:\n" +
		"1. The user asked why the bundle ships two copies of lodash.\n2. The lock file showed lodash@4.17.21 and a nested lodash@3.10.1 under date-utils@2.3.0.\n" +
		"3. merge.js now imports lodash-es/merge; package.json now pins date-utils ^3.1.0.\n4. Next: reinstall, rebuild, confirm a single lodash."
	if err := w.line(map[string]any{"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
		"message": map[string]any{"role": "user", "content": summary}}); err != nil {
		return err
	}
	// The system prompt survives compaction in the cache; the rest is new.
	w.prompt, w.cached = basePrompt+estimate(summary), basePrompt
	after := []step{
		{text: "Continuing: reinstall with the new pin and rebuild.", tool: "Bash",
			input: map[string]any{"command": "npm install && npm run build", "description": "Reinstall and build"}, result: buildLog(rng, false), output: 54},
		{text: "And confirm there is one lodash left.", tool: "Bash",
			input: map[string]any{"command": "npm ls lodash", "description": "List installed lodash versions"}, result: npmLs(true), output: 41},
		{text: "Fixed. date-utils@2 pulled its own lodash@3; upgrading it to ^3.1.0 and importing lodash-es/merge leaves one lodash-es in the bundle, and the build passes.", output: 212},
	}
	for i, s := range after {
		if err := w.call(len(steps)+i, s); err != nil {
			return err
		}
	}
	return nil
}

// numbered renders text the way Claude Code's Read tool returns it.
func numbered(text string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&b, "%6d→%s\n", i+1, line)
	}
	return b.String()
}

var names = strings.Fields("react react-dom scheduler loose-envify js-tokens object-assign prop-types date-utils lodash lodash-es " +
	"axios follow-redirects form-data asynckit combined-stream delayed-stream mime-types mime-db proxy-from-env " +
	"webpack webpack-cli terser acorn browserslist caniuse-lite electron-to-chromium node-releases picocolors " +
	"postcss nanoid source-map-js chalk supports-color has-flag ansi-styles color-convert color-name escalade")

// lockFile is about 60 KB of package-lock.json.
func lockFile(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("{\n  \"name\": \"shop\",\n  \"version\": \"1.4.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n")
	for i := 0; b.Len() < 60_000; i++ {
		name := names[i%len(names)]
		path := "node_modules/" + name
		if i >= len(names) {
			path = fmt.Sprintf("node_modules/%s/node_modules/%s", names[rng.IntN(len(names))], name)
		}
		ver := fmt.Sprintf("%d.%d.%d", 1+rng.IntN(9), rng.IntN(20), rng.IntN(30))
		if name == "lodash" && i >= len(names) {
			path, ver = "node_modules/date-utils/node_modules/lodash", "3.10.1"
		} else if name == "lodash" {
			ver = "4.17.21"
		}
		fmt.Fprintf(&b, "    %q: {\n      \"version\": %q,\n      \"resolved\": \"https://registry.npmjs.org/%s/-/%s-%s.tgz\",\n      \"integrity\": \"sha512-%s\",\n      \"license\": \"MIT\"\n    },\n",
			path, ver, name, name, ver, hash(rng, 86))
	}
	b.WriteString("    \"\": {}\n  }\n}\n")
	return b.String()
}

func hash(rng *rand.Rand, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b) + "=="
}

// grepHits is about 30 KB of grep -n output over the repo and node_modules.
func grepHits(rng *rand.Rand) string {
	var b strings.Builder
	files := []string{"src/utils/merge.js", "src/cart/totals.js", "src/cart/discounts.js", "src/search/index.js", "src/api/client.js"}
	for _, f := range files {
		fmt.Fprintf(&b, "%s:%d:const _ = require('lodash');\n", f, 1+rng.IntN(5))
	}
	funcs := []string{"merge", "cloneDeep", "debounce", "throttle", "get", "set", "isEqual", "uniqBy", "groupBy", "sortBy"}
	for b.Len() < 30_000 {
		pkg := names[rng.IntN(len(names))]
		fn := funcs[rng.IntN(len(funcs))]
		fmt.Fprintf(&b, "node_modules/%s/lib/%s.js:%d:var %s = require('lodash/%s');\n", pkg, fn, 1+rng.IntN(400), fn, fn)
	}
	return b.String()
}

func mergeJS(edited bool) string {
	head := "const _ = require('lodash');\n"
	if edited {
		head = "import merge from 'lodash-es/merge';\n"
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("\nexport function deepMerge(target, ...sources) {\n")
	for i := range 60 {
		fmt.Fprintf(&b, "  // step %d: copy nested keys, arrays by index, skipping prototype keys\n", i)
		if edited {
			fmt.Fprintf(&b, "  target = merge(target, sources[%d] ?? {});\n", i%4)
		} else {
			fmt.Fprintf(&b, "  target = _.merge(target, sources[%d] || {});\n", i%4)
		}
	}
	b.WriteString("  return target;\n}\n")
	return b.String()
}

func packageJSON(dateUtils string) string {
	return fmt.Sprintf(`{
  "name": "shop",
  "version": "1.4.0",
  "private": true,
  "scripts": {
    "build": "webpack --mode production",
    "test": "jest"
  },
  "dependencies": {
    "axios": "^1.7.9",
    "date-utils": "^%s",
    "lodash-es": "^4.17.21",
    "react": "^18.3.1",
    "react-dom": "^18.3.1"
  },
  "devDependencies": {
    "jest": "^29.7.0",
    "webpack": "^5.97.1",
    "webpack-cli": "^5.1.4"
  }
}
`, dateUtils)
}

func npmLs(fixed bool) string {
	if fixed {
		return "shop@1.4.0 /home/dev/shop\n├── date-utils@3.1.0\n└── lodash-es@4.17.21\n"
	}
	var b strings.Builder
	b.WriteString("shop@1.4.0 /home/dev/shop\n")
	for i, n := range names[:24] {
		fmt.Fprintf(&b, "├─┬ %s@%d.%d.0\n│ └── lodash@4.17.21 deduped\n", n, 1+i%5, i)
	}
	b.WriteString("├─┬ date-utils@2.3.0\n│ └── lodash@3.10.1\n└── lodash@4.17.21\n")
	return b.String()
}

func issuesJSON(rng *rand.Rand) string {
	type issue struct {
		Number int      `json:"number"`
		Title  string   `json:"title"`
		State  string   `json:"state"`
		Labels []string `json:"labels"`
		Body   string   `json:"body"`
	}
	var list []issue
	for i := range 24 {
		list = append(list, issue{Number: 400 + rng.IntN(900), Title: fmt.Sprintf("Bundle size regression #%d: lodash included twice", i),
			State: []string{"open", "closed"}[i%2], Labels: []string{"perf", "build"},
			Body: strings.Repeat("The production bundle contains both lodash and lodash-es; webpack-bundle-analyzer shows 71 KB extra. ", 4)})
	}
	data, _ := json.MarshalIndent(map[string]any{"total_count": len(list), "items": list}, "", "  ")
	return string(data)
}

func buildLog(rng *rand.Rand, fail bool) string {
	var b strings.Builder
	b.WriteString("> shop@1.4.0 build\n> webpack --mode production\n\n")
	for i := range 90 {
		fmt.Fprintf(&b, "asset %s.%08x.js %d KiB [emitted] [minimized] (name: chunk-%d)\n", names[i%len(names)], rng.Uint32(), 2+rng.IntN(90), i)
	}
	if fail {
		b.WriteString("\nERROR in ./node_modules/date-utils/lib/format.js 3:0-28\nModule not found: Error: Can't resolve 'lodash/fp' in '/home/dev/shop/node_modules/date-utils/lib'\n")
		b.WriteString("webpack 5.97.1 compiled with 1 error in 8412 ms\nnpm ERR! code 1\n")
	} else {
		b.WriteString("\nadded 3 packages, removed 41 packages, and audited 612 packages in 5s\nwebpack 5.97.1 compiled successfully in 7930 ms\n")
	}
	return b.String()
}
