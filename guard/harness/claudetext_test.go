package harness

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The numbered texts are what Claude Code 2.1.328 sent a stand-in model
// for these Read results (the first three), what the shared logs of 2.1.22
// and 1.0.17 hold (the arrow and padded forms), and what a session with
// the tab-aware separator on would send.
func TestNumberRead(t *testing.T) {
	for _, c := range []struct {
		name, content, sent string
		n                   ReadNumbering
	}{
		{"tab", "alpha\n\tbeta\ngamma", "1\talpha\n2\t\tbeta\n3\tgamma", ReadNumbering{Start: 1, Sep: "\t"}},
		{"blank lines at the end", "one\ntwo\n\n\n", "1\tone\n2\ttwo\n3\t\n4\t\n5\t", ReadNumbering{Start: 1, Sep: "\t"}},
		{"offset", "line 2990\nline 2991", "2990\tline 2990\n2991\tline 2991", ReadNumbering{Start: 2990, Sep: "\t"}},
		{"arrow and reminder", "[package]\nname = \"x\"\n", "     1→[package]\n     2→name = \"x\"\n     3→\n\n<system-reminder>\nnote\n</system-reminder>\n",
			ReadNumbering{Start: 1, Width: 6, Sep: "→", Suffix: "\n\n<system-reminder>\nnote\n</system-reminder>\n"}},
		{"padded tab", "a\nb", "    55\ta\n    56\tb", ReadNumbering{Start: 55, Width: 6, Sep: "\t"}},
		{"a last line ended", "a\nb", "     1→a\n     2→b\n", ReadNumbering{Start: 1, Width: 6, Sep: "→", Suffix: "\n"}},
		{"colon for tabs", "x\n\ty", "1:x\n2:\ty", ReadNumbering{Start: 1, Sep: "\t", ColonForTabs: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := NumberRead(c.content, c.n); got != c.sent {
				t.Errorf("NumberRead = %q, want %q", got, c.sent)
			}
			content, n, ok := UnnumberRead(c.sent)
			if !ok || content != c.content {
				t.Fatalf("UnnumberRead = %q, %v, want %q", content, ok, c.content)
			}
			if diff := cmp.Diff(c.n, n); diff != "" {
				t.Errorf("numbering (-want +got):\n%s", diff)
			}
		})
	}
	// A replacement with a line ending in "\r" and a last "\n": what
	// 2.1.328 sent when a hook replaced a Read's content with it.
	if got := NumberRead("REPLACED\n\tline two\r\nthree\n", ReadNumbering{Start: 1, Sep: "\t"}); got != "1\tREPLACED\n2\t\tline two\n3\tthree\n4\t" {
		t.Errorf("replacement numbered as %q", got)
	}
	if got := ReadContent("a\r\nb\rc\r"); got != "a\nb\rc" {
		t.Errorf("ReadContent = %q", got)
	}
}

// Texts that are not numbered lines are left alone.
func TestUnnumberReadRefuses(t *testing.T) {
	for _, text := range []string{
		"<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
		ClaudeReadStub,
		"1\ta\n3\tb",    // a number skipped
		"1\ta\n\nmore",  // a blank line not before a reminder
		"1:a\n2:b",      // ":" without a line that opens with a tab
		"1\ta\n 2\tb",   // padding that the first line did not have
		"1234567890\tx", // no Read has so many lines
		"x1\ta", "", "\t1\ta",
	} {
		if content, _, ok := UnnumberRead(text); ok {
			t.Errorf("UnnumberRead(%q) = %q, want it refused", text, content)
		}
	}
}

