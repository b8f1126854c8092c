package spill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/harness"
)

// TestPlanned: a planned file gets the path Dir.Write gives it, nothing is
// written until asked, and what is written is what Dir.Write writes.
func TestPlanned(t *testing.T) {
	root := t.TempDir()
	dir := Dir{Root: root, Session: "s/1", Policy: "harness-rs-0.0.50"}
	p := &Planned{Dir: dir}
	a := harness.SpillFile{Locator: ".harness/spill/a-Read.txt", File: "a-Read.txt", Content: "alpha"}
	b := harness.SpillFile{Locator: ".harness/spill/b-Grep.txt", File: "b-Grep.txt", Content: "bravo"}
	pa, err := p.Write(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := p.Write(b)
	if want := filepath.Join(root, "s~2F1", "harness-rs-0.0.50", "a-Read.txt"); pa != want || p.Len() != 2 {
		t.Fatalf("planned at %s (%d files), want %s", pa, p.Len(), want)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("planning wrote %v", entries)
	}
	if _, err := p.Write(harness.SpillFile{File: "../x"}); err == nil || !strings.Contains(err.Error(), "not an escaped file name") {
		t.Errorf("an unescaped name was planned: %v", err)
	}
	if err := p.WriteOne(pa); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(pa); string(data) != "alpha" {
		t.Errorf("wrote %q", data)
	}
	if _, err := os.Stat(pb); err == nil {
		t.Error("writing one wrote the other")
	}
	if err := p.WriteOne(filepath.Join(root, "other")); err == nil {
		t.Error("wrote a file never planned")
	}
	if n, err := p.WriteAll(); n != 2 || err != nil {
		t.Errorf("WriteAll: %d, %v", n, err)
	}
	if direct, _ := dir.Write(b); direct != pb {
		t.Errorf("Dir.Write puts it at %s, planned at %s", direct, pb)
	}
}
