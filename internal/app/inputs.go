package app

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript"
)

// Input is one session to report: a transcript file, or "-" for standard
// input, with the sub-agent logs that belong to it.
type Input struct {
	Path string
	// Subagents are the logs of the sub-agents the session ran, in name
	// order: read and counted with it, never sessions of their own.
	Subagents []string
	// Err says why a path the user named gave no session (missing, or a
	// folder without *.jsonl files); the other fields are then empty but
	// Path, which names what was asked for.
	Err error
	// TextsOnDemand asks Each (with Options.TextFiles) to hand on the
	// session and its sub-agents, once prepared, without their results'
	// texts, each read again from its line when a replay needs it
	// (FileTexts); a format whose texts cannot be keeps them.
	TextsOnDemand bool
}

// Env is where discovery looks: the environment and the home folder, passed
// in so that tests need not touch the real ones.
type Env struct {
	Getenv func(string) string
	Home   string
}

// SystemEnv is this process's environment and home folder.
func SystemEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{Getenv: os.Getenv, Home: home}
}

// NoSessionsError says discovery found nothing, and where it looked.
type NoSessionsError struct {
	// Searched are the folders looked in, each with the variable it came
	// from ("$CLAUDE_CONFIG_DIR", "$CODEX_HOME") or "" for a default one.
	Searched []SearchedRoot
}

// SearchedRoot is one folder discovery looked in.
type SearchedRoot struct {
	Path string
	Var  string
}

func (e *NoSessionsError) Error() string {
	where := make([]string, len(e.Searched))
	for i, r := range e.Searched {
		where[i] = r.Path
		if r.Var != "" {
			where[i] += " (from " + r.Var + ")"
		}
	}
	if len(where) == 0 {
		return "no sessions found: no folder to look in (neither $HOME, $CLAUDE_CONFIG_DIR nor $CODEX_HOME is set); give a transcript path"
	}
	return fmt.Sprintf("no sessions found in %s; give a transcript path", strings.Join(where, ", "))
}

// roots are the folders discovery searches, with where each comes from;
// transcript.Roots decides which they are.
func roots(env Env) []SearchedRoot {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	fromVar := map[string]string{}
	for _, d := range strings.Split(getenv("CLAUDE_CONFIG_DIR"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			fromVar[filepath.Join(d, "projects")] = "$CLAUDE_CONFIG_DIR"
		}
	}
	if d := getenv("CODEX_HOME"); d != "" {
		fromVar[filepath.Join(d, "sessions")] = "$CODEX_HOME"
	}
	var out []SearchedRoot
	for _, r := range transcript.Roots(getenv, env.Home) {
		out = append(out, SearchedRoot{Path: r, Var: fromVar[r]})
	}
	return out
}

// Discover lists every session on this machine, newest first, each with its
// sub-agents; a *NoSessionsError when there is none.
func Discover(env Env) ([]Input, error) {
	searched := roots(env)
	paths := make([]string, len(searched))
	for i, r := range searched {
		paths[i] = r.Path
	}
	files, listing, err := transcript.FindListing(paths...)
	if err != nil {
		return nil, err
	}
	regular, skipped := filePaths(files)
	inputs := groupFiles(regular, listing)
	if len(inputs) == 0 && len(skipped) == 0 {
		return nil, &NoSessionsError{Searched: searched}
	}
	return append(inputs, skipped...), nil
}

// Newest is the newest session discovery finds: a sub-agent log whose
// session is gone only when there is nothing else.
func Newest(env Env) (Input, error) {
	inputs, err := Discover(env)
	if err != nil {
		return Input{}, err
	}
	var first *Input
	for i, in := range inputs {
		if in.Err != nil {
			continue
		}
		if !transcript.IsSubagent(in.Path) {
			return in, nil
		}
		if first == nil {
			first = &inputs[i]
		}
	}
	if first == nil {
		return Input{}, inputs[0].Err // nothing but files that are not to be read
	}
	return *first, nil
}

