package harness

import (
	"os"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// canonicalSeeds are inputs of the shapes the walk in place takes and of
// those it leaves to decoding.
var canonicalSeeds = []string{
	`{"file_path":"/src/main.go","limit":200,"offset":1}`,
	` { "b" : [1, -2.5e+3, true, false, null, {"z":{},"a":[]}], "a" : "x" } `,
	`{"pattern":"\\s+","path":"a\"b"}`, `{"a":1,"a":2}`, `{"a":"\u00e9"}`, `{"é":"ü"}`,
	`[]`, `{}`, `"x"`, `0`, `-0.0`, `01`, `1.`, `.5`, `1e`, `-`, `tru`, `{"a":1} x`, `{"a":1}{}`,
	"{\"a\":\"\xff\"}", "{\"a\":\"\t\"}", `{"a":}`, `{"a" 1}`, `{1:2}`, `[1,]`, `[,1]`, strings.Repeat("[", 20000),
}

// TestCanonicalJSON: the walk in place writes every input as decoding it
// and writing the value does, on the seeds and on every tool call's input
// of the shared logs.
func TestCanonicalJSON(t *testing.T) {
	check := func(t *testing.T, inputs []string) {
		fast := 0
		for _, in := range inputs {
			got, want := CanonicalJSON([]byte(in)), canonicalSlow([]byte(in))
			if in == "" {
				want = "null"
			}
			if got != want {
				t.Errorf("CanonicalJSON(%.80q) = %.80q, decoded and written %.80q", in, got, want)
			}
			var c canonical
			if end, ok := c.value([]byte(in), skipSpace([]byte(in), 0)); ok && skipSpace([]byte(in), end) == len(in) {
				fast++
			}
		}
		if fast == 0 {
			t.Error("no input was walked in place")
		}
		t.Logf("%d of %d inputs walked in place", fast, len(inputs))
	}
	t.Run("seeds", func(t *testing.T) { check(t, canonicalSeeds) })
	t.Run("shared logs", func(t *testing.T) {
		var inputs []string
		for _, p := range sharedtest.Transcripts(t, "*.jsonl") {
			if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
				continue
			}
			s, err := transcript.ReadFile(p, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range s.Results() {
				inputs = append(inputs, string(r.Input))
			}
		}
		check(t, inputs)
	})
}

// FuzzCanonicalJSON: for any bytes, the walk in place agrees with
// decoding.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 {
			return
		}
		if got, want := CanonicalJSON(raw), canonicalSlow(raw); got != want {
			t.Fatalf("CanonicalJSON(%q) = %q, decoded and written %q", raw, got, want)
		}
	})
}
