package transcript

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"path/filepath"
	"slices"
	"strings"
)

// reconcileClaude marks the Claude Code responses that another session of
// the set counts. A resumed or copied session repeats the lines of the
// responses it continues, in a file of its own; ccusage counts each such
// response once, and so does Reconcile. Two calls of different files are
// the same response when
//
//   - both name the same message id and the same request id (a request id
//     is the API's own, never reused), or
//   - neither names a request id, and both name the same message id in the
//     same session: the sessionId the lines record, else the file. Gateways
//     that proxy the API reuse message ids across sessions (ccusage keeps
//     those apart since its #1661), or
//   - they name the same message id, session and time and one of them is a
//     sidechain's: the /btw aside replays its parent's message under a new
//     request id (ccusage #913), as the reader handles within one file.
//
// Of the copies of a response, the one that counts is the one ccusage keeps,
// but that a sub-agent's log counts its calls before a parent log's copies
// of them (AgentCopy): a main-chain copy before a sidechain's, then the larger token total; among
// equals, the one that came first, by the call's time (calls without one
// last), then the one in the file named after the session id it records
// (Claude Code's own name for a session's log, so a copy made under
// another name does not take the original's place), then the file's path,
// then the line. The others get CountedIn.
func reconcileClaude(sessions []*Session) {
	type ref struct{ s, c int }
	var refs []ref
	claude := 0
	for si, s := range sessions {
		if s.Format != FormatClaude {
			continue
		}
		claude++
		for ci := range s.Calls {
			c := &s.Calls[ci]
			c.CountedIn = ""
			if c.MessageID != "" && c.Usage != nil {
				refs = append(refs, ref{si, ci})
			}
		}
	}
	if claude < 2 {
		return
	}
	call := func(r ref) *Call { return &sessions[r.s].Calls[r.c] }
	slices.SortFunc(refs, func(a, b ref) int {
		ca, cb := call(a), call(b)
		if za, zb := ca.Time.IsZero(), cb.Time.IsZero(); za != zb {
			if za {
				return 1
			}
			return -1
		}
		if c := ca.Time.Compare(cb.Time); c != 0 {
			return c
		}
		if na, nb := namedFor(sessions[a.s], ca), namedFor(sessions[b.s], cb); na != nb {
			if na {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(sessions[a.s].Path, sessions[b.s].Path); c != 0 {
			return c
		}
		return cmp.Compare(ca.Line, cb.Line)
	})

	seed := maphash.MakeSeed()
	hash := func(kind byte, parts ...string) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteByte(kind)
		for _, p := range parts {
			h.WriteString(p)
			h.WriteByte(0)
		}
		return h.Sum64()
	}
	// groups[i] lists the copies of one response, the first to count;
	// byKey and byReplay find a response's group by its keys.
	var groups [][]ref
	byKey := make(map[uint64]int, len(refs))
	byReplay := make(map[uint64]int, len(refs))
	for _, r := range refs {
		c := call(r)
		session := c.SessionID
		if session == "" {
			session = "\x00file:" + sessions[r.s].Path
		}
		var key uint64
		if c.RequestID != "" {
			key = hash('r', c.MessageID, c.RequestID)
		} else {
			key = hash('s', c.MessageID, session)
		}
		var replay uint64
		if !c.Time.IsZero() {
			var ns [8]byte
			binary.LittleEndian.PutUint64(ns[:], uint64(c.Time.UnixNano()))
			replay = hash('t', c.MessageID, session, string(ns[:]))
		}
		g, found := byKey[key]
		if !found && replay != 0 {
			if rg, ok := byReplay[replay]; ok && (c.Sidechain || call(groups[rg][0]).Sidechain) {
				g, found = rg, true
			}
		}
		if !found {
			g = len(groups)
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], r)
		if _, ok := byKey[key]; !ok {
			byKey[key] = g
		}
		if _, ok := byReplay[replay]; replay != 0 && !ok {
			byReplay[replay] = g
		}
	}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		best := g[0]
		for _, r := range g[1:] {
			// A parent log's copy of a sub-agent's call counts only where
			// no log holds the call itself.
			if b, c := call(best), call(r); b.AgentCopy != c.AgentCopy && b.AgentCopy || b.AgentCopy == c.AgentCopy && copyRanks(b).less(copyRanks(c)) {
				best = r
			}
		}
		for _, r := range g {
			if r.s != best.s {
				call(r).CountedIn = sessions[best.s].Path
			}
		}
	}
}

// namedFor tells whether s's file is named after the session id c
// records, <sessionId>.jsonl, as Claude Code names a session's log.
func namedFor(s *Session, c *Call) bool {
	return c.SessionID != "" && strings.TrimSuffix(filepath.Base(s.Path), ".jsonl") == c.SessionID
}

// copyRanks ranks a call among copies of its response as the reader ranks
// the lines of one: a main-chain copy first, then the larger token total.
func copyRanks(c *Call) claudeRank {
	u := c.Usage
	return claudeRank{mainChain: !c.Sidechain, total: u.Input + u.CacheCreation + u.CacheRead + u.Output}
}