// Resolve turns the paths a user named into inputs, in the order named:
// a file is one input; a folder, every *.jsonl below it, newest first; "-"
// standard input. No paths means every session Discover finds. Sub-agent
// logs are put under their parent session wherever it is among the files
// named or found, or beside a file named on its own; one whose parent is
// not there stays an input of its own, so that no billed usage is lost.
func Resolve(paths []string, env Env) ([]Input, error) {
	if len(paths) == 0 {
		return Discover(env)
	}
	// Every file first, so that a sub-agent finds its parent whichever
	// path named either; named ones keep their place.
	type named struct {
		path    string
		files   []string // nil for "-" and failures
		skipped []Input  // files found that are not to be read
		err     error
	}
	all := make([]named, len(paths))
	listing := transcript.Listing{}
	for i, p := range paths {
		all[i].path = p
		if p == "-" {
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			all[i].err = err
			continue
		}
		if !info.IsDir() {
			if !info.Mode().IsRegular() {
				// A pipe named here (<(cmd)) would be read; one found in a
				// folder would hang. Logs are regular files: standard
				// input takes a pipe.
				all[i].err = fmt.Errorf("%s is %s, not a regular file: give it on standard input instead (- < %s)", p, safefile.Kind(info.Mode()), p)
				if info.Mode()&fs.ModeSocket != 0 {
					// A shell cannot redirect from a socket.
					all[i].err = fmt.Errorf("%s is %s, not a regular file", p, safefile.Kind(info.Mode()))
				}
				continue
			}
			all[i].files = []string{p}
			continue
		}
		files, walked, err := transcript.FindListing(p)
		if err != nil {
			all[i].err = err
			continue
		}
		for dir, entries := range walked {
			if _, seen := listing[dir]; !seen {
				listing[dir] = entries
			}
		}
		all[i].files, all[i].skipped = filePaths(files)
		if len(all[i].files) == 0 {
			all[i].err = fmt.Errorf("%s: no sessions found (looked for *.jsonl files, recursively)", p)
		}
	}
	var files []string
	for _, n := range all {
		files = append(files, n.files...)
	}
	byParent := groupIndex(files, listing)
	var out []Input
	once := onceEach{}
	for _, n := range all {
		switch {
		case n.path == "-":
			out = append(out, Input{Path: "-"})
		case n.err != nil:
			out = append(out, Input{Path: n.path, Err: n.err})
		}
		for _, f := range n.files {
			// Not a sub-agent (read under its parent), nor a file named
			// again, by another path or a link: its session counts once.
			if in, ok := byParent[f]; ok && once.first(f) {
				out = append(out, in)
			}
		}
		out = append(out, n.skipped...)
	}
	return out, nil
}

// onceEach tells files apart by what they are, not by how they are named.
type onceEach struct {
	ids   map[[2]uint64]bool
	other []os.FileInfo // where the system gives no id
}

// first tells whether the file at path is met for the first time: false
// for the same file met already, by this path or another. A file that
// cannot be examined is met once by each naming.
func (o *onceEach) first(path string) bool {
	if o.ids == nil {
		o.ids = map[[2]uint64]bool{}
	}
	info, err := os.Stat(path)
	if err != nil {
		return true
	}
	if id, ok := fileID(info); ok {
		if o.ids[id] {
			return false
		}
		o.ids[id] = true
		return true
	}
	for _, other := range o.other {
		if os.SameFile(info, other) {
			return false
		}
	}
	o.other = append(o.other, info)
	return true
}

// filePaths are the paths of the files to read, in order, and an input
// saying why for each file that is not to be read.
func filePaths(files []transcript.File) (paths []string, skipped []Input) {
	paths = make([]string, 0, len(files))
	for _, f := range files {
		if f.Err != nil {
			skipped = append(skipped, Input{Path: f.Path, Err: f.Err})
			continue
		}
		paths = append(paths, f.Path)
	}
	return paths, skipped
}

// groupFiles is the inputs of files, in their order, sub-agents under parents.
func groupFiles(files []string, listing transcript.Listing) []Input {
	byParent := groupIndex(files, listing)
	var out []Input
	for _, f := range files {
		if in, ok := byParent[f]; ok {
			out = append(out, in)
		}
	}
	return out
}

