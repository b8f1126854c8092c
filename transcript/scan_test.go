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
		{`01`, false},
		{`1.`, false},
		{`.5`, false},
		{`1e`, false},
		{`+1`, false},
		{`tru`, false},
		{`nul`, false},
		{`truex`, false},
		{`NaN`, false},
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
	s.reset([]byte(` {"n": 1234567890, "s": "plain", "e": "a\nb", "t": true, "z": 0}`))
	var n, z int64
	var str []byte
	var strLen int
	var tru bool
	s.enter('{')
	for s.more('}') {
		switch string(s.key()) {
		case "n":
			n = s.int()
		case "s":
			str = s.str()
		case "e":
			strLen, _ = s.strLen()
		case "t":
			tru = s.literal() == 't'
		case "z":
			z = s.int()
		}
	}
	if !s.end() || n != 1234567890 || string(str) != "plain" || strLen != 3 || !tru || z != 0 {
		t.Fatalf("end %v: n=%d s=%q len=%d t=%v z=%d", s.end(), n, str, strLen, tru, z)
	}

	for _, bad := range []string{`"a\nb"`, `"a\"b"`} { // str gives up on escapes
		s.reset([]byte(bad))
		if s.str(); !s.bad {
			t.Errorf("str read %s", bad)
		}
	}
	for _, bad := range []string{`-1`, `1.5`, `1e3`, `007`, `1234567890123456789`, `"1"`, `null`} {
		s.reset([]byte(bad))
		if s.int(); !s.bad {
			t.Errorf("int read %s", bad)
		}
	}
	for _, bad := range []string{"\"\xff\"", `"a\` + "\u00e9" + `"`} { // what escapedLen does not measure
		s.reset([]byte(bad))
		if s.strLen(); !s.bad {
			t.Errorf("strLen read %q", bad)
		}
	}
}

