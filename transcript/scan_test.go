package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/valyala/fastjson"
)

// scanAll skips one value with the scanner and reports whether it read the
// whole text.
func scanAll(data []byte) bool {
	var s scanner
	s.reset(data)
	s.skip()
	return s.end()
}

func TestScanner(t *testing.T) {
	tests := []struct {
		text string
		ok   bool
	}{
		{`{}`, true},
		{` { "a" : [ 1 , -2.5e+3 , true , false , null , "x" ] , "b" : { } } `, true},
		{`[[],[[]],{}]`, true},
		{`"a\"b\\"`, true},
		{`"\u00e9\q"`, true}, // fastjson keeps an unknown escape as written
		{`{"C:\\a\"b":{"\u0041":[]}}`, true},
		{`"é→😀"`, true},
		{`0`, true},
		{`-0.0e-0`, true},
		{`{"a":1,}`, false},
		{`[1,]`, false},
		{`[,1]`, false},
		{`{"a" 1}`, false},
		{`{1:2}`, false},
		{`{"a":1`, false},
		{`"abc`, false},
		{`"abc\"`, false},
		// fastjson's grammar, which the readers have always read: a
		// number is any run of digits, signs, points and exponents, or
		// inf or nan after a sign or none, in any case.
		{`01`, true},
		{`1.`, true},
		{`.5`, true},
		{`1e`, true},
		{`+1`, true},
		{`1-2`, true},
		{`NaN`, true},
		{`-Inf`, true},
		{`infx`, false},
		{`[-]`, false},
		{`[1 2]`, false},
		{`tru`, false},
		{`nul`, false},
		{`truex`, false},
		{`{"a":1}x`, false},
		{`{"a":1} {}`, false},
		{``, false},
		{strings.Repeat("[", maxScanDepth) + strings.Repeat("]", maxScanDepth), true},
		{strings.Repeat("[", maxScanDepth+1) + strings.Repeat("]", maxScanDepth+1), false},
	}
	for _, tt := range tests {
		if got := scanAll([]byte(tt.text)); got != tt.ok {
			t.Errorf("scan %q = %v, want %v", tt.text, got, tt.ok)
		}
	}
}

// membersOf reads the object data holds, each value skipped, by member
// or by more and key, and returns the keys read and whether the whole
// text was read.
func membersOf(data []byte, byMember bool) (keys []string, ok bool) {
	var s scanner
	s.reset(data)
	s.enter('{')
	for {
		var k []byte
		if byMember {
			var more bool
			if k, more = s.member(); !more {
				break
			}
		} else {
			if !s.more('}') {
				break
			}
			k = s.key()
		}
		keys = append(keys, string(k))
		s.skip()
	}
	return keys, s.end()
}

// TestScannerMember: member reads what more and key read, in one step
// where it can and by them where it cannot.
func TestScannerMember(t *testing.T) {
	long := strings.Repeat("k", 20)
	for _, text := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":1,"bb":"x","ccc":[1,2],"d":{"e":null}}`,
		`{"type":"user","uuid":"0123456789abcdef","sessionId":"s"}`,
		`{"fifteen_bytes_k":1,"sixteen_bytes_ke":2,"` + long + `":3}`,
		`{ "a" : 1 , "b":2 ,"c" :3}`, `{"a":1 ,"b":2}`, `{"a\"b":1}`, `{"a\u0041":1,"b":2}`,
		`{"a":1,}`, `{,"a":1}`, `{"a":1"b":2}`, `{"a" 1}`, `{"a":1`, `{"a":1,"b"`, `{"a":1,"bcdefghijklmnopq`,
		`{"a":1,"b":2}x`, `{"a":1,"b":2} `,
		`{"` + long + `\"x":1}`, `{"` + long + `" :1}`, `{"a":1,"` + long + `}`, `{"a":1,"` + long, `{"` + long + `"`,
		`{"cache_creation_input_tokens":547,"cache_read_input_tokens":13629}`,
	} {
		keys, ok := membersOf([]byte(text), true)
		wantKeys, wantOK := membersOf([]byte(text), false)
		if ok != wantOK || !slices.Equal(keys, wantKeys) {
			t.Errorf("%s: member read %q, %v; more and key %q, %v", text, keys, ok, wantKeys, wantOK)
		}
	}
}

