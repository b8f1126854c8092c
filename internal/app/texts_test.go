package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"github.com/spillway-dev/spillway/internal/slowtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestFileTexts: every result's text read again from its line is the
// text the full read gives, and the session read without them is the
// full read's but for those texts, for Claude Code and Codex logs.
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
	fleet := t.TempDir()
	if _, err := corpus.WriteFleet(fleet, corpus.Fleet{Codex: 2, MeanCalls: 80, ResultBytes: 4096, Projects: 1}); err != nil {
		t.Fatal(err)
	}
	codex, _ := filepath.Glob(filepath.Join(fleet, "codex", "sessions", "*", "*", "*", "*.jsonl"))
	if len(codex) != 2 {
		t.Fatalf("%d Codex rollouts generated, want 2", len(codex))
	}
	files = append(files, codex...)
	realLog := map[string]bool{}
	if dir := sharedDir(t); dir != "" {
		for _, pattern := range []string{"claude-code_*.jsonl", "codex_*.jsonl"} {
			real, _ := filepath.Glob(filepath.Join(dir, "transcripts", pattern))
			files = append(files, real...)
			for _, p := range real {
				realLog[p] = true
			}
		}
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if realLog[path] {
				slowtest.OptIn(t, "reads a real log three ways")
			}
			full, err := Options{}.Load(Source{Name: path, Path: path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			dropped, texts, err := Options{}.LoadTexts(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if texts == nil {
				t.Fatal("a Claude Code or Codex log's texts are not read on demand")
			}
			defer texts.Close()
			// Read in full through a pool, its texts dropped once
			// prepared, the session is the one read without them.
			pool := NewFilePool(1, 0)
			defer pool.Close()
			pooled, _, err := Options{}.readTexts(path, nil, pool)
			if err != nil {
				t.Fatal(err)
			}
			dropTexts(pooled)
			reconcile([]*transcript.Session{pooled})
			if d := cmp.Diff(dropped, pooled); d != "" {
				t.Errorf("session (-read without texts +read in full, texts dropped):\n%s", d)
			}
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

// TestFilePool: texts read through a pool are the full read's, with no
// more files open than the pool's bound once the reads are done; the
// texts kept are not read again; and a file replaced, cut or written
// since it was read gives ErrFileChanged, never another file's text.
func TestFilePool(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for seed := range uint64(5) {
		var buf bytes.Buffer
		if _, err := corpus.WriteSession(&buf, seed, 30, 4096); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", seed))
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	pool := NewFilePool(2, 1<<20)
	defer pool.Close()
	type read struct {
		texts *FileTexts
		full  []*transcript.ToolResult
		held  []*transcript.ToolResult
	}
	var reads []read
	for _, path := range paths {
		full, err := Options{}.Load(Source{Name: path, Path: path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, texts, err := Options{}.readTexts(path, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		if texts == nil || texts.f != nil {
			t.Fatalf("%s: texts %v, its file held open", path, texts)
		}
		dropTexts(s)
		reads = append(reads, read{texts, full.Results(), s.Results()})
	}
	for pass := range 2 {
		before := pool.ReadBytes()
		for _, rd := range reads {
			for i, r := range rd.held {
				got, err := rd.texts.Text(r)
				if err != nil {
					t.Fatal(err)
				}
				if got != rd.full[i].Text {
					t.Fatalf("%s line %d: read %q, full read %q", rd.texts.path, r.Line, clip(got), clip(rd.full[i].Text))
				}
			}
		}
		pool.mu.Lock()
		open := pool.lru.Len()
		pool.mu.Unlock()
		if open > 2 {
			t.Errorf("pass %d: %d files open, bound 2", pass, open)
		}
		read := pool.ReadBytes() - before
		switch {
		case pass == 0 && read == 0:
			t.Error("no line read")
		case pass == 1 && read != 0:
			t.Errorf("%d bytes read again for texts kept", read)
		}
	}

	// Each way a file stops being the one read.
	last := func(rd read) *transcript.ToolResult {
		for i := len(rd.held) - 1; i >= 0; i-- {
			if rd.held[i].DroppedBytes > 0 {
				return rd.held[i]
			}
		}
		t.Fatal("no result with a text")
		return nil
	}
	fresh := NewFilePool(2, 0) // keeps no text: each is read from the file
	defer fresh.Close()
	for name, change := range map[string]func(path string) error{
		"replaced": func(path string) error {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.WriteFile(path+".new", data, 0o644); err != nil {
				return err
			}
			return os.Rename(path+".new", path)
		},
		"cut": func(path string) error {
			st, err := os.Stat(path)
			if err != nil {
				return err
			}
			return os.Truncate(path, st.Size()/2)
		},
		"appended to": func(path string) error {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString("{}\n")
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			data, err := os.ReadFile(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, texts, err := Options{}.readTexts(path, nil, fresh)
			if err != nil {
				t.Fatal(err)
			}
			dropTexts(s)
			r := last(read{held: s.Results()})
			if _, err := texts.Text(r); err != nil {
				t.Fatalf("before the change: %v", err)
			}
			if err := change(path); err != nil {
				t.Fatal(err)
			}
			if _, err := texts.Text(r); !errors.Is(err, ErrFileChanged) {
				t.Fatalf("file %s: got %v, want ErrFileChanged", name, err)
			}
		})
	}
}
