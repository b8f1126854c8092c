package transcript

import (
	"testing"
	"time"
)

// TestReconcileOriginalByName: a byte-for-byte copy of a session's log
// under another name has the same calls at the same times; the copy in the
// file Claude Code named after the session counts, whichever path sorts
// first.
func TestReconcileOriginalByName(t *testing.T) {
	at := time.Date(2026, 2, 1, 10, 0, 1, 0, time.UTC)
	session := func(path string) *Session {
		return &Session{Path: path, Format: FormatClaude, Calls: []Call{{
			Line: 2, Time: at, MessageID: "msg_a1", RequestID: "req_a1", SessionID: "sess-a",
			Usage: &Usage{Input: 10, CacheCreation: 1000, Output: 50},
		}}}
	}
	for _, tt := range []struct{ copy, original string }{
		{"/p/sess-a-copy.jsonl", "/p/sess-a.jsonl"}, // the copy sorts first
		{"/p/z-copy.jsonl", "/p/sess-a.jsonl"},      // the original sorts first
	} {
		cp, orig := session(tt.copy), session(tt.original)
		Reconcile([]*Session{cp, orig})
		if got := cp.Calls[0].CountedIn; got != tt.original {
			t.Errorf("%s: the copy's call is counted in %q, want %q", tt.copy, got, tt.original)
		}
		if got := orig.Calls[0].CountedIn; got != "" {
			t.Errorf("%s: the original's call is counted in %q, want itself", tt.original, got)
		}
	}
}
