package replay

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// runsAsStated is what runs' comment states, done the plain way: the
// whole text normalised first, each normalised byte's origin kept, then
// every window of runLen bytes weighed by itself.
func runsAsStated(text string, only *prefixSet, known map[string]bool, emit func(string, int, int)) {
	var norm []byte
	var origin []int
	space := true
	for i := 0; i < len(text); {
		if i == 0 || text[i-1] == '\n' {
			if i = skipLineNumber(text, i); i >= len(text) {
				break
			}
		}
		c := text[i]
		if strings.IndexByte(" \t\n\r", c) >= 0 {
			if !space {
				norm, origin = append(norm, ' '), append(origin, i)
			}
			space = true
		} else {
			norm, origin = append(norm, c), append(origin, i)
			space = false
		}
		i++
	}
	for s := 0; s+runLen <= len(norm); s++ {
		w := norm[s : s+runLen]
		if !isWordByte(w[0]) || s > 0 && isWordByte(norm[s-1]) || w[runLen-1] == ' ' {
			continue
		}
		if only != nil && !only.hasHash(runHash(string(w))) {
			continue
		}
		letters := 0
		for _, b := range w {
			if b|0x20 >= 'a' && b|0x20 <= 'z' {
				letters++
			}
		}
		end := origin[s+runLen-1] + 1
		cut := end < len(text) && isWordByte(w[runLen-1]) && isWordByte(text[end])
		if letters < minRunLetter || !wholeRunes(w) || boilerplate(w, cut, known) {
			continue
		}
		emit(string(w), origin[s], end)
	}
}

type foundRun struct {
	Key      string
	From, To int
}

func runsOf(text string, only *prefixSet, stated bool) []foundRun {
	var out []foundRun
	emit := func(key string, from, to int) { out = append(out, foundRun{strings.Clone(key), from, to}) }
	if stated {
		runsAsStated(text, only, wellKnown(), emit)
		return out
	}
	ts := tokenScanner{runsOnly: only}
	ts.runs(text, emit)
	return out
}

// TestRunsAsStated: the scanner's runs, found in one pass with a rolling
// hash, are those of the plain reading of its rule, on generated texts
// of numbered lines, odd whitespace and broken characters, with and
// without a set of hashes to look for.
func TestRunsAsStated(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"  12→", "\t", "\n", "\r\n", " ", "   ", "7\t", "→", "é", "\xff", "_", "-", "/", ".",
		"func", "describeOrderFailure", "return", "x", "0123456789", "\"quoted\"", "if err != nil {"}
	var texts []string
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(120) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	checkRunsAsStated(t, texts)
}

// TestRunsAsStatedRealLogs is TestRunsAsStated on every text of the
// shared logs.
func TestRunsAsStatedRealLogs(t *testing.T) {
	var texts []string
	for _, path := range sharedtest.Transcripts(t, "*.jsonl") {
		s, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Calls {
			texts = append(texts, c.Text)
			for _, r := range c.Results {
				texts = append(texts, r.Text)
			}
		}
	}
	checkRunsAsStated(t, texts)
}

func checkRunsAsStated(t *testing.T, texts []string) {
	t.Helper()
	checked := 0
	for i, text := range texts {
		want := runsOf(text, nil, true)
		if diff := cmp.Diff(want, runsOf(text, nil, false)); diff != "" {
			t.Fatalf("text %d %q: runs differ (-stated +scanned):\n%s", i, text[:min(len(text), 200)], diff)
		}
		// A set holding every other run's hash.
		var hashes []uint64
		for k, r := range want {
			if k%2 == 0 {
				hashes = append(hashes, runHash(r.Key))
			}
		}
		only := newPrefixSet(hashes)
		diff := cmp.Diff(runsOf(text, only, true), runsOf(text, only, false))
		clear(only.bits)
		prefixSets.Put(only)
		if diff != "" {
			t.Fatalf("text %d: runs with a set differ (-stated +scanned):\n%s", i, diff)
		}
		checked += len(want)
	}
	if checked == 0 {
		t.Fatal("no run found in any text")
	}
	t.Logf("%d texts, %d runs", len(texts), checked)
}
