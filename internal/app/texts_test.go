package app

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestFileTexts: every result's text read again from its line is the
// text the full read gives, and the session read without them is the
// full read's but for those texts.
func TestFileTexts(t *testing.T) {
	var buf bytes.Buffer
	if err := corpus.WriteMixed(&buf, 3, 400); err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(t.TempDir(), "mixed.jsonl")
	if err := os.WriteFile(mixed, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{mixed, filepath.Join("..", "..", "testdata", "demo.jsonl")}
	if dir := sharedDir(t); dir != "" {
		real, _ := filepath.Glob(filepath.Join(dir, "transcripts", "claude-code_*.jsonl"))
		files = append(files, real...)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			full, err := Options{}.Load(Source{Name: path, Path: path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			dropped, texts, err := Options{}.LoadTexts(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if texts == nil {
				t.Fatal("a Claude Code log's texts are not read on demand")
			}
			defer texts.Close()
			want, got := full.Results(), dropped.Results()
			if len(want) != len(got) {
				t.Fatalf("%d results read in full, %d without texts", len(want), len(got))
			}
			for i, r := range got {
				w := want[i]
				if r.Text != "" || r.Bytes() != w.Bytes() {
					t.Fatalf("result %d (line %d): kept %d bytes of text, measured %d (full read %d)", i, r.Line, len(r.Text), r.Bytes(), w.Bytes())
				}
				text, err := texts.Text(r)
				if err != nil {
					t.Fatal(err)
				}
				if text != w.Text {
					t.Fatalf("result %d (line %d): read again %q, full read %q", i, r.Line, clip(text), clip(w.Text))
				}
				r.Text, r.DroppedBytes = text, 0
			}
			if d := cmp.Diff(full, dropped); d != "" {
				t.Errorf("session (-full +without texts, given them back):\n%s", d)
			}
		})
	}
}

// TestFileTextsChanged: a text whose line no longer holds it is an error
// that says the file changed, and how.
func TestFileTextsChanged(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, texts, err := Options{}.LoadTexts(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer texts.Close()
	var last *transcript.ToolResult
	for _, r := range s.Results() {
		if r.DroppedBytes > 0 {
			last = r
		}
	}
	if err := os.Truncate(path, int64(len(data)/2)); err != nil {
		t.Fatal(err)
	}
	_, err = texts.Text(last)
	if !errors.Is(err, ErrFileChanged) {
		t.Fatalf("file cut: got %v, want ErrFileChanged", err)
	}
	if want := "cut from"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("error %q does not say the file was cut", err)
	}
}

func sharedDir(t *testing.T) (dir string) {
	defer func() {
		if recover() != nil {
			dir = ""
		}
	}()
	ok := t.Run("shared", func(t *testing.T) { dir = sharedtest.Dir(t) })
	if !ok {
		return ""
	}
	return dir
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestPlannedSpillsOnDemand: the spill files a replay plans for a session
// whose texts are read again when needed are written as those of the
// session read in full, under every preset that spills.
func TestPlannedSpillsOnDemand(t *testing.T) {
	var buf bytes.Buffer
	if err := corpus.WriteMixed(&buf, 5, 300); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mixed.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	full, err := Options{}.Load(Source{Name: path, Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dropped, texts, err := Options{}.LoadTexts(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer texts.Close()
	spilled := 0
	for _, pol := range policy.Presets() {
		if pol.Action != policy.Spill {
			continue
		}
		pol.SetCeiling(4096)
		written := func(s *transcript.Session, src replay.TextSource) map[string]string {
			root := t.TempDir()
			o := Options{Prices: pricing.Default(), Counter: Tokenizer(tokens.O200kBase), SpillRoot: root}
			p, err := o.PrepareTexts(context.Background(), s, nil, src)
			if err != nil {
				t.Fatal(err)
			}
			_, planned, err := o.ReplayPlanned(p, pol)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := planned.WriteAll(); err != nil {
				t.Fatal(err)
			}
			files := map[string]string{}
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					b, _ := os.ReadFile(p)
					rel, _ := filepath.Rel(root, p)
					files[rel] = string(b)
				}
				return nil
			})
			return files
		}
		want, got := written(full, nil), written(dropped, texts)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: spill files (-full read +texts on demand):\n%s", pol.Name, d)
		}
		spilled += len(want)
	}
	if spilled == 0 {
		t.Fatal("no preset spilled a result")
	}
}
