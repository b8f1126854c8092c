package transcript

import (
	"cmp"
	"slices"
	"time"
)

// codexUsageKey is one usage event as the log recorded it: what a replay
// copies exactly. input includes the cached and cache-write parts.
type codexUsageKey struct {
	input, cached, cacheWrite, output, reasoning, total int64
}

func codexKey(u *Usage) codexUsageKey {
	return codexUsageKey{
		input: u.Input + u.CacheRead + u.CacheCreation, cached: u.CacheRead, cacheWrite: u.CacheCreation,
		output: u.Output, reasoning: u.Reasoning, total: u.LoggedTotal,
	}
}

// codexEvent is a usage event of a parent stream: its key and when it was
// recorded.
type codexEvent struct {
	key codexUsageKey
	at  time.Time
}

// reconcileCodex marks the Codex usage that sessions of the set already
// count:
//
//   - A fork or sub-agent rollout opens with a replay of its parent's usage
//     events. Where the parent is in the set, the child's leading events
//     that equal the parent's, one for one and in order, are the parent's;
//     only the parent's events up to the fork instant (the child's Started)
//     count, since what the parent recorded later was never replayed. The
//     parent's stream is taken whole, as its file records it, whatever is
//     marked in it. When the child's first event already differs (Codex
//     replayed a compacted history), the burst the reader found stands for
//     the replay. A child whose parent is not in the set (or that names
//     itself) keeps the reader's burst marks.
//   - A usage event recorded at the same instant, with the same model and
//     the same counts as one in an earlier session of the set (a copied
//     branch history) is that session's.
func reconcileCodex(sessions []*Session) {
	byID := make(map[string][]*Session)
	for _, s := range sessions {
		if s.Format == FormatCodex && s.ID != "" {
			byID[s.ID] = append(byID[s.ID], s)
		}
	}
	streams := make(map[*Session][]codexEvent)
	for _, child := range sessions {
		if child.Format != FormatCodex || child.ParentID == "" {
			continue
		}
		var parent *Session
		for _, cand := range byID[child.ParentID] {
			if cand != child && cand.Path != child.Path {
				parent = cand
				break
			}
		}
		if parent == nil {
			continue
		}
		stream, ok := streams[parent]
		if !ok {
			stream = codexStream(parent)
			streams[parent] = stream
		}
		matchReplay(child, replayedPart(stream, child.Started), parent.Path)
	}
	dedupeCodex(sessions)
}

// codexStream lists a session's usage events in order.
func codexStream(s *Session) []codexEvent {
	var out []codexEvent
	for i := range s.Calls {
		if u := s.Calls[i].Usage; u != nil {
			out = append(out, codexEvent{key: codexKey(u), at: u.At})
		}
	}
	return out
}

// replayedPart is the part of a parent's stream a child forked at forkedAt
// can have replayed: every event up to the first recorded after the fork.
func replayedPart(stream []codexEvent, forkedAt time.Time) []codexEvent {
	if forkedAt.IsZero() {
		return stream
	}
	for i, e := range stream {
		if !e.at.IsZero() && e.at.After(forkedAt) {
			return stream[:i]
		}
	}
	return stream
}

// matchReplay marks the child's leading usage events that equal the
// replayed prefix as counted in parentPath.
func matchReplay(child *Session, prefix []codexEvent, parentPath string) {
	readerMark := replayMark(child.ParentID)
	matched := 0
	for i := range child.Calls {
		c := &child.Calls[i]
		if c.Usage == nil {
			continue
		}
		if matched >= len(prefix) || codexKey(c.Usage) != prefix[matched].key {
			break
		}
		matched++
	}
	seen := 0
	for i := range child.Calls {
		c := &child.Calls[i]
		if c.Usage == nil {
			continue
		}
		switch {
		case matched == 0 && c.CountedIn == readerMark:
			// The first event is no copy of the parent's: the burst the
			// reader found is the replay, of a history Codex rewrote.
			c.CountedIn = parentPath
		case matched > 0 && seen < matched:
			c.CountedIn = parentPath
		case matched > 0 && (c.CountedIn == readerMark || c.CountedIn == parentPath):
			c.CountedIn = ""
		}
		seen++
	}
}

// dedupeCodex marks usage events that an earlier session of the set
// records at the same instant, with the same model and counts. Events are
// sorted by instant, 16 bytes each, and compared in full only within one
// instant, so the check costs little memory over thousands of sessions.
func dedupeCodex(sessions []*Session) {
	type ref struct {
		at            int64
		session, call int32
	}
	n := 0
	for _, s := range sessions {
		if s.Format == FormatCodex {
			n += len(s.Calls)
		}
	}
	refs := make([]ref, 0, n)
	for si, s := range sessions {
		if s.Format != FormatCodex {
			continue
		}
		for ci := range s.Calls {
			if c := &s.Calls[ci]; c.Usage != nil && !c.Usage.At.IsZero() && c.CountedIn == "" {
				refs = append(refs, ref{c.Usage.At.UnixNano(), int32(si), int32(ci)})
			}
		}
	}
	slices.SortFunc(refs, func(a, b ref) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.session, b.session), cmp.Compare(a.call, b.call))
	})
	for start := 0; start < len(refs); {
		end := start + 1
		for end < len(refs) && refs[end].at == refs[start].at {
			end++
		}
		// Within one instant, each event is the first of its kind or a copy
		// of the first, which is in an earlier session or the same one.
		for i := start + 1; i < end; i++ {
			c := &sessions[refs[i].session].Calls[refs[i].call]
			for j := start; j < i; j++ {
				first := &sessions[refs[j].session].Calls[refs[j].call]
				if first.CountedIn == "" && first.Model == c.Model && codexKey(first.Usage) == codexKey(c.Usage) {
					if refs[j].session != refs[i].session {
						c.CountedIn = sessions[refs[j].session].Path
					}
					break
				}
			}
		}
		start = end
	}
}