// groupIndex maps each file that is an input to that input; a sub-agent
// log with a parent among files has no entry of its own. Parents also take
// the sub-agent logs lying where Claude Code writes them, named or not;
// listing is what is known of the folders already, so that they are not
// listed again.
func groupIndex(files []string, listing transcript.Listing) map[string]Input {
	// Each file's clean path and kind, worked out once.
	type file struct {
		clean string
		sub   bool
	}
	kinds := make([]file, len(files))
	parents := make(map[string]bool, len(files))
	ids := sessionIDs{}
	// renamed holds the session id of each sub-agent log under another
	// name (sidechainLog): placed under a session that carries it.
	renamed := map[string]string{}
	var mains []string // the main logs, in files' order
	for i, f := range files {
		kinds[i] = file{filepath.Clean(f), transcript.IsSubagent(f)}
		if !kinds[i].sub && mayBeRenamed(f) {
			if id := sidechainLog(f); id != "" {
				kinds[i].sub = true
				renamed[kinds[i].clean] = id
			}
		}
		if !kinds[i].sub {
			parents[kinds[i].clean] = true
			mains = append(mains, kinds[i].clean)
		}
	}
	d := make(dirs, len(listing))
	for dir, entries := range listing {
		d[dir] = folder{entries: entries, whole: true}
	}
	// The sub-agent logs to place: those named, then those on disk.
	type subLog struct{ path, clean string }
	var subs []subLog
	seen := map[string]bool{}
	add := func(path, clean string) {
		if !seen[clean] {
			seen[clean] = true
			subs = append(subs, subLog{path, clean})
		}
	}
	for i, f := range files {
		if kinds[i].sub {
			add(f, kinds[i].clean)
		}
	}
	for i, f := range files {
		if !kinds[i].sub {
			for _, sub := range d.subagentsBeside(f) {
				add(sub, sub) // joined, so clean
			}
		}
	}
	children := map[string][]string{}
	placed := make(map[string]bool, len(subs))
	for _, sub := range subs {
		p := ""
		if id, ok := renamed[sub.clean]; ok {
			p = sessionOf(id, mains, ids)
		} else {
			p = parentOf(sub.path, parents, d, ids)
		}
		if p != "" {
			children[p] = append(children[p], sub.path)
			placed[sub.clean] = true
		}
	}
	out := make(map[string]Input, len(files))
	for i, f := range files {
		if placed[kinds[i].clean] {
			continue
		}
		in := Input{Path: f}
		if !kinds[i].sub {
			in.Subagents = children[kinds[i].clean]
			sort.Strings(in.Subagents)
		}
		out[f] = in
	}
	return out
}

// parentOf finds among parents the session a sub-agent log belongs to:
// <project>/<session>.jsonl for <project>/<session>/subagents/agent-<id>.jsonl;
// for a flat <project>/agent-<id>.jsonl, the session of its folder whose
// lines carry the same session id, the one named after that id first (as
// Claude Code names them). "" when that session is not among parents.
func parentOf(sub string, parents map[string]bool, d dirs, ids sessionIDs) string {
	dir := filepath.Dir(sub)
	if filepath.Base(dir) == "subagents" {
		p := filepath.Clean(filepath.Dir(dir) + ".jsonl")
		if parents[p] {
			return p
		}
		return ""
	}
	want := ids.of(sub)
	if want == "" {
		return ""
	}
	if p := filepath.Join(dir, want+".jsonl"); parents[p] && ids.of(p) == want {
		return p
	}
	for _, e := range d.list(dir) {
		if e.IsDir() {
			continue
		}
		if p := filepath.Join(dir, e.Name()); parents[p] && ids.of(p) == want {
			return p
		}
	}
	return ""
}

// sessionOf is the main log among mains whose lines carry session id, the
// one named after it first: the parent of a sub-agent log under another
// name. "" when none does.
func sessionOf(id string, mains []string, ids sessionIDs) string {
	found := ""
	for _, m := range mains {
		if ids.of(m) != id {
			continue
		}
		if strings.TrimSuffix(filepath.Base(m), ".jsonl") == id {
			return m
		}
		if found == "" {
			found = m
		}
	}
	return found
}

// mayBeRenamed tells whether a file not named as a sub-agent log may still
// be one: Claude Code names a session's log after its id, and Codex a
// rollout rollout-*.jsonl, so only a file named otherwise, by hand, is
// read to find out (sidechainLog).
func mayBeRenamed(path string) bool {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	return !isUUID(stem) && !strings.HasPrefix(stem, "rollout-")
}

// isUUID tells whether s is written as a UUID: 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
			return false
		}
	}
	return true
}

// maxSidechainLine bounds the lines sidechainLog reads: a longer one makes
// the file a session of its own, as every file was before.
const maxSidechainLine = 64 << 20

