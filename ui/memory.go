package ui

// gcHeadroom is how much the heap may grow, past what it holds, before the
// garbage is collected, once a session is large. The inspector holds the
// whole session for as long as it is open, most of it the results' text;
// at Go's default pace the heap grew to twice that before each collection,
// and a 1 GB log took 2.8 GB. The text is strings, which the collector
// marks without scanning, so collecting more often costs little.
const gcHeadroom = 64 << 20

// sessionPace is the pace of garbage collection for a session of size
// bytes held whole: about gcHeadroom more than it holds, between 10 and
// Go's default 100; 0 asks for nothing.
func sessionPace(size int64) int {
	if size <= 0 {
		return 0
	}
	percent := int(max(10, min(100, 100*gcHeadroom/size)))
	if percent >= 100 {
		return 0
	}
	return percent
}

// sessionLimit is the soft memory limit for a session of size bytes whose
// texts are read on demand, opened while the program holds live bytes: a
// little under the file's size on top of those. Not a pace set by the
// size: such a session holds a fraction of its file, and reading its
// texts again allocates fast, so a pace set for holding the whole file
// would collect many times a second for nothing. On top of live, since a
// limit binds the whole program (the list the session was opened from
// too), and one under what it holds would have the collector run without
// end.
func sessionLimit(live, size int64) int64 { return live + size - size/8 }
