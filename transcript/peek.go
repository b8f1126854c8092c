package transcript

// peekNames are the keys PeekIDs reads, in the order of its results.
var peekNames = [3]string{"sessionId", "agentId", "isSidechain"}

// PeekIDs reads the top-level sessionId, agentId and isSidechain of a
// Claude Code log line, which tell which session a file belongs to
// before it is read: the ids "" where missing or not strings, sidechain
// whether isSidechain is true, and ok whether the line is JSON as the
// readers read it (otherwise all are zero). Each is read from the member
// fastjson's Get finds on a line parsed afresh, as these names were first
// read: the first whose key is written as the name, else the first whose
// key unescapes to it.
func PeekIDs(line []byte) (sessionID, agentID string, sidechain, ok bool) {
	var s scanner
	s.reset(line)
	if s.peek() != '{' {
		s.skip()
		return "", "", false, s.end()
	}
	// The first value of each name under a key written as the name, and
	// under any key.
	var written, first [len(peekNames)][]byte
	s.enter('{')
	for s.more('}') {
		k, esc := s.raw()
		if esc {
			s.keyBuf = unescape(s.keyBuf[:0], k)
			k = s.keyBuf
		}
		s.colon()
		v := s.skip()
		for i, name := range peekNames {
			if string(k) != name {
				continue
			}
			if written[i] == nil && !esc {
				written[i] = v
			}
			if first[i] == nil {
				first[i] = v
			}
		}
	}
	if !s.end() {
		return "", "", false, false
	}
	for i := range written {
		if written[i] == nil {
			written[i] = first[i]
		}
	}
	return textOf(written[0]), textOf(written[1]), string(written[2]) == "true", true
}