// Claude Code 2.1.328 sent "  lead\ntrail" for the output "\n\n  lead\ntrail  \n\n",
// and "  REPLACED bash" for a hook's stdout "  \n\n  REPLACED bash\n  \n".
func TestBashOutput(t *testing.T) {
	for in, want := range map[string]string{
		"\n\n  lead\ntrail  \n\n":       "  lead\ntrail",
		"  \n\n  REPLACED bash\n  \n":   "  REPLACED bash",
		"out\n\nerr":                    "out\n\nerr",
		"":                              "",
		" \t\n\u00a0\n x\u3000\n\u2028": " x",
		"\u2028\nx":                     "x",
	} {
		if got := BashOutput(in); got != want {
			t.Errorf("BashOutput(%q) = %q, want %q", in, got, want)
		}
	}
	if !ClaudeBlank(" \n\u00a0") || ClaudeBlank(" x ") {
		t.Error("ClaudeBlank")
	}
}

// The message 2.1.328 sent for `seq 1 40000` (228,894 bytes), which it had
// persisted itself: its first 2,000 characters cut back to line 527.
func TestClaudePersisted(t *testing.T) {
	var out strings.Builder
	for i := 1; i <= 40000; i++ {
		fmt.Fprintf(&out, "%d\n", i)
	}
	path := "/c/projects/-w/68fc7b6c/tool-results/bugsjacqy.txt"
	got := ClaudePersisted(int64(out.Len()), path, BashOutput(out.String()[:30000]), ClaudePreviewUnits, true)
	var preview strings.Builder
	for i := 1; i <= 527; i++ {
		fmt.Fprintf(&preview, "%d\n", i)
	}
	want := "<persisted-output>\nOutput too large (223.5KB). Full output saved to: " + path +
		"\n\nPreview (first 2KB):\n" + preview.String() + "...\n</persisted-output>"
	if got != want {
		t.Errorf("ClaudePersisted:\n%s", cmp.Diff(want, got))
	}
	p, after, ok := ClaudePersistedPath(got + "\nnote")
	if !ok || p != path || after != "\nnote" {
		t.Errorf("ClaudePersistedPath = %q, %q, %v", p, after, ok)
	}
	if _, _, ok := ClaudePersistedPath("<persisted-output>\nOutput too large (1KB)."); ok {
		t.Error("ClaudePersistedPath took a message without its file")
	}
}

func TestClaudeOwnLimit(t *testing.T) {
	for tool, want := range map[string]int64{"Bash": 30_000, "Grep": 20_000, "Glob": 50_000, "mcp__s__t": 50_000} {
		if got, ok := ClaudeOwnLimit(tool); !ok || got != want {
			t.Errorf("ClaudeOwnLimit(%s) = %d, %v", tool, got, ok)
		}
	}
	if _, ok := ClaudeOwnLimit("Read"); ok {
		t.Error("Claude Code persists no Read")
	}
}

// ReadOffset finds each byte of the content where NumberRead put it.
func TestReadOffset(t *testing.T) {
	for _, n := range []ReadNumbering{{Start: 1, Sep: "\t"}, {Start: 98, Width: 6, Sep: "→"}} {
		for _, content := range []string{"ab\ncd\n\nef", "x\n", "a"} {
			numbered := NumberRead(content, n)
			for off := 0; off < len(content); off++ {
				if at := ReadOffset(content, n, off, false); numbered[at] != content[off] {
					t.Errorf("%q byte %d at %d of %q", content, off, at, numbered)
				}
				if end := ReadOffset(content, n, off+1, true); numbered[end-1] != content[off] {
					t.Errorf("%q: the end of its first %d bytes at %d of %q", content, off+1, end, numbered)
				}
			}
			if got := ReadOffset(content, n, 0, true); got != 0 {
				t.Errorf("the end of nothing at %d", got)
			}
		}
	}
}

func TestReadPrefixWidths(t *testing.T) {
	for _, c := range []struct {
		n    ReadNumbering
		num  int
		want string
	}{{ReadNumbering{Width: 6}, 1, "     1\t"}, {ReadNumbering{Width: 6}, 1234567, "1234567\t"}, {ReadNumbering{Width: 14}, 10, "            10\t"}, {ReadNumbering{}, 0, "0\t"}} {
		if got := c.n.prefixWith(c.num, "\t"); got != c.want {
			t.Errorf("%+v %d: %q", c.n, c.num, got)
		}
	}
}
