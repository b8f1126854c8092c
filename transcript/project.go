package transcript

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
)

// CwdBytes bounds how much of a log's start Cwd looks at: both agents
// record the working folder on their first records, though a Claude Code
// log's first lines can hold images of hundreds of KB before it.
const CwdBytes = 1 << 20

// Cwd is the first working folder a log records among its first lines:
// a Claude Code record's "cwd" or a Codex record's payload.cwd
// (session_meta, turn_context); "" when none does. head is the log's
// start; a last line without its newline counts only when whole says
// head is all of the log, for a line cut short is not the line.
func Cwd(head []byte, whole bool) string {
	head = head[:min(len(head), CwdBytes)]
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else if whole {
			head = nil
		} else {
			break
		}
		if !bytes.Contains(line, []byte(`"cwd"`)) {
			continue
		}
		v := jsonValue(line)
		if v == nil {
			continue
		}
		if cwd := stringOf(member(v, "cwd", false, nil)); len(cwd) > 0 {
			return string(cwd)
		}
		if cwd := stringOf(member(member(v, "payload", false, nil), "cwd", false, nil)); len(cwd) > 0 {
			return string(cwd)
		}
	}
	return ""
}

// ReadCwd is Cwd of the log r reads, from its start.
func ReadCwd(r io.Reader) (string, error) {
	// Read as far as the first line that records one, not CwdBytes every
	// time, into a buffer kept for the next: a report of 200 sessions made
	// and read 200 MB for its projects, a fifth of its time. The lines
	// complete in a prefix are complete in any longer one, so the first
	// found is the same.
	bp := cwdBufs.Get().(*[]byte)
	defer cwdBufs.Put(bp)
	buf := *bp
	n, want := 0, 64<<10
	for {
		got, err := io.ReadFull(r, buf[n:want])
		n += got
		end := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !end {
			return "", err
		}
		if cwd := Cwd(buf[:n], end); cwd != "" || end || n > CwdBytes {
			return cwd, nil
		}
		want = min(2*want, len(buf))
	}
}

// cwdBufs hold the buffers ReadCwd reads into, of CwdBytes+1 bytes.
var cwdBufs = sync.Pool{New: func() any { b := make([]byte, CwdBytes+1); return &b }}

// SubagentsDir is the folder where Claude Code writes the sub-agents' logs
// of the session logged at path: <session>/subagents beside it.
func SubagentsDir(path string) string {
	return filepath.Join(strings.TrimSuffix(path, filepath.Ext(path)), "subagents")
}

// Project names the project of the session whose log is at path: the
// working folder cwd the log records (see Cwd), else, for a log in Claude
// Code's projects/<folder>/ (a sub-agent's under
// projects/<folder>/<session>/subagents/ too: its parent's project), that
// folder's name decoded, Claude Code writing the path with its "/" as "-"
// ("-home-dev-x" is /home/dev/x; lossy, as "-" and "." are written alike);
// "" for a log in any other folder, which holds logs rather than being
// where an agent worked. Every front end names projects with it, so that a
// session is in the same project in each.
func Project(path, cwd string) string {
	if cwd != "" {
		return cwd
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "subagents" {
		dir = filepath.Dir(filepath.Dir(dir))
	}
	if filepath.Base(filepath.Dir(dir)) != "projects" {
		return ""
	}
	name := filepath.Base(dir)
	if strings.HasPrefix(name, "-") {
		return strings.ReplaceAll(name, "-", "/")
	}
	return name
}
