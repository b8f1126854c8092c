package transcript

import (
	"bytes"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/spillway-dev/spillway/internal/corpus"
)

// peeks are lines and what PeekIDs reads from them.
var peeks = []struct {
	line      string
	session   string
	agent     string
	sidechain bool
	ok        bool
}{
	{line: `{"parentUuid":null,"isSidechain":true,"userType":"external","agentId":"a1b2","sessionId":"s-1","type":"user"}`,
		session: "s-1", agent: "a1b2", sidechain: true, ok: true},
	{line: `{"isSidechain":false,"sessionId":"s-2","message":{"sessionId":"inner","agentId":"inner"}}`, session: "s-2", ok: true},
	{line: `{"type":"summary","summary":"Lock file","leafUuid":"u"}`, ok: true},
	{line: ` { "sessionId" : "s" , "isSidechain" : true } `, session: "s", sidechain: true, ok: true},
	// Only a string is an id, only true is true.
	{line: `{"sessionId":7,"agentId":null,"isSidechain":"true"}`, ok: true},
	{line: `{"sessionId":{"a":1},"agentId":["x"],"isSidechain":1}`, ok: true},
	// A value's escapes are unescaped, unknown ones kept as written.
	{line: `{"sessionId":"a\u00e9\q\"","agentId":"\ud83d\ude00"}`, session: `aé\q"`, agent: "😀", ok: true},
	// A repeated key: the first.
	{line: `{"sessionId":"first","sessionId":"second","isSidechain":true,"isSidechain":false}`, session: "first", sidechain: true, ok: true},
	// A key with an escape counts where no key is written as the name.
	{line: `{"sessio\u006eId":"escaped","isSide\u0063hain":true}`, session: "escaped", sidechain: true, ok: true},
	{line: `{"sessio\u006eId":"escaped","sessionId":"written"}`, session: "written", ok: true},
	// A line that is not one JSON text gives nothing.
	{line: `{"sessionId":"s"`},
	{line: `{"sessionId":"s"} {}`},
	{line: `{"sessionId":"s",}`},
	{line: `{"sessionId":"s","isSidechain":tru}`},
	{line: ``},
	{line: `   `},
	// Other values are read, and hold no ids.
	{line: `["sessionId","s"]`, ok: true},
	{line: `"sessionId"`, ok: true},
	{line: `-Inf`, ok: true},
}

func TestPeeks(t *testing.T) {
	for _, p := range peeks {
		session, agent, sidechain, ok := PeekIDs([]byte(p.line))
		if session != p.session || agent != p.agent || sidechain != p.sidechain || ok != p.ok {
			t.Errorf("PeekIDs(%s) = %q, %q, %v, %v; want %q, %q, %v, %v", p.line,
				session, agent, sidechain, ok, p.session, p.agent, p.sidechain, p.ok)
		}
		if s, a, sc, k := fastjsonPeek([]byte(p.line)); s != session || a != agent || sc != sidechain || k != ok {
			t.Errorf("fastjson reads %s as %q, %q, %v, %v", p.line, s, a, sc, k)
		}
	}
}

// fastjsonPeek is what PeekIDs reads, read with fastjson: each name
// looked up in the line parsed afresh, since fastjson's Get finds a key
// written with an escape differently once an earlier Get on the same
// object has looked past the keys as written.
func fastjsonPeek(line []byte) (sessionID, agentID string, sidechain, ok bool) {
	var p fastjson.Parser
	if _, err := p.ParseBytes(line); err != nil {
		return "", "", false, false
	}
	v, _ := p.ParseBytes(line)
	sessionID = string(v.GetStringBytes("sessionId"))
	v, _ = p.ParseBytes(line)
	agentID = string(v.GetStringBytes("agentId"))
	v, _ = p.ParseBytes(line)
	return sessionID, agentID, v.GetBool("isSidechain"), true
}

// FuzzPeekIDs holds PeekIDs to fastjson, which the callers read these
// fields with before: the same ids, sidechain and ok on any line.
func FuzzPeekIDs(f *testing.F) {
	for _, p := range peeks {
		f.Add([]byte(p.line))
	}
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 1, 3, 100); err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		session, agent, sidechain, ok := PeekIDs(line)
		s, a, sc, k := fastjsonPeek(line)
		if session != s || agent != a || sidechain != sc || ok != k {
			t.Fatalf("PeekIDs reads %q, %q, %v, %v; fastjson %q, %q, %v, %v: %q",
				session, agent, sidechain, ok, s, a, sc, k, line)
		}
	})
}