// FuzzScanner holds the scanner between two parsers: whatever it reads,
// fastjson reads (so the fast path never accepts a line the general path
// warns about), and it reads all strict JSON that is not nested too deep
// (so it does not give up on ordinary lines).
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2.5,"x\n",true,null]}`, `"\u00e9"`, `[{}]`, `-0e+1`} {
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
		if _, err := p.ParseBytes(data); scanned && err != nil {
			t.Fatalf("scanner read what fastjson refuses (%v): %q", err, data)
		}
		if json.Valid(data) && !scanned && depth(data) <= maxScanDepth {
			t.Fatalf("scanner refused valid JSON: %q", data)
		}
	})
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

// TestFastPath checks which lines the fast path reads, and that a session
// read through it is the session the general path reads. The fast path
// runs only when sizes alone are kept, so TestSizesOnly and FuzzClaude,
// which compare reading by size with reading in full, hold it to the
// general path on every fixture, real log and fuzzed input.
func TestFastPath(t *testing.T) {
	const (
		call   = `{"type":"assistant","uuid":"u1","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-6","stop_reason":"tool_use","usage":{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":7},"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a"}}]}}`
		result = `{"type":"user","uuid":"u2","timestamp":"2026-03-01T09:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb→c"}]}}`
	)
	tests := []struct {
		name string
		line string
		fast bool
	}{
		{"tool use", call, true},
		{"tool result", result, true},
		{"result blocks", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"ab"},{"type":"image","source":{}},{"type":"document"}]}]}}`, true},
		{"result null", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":null}]}}`, true},
		{"prompt with escapes", `{"type":"user","uuid":"u3","message":{"content":"fix \"this\"\n"}}`, true},
		{"prompt blocks", `{"type":"user","uuid":"u3","message":{"content":[{"type":"text","text":"a\tb"},{"type":"image"}]}}`, true},
		{"spaced", ` { "type" : "user" , "uuid" : "u3" , "message" : { "content" : [ ] } } `, true},
		{"spaced empty text", `{"type":"user","uuid":"u3","message":{"content":[{"type":"text","text": ""}]}}`, true},
		{"spaced summary", `{"type":"user","uuid":"u3","isCompactSummary":true,"message":{"content": [{"type": "text", "text": "sum"}]}}`, true},
		{"spaced string prompt", `{"type":"user","uuid":"u3","message":{"content": "hi"}}`, true},
		{"text reply", `{"type":"assistant","uuid":"u3","requestId":"r2","message":{"id":"m2","model":"m","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":2,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":5},"speed":"fast"},"content":[{"type":"text","text":"done\n"}]}}`, true},
		{"api error", `{"type":"assistant","uuid":"u3","isApiErrorMessage":true,"message":{"model":"m","content":[]}}`, true},
		{"synthetic", `{"type":"assistant","uuid":"u3","message":{"model":"<synthetic>","content":[]}}`, true},
		{"sidechain", `{"type":"assistant","uuid":"u3","isSidechain":true,"requestId":"r3","message":{"id":"m3","model":"m","usage":{"output_tokens":1},"content":[]}}`, true},
		{"text without usage", `{"type":"assistant","uuid":"u3","requestId":"r3","message":{"id":"m3","model":"m","content":[{"type":"text","text":"hi"}]}}`, true},
		{"advisor", `{"type":"assistant","uuid":"u3","requestId":"r4","message":{"id":"m4","model":"m","usage":{"input_tokens":1,"iterations":[{"input_tokens":5,"output_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":2},"type":"advisor_message","model":"adv"},{"type":"message","input_tokens":1},7]},"content":[]}}`, true},
		{"sidechain replay", `{"type":"assistant","uuid":"u3","sessionId":"s","timestamp":"2026-03-01T09:00:00Z","requestId":"r9","isSidechain":true,"message":{"id":"m1","model":"claude-sonnet-4-6","usage":{"input_tokens":3,"cache_read_input_tokens":50000,"output_tokens":7},"content":[{"type":"text","text":"again"}]}}`, true},
		{"other system", `{"type":"system","uuid":"u3","subtype":"turn_duration","durationMs":5}`, true},
		{"unknown type", `{"type":"file-history-snapshot","uuid":"u3","snapshot":{"files":[1,2]}}`, true},
		{"escapes in unread keys", `{"type":"file-history-snapshot","snapshot":{"trackedFileBackups":{"C:\\Users\\a.md":{"version":1}}}}`, true},
		{"repeated uuid", strings.Replace(result, `"t1"`, `"t2"`, 1), true},
		{"tool input spaced", strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `{"file_path":"/a"}`, "{ \"a b\" :\t[1 , {\"c\":\"d e\"}],\n\"f\":null }", 1), true},
		{"tool input with escapes", strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `{"file_path":"/a"}`, `{"p\u0061th":"a\"b\\","n":-1.5e3}`, 1), true},

		{"compaction", `{"type":"system","uuid":"u3","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":5}}`, false},
		{"summary", `{"type":"summary","summary":"title","leafUuid":"x"}`, false},
		{"no type", `{"uuid":"u3"}`, false},
		{"type twice", `{"type":"user","type":"assistant","uuid":"u3","message":{"content":[]}}`, false},
		{"escaped key", `{"typ\u0065":"user","uuid":"u3","message":{"content":[]}}`, false},
		{"escaped id", `{"type":"user","uuid":"u\u0033","message":{"content":[]}}`, false},
		{"no message", `{"type":"user","uuid":"u3"}`, false},
		{"message not object", `{"type":"assistant","uuid":"u3","message":"hi"}`, false},
		{"neither usage nor content", `{"type":"assistant","uuid":"u3","requestId":"r3","message":{"id":"m3","model":"m"}}`, false},
		{"empty content, no usage", `{"type":"assistant","uuid":"u3","requestId":"r3","message":{"id":"m3","model":"m","content":[]}}`, false},
		{"empty text, no usage", `{"type":"assistant","uuid":"u3","requestId":"r3","message":{"id":"m3","model":"m","content":""}}`, false},
		{"empty message", `{"type":"assistant","uuid":"u3","message":{}}`, false},
		{"null usage field", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"input_tokens":null},"content":[]}}`, false},
		{"negative usage", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"input_tokens":-1},"content":[]}}`, false},
		{"iteration model null", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"iterations":[{"type":"message","model":null,"input_tokens":1}]},"content":[]}}`, false},
		{"iterations not a list", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"iterations":{}},"content":[]}}`, false},
		{"advisor count negative", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"iterations":[{"type":"advisor_message","model":"adv","input_tokens":-1}]},"content":[]}}`, false},
		{"float usage", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","usage":{"output_tokens":1.0},"content":[]}}`, false},
		{"tool use without id", `{"type":"assistant","uuid":"u3","message":{"id":"m4","model":"m","content":[{"type":"tool_use","name":"Read","input":{}}]}}`, false},
		{"result without id", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","content":"x"}]}}`, false},
		{"result invalid UTF-8", "{\"type\":\"user\",\"uuid\":\"u3\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"a\xffb\"}]}}", false},
		{"result object", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":{"a":1}}]}}`, false},
		{"flag not boolean", `{"type":"user","uuid":"u3","isMeta":"yes","message":{"content":"x"}}`, false},
		{"invalid JSON", `{"type":"user","uuid":"u3","message":{"content":"x"}`, false},
		{"usage at the bound", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"input_tokens":1000000000000},"content":[]}}`, true},
		{"usage above the bound", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"input_tokens":1000000000001},"content":[]}}`, false},
		{"cache part above the bound", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"cache_creation":{"ephemeral_1h_input_tokens":1000000000001}},"content":[]}}`, false},
		{"usage of 2^63-1", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"output_tokens":9223372036854775807},"content":[]}}`, false},
		{"summary twice", `{"type":"user","summary":"a","summary":"b","uuid":"u3","message":{"content":[]}}`, false},
		{"aiTitle twice", `{"type":"user","aiTitle":"a","aiTitle":"b","uuid":"u3","message":{"content":[]}}`, false},
		{"customTitle twice", `{"type":"user","customTitle":"a","customTitle":"b","uuid":"u3","message":{"content":[]}}`, false},
		{"compactMetadata twice", `{"type":"user","compactMetadata":{},"compactMetadata":{},"uuid":"u3","message":{"content":[]}}`, false},
		{"unread key twice", `{"type":"user","cwd":"a","cwd":"b","uuid":"u3","message":{"content":[]}}`, true},
		{"user message id twice", `{"type":"user","uuid":"u3","message":{"id":"a","id":"b","content":[]}}`, false},
		{"block text twice", `{"type":"user","uuid":"u3","message":{"content":[{"type":"text","text":"a","text":"b"}]}}`, false},
		{"result block type twice", `{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","type":"text","text":"ab"}]}]}}`, false},
		{"usage count twice", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"output_tokens":1,"output_tokens":2},"content":[]}}`, false},
		{"advisor model twice", `{"type":"assistant","uuid":"u3","requestId":"r5","message":{"id":"m5","model":"m","usage":{"iterations":[{"type":"advisor_message","model":"a","model":"b","input_tokens":1}]},"content":[]}}`, false},
		{"repeated tool_use id", strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `"m1"`, `"m9"`, 1), true},
		{"output above the first line's", strings.Replace(strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `"output_tokens":7`, `"output_tokens":70`, 1), `"stop_reason":"tool_use",`, ``, 1), true},
		{"lines disagree", strings.Replace(strings.Replace(strings.Replace(call, `"u1"`, `"u3"`, 1), `"input_tokens":3,`, `"input_tokens":0,`, 1), `"output_tokens":7`, `"output_tokens":9`, 1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBuilder("fast.jsonl", FormatClaude, 0)
			b.sizesOnly = true
			p := newClaudeParser(b)
			p.fastLine([]byte(call), 1)
			p.fastLine([]byte(result), 2)
			if got := p.fastLine([]byte(tt.line), 3); got != tt.fast {
				t.Errorf("fast path took it: %v, want %v", got, tt.fast)
			}
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
			if !p.fastLine([]byte(line), i+1) {
				t.Fatalf("line %d went the general way", i+1)
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
			if !p.fastLine(line, i+1) && !bytes.Contains(line, []byte("compact_boundary")) {
				t.Fatalf("line %d went the general way: %.200s", i+1, line)
			}
		}
	})
}

// TestFastPathRepeatedUsage: the lines of a response repeat its usage,
// which the fast path then takes as read the line before; what it reads
// must be what reading each line afresh reads, whatever follows the
// repeated bytes and whether the usage has advisors.
func TestFastPathRepeatedUsage(t *testing.T) {
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
