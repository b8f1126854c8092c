package transcript

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
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
	head, err := io.ReadAll(io.LimitReader(r, CwdBytes+1))
	if err != nil {
		return "", err
	}
	return Cwd(head, len(head) <= CwdBytes), nil
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
