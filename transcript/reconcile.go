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
// sizes-only read) onto the same calls of to (a full read of the same
// file). Calls are matched by the line they start on, which both reads
// agree on.
func CarryMarks(to, from *Session) {
	marked := make(map[int]string)
	for i := range from.Calls {
		if c := &from.Calls[i]; c.CountedIn != "" {
			marked[c.Line] = c.CountedIn
		}
	}
	for i := range to.Calls {
		to.Calls[i].CountedIn = marked[to.Calls[i].Line]
	}
}