// FuzzScannerMember holds member to more and key on any text.
func FuzzScannerMember(f *testing.F) {
	for _, seed := range []string{`{"a":1,"bb":"x"}`, `{ "a" : 1 }`, `{"a\"":1}`, `{"0123456789abcdef":1}`, `{"cache_read_input_tokens":1}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, ok := membersOf(data, true)
		wantKeys, wantOK := membersOf(data, false)
		if ok != wantOK || !slices.Equal(keys, wantKeys) {
			t.Fatalf("%q: member read %q, %v; more and key %q, %v", data, keys, ok, wantKeys, wantOK)
		}
	})
}

func TestScannerValues(t *testing.T) {
	var s scanner
	s.reset([]byte(` {"n": 1234567890, "s": "plain", "e": "a\nb", "u": "a\u00e9", "t": true, "z": 0}`))
	var n, z int64
	var str, unescaped []byte
	var strLen int
	var tru bool
	s.enter('{')
	for s.more('}') {
		switch string(s.key()) {
		case "n":
			n, _ = s.count()
		case "s":
			str = s.str()
		case "e":
			strLen, _, _ = s.strLen()
		case "u":
			unescaped = s.str()
		case "t":
			tru = s.literal() == 't'
		case "z":
			z, _ = s.count()
		}
	}
	if !s.end() || n != 1234567890 || string(str) != "plain" || strLen != 3 || string(unescaped) != "a\u00e9" || !tru || z != 0 {
		t.Fatalf("end %v: n=%d s=%q len=%d u=%q t=%v z=%d", s.end(), n, str, strLen, unescaped, tru, z)
	}

	for text, want := range map[string]countState{
		`0`: countOK, `1000000000000`: countOK, `1000000000001`: countHigh, `9223372036854775807`: countHigh,
		`null`: countNone, `-1`: countBad, `1.5`: countBad, `1e3`: countBad, `"1"`: countBad, `true`: countBad, `[1]`: countBad,
		`99999999999999999999`: countBad,
	} {
		s.reset([]byte(text))
		if _, got := s.count(); got != want || !s.end() {
			t.Errorf("count of %s: %v (end %v), want %v", text, got, s.end(), want)
		}
	}
	for _, text := range []string{"\"\xff\"", `"a\` + "\u00e9" + `"`} { // what measureString does not measure
		s.reset([]byte(text))
		if _, quoted, measured := s.strLen(); measured || string(quoted) != text || !s.end() {
			t.Errorf("strLen of %q: %q, measured %v", text, quoted, measured)
		}
	}
}

// FuzzScanner holds the scanner to fastjson, whose grammar the readers
// have always read: it reads a text whole exactly where fastjson parses
// it, and jsonError gives a reason exactly where it does not.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2.5,"x\n",true,null]}`, `"\u00e9"`, `[{}]`, `-0e+1`, `01`, `+inf`, `NaN`, `1.`} {
		f.Add([]byte(seed))
	}
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 3, 3, 200); err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p fastjson.Parser
		scanned := scanAll(data)
		_, err := p.ParseBytes(data)
		if scanned != (err == nil) {
			t.Fatalf("scanner read it: %v; fastjson: %v: %q", scanned, err, data)
		}
		if got, want := jsonError(data), fastjsonReason(err); got != want {
			t.Fatalf("jsonError says %q, fastjson %q: %q", got, want, data)
		}
		if json.Valid(data) && !scanned && depth(data) < maxScanDepth {
			t.Fatalf("scanner refused valid JSON: %q", data)
		}
	})
}