// sidechainLog is the session id of a Claude Code sub-agent's log that
// Claude Code did not name (agent-<id>.jsonl): every line of it is a
// record with isSidechain true, an agentId, and that session id. ""
// when path is anything else. The first line decides for most files; only
// a file it does not rule out is read to its end.
func sidechainLog(path string) string {
	f, _, err := safefile.OpenRegular(path, nil)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	// A first read of 4 KiB, not bufio's 64: most files are ruled out by
	// a first line shorter than that, and the reads are made one file
	// after another before a report starts (200 logs named by hand: 16 ms
	// against 56 ms).
	sc.Buffer(make([]byte, 0, 4<<10), maxSidechainLine)
	id := ""
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		sid, agent, sidechain, ok := transcript.PeekIDs(line)
		if !ok || !sidechain || agent == "" || sid == "" || id != "" && sid != id {
			return ""
		}
		id = sid
	}
	if sc.Err() != nil {
		return ""
	}
	return id
}

// subagentsBeside lists the sub-agent logs that may belong to the session
// at path: <session>/subagents/*.jsonl beside it, and agent-*.jsonl in its
// folder (whose session id parentOf checks).
func (d dirs) subagentsBeside(path string) []string {
	dir := filepath.Dir(path)
	beside := d.list(dir) // first: it tells whether <session> is there
	var out []string
	if d.mayHold(dir, strings.TrimSuffix(filepath.Base(path), ".jsonl")) {
		sub := transcript.SubagentsDir(path)
		for _, e := range d.list(sub) {
			if mayRead(e) && strings.HasSuffix(e.Name(), ".jsonl") {
				out = append(out, filepath.Join(sub, e.Name()))
			}
		}
	}
	for _, e := range beside {
		if name := e.Name(); mayRead(e) && strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl") {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// mayRead tells whether e may be a log to read: a regular file, or a link
// (to one, as opening it checks); never a FIFO, a device or a folder.
func mayRead(e fs.DirEntry) bool {
	return e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0
}

// dirs remembers what each folder holds, listed once: from the walk that
// found the files, else read when first asked for.
type dirs map[string]folder

// folder is one folder's entries in name order; whole when they were read
// in full (a folder that could not be read has none, and tells nothing
// about what is below it).
type folder struct {
	entries []fs.DirEntry
	whole   bool
}

// readDir lists a folder; tests count its calls.
var readDir = os.ReadDir

// list is what dir holds, nil when it is no folder that can be read. A
// folder whose parent was listed without it is not looked for: most
// sessions have no sub-agents folder, and asking for each would cost as
// much as the walk.
func (d dirs) list(dir string) []fs.DirEntry {
	dir = filepath.Clean(dir)
	if f, ok := d[dir]; ok {
		return f.entries
	}
	var f folder
	if !d.absent(dir) {
		if entries, err := readDir(dir); err == nil {
			f = folder{entries: entries, whole: true}
		}
	}
	d[dir] = f
	return f.entries
}

// absent tells whether what is known of the folders above dir rules it
// out: a folder read in full without an entry of its name, or with a
// file of its name, on the way up.
func (d dirs) absent(dir string) bool {
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		if f, ok := d[parent]; ok {
			return !f.mayHold(filepath.Base(dir))
		}
		dir = parent
	}
}

// mayHold tells whether dir may hold a folder name: unless it was listed
// in full without one (a link there is followed, so it may be a folder).
func (d dirs) mayHold(dir, name string) bool {
	f, ok := d[filepath.Clean(dir)]
	return !ok || f.mayHold(name)
}

func (f folder) mayHold(name string) bool {
	if !f.whole {
		return true
	}
	i, found := slices.BinarySearchFunc(f.entries, name, func(e fs.DirEntry, name string) int {
		return strings.Compare(e.Name(), name)
	})
	return found && !f.entries[i].Type().IsRegular()
}

// sessionIDs remembers the Claude Code session id each file's lines carry.
type sessionIDs map[string]string

// of is the first sessionId among the first lines of path, "" when none.
func (ids sessionIDs) of(path string) string {
	path = filepath.Clean(path)
	if id, ok := ids[path]; ok {
		return id
	}
	id := peekSessionID(path)
	ids[path] = id
	return id
}

// peekLines bounds how far peekSessionID looks: the id is on the first
// line of every Claude Code record but a few summary lines.
const peekLines = 16

func peekSessionID(path string) string {
	f, _, err := safefile.OpenRegular(path, nil)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 0; n < peekLines && sc.Scan(); n++ {
		if id, _, _, _ := transcript.PeekIDs(sc.Bytes()); id != "" {
			return id
		}
	}
	return ""
}
