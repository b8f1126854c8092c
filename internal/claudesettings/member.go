package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Member is the JSON text of the settings' top-level member key as the
// file holds it (the last, as Claude Code reads it); ok is false when it
// has none or the file is empty.
func (f *File) Member(key string) (raw []byte, ok bool) {
	if len(bytes.TrimSpace(f.Data)) == 0 {
		return nil, false
	}
	root, err := parse(f.Data)
	if err != nil {
		return nil, false
	}
	n := lookup(root, key)
	if n == nil {
		return nil, false
	}
	return f.Data[n.start:n.end], true
}

// SetMember returns the file's text with its top-level member key set to
// v (as encoding/json writes it, in the file's indentation): its value is
// replaced where it stands, or the member is added last. Every other byte
// is as it was; the text is the file's when v is there already.
func (f *File) SetMember(key string, v any) ([]byte, error) {
	return f.editMember(key, v, true)
}

// RemoveMember returns the file's text without its top-level member key,
// and the comma and white space that went with it.
func (f *File) RemoveMember(key string) ([]byte, error) {
	return f.editMember(key, nil, false)
}

func (f *File) editMember(key string, v any, set bool) ([]byte, error) {
	data := f.Data
	if len(bytes.TrimSpace(data)) == 0 {
		if !set {
			return data, nil
		}
		data = []byte("{}\n")
	}
	root, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	if root.kind != '{' {
		return nil, fmt.Errorf("%s: line %d: the settings are not a JSON object", f.Path, lineOf(data, root.start))
	}
	ed := &editor{data: data, indent: indentOf(data, root)}
	var at []int
	for i, k := range root.keys {
		if k == key {
			at = append(at, i)
		}
	}
	switch {
	case !set:
		ed.removeMembers(root, at)
	case len(at) == 0:
		ed.addMember(root, key, v)
	default:
		// Earlier copies of the key are dropped: Claude Code reads the last.
		last := root.vals[at[len(at)-1]]
		ed.replace(last, render(v, ed.indent, last.depth))
		ed.removeMembers(root, at[:len(at)-1])
	}
	out := ed.apply()
	if err := sameButMember(data, out, key, v, set); err != nil {
		return nil, fmt.Errorf("%s: spillway's edit would have changed more than %q (%v); nothing written", f.Path, key, err)
	}
	return out, nil
}

// sameButMember checks that before and after hold the same settings but
// for the member key, which after holds as v when set, and not at all
// otherwise.
func sameButMember(before, after []byte, key string, v any, set bool) error {
	var a, b map[string]any
	if len(bytes.TrimSpace(before)) == 0 {
		before = []byte("{}")
	}
	if err := json.Unmarshal(before, &a); err != nil {
		return err
	}
	if err := json.Unmarshal(after, &b); err != nil {
		return fmt.Errorf("the result does not parse: %w", err)
	}
	got, has := b[key]
	if set {
		var want any
		if err := json.Unmarshal(marshal(v), &want); err != nil {
			return err
		}
		if !has || !reflect.DeepEqual(got, want) {
			return errors.New("the member is not as asked")
		}
	} else if has {
		return errors.New("the member is still there")
	}
	delete(a, key)
	delete(b, key)
	if !reflect.DeepEqual(a, b) {
		return errors.New("other settings differ")
	}
	return nil
}
