package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// sessionSummary is the shape sessionJSON writes without calls, as
// encoding/json writes it: the session's fields, those set here hiding its
// own, and the sub-agents' summaries last.
type sessionSummary struct {
	*Session
	Calls     *struct{}        `json:"calls,omitempty"`
	Results   *struct{}        `json:"results,omitempty"`
	Events    *struct{}        `json:"events,omitempty"`
	Subagents []sessionSummary `json:"subagents,omitempty"`
}

func summaryOf(s *Session) sessionSummary {
	out := sessionSummary{Session: s}
	for _, sub := range s.Subagents {
		out.Subagents = append(out.Subagents, summaryOf(sub))
	}
	return out
}

// sameAsStandard fails t where sessionJSON writes s otherwise than
// encoding/json, with calls and without.
func sameAsStandard(t *testing.T, s *Session) {
	t.Helper()
	for _, calls := range []bool{true, false} {
		var v any = s
		if !calls {
			v = summaryOf(s)
		}
		want, wantErr := json.Marshal(v)
		got, err := sessionJSON(s, calls)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("calls %v: error %v, encoding/json's %v", calls, err, wantErr)
		}
		// A report holds sessions rendered while it waits on those
		// they are reconciled with: 2,000 summaries held 1.3 KB a call.
		// (The allocator rounds a small buffer up by a size class.)
		if spare := cap(got) - len(got); err == nil && spare > len(got)/8+1024 {
			t.Fatalf("calls %v: %d bytes held for %d of JSON", calls, cap(got), len(got))
		}
		if err == nil && !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("calls %v: differs from encoding/json at byte %d:\n got %q\nwant %q", calls, i,
				got[max(0, i-60):min(len(got), i+60)], want[max(0, i-60):min(len(want), i+60)])
		}
	}
}

// filler sets every exported field it reaches, cycling through values
// that exercise each of encoding/json's rules.
type filler struct {
	strs   []string
	floats []float64
	n      int
}

func newFiller() *filler {
	return &filler{
		strs: []string{"plain", "a<b>&c", "q\"b\\s/", "\b\f\n\r\t\x00\x1f\x7f", "é ü 漢字 🙂",
			"\u2028\u2029", "bad \xff\xfe utf8 \xe2\x82", "\u200b\u202e\u0085", ""},
		floats: []float64{0.1, 1e-7, 1e21, 123456.789, 3e-5, -0.5, 0, 1e-6, 9.99e20, 0.0033277500000000004},
	}
}

func (f *filler) fill(v reflect.Value, depth int) {
	f.n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.strs[f.n%len(f.strs)])
	case reflect.Bool:
		v.SetBool(f.n%2 == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n*37) - 50)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.n * 41))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(f.floats[f.n%len(f.floats)])
	case reflect.Pointer:
		if depth > 3 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if depth > 3 {
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			f.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k, depth+1)
			f.fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 9, 16, 0, f.n%60, f.n*1000, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth)
			}
		}
	}
}