// fastjsonReason is fastjson's error as the readers' warnings have always
// given it: without its prefix and the tail it was left at, at most 120
// bytes.
func fastjsonReason(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if i := strings.Index(s, "; unparsed tail"); i > 0 {
		s = s[:i]
	}
	s = strings.TrimPrefix(s, "cannot parse JSON: ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// depth is how deeply data's arrays and objects nest, counting brackets
// outside strings.
func depth(data []byte) int {
	d, most, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// TestClaudeModes reads lines of every kind the Claude reader meets,
// ordinary and odd, keeping sizes only and in full: both modes must read
// the same session but for the texts. TestSizesOnly and FuzzClaude do the
// same on every fixture, real log and fuzzed input.
func TestClaudeModes(t *testing.T) {
	const (
		call   = `{"type":"assistant","uuid":"u1","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-6","stop_reason":"tool_use","usage":{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":7},"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a"}}]}}`
		result = `{"type":"user","uuid":"u2","timestamp":"2026-03-01T09:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb→c"}]}}`
	)
	tests := []struct {
		name string
		line string
	}{
		{"tool use", call},
		{"tool result", result},
		{"result blocks", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"ab"},{"type":"image","source":{}},{"type":"document"}]}]}}`},
		{"result null", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":null}]}}`},
		{"prompt with escapes", `{"type":"user","uuid":"u3","message":{"content":"fix \"this\"\n"}}`},
		{"prompt blocks", `{"type":"user","uuid":"u3","message":{"content":[{"type":"text","text":"a\tb"},{"type":"image"}]}}`},
		{"spaced", ` { "type" : "user" , "uuid" : "u3" , "message" : { "content" : [ ] } } `},
		{"spaced empty text", `{"type":"user","uuid":"u3","message":{"content":[{"type":"text","text": ""}]}}`},
		{"spaced summary", `{"type":"user","uuid":"u3","isCompactSummary":true,"message":{"content": [{"type": "text", "text": "sum"}]}}`},
		{"spaced string prompt", `{"type":"user","uuid":"u3","message":{"content": "hi"}}`},
		{"text reply", `{"type":"assistant","uuid":"u3","requestId":"r2","message":{"id":"m2","model":"m","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":2,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":5},"speed":"fast"},"content":[{"type":"text","text":"done\n"}]}}`},
		{"api error", `{"type":"assistant","uuid":"u3","isApiErrorMessage":true,"message":{"model":"m","content":[]}}`},
		{"synthetic", `{"type":"assistant","uuid":"u3","message":{"model":"<synthetic>","content":[]}}`},
		{"sidechain", `{"type":"assistant","uuid":"u3","isSidechain":true,"requestId":"r3","message":{"id":"m3","model":"m","usage":{"output_tokens":1},"content":[]}}`},
		{"text without usage", `{"type":"assistant","uuid":"u3","requestId":"r3","message":{"id":"m3","model":"m","content":[{"type":"text","text":"hi"}]}}`},
		{"advisor", `{"type":"assistant","uuid":"u3","requestId":"r4","message":{"id":"m4","model":"m","usage":{"input_tokens":1,"iterations":[{"input_tokens":5,"output_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":2},"type":"advisor_message","model":"adv"},{"type":"message","input_tokens":1},7]},"content":[]}}`},
		{"sidechain replay", `{"type":"assistant","uuid":"u3","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","requestId":"r9","isSidechain":true,"message":{"id":"m1","model":"claude-sonnet-4-6","usage":{"input_tokens":3,"cache_read_input_tokens":50000,"output_tokens":7},"content":[{"type":"text","text":"again"}]}}`},
		{"other system", `{"type":"system","uuid":"u3","subtype":"turn_duration","durationMs":5}`},
		{"unknown type", `{"type":"file-history-snapshot","uuid":"u3","snapshot":{"files":[1,2]}}`},
		{"escapes in unread keys", `{"type":"file-history-snapshot","snapshot":{"trackedFileBackups":{"C:\\Users\\a.md":{"version":1}}}}`},
		{"repeated uuid", strings.Replace(result, `"t1"`, `"t2"`, 1)},
		{"tool input spaced", strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `{"file_path":"/a"}`, "{ \"a b\" :\t[1 , {\"c\":\"d e\"}],\n\"f\":null }", 1)},
		{"tool input with escapes", strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `{"file_path":"/a"}`, `{"p\u0061th":"a\"b\\","n":-1.5e3}`, 1)},

		{"compaction", `{"type":"system","uuid":"u3","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":5}}`},
		{"summary", `{"type":"summary","summary":"title","leafUuid":"x"}`},
		{"no type", `{"uuid":"u3"}`},
		{"type twice", `{"type":"user","type":"assistant","uuid":"u3","message":{"content":[]}}`},
		{"escaped key", `{"typ\u0065":"user","uuid":"u3","message":{"content":[]}}`},
		{"escaped id", `{"type":"user","uuid":"u\u0033","message":{"content":[]}}`},
		{"no message", `{"type":"user","uuid":"u3"}`},
		{"message not object", `{"type":"assistant","uuid":"u3","message":"hi"}`},
		{"neither usage nor content", `{"type":"assistant","uuid":"u3","requestId":"r3","message":{"id":"m3","model":"m"}}`},
		{"empty content, no usage", `{"type":"assistant","uuid":"u3","requestId":"r3","message":{"id":"m3","model":"m","content":[]}}`},
		{"empty text, no usage", `{"type":"assistant","uuid":"u3","requestId":"r3","message":{"id":"m3","model":"m","content":""}}`},
		{"empty message", `{"type":"assistant","uuid":"u3","message":{}}`},
		{"null usage field", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"input_tokens":null},"content":[]}}`},
		{"negative usage", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"input_tokens":-1},"content":[]}}`},
		{"iteration model null", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"iterations":[{"type":"message","model":null,"input_tokens":1}]},"content":[]}}`},
		{"iterations not a list", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"iterations":{}},"content":[]}}`},
		{"advisor count negative", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"iterations":[{"type":"advisor_message","model":"adv","input_tokens":-1}]},"content":[]}}`},
		{"float usage", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"output_tokens":1.0},"content":[]}}`},
		{"tool use without id", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","content":[{"type":"tool_use","name":"Read","input":{}}]}}`},
		{"result without id", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","content":"x"}]}}`},
		{"result invalid UTF-8", "{\"type\":\"user\",\"uuid\":\"u3\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"a\xffb\"}]}}"},
		{"result object", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":{"a":1}}]}}`},
		{"flag not boolean", `{"type":"user","uuid":"u3","isMeta":"yes","message":{"content":"x"}}`},
		{"invalid JSON", `{"type":"user","uuid":"u3","message":{"content":"x"}`},
		{"usage at the bound", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"input_tokens":1000000000000},"content":[]}}`},
		{"usage above the bound", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"input_tokens":1000000000001},"content":[]}}`},
		{"cache part above the bound", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"cache_creation":{"ephemeral_1h_input_tokens":1000000000001}},"content":[]}}`},
		{"usage of 2^63-1", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"output_tokens":9223372036854775807},"content":[]}}`},
		{"summary twice", `{"type":"user","summary":"a","summary":"b","uuid":"u3","message":{"content":[]}}`},
		{"aiTitle twice", `{"type":"user","aiTitle":"a","aiTitle":"b","uuid":"u3","message":{"content":[]}}`},
		{"customTitle twice", `{"type":"user","customTitle":"a","customTitle":"b","uuid":"u3","message":{"content":[]}}`},
		{"compactMetadata twice", `{"type":"user","compactMetadata":{},"compactMetadata":{},"uuid":"u3","message":{"content":[]}}`},
		{"unread key twice", `{"type":"user","cwd":"a","cwd":"b","uuid":"u3","message":{"content":[]}}`},
		{"user message id twice", `{"type":"user","uuid":"u3","message":{"id":"a","id":"b","content":[]}}`},
		{"block text twice", `{"type":"user","uuid":"u3","message":{"content":[{"type":"text","text":"a","text":"b"}]}}`},
		{"result block type twice", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","type":"text","text":"ab"}]}]}}`},
		{"usage count twice", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"output_tokens":1,"output_tokens":2},"content":[]}}`},
		{"advisor model twice", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"iterations":[{"type":"advisor_message","model":"a","model":"b","input_tokens":1}]},"content":[]}}`},
		{"repeated tool_use id", strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `"m1"`, `"m9"`, 1)},
		{"output above the first line's", strings.Replace(strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `"output_tokens":7`, `"output_tokens":70`, 1), `"stop_reason":"tool_use",`, ``, 1)},
		{"lines disagree", strings.Replace(strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `"input_tokens":3,`, `"input_tokens":0,`, 1), `"output_tokens":7`, `"output_tokens":9`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(call + "\n" + result + "\n" + tt.line + "\n")
			full, sizes, err := readBoth(t, data, "fast.jsonl", Options{Format: FormatClaude})
			if err != nil {
				t.Fatal(err)
			}
			sameButTexts(t, full, sizes)
		})
	}

	t.Run("by hand", func(t *testing.T) {
		b := newBuilder("fast.jsonl", FormatClaude, 0)
		b.sizesOnly = true
		p := newClaudeParser(b)
		for i, line := range []string{
			call,
			result,
			`{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"ab"},{"type":"image","source":{}},{"type":"document"}]}]}}`,
			`{"type":"user","uuid":"u4","isCompactSummary":true,"message":{"content": [{"type": "text", "text": "sum\u00e9"}]}}`,
		} {
			if !p.line([]byte(line), i+1) {
				t.Fatalf("line %d not read", i+1)
			}
		}
		s := p.finish()
		want := Usage{Input: 3, CacheCreation: 10, CacheRead: 100, Output: 7}
		if len(s.Calls) != 1 || s.Calls[0].Usage == nil || *s.Calls[0].Usage != want {
			t.Fatalf("calls %+v, want one with usage %+v", s.Calls, want)
		}
		if in := string(s.Calls[0].ToolCalls[0].Input); in != `{"file_path":"/a"}` {
			t.Errorf("input %s", in)
		}
		rs := s.Results()
		// "a\nb→c" unescapes to a, newline, b, three bytes of →, c.
		if len(rs) != 2 || rs[0].Bytes() != 7 || rs[0].IsError ||
			rs[1].Bytes() != 2 || rs[1].Images != 1 || rs[1].Other != 1 || !rs[1].IsError {
			t.Fatalf("results %+v %+v", *rs[0], *rs[1])
		}
		if len(s.Events) != 1 || s.Events[0].Summary != "sumé" {
			t.Fatalf("events %+v, want a compaction summed up as sumé", s.Events)
		}
	})

	t.Run("generated", func(t *testing.T) {
		var buf bytes.Buffer
		if _, err := corpus.WriteSession(&buf, 5, 50, 2048); err != nil {
			t.Fatal(err)
		}
		b := newBuilder("generated.jsonl", FormatClaude, 0)
		b.sizesOnly = true
		p := newClaudeParser(b)
		for i, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			if !p.line(line, i+1) {
				t.Fatalf("line %d not read: %.200s", i+1, line)
			}
		}
		full, sizes, err := readBoth(t, buf.Bytes(), "generated.jsonl", Options{Format: FormatClaude})
		if err != nil {
			t.Fatal(err)
		}
		sameButTexts(t, full, sizes)
	})
}

