package spillview

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLineBound: a file of more lines than maxLines is shown up to that
// many, its note saying how much follows; the index holds no more, so a
// file of millions of empty lines costs what maxLines of them do (a
// gigabyte of newlines took 8.4 GB).
func TestLineBound(t *testing.T) {
	defer func(n int) { maxLines = n }(maxLines)
	maxLines = 1 << 16
	path := filepath.Join(t.TempDir(), "newlines.txt")
	const size = 16 << 20
	if err := os.WriteFile(path, bytes.Repeat([]byte{'\n'}, size), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := Open(Source{Path: path, Note: "spilled by spillway"})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Lines() != maxLines || d.Size() != int64(maxLines) {
		t.Errorf("%d lines of %d bytes shown, want %d of %d", d.Lines(), d.Size(), maxLines, maxLines)
	}
	// 65,536 lines shown, 16 MiB less 64 KiB = 16,711,680 bytes left.
	if want := "spilled by spillway; only the first 65,536 lines are shown: 15.9 MiB more follow"; d.Source().Note != want {
		t.Errorf("note %q, want %q", d.Source().Note, want)
	}
	// The index of every line would be 128 MiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("opening took %d MiB", grew>>20)
	}
	if found, err := d.Search("x"); err != nil || len(found) != 0 {
		t.Errorf("Search = %v, %v", found, err)
	}
}

// TestWriteText: the pager's copy is the text, each line escaped (one
// longer than a read whole, no rune cut), the note under the title, and
// stops at the bound saying how much is left.
func TestWriteText(t *testing.T) {
	// 6 + 30 + 400,000 + 1 + 4 = 400,041 bytes.
	text := "plain\n\x1b]52;c;ZXZpbA==\x07 and \x1b[31mred\r\n" + strings.Repeat("é", 200_000) + "\nlast"
	tests := []struct {
		limit int64
		want  string
	}{
		{1 << 20, "title \\x1b[2J\nnote\n\nplain\n\\x1b]52;c;ZXZpbA==\\x07 and \\x1b[31mred\n" + strings.Repeat("é", 200_000) + "\nlast\n"},
		// 400,035 bytes left = 390.66 KiB.
		{6, "title \\x1b[2J\nnote\n\nplain\n\n… 390.7 KiB more not copied here: the spill viewer (enter) shows it\n"},
	}
	for _, tt := range tests {
		d, err := Open(Source{Text: text, Note: "note"})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := d.WriteText(&b, "title \x1b[2J", tt.limit); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("limit %d: %q…, want %q…", tt.limit, got[:min(len(got), 200)], tt.want[:min(len(tt.want), 200)])
		}
	}
}