// TestSessionJSONAsStandard holds the hand-written session JSON to
// encoding/json's bytes: with every field of every type set (so a field
// added and not written fails here), with every one left zero, on
// values JSON cannot hold, and on every shared log replayed.
func TestSessionJSONAsStandard(t *testing.T) {
	t.Run("every field", func(t *testing.T) {
		f := newFiller()
		for range 3 { // the fill cycles through different values each time
			var s Session
			f.fill(reflect.ValueOf(&s).Elem(), 0)
			if len(s.Calls) == 0 || s.Calls[0].CostDetail == nil || s.Calls[0].CostDetail.Rewrite == nil ||
				len(s.Results) == 0 || s.Results[0].Hazard == nil || s.Results[0].Text == nil ||
				len(s.Subagents) == 0 || len(s.Subagents[0].Calls) == 0 {
				t.Fatal("the filler left fields empty")
			}
			sameAsStandard(t, &s)
		}
	})
	t.Run("zero", func(t *testing.T) {
		sameAsStandard(t, &Session{})
		sameAsStandard(t, &Session{Calls: []Call{{}}, Results: []Result{{Hazard: &Hazard{}}}, Subagents: []*Session{{}}})
	})
	t.Run("refused", func(t *testing.T) {
		nan, year := math.NaN(), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
		sameAsStandard(t, &Session{Calls: []Call{{CostUSD: &nan}}})
		sameAsStandard(t, &Session{Calls: []Call{{Time: &year}}})
		sameAsStandard(t, &Session{Calls: []Call{{CostParts: &CostParts{Output: math.Inf(1)}}}})
	})
	t.Run("shared logs", func(t *testing.T) {
		dir := filepath.Join(sharedtest.Dir(t), "transcripts")
		pol, err := policy.Preset(policy.DefaultPreset)
		if err != nil {
			t.Fatal(err)
		}
		for _, texts := range []bool{false, true} {
			k := &keptSessions{}
			opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase),
				SpillRoot: t.TempDir(), Texts: texts}
			if _, err := Generate([]string{dir}, nil, opt, k, io.Discard); err != nil {
				t.Fatal(err)
			}
			if len(k.sessions) < 10 {
				t.Fatalf("%d sessions read", len(k.sessions))
			}
			hazards := 0
			for _, s := range k.sessions {
				hazards += s.Totals.Hazards.Total()
				sameAsStandard(t, s)
			}
			if hazards == 0 {
				t.Error("no hazard among the shared logs: the policy cut nothing")
			}
		}
	})
}

// keptSessions is a Writer that keeps what it is given.
type keptSessions struct {
	mu       sync.Mutex // Render runs on several goroutines
	sessions []*Session
}

func (k *keptSessions) Begin() error { return nil }
func (k *keptSessions) Render(s *Session) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sessions = append(k.sessions, s)
	return nil, nil
}
func (k *keptSessions) Write([]byte) error { return nil }
func (k *keptSessions) End() error         { return nil }

// TestJSONWriterReusesWritten: a session the JSON writer renders into the
// buffer of one it wrote before is what it renders alone, whether the one
// before was larger or smaller; a buffer too large to keep is let go.
func TestJSONWriterReusesWritten(t *testing.T) {
	pol, err := policy.Preset(policy.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	k := &keptSessions{}
	opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase), SpillRoot: t.TempDir()}
	if _, err := Generate([]string{filepath.Join(sharedtest.Dir(t), "transcripts")}, nil, opt, k, io.Discard); err != nil {
		t.Fatal(err)
	}
	// Largest, smallest, next largest, next smallest...
	slices.SortFunc(k.sessions, func(a, b *Session) int { return cmp.Compare(len(b.Calls), len(a.Calls)) })
	var order []*Session
	for i, j := 0, len(k.sessions)-1; i <= j; i, j = i+1, j-1 {
		order = append(order, k.sessions[i])
		if i < j {
			order = append(order, k.sessions[j])
		}
	}
	w, err := NewWriter("json", io.Discard, "")
	if err != nil {
		t.Fatal(err)
	}
	written := map[*byte]bool{}
	reused := 0
	for _, s := range order {
		got, err := w.Render(s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sessionJSON(s, true)
		if err != nil {
			t.Fatal(err)
		}
		if want = termtext.JSON(want); !bytes.Equal(got, want) {
			t.Fatalf("%s (%d calls) rendered after others differs from it rendered alone", s.Path, len(s.Calls))
		}
		if written[unsafe.SliceData(got)] {
			reused++
		}
		written[unsafe.SliceData(got)] = true
		if err := w.Write(got); err != nil {
			t.Fatal(err)
		}
	}
	if reused == 0 {
		t.Errorf("none of %d sessions was rendered into a buffer written before", len(order))
	}
	// A rendering too large to keep is not kept.
	large, _ := NewWriter("json", io.Discard, "")
	if err := large.Write(make([]byte, keptRendering+1)); err != nil {
		t.Fatal(err)
	}
	if b, ok := large.(*jsonWriter).reuse(); ok {
		t.Errorf("a rendering of %d bytes is kept for the next session", cap(b))
	}
}