// TestRepeatedUsage: the lines of a response repeat its usage, which the
// reader then takes as read the line before; what it reads must be what
// reading each line afresh reads, whatever follows the repeated bytes and
// whether the usage has advisors.
func TestRepeatedUsage(t *testing.T) {
	line := func(uuid, usage string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","requestId":"r1",` +
			`"message":{"id":"m1","model":"m","usage":` + usage + `,"content":[{"type":"text","text":"x"}]}}`
	}
	const usage = `{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":7}`
	const advisor = `{"input_tokens":1,"iterations":[{"input_tokens":5,"output_tokens":1,"type":"advisor_message","model":"adv"}]}`
	tests := []struct {
		name  string
		lines []string
	}{
		{"same usage", []string{line("u1", usage), line("u2", usage), line("u3", usage)}},
		{"more output after", []string{line("u1", usage), line("u2", strings.Replace(usage, `:7}`, `:70}`, 1))}},
		{"less output after", []string{line("u1", strings.Replace(usage, `:7}`, `:70}`, 1)), line("u2", usage)}},
		{"same, then another", []string{line("u1", usage), line("u2", usage), line("u3", `{"output_tokens":9}`), line("u4", usage)}},
		{"advisors repeated", []string{line("u1", advisor), line("u2", advisor)}},
		{"advisors, then none", []string{line("u1", advisor), line("u2", usage), line("u3", usage)}},
		{"same usage, another response", []string{line("u1", usage), strings.NewReplacer(`"m1"`, `"m2"`, `"r1"`, `"r2"`).Replace(line("u2", usage))}},
		{"advisors, another response", []string{line("u1", advisor), strings.NewReplacer(`"m1"`, `"m2"`, `"r1"`, `"r2"`).Replace(line("u2", advisor))}},
		{"spaced", []string{line("u1", " "+usage), line("u2", usage), line("u3", " "+usage)}},
		{"empty", []string{line("u1", `{}`), line("u2", `{}`)}},
		{"then unreadable", []string{line("u1", usage), line("u2", usage+`,"usage":{}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(strings.Join(tt.lines, "\n") + "\n")
			full, sizes, err := readBoth(t, data, "usage.jsonl", Options{Format: FormatClaude})
			if err != nil {
				t.Fatal(err)
			}
			sameButTexts(t, full, sizes)
			usages := func(s *Session) (u []any) {
				for _, c := range s.Calls {
					u = append(u, c.Usage, c.Extra)
				}
				return u
			}
			if diff := cmp.Diff(usages(full), usages(sizes)); diff != "" {
				t.Errorf("usage read in full (-) and by size (+):\n%s", diff)
			}
		})
	}
}
