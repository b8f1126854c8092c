package transcript

// Reconcile makes the sessions read together count every billed response
// once. A response can appear in more than one file: a resumed or copied
// Claude Code session repeats the lines of the one it continues, and a
// forked or spawned Codex rollout begins with a replay of its parent's
// usage. Reconcile marks each such copy with CountedIn (the path of the
// session that counts it) so that no total adds it twice; within one file,
// the readers already drop what the file itself shows to be a replay.
//
// It works on sessions read with SizesOnly as well as in full, so a caller
// can decide over many files cheaply and carry the marks onto a full read
// of one of them with CarryMarks.
func Reconcile(sessions []*Session) {
	reconcileClaude(sessions)
	reconcileCodex(sessions)
}

// CarryMarks copies what Reconcile decided for the calls of from (a
// sizes-only read, or what Marks kept of one) onto the same calls of to (a
// full read of the same file); from nil marks none. Calls are matched by
// the line they start on, which both reads agree on.
func CarryMarks(to, from *Session) {
	var marked map[int]string
	if from != nil {
		marked = make(map[int]string)
		for i := range from.Calls {
			if c := &from.Calls[i]; c.CountedIn != "" {
				marked[c.Line] = c.CountedIn
			}
		}
	}
	for i := range to.Calls {
		to.Calls[i].CountedIn = marked[to.Calls[i].Line]
	}
}

// Marks keeps of s only what CarryMarks carries: the calls Reconcile
// marked, by line; nil when there are none.
func Marks(s *Session) *Session {
	var calls []Call
	for _, c := range s.Calls {
		if c.CountedIn != "" {
			calls = append(calls, Call{Line: c.Line, CountedIn: c.CountedIn})
		}
	}
	if calls == nil {
		return nil
	}
	return &Session{Path: s.Path, Calls: calls}
}
