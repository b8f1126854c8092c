package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// node is a JSON value and where its bytes are, so that an edit touches
// only the bytes it changes.
type node struct {
	start, end int // the value's bytes
	depth      int // containers around it
	kind       byte
	str        string // a string's value, a literal's text
	// An object's members: each key, where it starts, and its value.
	keys      []string
	keyStarts []int
	vals      []*node
	elems     []*node // an array's
}

// parse reads data, which must be one JSON value; an error names the line.
func parse(data []byte) (*node, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("line %d: not JSON: %v", lineOf(data, int(se.Offset)), se)
		}
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	p := &parser{data: data}
	return p.value(0), nil
}

func lineOf(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

type parser struct {
	data []byte
	i    int
}

func (p *parser) space() {
	for p.i < len(p.data) && strings.IndexByte(" \t\r\n", p.data[p.i]) >= 0 {
		p.i++
	}
}

// value parses the value at p.i, which json.Valid has checked.
func (p *parser) value(depth int) *node {
	p.space()
	n := &node{start: p.i, depth: depth, kind: p.data[p.i]}
	switch n.kind {
	case '{':
		p.i++
		for {
			p.space()
			if p.data[p.i] == '}' {
				p.i++
				break
			}
			if p.data[p.i] == ',' {
				p.i++
				p.space()
			}
			keyStart := p.i
			key := p.string()
			p.space()
			p.i++ // ':'
			n.keys, n.keyStarts = append(n.keys, key), append(n.keyStarts, keyStart)
			n.vals = append(n.vals, p.value(depth+1))
		}
	case '[':
		p.i++
		for {
			p.space()
			if p.data[p.i] == ']' {
				p.i++
				break
			}
			if p.data[p.i] == ',' {
				p.i++
			}
			n.elems = append(n.elems, p.value(depth+1))
		}
	case '"':
		n.str = p.string()
	default:
		for p.i < len(p.data) && strings.IndexByte(",]} \t\r\n", p.data[p.i]) < 0 {
			p.i++
		}
		n.kind, n.str = 'n', string(p.data[n.start:p.i])
	}
	n.end = p.i
	return n
}

// string reads the string at p.i.
func (p *parser) string() string {
	start := p.i
	p.i++
	for p.data[p.i] != '"' {
		if p.data[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	var s string
	json.Unmarshal(p.data[start:p.i], &s)
	return s
}

// lookup is the value of an object's member key (the last, as JSON.parse
// keeps it); nil when n is no object or has none.
func lookup(n *node, key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.vals[i]
		}
	}
	return nil
}

func memberIndex(obj, val *node) int { return slices.Index(obj.vals, val) }

func depthOf(_ []byte, n *node) int { return n.depth }

// indentOf is the file's indent unit: the white space before the root's
// first key on its line; "" when the file is on one line.
func indentOf(data []byte, root *node) string {
	if root.kind != '{' || len(root.keyStarts) == 0 {
		return "  "
	}
	k := root.keyStarts[0]
	line := bytes.LastIndexByte(data[:k], '\n')
	if line < 0 {
		return ""
	}
	ws := string(data[line+1 : k])
	if strings.Trim(ws, " \t") != "" {
		return ""
	}
	return ws
}

// editor collects replacements of byte ranges, applied at once.
type editor struct {
	data   []byte
	indent string
	edits  []edit
}

type edit struct {
	start, end int
	text       string
}

func (e *editor) newline() string {
	if e.indent == "" {
		return ""
	}
	if bytes.Contains(e.data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

func (e *editor) at(depth int) string {
	return e.newline() + strings.Repeat(e.indent, depth)
}

func (e *editor) replace(n *node, text string) {
	if string(e.data[n.start:n.end]) != text {
		e.edits = append(e.edits, edit{n.start, n.end, text})
	}
}

// removeElems removes the elements idx (ascending) of an array, with the
// commas and white space that went with them.
func (e *editor) removeElems(arr *node, idx []int) {
	starts := make([]int, len(arr.elems))
	ends := make([]int, len(arr.elems))
	for i, el := range arr.elems {
		starts[i], ends[i] = el.start, el.end
	}
	e.remove(arr, starts, ends, idx)
}

// removeMembers removes the members idx (ascending) of an object.
func (e *editor) removeMembers(obj *node, idx []int) {
	ends := make([]int, len(obj.vals))
	for i, v := range obj.vals {
		ends[i] = v.end
	}
	e.remove(obj, obj.keyStarts, ends, idx)
}

// remove takes items out of a container: those before the first kept one
// up to its start, each later one from the end of the one before it, and,
// when none is kept, everything between the brackets.
func (e *editor) remove(n *node, starts, ends, idx []int) {
	if len(idx) == 0 {
		return
	}
	gone := map[int]bool{}
	for _, i := range idx {
		gone[i] = true
	}
	first := -1
	for i := range starts {
		if !gone[i] {
			first = i
			break
		}
	}
	if first < 0 {
		e.edits = append(e.edits, edit{n.start + 1, n.end - 1, ""})
		return
	}
	if first > 0 {
		e.edits = append(e.edits, edit{starts[0], starts[first], ""})
	}
	for i := first + 1; i < len(starts); i++ {
		if gone[i] {
			e.edits = append(e.edits, edit{ends[i-1], ends[i], ""})
		}
	}
}

// appendElem adds text as the array's last element.
func (e *editor) appendElem(arr *node, text string) {
	if len(arr.elems) == 0 {
		e.edits = append(e.edits, edit{arr.start + 1, arr.end - 1, e.at(arr.depth+1) + text + e.at(arr.depth)})
		return
	}
	e.edits = append(e.edits, edit{arr.elems[len(arr.elems)-1].end, arr.elems[len(arr.elems)-1].end, "," + e.at(arr.depth+1) + text})
}

// addMember adds key: v as the object's last member.
func (e *editor) addMember(obj *node, key string, v any) {
	sep := ":"
	if e.indent != "" {
		sep = ": "
	}
	member := string(marshal(key)) + sep + render(v, e.indent, obj.depth+1)
	if len(obj.vals) == 0 {
		e.edits = append(e.edits, edit{obj.start + 1, obj.end - 1, e.at(obj.depth+1) + member + e.at(obj.depth)})
		return
	}
	last := obj.vals[len(obj.vals)-1].end
	e.edits = append(e.edits, edit{last, last, "," + e.at(obj.depth+1) + member})
}

// apply makes the edits, which do not overlap.
func (e *editor) apply() []byte {
	slices.SortFunc(e.edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	at := 0
	for _, ed := range e.edits {
		out.Write(e.data[at:ed.start])
		out.WriteString(ed.text)
		at = ed.end
	}
	out.Write(e.data[at:])
	return out.Bytes()
}
