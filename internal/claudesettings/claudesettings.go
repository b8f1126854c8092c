// Package claudesettings edits Claude Code's settings files: it finds the
// file of a scope, adds, replaces or removes one PostToolUse hook's entry
// or one top-level setting (the status line's) and nothing else, leaving
// every other byte of the file as it was, and writes the file atomically
// beside a backup of what it held, never through a link. A settings file
// is the user's and untrusted: one that does not parse is refused, naming
// its line, and an edit whose outcome differs from the file in anything
// but what was asked is not written.
package claudesettings

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/spillway-dev/spillway/internal/safefile"
)

// Scope is where a setting applies, as Claude Code names its files.
type Scope string

// Scopes.
const (
	User    Scope = "user"    // every project: ~/.claude/settings.json
	Project Scope = "project" // the project, shared: .claude/settings.json
	Local   Scope = "local"   // the project, this machine: .claude/settings.local.json
)

// Scopes lists the scopes.
var Scopes = []Scope{User, Project, Local}

// Path is the settings file of scope: configDir is $CLAUDE_CONFIG_DIR
// ("" for ~/.claude under home), project the project's folder.
func Path(scope Scope, configDir, home, project string) (string, error) {
	switch scope {
	case User:
		if configDir == "" {
			if home == "" {
				return "", errors.New("no home folder to find ~/.claude/settings.json in")
			}
			configDir = filepath.Join(home, ".claude")
		}
		return filepath.Join(configDir, "settings.json"), nil
	case Project:
		return filepath.Join(project, ".claude", "settings.json"), nil
	case Local:
		return filepath.Join(project, ".claude", "settings.local.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q (want user, project or local)", scope)
}

// maxFile bounds what is read of a settings file.
const maxFile = 16 << 20

// File is a settings file as read.
type File struct {
	Path   string
	Data   []byte // as read; empty for a file that does not exist
	Exists bool
	info   fs.FileInfo
}

// Hook is one command hook of a PostToolUse group.
type Hook struct {
	Matcher string
	Command string
	Timeout int // seconds; 0 leaves Claude Code's default
}

// Load reads the settings file at path; a missing one is an empty file. A
// link, anything but a regular file, and text that is not a JSON object
// are refused.
func Load(path string) (*File, error) {
	f := &File{Path: path}
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a link: spillway does not write through one (give its target with --settings)", path)
	}
	file, info, err := safefile.OpenRegular(path, info)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("%s is over %d MiB: not a settings file", path, maxFile>>20)
	}
	f.Data, f.Exists, f.info = data, true, info
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	if _, err := parse(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Hooks are the PostToolUse hooks whose command ours says is one's own.
func (f *File) Hooks(ours func(command string) bool) []Hook {
	root, err := parse(f.Data)
	if err != nil || root == nil {
		return nil
	}
	var out []Hook
	for _, g := range postGroups(root) {
		for _, h := range g.hooks {
			if h.command != "" && ours(h.command) {
				out = append(out, Hook{Matcher: g.matcher, Command: h.command, Timeout: h.timeout})
			}
		}
	}
	return out
}

// Install returns the file's text with h as the one PostToolUse hook that
// ours says is one's own: it takes the place of the first group that held
// only such hooks, else it is added as a group of its own at the end; every
// other hook of ours is removed. The text is what it was when h was there
// already.
func (f *File) Install(h Hook, ours func(command string) bool) ([]byte, error) {
	return f.edit(&h, ours)
}

// Uninstall returns the file's text without the PostToolUse hooks ours says
// are one's own, and without the groups, the PostToolUse list and the
// hooks object that held nothing else.
func (f *File) Uninstall(ours func(command string) bool) ([]byte, error) {
	return f.edit(nil, ours)
}

func (f *File) edit(h *Hook, ours func(string) bool) ([]byte, error) {
	data := f.Data
	if len(bytes.TrimSpace(data)) == 0 {
		if h == nil {
			return data, nil
		}
		data = []byte("{}\n")
	}
	root, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	if err := checkShape(data, root); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	ed := &editor{data: data, indent: indentOf(data, root)}
	hooksMember, post := lookup(root, "hooks"), (*node)(nil)
	if hooksMember != nil {
		post = lookup(hooksMember, "PostToolUse")
	}
	placed := false
	if post != nil {
		var groupsGone []int
		for i, g := range post.elems {
			hs := lookup(g, "hooks")
			if hs == nil {
				continue
			}
			var mine []int
			for j, e := range hs.elems {
				if c := commandOf(data, e); c != "" && ours(c) {
					mine = append(mine, j)
				}
			}
			switch {
			case len(mine) == 0:
			case len(mine) == len(hs.elems) && h != nil && !placed:
				placed = true
				ed.replace(g, renderGroup(*h, ed.indent, depthOf(data, g)))
			case len(mine) == len(hs.elems):
				groupsGone = append(groupsGone, i)
			default:
				ed.removeElems(hs, mine)
			}
		}
		switch {
		case h == nil && len(groupsGone) == len(post.elems) && len(hooksMember.vals) == 1:
			ed.removeMembers(root, []int{memberIndex(root, hooksMember)})
		case h == nil && len(groupsGone) == len(post.elems):
			ed.removeMembers(hooksMember, []int{memberIndex(hooksMember, post)})
		default:
			ed.removeElems(post, groupsGone)
		}
	}
	if h != nil && !placed {
		switch {
		case post != nil:
			ed.appendElem(post, renderGroup(*h, ed.indent, depthOf(data, post)+1))
		case hooksMember != nil:
			ed.addMember(hooksMember, "PostToolUse", []any{groupOf(*h)})
		default:
			ed.addMember(root, "hooks", ordered{{"PostToolUse", []any{groupOf(*h)}}})
		}
	}
	out := ed.apply()
	if err := sameBut(data, out, ours); err != nil {
		return nil, fmt.Errorf("%s: spillway's edit would have changed more than its hook (%v); nothing written", f.Path, err)
	}
	if h != nil {
		if hs := (&File{Data: out}).Hooks(ours); len(hs) != 1 || hs[0] != *h {
			return nil, fmt.Errorf("%s: spillway's edit did not leave its hook in place; nothing written", f.Path)
		}
	}
	return out, nil
}

// group is one PostToolUse group as Claude Code reads it.
type group struct {
	matcher string
	hooks   []hook
}

type hook struct {
	command string
	timeout int
}

func postGroups(root *node) []group {
	post := lookup(lookup(root, "hooks"), "PostToolUse")
	if post == nil {
		return nil
	}
	var out []group
	for _, g := range post.elems {
		var gr group
		if m := lookup(g, "matcher"); m != nil && m.kind == '"' {
			gr.matcher = m.str
		}
		if hs := lookup(g, "hooks"); hs != nil {
			for _, e := range hs.elems {
				var h hook
				if c := lookup(e, "command"); c != nil && c.kind == '"' {
					h.command = c.str
				}
				if t := lookup(e, "timeout"); t != nil && t.kind == 'n' {
					fmt.Sscan(t.str, &h.timeout)
				}
				gr.hooks = append(gr.hooks, h)
			}
		}
		out = append(out, gr)
	}
	return out
}

func commandOf(data []byte, e *node) string {
	if c := lookup(e, "command"); c != nil && c.kind == '"' {
		return c.str
	}
	return ""
}

// checkShape refuses settings whose hooks are not where Claude Code reads
// them, naming the line.
func checkShape(data []byte, root *node) error {
	if root.kind != '{' {
		return fmt.Errorf("line %d: the settings are not a JSON object", lineOf(data, root.start))
	}
	hooks := lookup(root, "hooks")
	if hooks == nil {
		return nil
	}
	if hooks.kind != '{' {
		return fmt.Errorf("line %d: \"hooks\" is not an object", lineOf(data, hooks.start))
	}
	post := lookup(hooks, "PostToolUse")
	if post == nil {
		return nil
	}
	if post.kind != '[' {
		return fmt.Errorf("line %d: \"PostToolUse\" is not a list", lineOf(data, post.start))
	}
	for _, g := range post.elems {
		if g.kind != '{' {
			return fmt.Errorf("line %d: a PostToolUse entry is not an object", lineOf(data, g.start))
		}
		if hs := lookup(g, "hooks"); hs != nil && hs.kind != '[' {
			return fmt.Errorf("line %d: a PostToolUse entry's \"hooks\" is not a list", lineOf(data, hs.start))
		}
	}
	return nil
}

// ordered is a JSON object whose keys keep their order.
type ordered []struct {
	key string
	val any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(kv.key))
		b.WriteByte(':')
		b.Write(marshal(kv.val))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func groupOf(h Hook) ordered {
	cmd := ordered{{"type", "command"}, {"command", h.Command}}
	if h.Timeout > 0 {
		cmd = append(cmd, struct {
			key string
			val any
		}{"timeout", h.Timeout})
	}
	return ordered{{"matcher", h.Matcher}, {"hooks", []any{cmd}}}
}

func renderGroup(h Hook, indent string, depth int) string {
	return render(groupOf(h), indent, depth)
}

// marshal is v as JSON, without escaping <, > and & (a shell command holds
// them).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings, numbers and lists of them always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// render is v as JSON indented with indent at depth ("" for one line).
func render(v any, indent string, depth int) string {
	compact := marshal(v)
	if indent == "" {
		return string(compact)
	}
	var b bytes.Buffer
	json.Indent(&b, compact, strings.Repeat(indent, depth), indent)
	return b.String()
}

// sameBut checks that before and after hold the same settings once the
// hooks ours says are one's own (and the groups and lists left empty
// without them) are taken out of both.
func sameBut(before, after []byte, ours func(string) bool) error {
	var a, b any
	if len(bytes.TrimSpace(before)) == 0 {
		before = []byte("{}")
	}
	if err := json.Unmarshal(before, &a); err != nil {
		return err
	}
	if err := json.Unmarshal(after, &b); err != nil {
		return fmt.Errorf("the result does not parse: %w", err)
	}
	if !reflect.DeepEqual(strip(a, ours), strip(b, ours)) {
		return errors.New("other settings differ")
	}
	return nil
}

func strip(v any, ours func(string) bool) any {
	root, ok := v.(map[string]any)
	if !ok {
		return v
	}
	hooks, ok := root["hooks"].(map[string]any)
	if !ok {
		return v
	}
	post, ok := hooks["PostToolUse"].([]any)
	if !ok {
		if len(hooks) == 0 { // as install's edit taken out leaves it
			delete(root, "hooks")
		}
		return v
	}
	var kept []any
	for _, g := range post {
		gm, ok := g.(map[string]any)
		hs, ok2 := gm["hooks"].([]any)
		if !ok || !ok2 {
			kept = append(kept, g)
			continue
		}
		var left []any
		for _, h := range hs {
			if hm, ok := h.(map[string]any); ok {
				if c, ok := hm["command"].(string); ok && ours(c) {
					continue
				}
			}
			left = append(left, h)
		}
		if len(left) == 0 && len(hs) > 0 {
			continue
		}
		gm["hooks"] = left
		kept = append(kept, gm)
	}
	switch {
	case len(kept) > 0:
		hooks["PostToolUse"] = kept
	case len(hooks) == 1:
		delete(root, "hooks")
	default:
		delete(hooks, "PostToolUse")
	}
	return root
}

// BackupSuffix names the copy Save leaves of what a file held.
const BackupSuffix = ".spillway.bak"

// Save writes data to f.Path atomically (a new file beside it, synced and
// renamed over it, with the old file's permissions), after copying what
// the file held to f.Path+BackupSuffix; it refuses when the file, its
// folder or the backup is a link, or the file changed since Load. It
// returns the backup's path, "" when the file did not exist.
func (f *File) Save(data []byte) (backup string, err error) {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if info, err := os.Lstat(dir); err != nil {
		return "", err
	} else if !info.IsDir() {
		return "", fmt.Errorf("%s is %s, not a folder: spillway does not write through a link", dir, safefile.Kind(info.Mode()))
	}
	// Another spillway editing the file waits for this one: each checks,
	// under the lock, that the file is still what it read, so that of two
	// edits at once one says it wrote nothing rather than both saying they
	// wrote and one being lost.
	unlock, err := lock(f.Path + lockSuffix)
	if err != nil {
		return "", err
	}
	defer unlock()
	mode := fs.FileMode(0o600)
	changed := fmt.Errorf("%s changed while spillway edited it; nothing written (run the command again)", f.Path)
	now, err := os.Lstat(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if f.Exists {
			return "", fmt.Errorf("%s was removed while spillway edited it; nothing written", f.Path)
		}
	case err != nil:
		return "", err
	case !f.Exists || !now.Mode().IsRegular() || now.Size() != f.info.Size() || !now.ModTime().Equal(f.info.ModTime()):
		return "", changed
	default:
		if cur, err := os.ReadFile(f.Path); err != nil || !bytes.Equal(cur, f.Data) {
			return "", changed // rewritten within the clock's tick, or read again as something else
		}
		mode = now.Mode().Perm()
	}
	if f.Exists {
		backup = f.Path + BackupSuffix
		if info, err := os.Lstat(backup); err == nil && !info.Mode().IsRegular() {
			return "", fmt.Errorf("%s is %s: spillway does not write through it", backup, safefile.Kind(info.Mode()))
		}
		if err := writeAtomic(backup, f.Data, 0o600); err != nil {
			return "", fmt.Errorf("back up %s: %w", f.Path, err)
		}
	}
	return backup, writeAtomic(f.Path, data, mode)
}

// lockSuffix names the lock file Save takes beside the settings file.
const lockSuffix = ".spillway.lock"

// lockWait bounds how long Save waits for another spillway's edit, and
// lockStale how old a lock is taken to be one a killed spillway left.
const lockWait, lockStale = 5 * time.Second, 30 * time.Second

// lock creates the lock file at path, holding a token of its own, waiting
// while another holds it, and returns what removes it: only while it
// still holds that token, so that a lock taken over as stale is not
// removed from under its new holder.
func lock(path string) (unlock func(), err error) {
	var b [8]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, werr := f.WriteString(token)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("lock %s: %w", path, werr)
			}
			return func() {
				if held, err := os.ReadFile(path); err == nil && string(held) == token {
					os.Remove(path)
				}
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if info, err := os.Lstat(path); err == nil && time.Since(info.ModTime()) > lockStale {
			breakStale(path, token)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another spillway editing the settings; nothing written (run the command again, or remove it if none is running)", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// breakStale takes away the stale lock at path: it is moved aside first,
// so that of two spillways breaking it at once one does, and a lock made
// since, fresh, is put back.
func breakStale(path, token string) {
	aside := path + "." + token
	if os.Rename(path, aside) != nil {
		return // the other one moved it
	}
	if info, err := os.Lstat(aside); err == nil && time.Since(info.ModTime()) <= lockStale {
		os.Link(aside, path) // a fresh one, moved by mistake: back, unless another is there
	}
	os.Remove(aside)
}

// writeAtomic writes data to a new file beside path, syncs it and renames
// it over path, which is then never half written; a link at path is
// replaced, not followed.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".spillway-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Chmod(mode)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return werr
	}
	if d, err := os.OpenFile(filepath.Dir(path), os.O_RDONLY|syscall.O_DIRECTORY, 0); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// ModTime is when the file was last written, zero when it did not exist.
func (f *File) ModTime() time.Time {
	if f.info == nil {
		return time.Time{}
	}
	return f.info.ModTime()
}
